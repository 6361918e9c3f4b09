package io.sipline.jmh;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunCredential;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunMessageWriter;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Receiving an ICE consent-freshness Binding request (RFC 7675): USERNAME, PRIORITY, ICE-CONTROLLED,
 * MESSAGE-INTEGRITY, FINGERPRINT, 96 bytes. Each benchmark frames the message, checks MESSAGE-INTEGRITY (HMAC-SHA1,
 * RFC 8489 §14.5) and FINGERPRINT (§14.7), and reads PRIORITY. The target is 0 B/op ({@code -prof gc}).
 *
 * <ul>
 *     <li>{@code flyweightDigest}: our flyweight with the {@code MessageDigest} HMAC engine (default).</li>
 *     <li>{@code flyweightJcaMac}: our flyweight with a held {@code javax.crypto.Mac} (inited once).</li>
 *     <li>{@code naiveJca} (baseline): what straightforward code does per message: {@code Mac.getInstance},
 *     {@code new SecretKeySpec}, {@code init}, a copy of the message to patch the length field, {@code new CRC32}.</li>
 * </ul>
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar StunBenchmark -f 1 -wi 3 -w 1 -i 5 -r 1 -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Thread)
public class StunBenchmark
{
    private static final String PASSWORD = "asd88fgpdd777uzjYhagZg";

    private final byte[] request = new byte[200];
    private int length;
    private byte[] passwordBytes;
    private StunCredential credential;
    private StunIntegrity digest;
    private StunIntegrity jca;
    private StunMessageFlyweight message;

    /** Builds the request once. */
    @Setup
    public void setup()
    {
        credential = StunCredential.shortTerm(PASSWORD);
        passwordBytes = PASSWORD.getBytes(StandardCharsets.UTF_8);
        digest = new StunIntegrity(StunIntegrity.Engine.DIGEST);
        jca = new StunIntegrity(StunIntegrity.Engine.JCA_MAC);
        message = new StunMessageFlyweight();
        length = new StunMessageWriter().wrap(request, 0, request.length)
            .header(StunMessageType.BINDING_REQUEST, 0x1234_5678, 0x1122_3344_5566_7788L)
            .addAscii(StunAttributeType.USERNAME, "9uB6:Sl0Z")
            .addU32(StunAttributeType.PRIORITY, 0x6E00_01FF)
            .addU64(StunAttributeType.ICE_CONTROLLED, 0x932F_F9B1_5126_3B36L)
            .addMessageIntegrity(digest, credential)
            .addFingerprint(digest)
            .length();
        if (0 != flyweightDigest() || 0 != flyweightJcaMac() || 0 != naiveJca())
        {
            throw new IllegalStateException("the request does not verify");
        }
    }

    /** @return 0 when the request verified. */
    @Benchmark
    public long flyweightDigest()
    {
        return receive(digest);
    }

    /** @return 0 when the request verified. */
    @Benchmark
    public long flyweightJcaMac()
    {
        return receive(jca);
    }

    /** @return 0 when the request verified. */
    @Benchmark
    public long naiveJca()
    {
        try
        {
            // Framing as naive code does it: walk the attributes, remember MESSAGE-INTEGRITY and FINGERPRINT.
            int integrityAt = -1;
            int fingerprintAt = -1;
            long priority = -1;
            for (int pos = 20; pos + 4 <= length; )
            {
                final int type = ((request[pos] & 0xFF) << 8) | (request[pos + 1] & 0xFF);
                final int len = ((request[pos + 2] & 0xFF) << 8) | (request[pos + 3] & 0xFF);
                if (StunAttributeType.MESSAGE_INTEGRITY == type)
                {
                    integrityAt = pos;
                }
                else if (StunAttributeType.FINGERPRINT == type)
                {
                    fingerprintAt = pos;
                }
                else if (StunAttributeType.PRIORITY == type)
                {
                    priority = readInt(request, pos + 4) & 0xFFFF_FFFFL;
                }
                pos += 4 + ((len + 3) & ~3);
            }
            final byte[] copy = java.util.Arrays.copyOf(request, integrityAt);
            final int adjusted = integrityAt + 24 - 20;
            copy[2] = (byte)(adjusted >>> 8);
            copy[3] = (byte)adjusted;
            final Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(passwordBytes, "HmacSHA1"));
            final byte[] expected = mac.doFinal(copy);
            final boolean integrityOk = MessageDigest.isEqual(
                expected, java.util.Arrays.copyOfRange(request, integrityAt + 4, integrityAt + 24));
            final CRC32 crc = new CRC32();
            crc.update(request, 0, fingerprintAt);
            final boolean fingerprintOk = ((int)crc.getValue() ^ 0x5354554E) == readInt(request, fingerprintAt + 4);
            return (integrityOk ? 0 : 1) + (fingerprintOk ? 0 : 2) + (0x6E00_01FFL == priority ? 0 : 4);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private long receive(final StunIntegrity integrity)
    {
        return message.wrap(request, 0, length)
            + message.verifyMessageIntegrity(integrity, credential)
            + message.verifyFingerprint(integrity)
            + (0x6E00_01FFL == message.priority() ? 0 : 4);
    }

    private static int readInt(final byte[] b, final int at)
    {
        return ((b[at] & 0xFF) << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
    }
}
