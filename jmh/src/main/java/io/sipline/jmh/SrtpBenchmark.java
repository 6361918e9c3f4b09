package io.sipline.jmh;

import java.security.GeneralSecurityException;
import java.util.concurrent.TimeUnit;

import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import io.sipline.media.srtp.SrtpBackend;
import io.sipline.media.srtp.SrtpContext;
import io.sipline.media.srtp.SrtpCryptoSuite;
import io.sipline.media.srtp.SrtpPolicy;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * SRTP protect and unprotect, ns per packet and B/op ({@code -prof gc}), for AES_CM_128_HMAC_SHA1_80 and
 * AEAD_AES_128_GCM at 160- and 1,200-octet payloads (12-octet RTP header), on every backend ({@code jca},
 * {@code jca-java-gcm}: the same except GCM by {@code JavaGcm}, GCTR on the ECB path and GHASH by the JDK's own
 * stub, {@code bc}), beside the raw cost of the same {@code javax.crypto} operations on the same bytes: the floor for
 * Java ({@link #rawProtect}, {@link #rawUnprotect}).
 *
 * <p>The fork adds {@code jdk.incubator.vector}, as {@code bin/sipline} and the tests do: the SSRC index and the
 * AES-CM keystream XOR use it when present. It also opens {@code java.base/com.sun.crypto.provider}, as the
 * media-ice tests do, so that {@code jca-java-gcm} takes GHASH from the JDK's stub; without the opening it falls back
 * to a Shoup table in Java (pass {@code -jvmArgsPrepend -Dio.sipline.srtp.ghash.table=shoup8} to measure that).
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar SrtpBenchmark -f 1 -wi 3 -w 1 -i 5 -r 1 -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "--add-modules=jdk.incubator.vector",
    "--add-opens=java.base/com.sun.crypto.provider=ALL-UNNAMED"})
public class SrtpBenchmark
{
    private static final int HEADER = 12;
    /** Packets protected in setup for unprotect: 256 x 1.2 KB = 300 KB, which stays in the 2 MB L2 as the floor's. */
    private static final int RING = 256;
    private static final int SSRC = 0x1234_5678;

    /** Our SRTP contexts. */
    @State(Scope.Thread)
    public static class Srtp
    {
        @Param({"AES_CM_128_HMAC_SHA1_80", "AEAD_AES_128_GCM"})
        public String suite;

        @Param({"160", "1200"})
        public int payload;

        /** {@code jca-java-gcm} differs from {@code jca} only for GCM ({@code JavaGcm}: 0 B per packet). */
        @Param({"jca", "jca-java-gcm", "bc"})
        public String backend;

        SrtpPolicy policy;
        SrtpContext tx;
        SrtpContext rx;
        byte[] work;
        int length;
        int seq;
        byte[][] ring;
        int ringLength;
        int next;

        @Setup(Level.Trial)
        public void setUp()
        {
            final SrtpCryptoSuite s = SrtpCryptoSuite.valueOf(suite);
            final byte[] key = new byte[s.masterKeySaltLength()];
            for (int i = 0; i < key.length; i++)
            {
                key[i] = (byte)(i * 11 + 3);
            }
            policy = SrtpPolicy.builder(s).masterKey(key).backend(SrtpBackend.byName(backend)).build();
            tx = SrtpContext.outbound(policy);
            rx = SrtpContext.inbound(policy);
            length = HEADER + payload;
            work = packet(0, length, 64);

            final SrtpContext producer = SrtpContext.outbound(policy);
            ring = new byte[RING][];
            for (int i = 0; i < RING; i++)
            {
                final byte[] p = packet(i, length, 64);
                ringLength = producer.protectRtp(p, 0, length);
                ring[i] = p;
            }
            if (ringLength < length)
            {
                throw new IllegalStateException("protect failed: " + ringLength);
            }
        }
    }

    /** The same bytes through {@code javax.crypto} directly. */
    @State(Scope.Thread)
    public static class Raw
    {
        @Param({"AES_CM_128_HMAC_SHA1_80", "AEAD_AES_128_GCM"})
        public String suite;

        @Param({"160", "1200"})
        public int payload;

        boolean gcm;
        Cipher ecb;
        Cipher aead;
        SecretKeySpec gcmKey;
        Mac mac;
        byte[] counters;
        byte[] keystream;
        byte[] work;
        byte[] sealed;
        byte[] tag = new byte[20];
        byte[] roc = new byte[4];
        byte[] iv = new byte[12];
        int length;
        int sealedLength;
        long counter;

        @Setup(Level.Trial)
        public void setUp() throws GeneralSecurityException
        {
            gcm = suite.startsWith("AEAD");
            length = HEADER + payload;
            work = packet(0, length, 64);
            final byte[] key = new byte[16];
            for (int i = 0; i < key.length; i++)
            {
                key[i] = (byte)(i * 5 + 1);
            }
            if (gcm)
            {
                gcmKey = new SecretKeySpec(key, "AES");
                aead = Cipher.getInstance("AES/GCM/NoPadding");
                sealed = packet(0, length, 64);
                aead.init(Cipher.ENCRYPT_MODE, gcmKey, new GCMParameterSpec(128, new byte[12]));
                aead.updateAAD(sealed, 0, HEADER);
                sealedLength = HEADER + aead.doFinal(sealed, HEADER, payload, sealed, HEADER);
            }
            else
            {
                ecb = Cipher.getInstance("AES/ECB/NoPadding");
                ecb.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"));
                mac = Mac.getInstance("HmacSHA1");
                mac.init(new SecretKeySpec(new byte[20], "HmacSHA1"));
                final int blocks = (payload + 15) / 16;
                counters = new byte[blocks * 16];
                keystream = new byte[blocks * 16];
                for (int i = 0; i < blocks; i++)
                {
                    counters[i * 16 + 15] = (byte)i;
                    counters[i * 16 + 14] = (byte)(i >>> 8);
                }
                sealed = packet(0, length, 64);
                cmSeal(this, sealed);
                sealedLength = length + 10;
            }
        }
    }

    /**
     * The packet's sequence number advances each call (a real sender never reuses an index, and our context refuses
     * to); the payload is re-encrypted in place, which costs the same as fresh plaintext.
     */
    @Benchmark
    public int protect(final Srtp s)
    {
        final byte[] b = s.work;
        final int seq = s.seq++;
        b[2] = (byte)(seq >>> 8);
        b[3] = (byte)seq;
        return s.tx.protectRtp(b, 0, s.length);
    }

    /**
     * Copies the next of 256 packets protected in setup into the work buffer (an index may be accepted only once),
     * then unprotects; after 256 packets the receiver forgets the stream and the next packet starts a new one (well
     * under 1 B/op amortised). The ring is small enough to stay in cache, like the floor's one packet.
     */
    @Benchmark
    public int unprotect(final Srtp s)
    {
        int i = s.next++;
        if (i == RING)
        {
            // Every index is accepted once: forget the stream, so that the ring's first packet starts a new one
            // (a stream object and two replay windows, amortised over the ring).
            s.rx.removeStream(SSRC);
            s.next = 1;
            i = 0;
        }
        System.arraycopy(s.ring[i], 0, s.work, 0, s.ringLength);
        return s.rx.unprotectRtp(s.work, 0, s.ringLength);
    }

    /**
     * The {@code javax.crypto} floor: AES-CM = {@code AES/ECB/NoPadding} over precomputed counter blocks, XOR, and
     * {@code Mac("HmacSHA1")} over header+payload+ROC; GCM = {@code Cipher.init} with a fresh
     * {@code GCMParameterSpec}, {@code updateAAD} of the header, {@code doFinal} in place.
     */
    @Benchmark
    public int rawProtect(final Raw r) throws GeneralSecurityException
    {
        if (r.gcm)
        {
            nextIv(r);
            r.aead.init(Cipher.ENCRYPT_MODE, r.gcmKey, new GCMParameterSpec(128, r.iv));
            r.aead.updateAAD(r.work, 0, HEADER);
            return HEADER + r.aead.doFinal(r.work, HEADER, r.payload, r.work, HEADER);
        }
        return cmSeal(r, r.work);
    }

    /** The floor of {@link #unprotect}: as {@link #rawProtect}, and compares the tag and copies the packet in. */
    @Benchmark
    public int rawUnprotect(final Raw r) throws GeneralSecurityException
    {
        System.arraycopy(r.sealed, 0, r.work, 0, r.sealedLength);
        if (r.gcm)
        {
            r.aead.init(Cipher.DECRYPT_MODE, r.gcmKey, new GCMParameterSpec(128, new byte[12]));
            r.aead.updateAAD(r.work, 0, HEADER);
            return HEADER + r.aead.doFinal(r.work, HEADER, r.sealedLength - HEADER, r.work, HEADER);
        }
        r.mac.update(r.work, 0, r.length);
        r.mac.update(r.roc, 0, 4);
        r.mac.doFinal(r.tag, 0);
        int diff = 0;
        for (int i = 0; i < 10; i++)
        {
            diff |= r.tag[i] ^ r.work[r.length + i];
        }
        r.ecb.update(r.counters, 0, r.counters.length, r.keystream, 0);
        for (int i = 0; i < r.payload; i++)
        {
            r.work[HEADER + i] ^= r.keystream[i];
        }
        return 0 == diff ? r.length : -1;
    }

    private static int cmSeal(final Raw r, final byte[] b) throws GeneralSecurityException
    {
        r.ecb.update(r.counters, 0, r.counters.length, r.keystream, 0);
        for (int i = 0; i < r.payload; i++)
        {
            b[HEADER + i] ^= r.keystream[i];
        }
        r.mac.update(b, 0, r.length);
        r.mac.update(r.roc, 0, 4);
        r.mac.doFinal(r.tag, 0);
        System.arraycopy(r.tag, 0, b, r.length, 10);
        return r.length + 10;
    }

    private static void nextIv(final Raw r)
    {
        final long c = ++r.counter;
        for (int i = 0; i < 8; i++)
        {
            r.iv[11 - i] = (byte)(c >>> (8 * i));
        }
    }

    private static byte[] packet(final int seq, final int length, final int room)
    {
        final byte[] b = new byte[length + room];
        b[0] = (byte)0x80;
        b[1] = 0;
        b[2] = (byte)(seq >>> 8);
        b[3] = (byte)seq;
        b[8] = (byte)(SSRC >>> 24);
        b[9] = (byte)(SSRC >>> 16);
        b[10] = (byte)(SSRC >>> 8);
        b[11] = (byte)SSRC;
        for (int i = HEADER; i < length; i++)
        {
            b[i] = (byte)i;
        }
        return b;
    }
}
