package io.sipline.media.srtp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.DigestException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * {@link SrtpBackend} over {@code javax.crypto} and {@code java.security}, whose AES, SHA-1 and GHASH code the JIT
 * replaces with AES-NI/VAES, SHA-NI and (VP)CLMULQDQ intrinsics. Measured choices (JDK 25, see
 * {@code docs/media.md}):
 * <ul>
 *     <li><b>AES-CM</b> builds the counter blocks itself and encrypts them with {@code AES/ECB/NoPadding} into a
 *     scratch array: {@code Cipher.update(byte[], int, int, byte[], int)} allocates nothing. Re-initialising
 *     {@code AES/CTR/NoPadding} per packet costs an {@code IvParameterSpec}, a key clone and, in place, a copy of the
 *     input (112 to 1,344 B per packet) and was slower.</li>
 *     <li><b>HMAC-SHA1</b> is RFC 2104 over {@code MessageDigest("SHA-1")}: {@code Mac.doFinal(byte[], int)}
 *     allocates a 20-octet array per call inside {@code HmacCore}; {@code MessageDigest.digest(byte[], int, int)} does
 *     not, and the work (four SHA-1 compressions plus the message) is the same.</li>
 *     <li><b>AES-GCM</b> uses {@code AES/GCM/NoPadding}. It must be re-initialised per packet (new IV), and the JDK
 *     then allocates its GHASH/GCTR engine and a {@code GCMParameterSpec}: about 1 KB per packet, independent of the
 *     packet size. Output goes through a scratch array (the in-place overlap path was slower). {@link #JAVA_GCM}
 *     uses {@link JavaGcm} instead: no allocation, GCTR on the ECB path and GHASH by the JDK's own CLMUL stub
 *     ({@link JdkGhash}, faster than {@code AES/GCM} itself) or, where the JVM does not open it, by table in Java
 *     (slower).</li>
 * </ul>
 *
 * <p>Stateless factory, thread-safe; the engines it makes are not thread-safe and are owned by one context.
 */
public final class JcaSrtpBackend implements SrtpBackend
{
    /** The shared factory: AES-GCM through {@code AES/GCM/NoPadding}. */
    public static final JcaSrtpBackend INSTANCE = new JcaSrtpBackend(false);

    /**
     * The same, except AES-GCM through {@link JavaGcm}: GCTR on the ECB path and GHASH by the JDK's stub
     * ({@link JdkGhash}) or a table in Java, 0 B per packet instead of about 1 KB, and faster than {@link #INSTANCE}
     * with the stub, slower with a table (see {@code docs/media.md}); named {@value #JAVA_GCM_NAME}.
     */
    public static final JcaSrtpBackend JAVA_GCM = new JcaSrtpBackend(true);

    /** {@link #name()} of {@link #JAVA_GCM}. */
    public static final String JAVA_GCM_NAME = "jca-java-gcm";

    private final boolean javaGcm;

    private JcaSrtpBackend(final boolean javaGcm)
    {
        this.javaGcm = javaGcm;
    }

    @Override
    public String name()
    {
        return javaGcm ? JAVA_GCM_NAME : "jca";
    }

    @Override
    public Ctr newAesCtr()
    {
        return new EcbCtr();
    }

    @Override
    public Mac newHmacSha1()
    {
        return new DigestHmacSha1();
    }

    @Override
    public Aead newAesGcm()
    {
        return javaGcm ? new JavaGcm(true) : new Gcm();
    }

    /**
     * Counter mode from ECB: counter blocks are written into {@code counters}, encrypted by one {@code Cipher.update}
     * into {@code keystream} (the JDK's AVX-512/VAES ECB intrinsic pipelines the blocks), then XORed into the
     * packet. The two scratch arrays grow to the largest packet seen.
     */
    static final class EcbCtr implements Ctr
    {
        /** Most counter blocks per {@code Cipher.update}: 4,096 blocks = 64 KB, larger than any datagram. */
        static final int MAX_CHUNK_BLOCKS = 4096;
        private static final VarHandle LONG_BE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
        private static final VarHandle LONG_NATIVE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

        /**
         * Whether the XOR uses {@link VectorXor}: {@code jdk.incubator.vector} is in the boot layer and a vector holds
         * at least 16 octets.
         */
        static final boolean VECTOR_XOR = vectorXorSupported();

        private final Cipher ecb;
        private final boolean vectorXor;
        private byte[] counters = new byte[256];
        private byte[] keystream = new byte[256];
        /**
         * The high halves of the first {@code highBlocks} counter blocks all hold {@code high}: for SRTP that half is
         * salt XOR SSRC (RFC 3711 §4.1.1), the same for every packet of a stream, so it is written once, not per
         * packet.
         */
        private long high;
        private int highBlocks;

        EcbCtr()
        {
            this(VECTOR_XOR);
        }

        /**
         * @param vectorXor whether to XOR with {@link VectorXor}; only true where {@link #VECTOR_XOR} is (tests pass
         *                  false to check the scalar XOR on a machine with SIMD).
         */
        EcbCtr(final boolean vectorXor)
        {
            this.vectorXor = vectorXor && VECTOR_XOR;
            try
            {
                ecb = Cipher.getInstance("AES/ECB/NoPadding");
            }
            catch (final GeneralSecurityException ex)
            {
                throw new IllegalStateException("AES/ECB/NoPadding is not available", ex);
            }
        }

        @Override
        public void init(final byte[] key, final int keyLength)
        {
            try
            {
                ecb.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, 0, keyLength, "AES"));
            }
            catch (final GeneralSecurityException ex)
            {
                throw new IllegalArgumentException("AES key rejected: " + keyLength + " octets", ex);
            }
        }

        @Override
        public void xorKeystream(final byte[] iv, final byte[] buffer, final int offset, final int length)
        {
            ensureScratch(Math.min((length + 15) & ~15, MAX_CHUNK_BLOCKS * 16));
            final long ivHigh = (long)LONG_BE.get(iv, 0);
            final long ivLow = (long)LONG_BE.get(iv, 8);
            long block = 0;
            int done = 0;
            while (done < length)
            {
                final int chunk = Math.min(length - done, counters.length);
                final int blocks = (chunk + 15) >>> 4;
                encryptCounters(ivHigh, ivLow, block, blocks);
                block += blocks;
                xor(buffer, offset + done, keystream, 0, chunk);
                done += chunk;
            }
        }

        /**
         * The keystream of one message for AES-GCM's GCTR (NIST SP 800-38D §6.5): AES_k(iv), AES_k(iv + 1), ... for
         * {@code length} octets, in one {@code Cipher.update}. With a 96-bit IV and J0 = IV || 1 the low 32 bits never
         * carry for a message of fewer than 2^32 - 2 blocks, so iv + j is GCM's inc32 applied j times.
         *
         * @param iv     the first counter block, borrowed.
         * @param length octets of keystream, at most {@link #MAX_CHUNK_BLOCKS} blocks.
         * @return the keystream array (valid until the next call on this engine), {@code length} octets from 0.
         */
        byte[] keystream(final byte[] iv, final int length)
        {
            final int blocks = (length + 15) >>> 4;
            ensureScratch(blocks << 4);
            encryptCounters((long)LONG_BE.get(iv, 0), (long)LONG_BE.get(iv, 8), 0, blocks);
            return keystream;
        }

        /**
         * XORs {@code keystream[ksOffset, ksOffset + length)} into {@code buffer[offset, offset + length)}: a vector
         * step where the Vector API is present; then eight octets per step (measured 1.4x faster than a byte loop,
         * which C2 does not vectorise here), then single octets.
         */
        void xor(final byte[] buffer, final int offset, final byte[] ks, final int ksOffset, final int length)
        {
            int i = vectorXor ? VectorXor.xor(buffer, offset, ks, ksOffset, length) : 0;
            for (; i + 8 <= length; i += 8)
            {
                LONG_NATIVE.set(buffer, offset + i,
                    (long)LONG_NATIVE.get(buffer, offset + i) ^ (long)LONG_NATIVE.get(ks, ksOffset + i));
            }
            for (; i < length; i++)
            {
                buffer[offset + i] ^= ks[ksOffset + i];
            }
        }

        /** Grows the scratch arrays once to the largest packet seen, so one Cipher.update covers a whole packet. */
        private void ensureScratch(final int wanted)
        {
            if (counters.length < wanted)
            {
                counters = new byte[wanted];
                keystream = new byte[wanted];
                highBlocks = 0;
            }
        }

        /** Writes counter blocks {@code block .. block + blocks - 1} after the IV and encrypts them into keystream. */
        private void encryptCounters(final long ivHigh, final long ivLow, final long block, final int blocks)
        {
            final byte[] ctr = counters;
            if (0 == (ivLow & 0xFFFF) && block + blocks <= 0x1_0000)
            {
                // RFC 3711 §4.1.1: the IV is shifted left 16 bits (SRTP, SRTCP and the KDF alike), so IV + j is
                // IV | j for the 2^16 blocks a packet can have: no carry, and the high half is the IV's.
                fillHigh(ctr, ivHigh, blocks);
                for (int i = 0; i < blocks; i++)
                {
                    LONG_BE.set(ctr, (i << 4) + 8, ivLow | (block + i));
                }
            }
            else
            {
                highBlocks = 0;
                for (int i = 0; i < blocks; i++)
                {
                    // The counter is IV + j mod 2^128; j < 2^16 so one carry is enough.
                    final long low = ivLow + block + i;
                    final long carried = Long.compareUnsigned(low, ivLow) < 0 ? ivHigh + 1 : ivHigh;
                    LONG_BE.set(ctr, i << 4, carried);
                    LONG_BE.set(ctr, (i << 4) + 8, low);
                }
            }
            try
            {
                ecb.update(ctr, 0, blocks << 4, keystream, 0);
            }
            catch (final GeneralSecurityException ex)
            {
                // Unreachable: block-aligned input and an output array of the same size.
                throw new IllegalStateException(ex);
            }
        }

        /** Writes {@code ivHigh} into the high halves of the first {@code blocks} counter blocks unless there. */
        private void fillHigh(final byte[] ctr, final long ivHigh, final int blocks)
        {
            int from = highBlocks;
            if (ivHigh != high)
            {
                high = ivHigh;
                from = 0;
            }
            for (int i = from; i < blocks; i++)
            {
                LONG_BE.set(ctr, i << 4, ivHigh);
            }
            highBlocks = Math.max(from, blocks);
        }

        private static boolean vectorXorSupported()
        {
            if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty())
            {
                return false;
            }
            try
            {
                return VectorXor.SPECIES.length() >= 16;
            }
            catch (final LinkageError ex)
            {
                return false;
            }
        }
    }

    /**
     * HMAC-SHA1 per RFC 2104 over one {@code MessageDigest}: H(K ^ opad || H(K ^ ipad || m)).
     */
    static final class DigestHmacSha1 implements Mac
    {
        private static final int BLOCK = 64;
        private static final int DIGEST = 20;

        private final MessageDigest sha1;
        private final byte[] ipad = new byte[BLOCK];
        private final byte[] opad = new byte[BLOCK];
        private final byte[] inner = new byte[DIGEST];
        private boolean started;

        DigestHmacSha1()
        {
            try
            {
                sha1 = MessageDigest.getInstance("SHA-1");
            }
            catch (final GeneralSecurityException ex)
            {
                throw new IllegalStateException("SHA-1 is not available", ex);
            }
        }

        @Override
        public void init(final byte[] key, final int keyLength)
        {
            byte[] k = key;
            int kLength = keyLength;
            if (keyLength > BLOCK)
            {
                sha1.reset();
                sha1.update(key, 0, keyLength);
                k = sha1.digest();
                kLength = DIGEST;
            }
            Arrays.fill(ipad, (byte)0x36);
            Arrays.fill(opad, (byte)0x5c);
            for (int i = 0; i < kLength; i++)
            {
                ipad[i] ^= k[i];
                opad[i] ^= k[i];
            }
            sha1.reset();
            started = false;
        }

        @Override
        public void update(final byte[] buffer, final int offset, final int length)
        {
            if (!started)
            {
                sha1.update(ipad, 0, BLOCK);
                started = true;
            }
            sha1.update(buffer, offset, length);
        }

        @Override
        public void doFinal(final byte[] out, final int offset)
        {
            if (!started)
            {
                sha1.update(ipad, 0, BLOCK);
            }
            started = false;
            try
            {
                sha1.digest(inner, 0, DIGEST);
                sha1.update(opad, 0, BLOCK);
                sha1.update(inner, 0, DIGEST);
                sha1.digest(out, offset, DIGEST);
            }
            catch (final DigestException ex)
            {
                // Unreachable: the output arrays are sized by the caller and by us.
                throw new IllegalStateException(ex);
            }
        }
    }

    /**
     * {@code AES/GCM/NoPadding}, re-initialised per message; output is staged in a scratch array that grows to the
     * largest packet seen (once).
     */
    static final class Gcm implements Aead
    {
        private static final int TAG_BITS = 128;
        private static final int TAG = 16;

        private final Cipher gcm;
        private SecretKeySpec key;
        private byte[] scratch = new byte[2048];

        Gcm()
        {
            try
            {
                gcm = Cipher.getInstance("AES/GCM/NoPadding");
            }
            catch (final GeneralSecurityException ex)
            {
                throw new IllegalStateException("AES/GCM/NoPadding is not available", ex);
            }
        }

        @Override
        public void init(final byte[] keyBytes, final int keyLength)
        {
            key = new SecretKeySpec(keyBytes, 0, keyLength, "AES");
        }

        @Override
        public boolean start(final boolean encrypt, final byte[] iv)
        {
            try
            {
                gcm.init(encrypt ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, iv));
                return true;
            }
            catch (final GeneralSecurityException ex)
            {
                return false;
            }
        }

        @Override
        public void aad(final byte[] buffer, final int offset, final int length)
        {
            gcm.updateAAD(buffer, offset, length);
        }

        @Override
        public int encrypt(final byte[] buffer, final int offset, final int length)
        {
            ensureScratch(length + TAG);
            try
            {
                final int n = gcm.doFinal(buffer, offset, length, scratch, 0);
                System.arraycopy(scratch, 0, buffer, offset, n);
                return n;
            }
            catch (final GeneralSecurityException ex)
            {
                return -1;
            }
        }

        @Override
        public int decrypt(final byte[] buffer, final int offset, final int length)
        {
            ensureScratch(length);
            try
            {
                final int n = gcm.doFinal(buffer, offset, length, scratch, 0);
                System.arraycopy(scratch, 0, buffer, offset, n);
                return n;
            }
            catch (final AEADBadTagException ex)
            {
                return -1;
            }
            catch (final GeneralSecurityException ex)
            {
                return -1;
            }
        }

        private void ensureScratch(final int length)
        {
            if (scratch.length < length)
            {
                scratch = new byte[Math.max(length, scratch.length << 1)];
            }
        }
    }
}
