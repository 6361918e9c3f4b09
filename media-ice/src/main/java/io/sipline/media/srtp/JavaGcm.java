package io.sipline.media.srtp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * AES-GCM (NIST SP 800-38D) with a 16-octet tag and a 96-bit IV, for RFC 7714 AEAD SRTP, that allocates nothing per
 * message: GCTR's keystream comes from the AES/ECB {@code Cipher.update} path of {@link JcaSrtpBackend.EcbCtr}, and
 * GHASH either from the JDK's own carry-less-multiply stub called directly ({@link JdkGhash}, the default where the
 * JVM opens it) or in Java by table look-ups ({@link Table}, chosen with {@value #TABLE_PROP_NAME}). The JDK's
 * {@code AES/GCM/NoPadding} allocates about 1 KB per packet, since it must be re-initialised for every IV.
 *
 * <p>GHASH (SP 800-38D §6.3, §6.4): a block is held in two longs read big-endian, so x^0 is bit 63 of {@code high},
 * multiplying by x is a right shift, and x^128 = 1 + x + x^2 + x^7 folds back as {@code 0xE1 << 56}. Shoup's method
 * ({@link Table#SHOUP_4}, {@link Table#SHOUP_8}) evaluates X·H by Horner's rule over the nibbles (octets) of X with
 * a table of {@code M[n] = n(x) H}, folding the bits shifted out with {@link #REDUCE_4} ({@link #REDUCE_8});
 * {@link Table#JDK} runs whole blocks through the JDK's {@code GHASH.processBlocks} (PCLMULQDQ).
 *
 * <p>The tag comparison is constant time; the Shoup look-ups are indexed by data (as in every table GHASH), which a
 * co-resident cache-timing attacker could observe. The JDK path has no such tables.
 *
 * <p>Not thread-safe; owned by one {@link SrtpContext} (one media thread).
 */
final class JavaGcm implements SrtpBackend.Aead
{
    private static final int TAG = 16;
    private static final int IV = 12;
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    /** x^128 mod the GCM polynomial, as the high long: 1 + x + x^2 + x^7. */
    private static final long R = 0xE100_0000_0000_0000L;

    /**
     * {@code REDUCE_4[r]}: what the four bits {@code r} shifted out of the low end by Z·x^4 fold back into the high
     * long. Bit 0 of r was the coefficient of x^127, which becomes x^131 = x^128·x^3, hence {@code R >>> 3}; bit 3
     * was x^124, which becomes x^128, hence {@code R}.
     */
    private static final long[] REDUCE_4 = reduceTable(4);

    /** The same for the eight bits shifted out by Z·x^8: bit j of r folds back as {@code R >>> (7 - j)}. */
    private static final long[] REDUCE_8 = reduceTable(8);

    /** How {@link JavaGcm} computes GHASH. */
    enum Table
    {
        /** Shoup's 4-bit table: 16 multiples of H, 256 octets per key, 32 dependent steps per block. */
        SHOUP_4(4),
        /** Shoup's 8-bit table: 256 multiples of H, 4 KB per key, 16 dependent steps per block. */
        SHOUP_8(8),
        /** The JDK's GHASH stub through {@link JdkGhash}; needs {@link JdkGhash#AVAILABLE}. */
        JDK(0);

        /** Bits of X per look-up of a Shoup table; 0 for {@link #JDK}. */
        final int bits;

        Table(final int bits)
        {
            this.bits = bits;
        }

        /**
         * @param name {@code shoup4}, {@code shoup8} or {@code jdk}, any case.
         * @return the table.
         * @throws IllegalArgumentException for another name, naming the three.
         */
        static Table byName(final String name)
        {
            for (final Table table : values())
            {
                if (table.name().replace("_", "").equalsIgnoreCase(name))
                {
                    return table;
                }
            }
            throw new IllegalArgumentException(TABLE_PROP_NAME + " must be shoup4, shoup8 or jdk: " + name);
        }
    }

    /** System property: the GHASH, {@code jdk}, {@code shoup8} or {@code shoup4}. */
    static final String TABLE_PROP_NAME = "io.sipline.srtp.ghash.table";

    /** Default of {@link #TABLE_PROP_NAME}: the JDK's stub where it is available, else Shoup's 8-bit table. */
    static final String TABLE_DEFAULT = JdkGhash.AVAILABLE ? "jdk" : "shoup8";

    /** The GHASH of engines made by {@link JcaSrtpBackend#JAVA_GCM}. */
    static final Table TABLE = Table.byName(System.getProperty(TABLE_PROP_NAME, TABLE_DEFAULT));

    private final JcaSrtpBackend.EcbCtr ctr;
    private final Table table;
    /** Shoup tables: the multiples of H, high and low longs; null for {@link Table#JDK}. */
    private final long[] tableHigh;
    private final long[] tableLow;
    /** {@link Table#JDK}: the key table of {@link JdkGhash}; null for the Shoup tables. */
    private final long[] subkey;
    /** {@link Table#JDK}: Y handed to {@link JdkGhash} (copied from and back to yHigh, yLow around each call). */
    private final long[] state;
    /** {@link Table#JDK}: the lengths block [len(A)]64 || [len(C)]64. */
    private final byte[] lengths = new byte[16];
    /** J0 = IV || 0^31 || 1 (SP 800-38D §7.1, 96-bit IV). */
    private final byte[] j0 = new byte[16];
    /** Associated data not yet a whole block; zero-padded when the text starts. */
    private final byte[] pending = new byte[16];
    /** A last partial block of text, zero-padded. */
    private final byte[] last = new byte[16];
    private int pendingLength;
    private long aadLength;
    private long yHigh;
    private long yLow;
    private boolean keyed;

    /**
     * @param vectorXor whether the keystream XOR may use the Vector API (where {@link JcaSrtpBackend.EcbCtr}
     *                  supports it).
     */
    JavaGcm(final boolean vectorXor)
    {
        this(vectorXor, TABLE);
    }

    /**
     * @param vectorXor whether the keystream XOR may use the Vector API.
     * @param table     the GHASH table.
     * @throws IllegalStateException if {@code table} is {@link Table#JDK} and {@link JdkGhash#AVAILABLE} is false.
     */
    JavaGcm(final boolean vectorXor, final Table table)
    {
        ctr = new JcaSrtpBackend.EcbCtr(vectorXor);
        this.table = table;
        if (Table.JDK == table)
        {
            if (!JdkGhash.AVAILABLE)
            {
                throw new IllegalStateException("the JDK's GHASH needs " + JdkGhash.ADD_OPENS + ": " +
                    JdkGhash.UNAVAILABLE_REASON);
            }
            tableHigh = null;
            tableLow = null;
            subkey = new long[JdkGhash.SUBKEY_LONGS];
            state = new long[2];
        }
        else
        {
            tableHigh = new long[1 << table.bits];
            tableLow = new long[1 << table.bits];
            subkey = null;
            state = null;
        }
    }

    @Override
    public void init(final byte[] key, final int keyLength)
    {
        ctr.init(key, keyLength);
        // H = AES_k(0^128): the keystream of the all-zero counter block.
        final byte[] h = ctr.keystream(new byte[16], 16);
        final long hHigh = (long)LONG_BE.get(h, 0);
        final long hLow = (long)LONG_BE.get(h, 8);
        if (Table.JDK == table)
        {
            JdkGhash.key(subkey, hHigh, hLow);
        }
        else
        {
            initShoup(hHigh, hLow);
        }
        keyed = true;
    }

    /** Shoup: with b-bit look-ups, M[2^(b-1)] = H, M[2^(b-2)] = H·x, ..., M[1] = H·x^(b-1); M[a ^ c] = M[a] ^ M[c]. */
    private void initShoup(final long hHigh, final long hLow)
    {
        final int size = 1 << table.bits;
        long vHigh = hHigh;
        long vLow = hLow;
        for (int bit = size >>> 1; bit > 0; bit >>>= 1)
        {
            tableHigh[bit] = vHigh;
            tableLow[bit] = vLow;
            final long carry = vLow & 1;
            vLow = (vLow >>> 1) | (vHigh << 63);
            vHigh = (vHigh >>> 1) ^ (R & -carry);
        }
        tableHigh[0] = 0;
        tableLow[0] = 0;
        for (int n = 2; n < size; n <<= 1)
        {
            for (int j = 1; j < n; j++)
            {
                tableHigh[n + j] = tableHigh[n] ^ tableHigh[j];
                tableLow[n + j] = tableLow[n] ^ tableLow[j];
            }
        }
    }

    @Override
    public boolean start(final boolean encrypt, final byte[] iv)
    {
        if (!keyed || IV != iv.length)
        {
            return false;
        }
        System.arraycopy(iv, 0, j0, 0, IV);
        INT_BE.set(j0, IV, 1);
        yHigh = 0;
        yLow = 0;
        aadLength = 0;
        pendingLength = 0;
        return true;
    }

    @Override
    public void aad(final byte[] buffer, final int offset, final int length)
    {
        aadLength += length;
        int at = offset;
        int left = length;
        if (pendingLength > 0)
        {
            final int take = Math.min(left, TAG - pendingLength);
            System.arraycopy(buffer, at, pending, pendingLength, take);
            pendingLength += take;
            at += take;
            left -= take;
            if (TAG == pendingLength)
            {
                ghashBlocks(pending, 0, TAG);
                pendingLength = 0;
            }
        }
        final int whole = left & ~15;
        ghashBlocks(buffer, at, whole);
        if (whole < left)
        {
            System.arraycopy(buffer, at + whole, pending, 0, left - whole);
            pendingLength = left - whole;
        }
    }

    @Override
    public int encrypt(final byte[] buffer, final int offset, final int length)
    {
        final int keystreamLength = TAG + length;
        if (keystreamLength > JcaSrtpBackend.EcbCtr.MAX_CHUNK_BLOCKS * 16)
        {
            return -1;
        }
        final byte[] ks = ctr.keystream(j0, keystreamLength);
        ctr.xor(buffer, offset, ks, TAG, length);
        finishAad();
        ghashText(buffer, offset, length);
        ghashLengths(length);
        LONG_BE.set(buffer, offset + length, yHigh ^ (long)LONG_BE.get(ks, 0));
        LONG_BE.set(buffer, offset + length + 8, yLow ^ (long)LONG_BE.get(ks, 8));
        return length + TAG;
    }

    @Override
    public int decrypt(final byte[] buffer, final int offset, final int length)
    {
        final int text = length - TAG;
        if (text < 0 || length > JcaSrtpBackend.EcbCtr.MAX_CHUNK_BLOCKS * 16)
        {
            return -1;
        }
        finishAad();
        ghashText(buffer, offset, text);
        ghashLengths(text);
        final byte[] ks = ctr.keystream(j0, length);
        // Constant-time tag comparison: no early exit on the first differing octet.
        final long diff = (yHigh ^ (long)LONG_BE.get(ks, 0) ^ (long)LONG_BE.get(buffer, offset + text))
            | (yLow ^ (long)LONG_BE.get(ks, 8) ^ (long)LONG_BE.get(buffer, offset + text + 8));
        if (0 != diff)
        {
            return -1;
        }
        ctr.xor(buffer, offset, ks, TAG, text);
        return text;
    }

    /** Zero-pads and absorbs the associated data's last partial block (SP 800-38D §7.1 step 5: A || 0^v). */
    private void finishAad()
    {
        if (pendingLength > 0)
        {
            Arrays.fill(pending, pendingLength, TAG, (byte)0);
            ghashBlocks(pending, 0, TAG);
            pendingLength = 0;
        }
    }

    /** Absorbs the ciphertext, its last partial block zero-padded (C || 0^u). */
    private void ghashText(final byte[] buffer, final int offset, final int length)
    {
        final int whole = length & ~15;
        ghashBlocks(buffer, offset, whole);
        if (whole < length)
        {
            Arrays.fill(last, (byte)0);
            System.arraycopy(buffer, offset + whole, last, 0, length - whole);
            ghashBlocks(last, 0, TAG);
        }
    }

    /** Absorbs [len(A)]64 || [len(C)]64, in bits. */
    private void ghashLengths(final int textLength)
    {
        if (Table.JDK == table)
        {
            LONG_BE.set(lengths, 0, aadLength << 3);
            LONG_BE.set(lengths, 8, (long)textLength << 3);
            ghashBlocks(lengths, 0, TAG);
            return;
        }
        multiplyH(yHigh ^ (aadLength << 3), yLow ^ ((long)textLength << 3));
    }

    /** Y = (Y ^ X_i) · H for each whole block of {@code buffer[offset, offset + length)}; length a multiple of 16. */
    private void ghashBlocks(final byte[] buffer, final int offset, final int length)
    {
        if (Table.JDK == table)
        {
            final long[] y = state;
            y[0] = yHigh;
            y[1] = yLow;
            JdkGhash.process(buffer, offset, length, y, subkey);
            yHigh = y[0];
            yLow = y[1];
            return;
        }
        for (int at = offset, end = offset + length; at < end; at += 16)
        {
            multiplyH(yHigh ^ (long)LONG_BE.get(buffer, at), yLow ^ (long)LONG_BE.get(buffer, at + 8));
        }
    }

    /** Y = X · H with a Shoup table. */
    private void multiplyH(final long xHigh, final long xLow)
    {
        if (Table.SHOUP_8 == table)
        {
            multiplyH8(xHigh, xLow);
        }
        else
        {
            multiplyH4(xHigh, xLow);
        }
    }

    /** {@link Table#SHOUP_4}: Horner's rule over the nibbles of X, last (lowest bits of {@code xLow}) first. */
    private void multiplyH4(final long xHigh, final long xLow)
    {
        final long[] mHigh = tableHigh;
        final long[] mLow = tableLow;
        long zHigh = 0;
        long zLow = 0;
        for (int shift = 0; shift < 64; shift += 4)
        {
            final int nibble = (int)(xLow >>> shift) & 0xF;
            final int out = (int)zLow & 0xF;
            zLow = (zLow >>> 4) | (zHigh << 60);
            zHigh = (zHigh >>> 4) ^ REDUCE_4[out] ^ mHigh[nibble];
            zLow ^= mLow[nibble];
        }
        for (int shift = 0; shift < 64; shift += 4)
        {
            final int nibble = (int)(xHigh >>> shift) & 0xF;
            final int out = (int)zLow & 0xF;
            zLow = (zLow >>> 4) | (zHigh << 60);
            zHigh = (zHigh >>> 4) ^ REDUCE_4[out] ^ mHigh[nibble];
            zLow ^= mLow[nibble];
        }
        yHigh = zHigh;
        yLow = zLow;
    }

    /**
     * {@link Table#SHOUP_8}: {@link #multiplyH4} with octets: 16 look-ups per block, Z·x^8 folded with
     * {@link #REDUCE_8}.
     */
    private void multiplyH8(final long xHigh, final long xLow)
    {
        final long[] mHigh = tableHigh;
        final long[] mLow = tableLow;
        long zHigh = 0;
        long zLow = 0;
        for (int shift = 0; shift < 64; shift += 8)
        {
            final int octet = (int)(xLow >>> shift) & 0xFF;
            final int out = (int)zLow & 0xFF;
            zLow = (zLow >>> 8) | (zHigh << 56);
            zHigh = (zHigh >>> 8) ^ REDUCE_8[out] ^ mHigh[octet];
            zLow ^= mLow[octet];
        }
        for (int shift = 0; shift < 64; shift += 8)
        {
            final int octet = (int)(xHigh >>> shift) & 0xFF;
            final int out = (int)zLow & 0xFF;
            zLow = (zLow >>> 8) | (zHigh << 56);
            zHigh = (zHigh >>> 8) ^ REDUCE_8[out] ^ mHigh[octet];
            zLow ^= mLow[octet];
        }
        yHigh = zHigh;
        yLow = zLow;
    }

    private static long[] reduceTable(final int bits)
    {
        final long[] table = new long[1 << bits];
        for (int r = 0; r < table.length; r++)
        {
            long folded = 0;
            for (int bit = 0; bit < bits; bit++)
            {
                if (0 != (r & (1 << bit)))
                {
                    folded ^= R >>> (bits - 1 - bit);
                }
            }
            table[r] = folded;
        }
        return table;
    }
}
