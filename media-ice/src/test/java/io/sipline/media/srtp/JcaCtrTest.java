package io.sipline.media.srtp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The JCA backend's counter mode ({@link JcaSrtpBackend.EcbCtr}: counter blocks built in place, high halves kept
 * across packets, keystream XORed with the Vector API or eight octets at a time) against Bouncy Castle's independent
 * one: 3,000 random calls of 0 to 3,000 octets at random offsets, with IVs that share their high half for runs of
 * calls (the cached high halves), IVs whose low 16 bits are not zero (the carry path, which also resets the cache),
 * and a scratch array that grows midway.
 */
class JcaCtrTest
{
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void shouldMatchBouncyCastleCounterMode(final boolean vectorXor)
    {
        final SplittableRandom random = new SplittableRandom(0x5EED);
        for (final int keyLength : new int[] {16, 24, 32})
        {
            final byte[] key = new byte[keyLength];
            random.nextBytes(key);
            final SrtpBackend.Ctr ours = new JcaSrtpBackend.EcbCtr(vectorXor);
            final SrtpBackend.Ctr reference = BouncyCastleSrtpBackend.INSTANCE.newAesCtr();
            ours.init(key, keyLength);
            reference.init(key, keyLength);
            final byte[] iv = new byte[16];
            random.nextBytes(iv);
            for (int call = 0; call < 1_000; call++)
            {
                if (0 == call % 37)
                {
                    // A new stream: another high half (salt ^ SSRC).
                    random.nextBytes(iv);
                }
                // A new packet index in the low half; its 16 low bits zero as SRTP makes them, except now and then.
                for (int i = 8; i < 14; i++)
                {
                    iv[i] = (byte)random.nextInt(256);
                }
                final boolean carry = 0 == call % 11;
                iv[14] = carry ? (byte)0xFF : 0;
                iv[15] = carry ? (byte)random.nextInt(256) : 0;
                if (carry)
                {
                    Arrays.fill(iv, 8, 14, (byte)0xFF);
                }
                final int length = call < 500 ? random.nextInt(300) : random.nextInt(3_000);
                final int offset = random.nextInt(40);
                final byte[] data = new byte[offset + length + 8];
                random.nextBytes(data);
                final byte[] expected = data.clone();
                ours.xorKeystream(iv, data, offset, length);
                reference.xorKeystream(iv, expected, offset, length);
                assertArrayEquals(expected, data, "key " + keyLength + ", call " + call + ", length " + length);
            }
        }
    }
}
