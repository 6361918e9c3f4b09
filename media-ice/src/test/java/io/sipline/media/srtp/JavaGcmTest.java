package io.sipline.media.srtp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link JavaGcm} (GHASH by each of its tables, GCTR on the ECB path) against the JDK's
 * {@code AES/GCM/NoPadding}, an independent implementation (CLMUL): random keys of 16 and 32 octets, IVs,
 * associated data of 0 to 70 octets split into up to three {@code aad} calls at random points (SRTCP splits its
 * AAD), texts of 0 to 1,500 octets at random offsets; then every tag and text octet flipped in turn must fail and
 * leave the buffer as it was. Also the AES-GCM test cases 2 to 4 of McGrew and Viega's GCM specification (the test
 * vectors SP 800-38D's validation uses).
 */
class JavaGcmTest
{
    private static final HexFormat HEX = HexFormat.of();

    /**
     * The surefire argLine opens {@code com.sun.crypto.provider} (as {@code bin/sipline} and the benchmarks do), so the
     * JDK's GHASH must be reachable here and be the default; without it the tests below would not test that path.
     * Its bounds are checked before the stub (which checks nothing) is called.
     */
    @Test
    void shouldReachTheJdkGhashAndCheckItsBounds()
    {
        assertTrue(JdkGhash.AVAILABLE, () -> "JDK GHASH unavailable: " + JdkGhash.UNAVAILABLE_REASON);
        assertEquals(JavaGcm.Table.JDK, JavaGcm.TABLE);
        final long[] subkey = new long[JdkGhash.SUBKEY_LONGS];
        JdkGhash.key(subkey, 1, 2);
        final long[] state = new long[2];
        final byte[] data = new byte[48];
        assertThrows(IllegalArgumentException.class, () -> JdkGhash.process(data, 40, 16, state, subkey));
        assertThrows(IllegalArgumentException.class, () -> JdkGhash.process(data, -16, 16, state, subkey));
        assertThrows(IllegalArgumentException.class, () -> JdkGhash.process(data, 0, 15, state, subkey));
        assertThrows(IllegalArgumentException.class, () -> JdkGhash.process(data, 0, 16, new long[3], subkey));
        assertThrows(IllegalArgumentException.class, () -> JdkGhash.process(data, 0, 16, state, new long[2]));
        assertEquals(0, state[0] | state[1], "nothing written by a refused call");
        JdkGhash.process(data, 32, 16, state, subkey);
        assertEquals(0, state[0] | state[1], "a zero block keeps Y at zero");
        assertEquals(JavaGcm.Table.JDK, JavaGcm.Table.byName("jdk"));
    }

    @ParameterizedTest
    @CsvSource({"true, JDK", "false, JDK", "true, SHOUP_8", "false, SHOUP_8", "true, SHOUP_4", "false, SHOUP_4"})
    void shouldMatchTheJdkOnRandomMessages(final boolean vectorXor, final JavaGcm.Table table) throws Exception
    {
        final SplittableRandom random = new SplittableRandom(0x6C3A);
        for (final int keyLength : new int[] {16, 32})
        {
            final byte[] key = new byte[keyLength];
            random.nextBytes(key);
            final JavaGcm ours = new JavaGcm(vectorXor, table);
            // Keyed twice, as a context re-keys its engines: nothing of the first key may remain in the tables.
            final byte[] firstKey = new byte[keyLength];
            random.nextBytes(firstKey);
            ours.init(firstKey, keyLength);
            ours.init(key, keyLength);
            final Cipher jdk = Cipher.getInstance("AES/GCM/NoPadding");
            final SecretKeySpec keySpec = new SecretKeySpec(key, "AES");
            for (int message = 0; message < 600; message++)
            {
                final byte[] iv = new byte[12];
                random.nextBytes(iv);
                final byte[] aad = new byte[random.nextInt(71)];
                random.nextBytes(aad);
                final int length = message < 300 ? random.nextInt(100) : random.nextInt(1_501);
                final int offset = random.nextInt(30);
                final byte[] buffer = new byte[offset + length + 16 + 5];
                random.nextBytes(buffer);
                final byte[] plain = Arrays.copyOfRange(buffer, offset, offset + length);

                jdk.init(Cipher.ENCRYPT_MODE, keySpec, new GCMParameterSpec(128, iv));
                jdk.updateAAD(aad);
                final byte[] expected = jdk.doFinal(plain);

                assertTrue(ours.start(true, iv));
                addAad(ours, aad, random);
                assertEquals(length + 16, ours.encrypt(buffer, offset, length));
                final String where = table + " table, key " + keyLength + ", message " + message
                    + ", aad " + aad.length + ", text " + length;
                assertArrayEquals(expected, Arrays.copyOfRange(buffer, offset, offset + length + 16), where);

                assertTrue(ours.start(false, iv));
                addAad(ours, aad, random);
                assertEquals(length, ours.decrypt(buffer, offset, length + 16), where);
                assertArrayEquals(plain, Arrays.copyOfRange(buffer, offset, offset + length), where);
            }
        }
    }

    @Test
    void shouldRejectEveryFlippedOctetAndLeaveTheBufferUntouched()
    {
        final SplittableRandom random = new SplittableRandom(7);
        final byte[] key = new byte[16];
        random.nextBytes(key);
        final byte[] iv = new byte[12];
        random.nextBytes(iv);
        final byte[] aad = new byte[12];
        random.nextBytes(aad);
        final JavaGcm gcm = new JavaGcm(true);
        gcm.init(key, 16);
        final byte[] sealed = new byte[40 + 16];
        random.nextBytes(sealed);
        assertTrue(gcm.start(true, iv));
        gcm.aad(aad, 0, aad.length);
        assertEquals(56, gcm.encrypt(sealed, 0, 40));
        for (int i = 0; i < sealed.length; i++)
        {
            for (int bit = 0; bit < 8; bit += 7)
            {
                final byte[] tampered = sealed.clone();
                tampered[i] ^= (byte)(1 << bit);
                final byte[] before = tampered.clone();
                assertTrue(gcm.start(false, iv));
                gcm.aad(aad, 0, aad.length);
                assertEquals(-1, gcm.decrypt(tampered, 0, tampered.length), "octet " + i + " bit " + bit);
                assertArrayEquals(before, tampered, "buffer changed by a failed decrypt");
            }
        }
        final byte[] otherAad = aad.clone();
        otherAad[3] ^= 1;
        final byte[] copy = sealed.clone();
        assertTrue(gcm.start(false, iv));
        gcm.aad(otherAad, 0, otherAad.length);
        assertEquals(-1, gcm.decrypt(copy, 0, copy.length));
        assertEquals(-1, gcm.decrypt(copy, 0, 15), "shorter than a tag");
        assertFalse(gcm.start(true, new byte[16]), "only 96-bit IVs");
        assertFalse(new JavaGcm(true).start(true, iv), "not keyed");
        assertThrows(IllegalArgumentException.class, () -> JavaGcm.Table.byName("shoup6"));
        assertEquals(JavaGcm.Table.SHOUP_8, JavaGcm.Table.byName("Shoup8"));
    }

    /** McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)", appendix B, test cases 2, 3 and 4. */
    @ParameterizedTest
    @EnumSource(JavaGcm.Table.class)
    void shouldMatchTheGcmSpecificationTestCases(final JavaGcm.Table table)
    {
        final String key = "feffe9928665731c6d6a8f9467308308";
        final String iv = "cafebabefacedbaddecaf888";
        final String plain3 = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e24"
            + "49a6b525b16aedf5aa0de657ba637b391aafd255";
        final String cipher3 = "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
            + "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985";
        assertSealed(table, "00000000000000000000000000000000", "000000000000000000000000", "",
            "00000000000000000000000000000000", "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf");
        assertSealed(table, key, iv, "", plain3, cipher3 + "4d5c2af327cd64a62cf35abd2ba6fab4");
        assertSealed(table, key, iv, "feedfacedeadbeeffeedfacedeadbeefabaddad2", plain3.substring(0, 120),
            cipher3.substring(0, 120) + "5bc94fbc3221a5db94fae95ae7121a47");
    }

    private static void assertSealed(final JavaGcm.Table table, final String key, final String iv, final String aad,
        final String plain, final String sealed)
    {
        final JavaGcm gcm = new JavaGcm(true, table);
        final byte[] keyBytes = HEX.parseHex(key);
        gcm.init(keyBytes, keyBytes.length);
        final byte[] aadBytes = HEX.parseHex(aad);
        final byte[] plainBytes = HEX.parseHex(plain);
        final byte[] buffer = Arrays.copyOf(plainBytes, plainBytes.length + 16);
        assertTrue(gcm.start(true, HEX.parseHex(iv)));
        gcm.aad(aadBytes, 0, aadBytes.length);
        assertEquals(buffer.length, gcm.encrypt(buffer, 0, plainBytes.length));
        assertEquals(sealed, HEX.formatHex(buffer));
        assertTrue(gcm.start(false, HEX.parseHex(iv)));
        gcm.aad(aadBytes, 0, aadBytes.length);
        assertEquals(plainBytes.length, gcm.decrypt(buffer, 0, buffer.length));
        assertEquals(plain, HEX.formatHex(buffer, 0, plainBytes.length));
    }

    private static void addAad(final JavaGcm gcm, final byte[] aad, final SplittableRandom random)
    {
        final int first = aad.length > 0 ? random.nextInt(aad.length + 1) : 0;
        final int second = first + (aad.length > first ? random.nextInt(aad.length - first + 1) : 0);
        gcm.aad(aad, 0, first);
        gcm.aad(aad, first, second - first);
        gcm.aad(aad, second, aad.length - second);
    }
}
