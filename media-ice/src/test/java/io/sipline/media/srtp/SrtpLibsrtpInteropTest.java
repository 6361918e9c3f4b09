package io.sipline.media.srtp;

import static io.sipline.media.srtp.SrtpTestSupport.HEX;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Interoperability with libsrtp 2.5 (Debian {@code libsrtp2-dev}): {@code src/test/c/srtp_oracle.c} is compiled with
 * gcc by this test and driven over stdin/stdout. For every suite libsrtp here supports, and for RTP and RTCP:
 * what Java protects must be byte-identical to what libsrtp protects, libsrtp must unprotect what Java protected, and
 * Java what libsrtp protected, across 70,000 packets (two ROC rollovers, several SSRCs, CSRCs, header extensions,
 * 0 to 1,200-octet payloads); and replayed, too old and tampered packets must be rejected by both. The test is skipped
 * (JUnit assumption) only when gcc or the libsrtp2 headers are missing.
 */
class SrtpLibsrtpInteropTest
{
    private static final Path ORACLE_SOURCE = Path.of("src/test/c/srtp_oracle.c");
    private static final Path ORACLE = Path.of("target/srtp_oracle");
    private static final int SSRC_A = 0x5EC0_0001;
    private static final int SSRC_B = 0xCAFE_BABE;
    private static final int RTP_PACKETS = 70_000;
    private static final int RTCP_PACKETS = 300;
    private static final int CHUNK = 32;
    /** libsrtp's srtp_err_status_t values. */
    private static final String AUTH_FAIL = "err 7";
    private static final String REPLAY_FAIL = "err 9";
    private static final String REPLAY_OLD = "err 10";
    private static final String BAD_MKI = "err 25";

    private Process process;
    private BufferedWriter toOracle;
    private BufferedReader fromOracle;

    @BeforeAll
    static void compileOracle() throws Exception
    {
        final ProcessResult gcc = run(null, "gcc", "--version");
        Assumptions.assumeTrue(null != gcc && 0 == gcc.exitCode,
            "gcc is not installed: libsrtp interop test skipped (CI installs gcc and libsrtp2-dev)");
        final ProcessResult header = run("#include <srtp2/srtp.h>\n", "gcc", "-E", "-x", "c", "-o", "/dev/null", "-");
        Assumptions.assumeTrue(null != header && 0 == header.exitCode,
            "libsrtp2 headers missing (apt-get install libsrtp2-dev): libsrtp interop test skipped");
        Files.createDirectories(ORACLE.getParent());
        final ProcessResult build = run(null,
            "gcc", "-O2", "-Wall", "-o", ORACLE.toString(), ORACLE_SOURCE.toString(), "-lsrtp2");
        if (null == build || 0 != build.exitCode)
        {
            fail("could not build the libsrtp oracle: " + (null == build ? "gcc did not run" : build.output));
        }
    }

    @AfterEach
    void stopOracle() throws InterruptedException
    {
        if (null != process)
        {
            try
            {
                toOracle.write("quit\n");
                toOracle.flush();
                toOracle.close();
            }
            catch (final IOException ignored)
            {
                // Already gone: destroy below.
            }
            if (!process.waitFor(5, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
            process = null;
        }
    }

    @ParameterizedTest
    @EnumSource(SrtpCryptoSuite.class)
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldInteroperateWithLibsrtpOnRtpAndRtcp(final SrtpCryptoSuite suite) throws Exception
    {
        interoperate(suite, 7, null);
    }

    /**
     * The same exchange for the AEAD suites with {@link JavaGcm} (backend {@code jca-java-gcm}): GHASH in Java and GCTR
     * on the ECB path against libsrtp's GCM, both ways, ROC rollover, replays and tampering included.
     */
    @ParameterizedTest
    @EnumSource(value = SrtpCryptoSuite.class, names = {"AEAD_AES_128_GCM", "AEAD_AES_256_GCM"})
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldInteroperateWithLibsrtpWithJavaGcm(final SrtpCryptoSuite suite) throws Exception
    {
        interoperate(suite, 11, JcaSrtpBackend.JAVA_GCM);
    }

    /**
     * RTP and RTCP round trips with libsrtp for one suite, keyed from SDES.
     *
     * @param suite   the suite.
     * @param seed    the key material's seed.
     * @param backend the backend, or null for the default one.
     */
    private void interoperate(final SrtpCryptoSuite suite, final int seed, final SrtpBackend backend) throws Exception
    {
        try
        {
            startOracle();
            final byte[] key = SrtpTestSupport.keyMaterial(suite, seed);
            assumeSupported(suite, command("new 0 " + suite + " send " + HEX.formatHex(key)));
            assertEquals("ok", command("new 1 " + suite + " recv " + HEX.formatHex(key)));
            final SrtpPolicy.Builder builder = SrtpPolicy.fromSdes(SdesCryptoAttribute.parse(
                "a=crypto:1 " + suite + " inline:" + Base64.getEncoder().encodeToString(key)));
            final SrtpPolicy policy = null == backend ? builder.build() : builder.backend(backend).build();
            final SrtpContext tx = SrtpContext.outbound(policy);
            final SrtpContext rx = SrtpContext.inbound(policy);
            assumeSameAes192Output(suite, key, tx);

            rtpRoundTrips(tx, rx);
            rtcpRoundTrips(suite, tx, rx);
        }
        finally
        {
            stopOracle();
        }
    }

    @ParameterizedTest
    @EnumSource(value = SrtpCryptoSuite.class, names = {"AES_CM_128_HMAC_SHA1_80", "AEAD_AES_128_GCM"})
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldInteroperateWithLibsrtpWithMki(final SrtpCryptoSuite suite) throws Exception
    {
        try
        {
            startOracle();
            final byte[] key = SrtpTestSupport.keyMaterial(suite, 9);
            final String keyHex = HEX.formatHex(key);
            assumeSupported(suite, command("new 0 " + suite + " send " + keyHex + " 01020304"));
            assertEquals("ok", command("new 1 " + suite + " recv " + keyHex + " 01020304"));
            assertEquals("ok", command("new 2 " + suite + " recv " + keyHex + " 0a0b0c0d"));
            final SrtpPolicy policy = SrtpPolicy.fromSdes(SdesCryptoAttribute.parse(
                "1 " + suite + " inline:" + Base64.getEncoder().encodeToString(key) + "|2^31|16909060:4")).build();
            assertArrayEquals(new byte[] {1, 2, 3, 4}, policy.mki());
            final SrtpContext tx = SrtpContext.outbound(policy);
            final SrtpContext rx = SrtpContext.inbound(policy);
            final SrtpContext rxOtherMki = SrtpContext.inbound(
                SrtpPolicy.builder(suite).masterKey(key).mki(new byte[] {10, 11, 12, 13}).build());
            tx.nextSrtcpIndex(SSRC_A, 1);

            for (int i = 0; i < 200; i++)
            {
                final boolean rtcp = 0 == i % 4;
                final byte[] plain = rtcp
                    ? SrtpTestSupport.rtcp(SSRC_A, 4 * (i % 9), 64)
                    : SrtpTestSupport.rtp(60_000 + i, SSRC_A, i % 90, i % 2, 0 == i % 3, 64);
                final int plainLength = rtcp ? 28 + 4 * (i % 9) : SrtpTestSupport.rtpLength(plain, i % 90);
                final String kind = rtcp ? "rtcp" : "rtp";
                final byte[] buffer = plain.clone();
                final int javaLength =
                    rtcp ? tx.protectRtcp(buffer, 0, plainLength) : tx.protectRtp(buffer, 0, plainLength);
                assertTrue(javaLength > plainLength, SrtpResult.name(javaLength));
                final String libsrtp = command(kind + " 0 " + HEX.formatHex(plain, 0, plainLength));
                assertEquals("ok " + HEX.formatHex(buffer, 0, javaLength), libsrtp, kind + " " + i);

                // Wrong MKI: both refuse before touching the keys.
                assertEquals(BAD_MKI, command(kind + " 2 " + HEX.formatHex(buffer, 0, javaLength)));
                final byte[] copy = Arrays.copyOf(buffer, javaLength);
                assertEquals(SrtpResult.BAD_MKI,
                    rtcp ? rxOtherMki.unprotectRtcp(copy, 0, javaLength)
                        : rxOtherMki.unprotectRtp(copy, 0, javaLength));

                assertEquals("ok " + HEX.formatHex(plain, 0, plainLength),
                    command(kind + " 1 " + HEX.formatHex(buffer, 0, javaLength)));
                final int back =
                    rtcp ? rx.unprotectRtcp(buffer, 0, javaLength) : rx.unprotectRtp(buffer, 0, javaLength);
                assertEquals(HEX.formatHex(plain, 0, plainLength), HEX.formatHex(buffer, 0, Math.max(0, back)));
            }
        }
        finally
        {
            stopOracle();
        }
    }

    /**
     * Why libsrtp 2.5.0 as Debian builds it (NSS, without {@code --enable-openssl-kdf}) does not interoperate on
     * AES-192, checked rather than assumed. Its {@code srtp_stream_init_keys} starts from {@code kdf_keylen = 30}
     * and sets it to 46 whenever the cipher key (with salt) is longer than 30 octets, so an AES-192 stream (38) gets
     * an AES-256 key derivation: the PRF key is the 24-octet master key followed by the first 8 octets of the master
     * salt, and the PRF salt is the last 6 salt octets followed by 8 zero octets (its zero-padded {@code tmp_key}).
     * RFC 6188 §7.4 derives AES-192 keys with AES-192 over the master key and the whole salt, as we do
     * ({@code SrtpVectorsTest} checks the RFC's vectors). The AES-192 cipher itself is right in libsrtp: its self-test
     * passes and its keystream matches {@code openssl enc -aes-192-ecb}.
     *
     * <p>So: when libsrtp's packet differs from ours, this method protects the same packet with our own AES-192
     * transform keyed by libsrtp's derivation, asserts that the result is libsrtp's packet byte for byte (any other
     * difference fails the test), and only then skips the suite with that reason. Should a libsrtp build with a
     * correct AES-192 derivation be installed, the packets agree and the full interop test runs.
     */
    private void assumeSameAes192Output(final SrtpCryptoSuite suite, final byte[] key, final SrtpContext tx)
        throws IOException
    {
        if (24 != suite.keyLength())
        {
            return;
        }
        final byte[] packet = SrtpTestSupport.rtp(1, 0x192, 32, 0, false, 32);
        final String plain = HEX.formatHex(packet, 0, 44);
        final byte[] emulated = packet.clone();
        final int n = tx.protectRtp(packet, 0, 44);
        final String libsrtp = command("rtp 0 " + plain);
        if (("ok " + HEX.formatHex(packet, 0, n)).equals(libsrtp))
        {
            return;
        }
        // libsrtp's derivation: AES-256 PRF keyed by master key || salt[0, 8), PRF salt = salt[8, 14) || 0^8.
        final byte[] prfKey = new byte[32];
        System.arraycopy(key, 0, prfKey, 0, 32);
        final byte[] prfSalt = new byte[14];
        System.arraycopy(key, 32, prfSalt, 0, 6);
        final SrtpTransform libsrtpKeys = new SrtpTransform(suite,
            new SrtpKeyDerivation(JcaSrtpBackend.INSTANCE, prfKey, prfSalt, 0), JcaSrtpBackend.INSTANCE);
        libsrtpKeys.rtpKeys(1);
        libsrtpKeys.rtpCrypt(0x192, 1, emulated, 12, 32);
        final byte[] tag = new byte[20];
        libsrtpKeys.rtpTag(emulated, 0, 44, 0, tag);
        System.arraycopy(tag, 0, emulated, 44, suite.srtpTagLength());
        assertEquals(libsrtp, "ok " + HEX.formatHex(emulated, 0, 44 + suite.srtpTagLength()),
            "libsrtp's AES-192 packet differs from ours for a reason other than its AES-256 key derivation");
        final String reason = "libsrtp 2.5.0 (Debian build, no OPENSSL_KDF) derives " + suite + " session keys " +
            "with the AES-256 PRF over master key || salt[0..8) (srtp_stream_init_keys: kdf_keylen = 46 for any key " +
            "longer than 30 octets), not RFC 6188 §7.4's AES-192 PRF; verified: our transform keyed that way " +
            "reproduces libsrtp's packet byte for byte, so " + suite + " cannot interoperate with this libsrtp";
        System.out.println("SKIP " + suite + ": " + reason);
        Assumptions.abort(reason);
    }

    private void rtpRoundTrips(final SrtpContext tx, final SrtpContext rx) throws IOException
    {
        int seqA = 65_000;
        int seqB = 12_345;
        final int withheldOld = RTP_PACKETS - 300;
        final int withheldLate = RTP_PACKETS - 50;
        String[] withheld = null;
        String[] late = null;
        final List<String> commands = new ArrayList<>(2 * CHUNK);
        final List<byte[]> plains = new ArrayList<>(CHUNK);
        final List<byte[]> javaProtected = new ArrayList<>(CHUNK);
        for (int i = 0; i < RTP_PACKETS; i++)
        {
            final boolean onB = 7 == i % 50;
            final int seq = onB ? seqB++ & 0xFFFF : seqA++ & 0xFFFF;
            final int payload = 0 == i % 997 ? 1200 : i % 97;
            final byte[] packet = SrtpTestSupport.rtp(seq, onB ? SSRC_B : SSRC_A, payload, i % 3, 0 == i % 5, 32);
            final int length = SrtpTestSupport.rtpLength(packet, payload);
            final byte[] plain = Arrays.copyOf(packet, length);
            final int protectedLength = tx.protectRtp(packet, 0, length);
            assertTrue(protectedLength > 0, () -> "Java protect failed: " + SrtpResult.name(protectedLength));
            final byte[] sealed = Arrays.copyOf(packet, protectedLength);
            if (i == withheldOld || i == withheldLate)
            {
                // Protected by both, delivered after the loop: one too old for the window, one merely late.
                final String[] kept = {HEX.formatHex(sealed), command("rtp 0 " + HEX.formatHex(plain))};
                assertEquals("ok " + kept[0], kept[1]);
                if (i == withheldOld)
                {
                    withheld = kept;
                }
                else
                {
                    late = kept;
                }
                continue;
            }
            plains.add(plain);
            javaProtected.add(sealed);
            commands.add("rtp 0 " + HEX.formatHex(plain));
            commands.add("rtp 1 " + HEX.formatHex(sealed));
            if (plains.size() == CHUNK || i == RTP_PACKETS - 1)
            {
                final List<String> answers = batch(commands);
                for (int k = 0; k < plains.size(); k++)
                {
                    final String libsrtpProtected = answers.get(2 * k);
                    assertEquals("ok " + HEX.formatHex(javaProtected.get(k)), libsrtpProtected,
                        "libsrtp and Java protect differently");
                    assertEquals("ok " + HEX.formatHex(plains.get(k)), answers.get(2 * k + 1),
                        "libsrtp could not unprotect what Java protected");
                    final byte[] fromLibsrtp = HEX.parseHex(libsrtpProtected, 3, libsrtpProtected.length());
                    final int n = rx.unprotectRtp(fromLibsrtp, 0, fromLibsrtp.length);
                    assertTrue(n > 0, () -> "Java could not unprotect what libsrtp protected: " + SrtpResult.name(n));
                    assertArrayEquals(plains.get(k), Arrays.copyOf(fromLibsrtp, n));
                }
                commands.clear();
                plains.clear();
                javaProtected.clear();
            }
        }
        assertEquals(2, tx.stream(SSRC_A).roc(), "two rollovers on the main SSRC");
        assertEquals(2, rx.stream(SSRC_A).roc());

        // Late but inside the window: accepted by both. Too old: rejected by both.
        assertEquals("ok", command("rtp 1 " + late[0]).substring(0, 2));
        assertTrue(rx.unprotectRtp(HEX.parseHex(late[0]), 0, late[0].length() / 2) > 0);
        assertEquals(REPLAY_OLD, command("rtp 1 " + withheld[0]));
        final byte[] old = HEX.parseHex(withheld[0]);
        assertEquals(SrtpResult.REPLAY_OLD, rx.unprotectRtp(old, 0, old.length));

        // Tampered (payload, header, tag), then genuine, then replayed.
        final byte[] packet = SrtpTestSupport.rtp(seqA & 0xFFFF, SSRC_A, 40, 1, true, 32);
        final int length = SrtpTestSupport.rtpLength(packet, 40);
        final String plainHex = HEX.formatHex(packet, 0, length);
        final int n = tx.protectRtp(packet, 0, length);
        final String sealed = HEX.formatHex(packet, 0, n);
        assertEquals("ok " + sealed, command("rtp 0 " + plainHex));
        for (final int position : new int[] {n - 1, length - 3, 1, 9})
        {
            final byte[] tampered = HEX.parseHex(sealed);
            tampered[position] ^= 0x40;
            assertEquals(AUTH_FAIL, command("rtp 1 " + HEX.formatHex(tampered)), "libsrtp, byte " + position);
            assertEquals(SrtpResult.AUTH_FAIL, rx.unprotectRtp(tampered, 0, tampered.length), "Java, byte " + position);
        }
        assertEquals("ok " + plainHex, command("rtp 1 " + sealed));
        assertEquals(REPLAY_FAIL, command("rtp 1 " + sealed));
        final byte[] once = HEX.parseHex(sealed);
        assertEquals(length, rx.unprotectRtp(once, 0, once.length));
        final byte[] twice = HEX.parseHex(sealed);
        assertEquals(SrtpResult.REPLAY_DUPLICATE, rx.unprotectRtp(twice, 0, twice.length));
        assertEquals(1, rx.count(SrtpResult.REPLAY_DUPLICATE));
        assertEquals(4, rx.count(SrtpResult.AUTH_FAIL));
    }

    private void rtcpRoundTrips(final SrtpCryptoSuite suite, final SrtpContext tx, final SrtpContext rx)
        throws IOException
    {
        // libsrtp sends its first SRTCP packet with index 1 (RFC 3711 §3.4 says 0); align to compare bytes.
        tx.nextSrtcpIndex(SSRC_A, 1);
        String withheld = null;
        String previous = null;
        for (int i = 0; i < RTCP_PACKETS; i++)
        {
            final int extra = 4 * (i % 40);
            final byte[] packet = SrtpTestSupport.rtcp(SSRC_A, extra, 64);
            final int length = 28 + extra;
            final String plainHex = HEX.formatHex(packet, 0, length);
            final int n = tx.protectRtcp(packet, 0, length);
            assertTrue(n > length, SrtpResult.name(n));
            final String sealed = HEX.formatHex(packet, 0, n);
            final String libsrtp = command("rtcp 0 " + plainHex);
            assertEquals("ok " + sealed, libsrtp, "libsrtp and Java protect SRTCP differently");
            if (10 == i)
            {
                withheld = sealed;
                continue;
            }
            assertEquals("ok " + plainHex, command("rtcp 1 " + sealed));
            final byte[] fromLibsrtp = HEX.parseHex(libsrtp, 3, libsrtp.length());
            final int back = rx.unprotectRtcp(fromLibsrtp, 0, fromLibsrtp.length);
            assertEquals(plainHex, HEX.formatHex(fromLibsrtp, 0, Math.max(0, back)));
            previous = sealed;
        }
        // Replayed, too old (index 11 is 289 behind with a 128 window), tampered.
        assertEquals(REPLAY_FAIL, command("rtcp 1 " + previous));
        final byte[] replayed = HEX.parseHex(previous);
        assertEquals(SrtpResult.REPLAY_DUPLICATE, rx.unprotectRtcp(replayed, 0, replayed.length));
        assertEquals(REPLAY_OLD, command("rtcp 1 " + withheld));
        final byte[] old = HEX.parseHex(withheld);
        assertEquals(SrtpResult.REPLAY_OLD, rx.unprotectRtcp(old, 0, old.length));

        final byte[] packet = SrtpTestSupport.rtcp(SSRC_A, 8, 64);
        final int n = tx.protectRtcp(packet, 0, 36);
        // Last tag octet: GCM puts the E || index word after the tag (RFC 7714 §9), AES-CM puts the tag last.
        final int lastTagOctet = suite.isAead() ? n - 5 : n - 1;
        for (final int position : new int[] {5, 20, lastTagOctet})
        {
            final byte[] tampered = Arrays.copyOf(packet, n);
            tampered[position] ^= 1;
            assertEquals(AUTH_FAIL, command("rtcp 1 " + HEX.formatHex(tampered)), "libsrtp, byte " + position);
            assertEquals(SrtpResult.AUTH_FAIL, rx.unprotectRtcp(tampered, 0, n), "Java, byte " + position);
        }
    }

    private void startOracle() throws IOException
    {
        process = new ProcessBuilder(ORACLE.toAbsolutePath().toString()).redirectErrorStream(true).start();
        toOracle = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII));
        fromOracle = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
        final String version = command("version");
        assertTrue(version.startsWith("ok libsrtp2 2."), version);
    }

    private static void assumeSupported(final SrtpCryptoSuite suite, final String answer)
    {
        Assumptions.assumeFalse(answer.startsWith("unsupported"),
            () -> "this libsrtp2 was built without " + suite + " (" + answer + ")");
        assertEquals("ok", answer);
    }

    private String command(final String line) throws IOException
    {
        toOracle.write(line);
        toOracle.write('\n');
        toOracle.flush();
        return readAnswer();
    }

    /** Writes a chunk of commands, then reads their answers: fewer round trips, and under the pipes' capacity. */
    private List<String> batch(final List<String> lines) throws IOException
    {
        for (final String line : lines)
        {
            toOracle.write(line);
            toOracle.write('\n');
        }
        toOracle.flush();
        final List<String> answers = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++)
        {
            answers.add(readAnswer());
        }
        return answers;
    }

    private String readAnswer() throws IOException
    {
        final String answer = fromOracle.readLine();
        if (null == answer)
        {
            fail("libsrtp oracle exited (" + (process.isAlive() ? "alive" : "exit " + process.exitValue()) + ")");
        }
        return answer;
    }

    private record ProcessResult(int exitCode, String output)
    {
    }

    /** Runs a short command with bounded time; null when it cannot be started. */
    private static ProcessResult run(final String stdin, final String... command) throws InterruptedException
    {
        final Process p;
        try
        {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        }
        catch (final IOException ex)
        {
            return null;
        }
        try
        {
            if (null != stdin)
            {
                p.getOutputStream().write(stdin.getBytes(StandardCharsets.US_ASCII));
            }
            p.getOutputStream().close();
            final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS))
            {
                return new ProcessResult(-1, output + " (timed out)");
            }
            return new ProcessResult(p.exitValue(), output);
        }
        catch (final IOException ex)
        {
            return new ProcessResult(-1, ex.toString());
        }
        finally
        {
            p.destroyForcibly();
        }
    }
}
