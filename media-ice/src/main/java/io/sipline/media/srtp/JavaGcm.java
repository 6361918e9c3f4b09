package io.sipline.media.srtp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * AES-GCM (NIST SP 800-38D) with a 16-octet tag and a 96-bit IV, for RFC 7714 AEAD SRTP, that allocates nothing per
 * message: GCTR's keystream comes from the AES/ECB {@code Cipher.update} path of {@link JcaSrtpBackend.EcbCtr} (the
 * counter blocks J0, inc32(J0), ... encrypted in one call, the first block masking the tag), and GHASH is computed
 * here in Java with Shoup's table method: the multiples of H by every 4-bit nibble (16 entries, 256 octets per key)
 * or every octet (256 entries, 4 KB per key; the default, {@value #TABLE_BITS_PROP_NAME}), so one block costs 32 or 16
 * table look-ups, shifts and XORs instead of a carry-less multiply. {@code AES/GCM/NoPadding} in the JDK allocates
 * about 1 KB per packet because it must be re-initialised for every IV (see {@code media-ice/README.md}).
 *
 * <h2>GHASH (SP 800-38D §6.3, §6.4)</h2>
 * A block is the 128-bit polynomial whose coefficient of x^0 is the most significant bit of its first octet; here it is
 * held in two longs read big-endian ({@code high} holds octets 0..7), so x^0 is bit 63 of {@code high} and
 * multiplying by x is a right shift, with x^128 = 1 + x + x^2 + x^7 folded back as {@code 0xE1 << 56}. For a nibble
 * n = b3 b2 b1 b0 (b3 its high bit) at degrees p..p+3, the table holds {@code M[n] = (b3 + b2 x + b1 x^2 + b0 x^3) H}
 * (likewise for octets); X·H is then evaluated by Horner's rule from the last nibble of X to the first:
 * Z = Z·x^4 + M[nibble], where Z·x^4 shifts Z right by 4 bits and folds the 4 bits shifted out with
 * {@link #REDUCE_4} ({@link #REDUCE_8} for octets).
 *
 * <p>Constant time with respect to the tag comparison; the table look-ups are indexed by data (as in every table
 * GHASH), which a co-resident cache-timing attacker could observe. The JDK path (CLMUL) has no such tables.
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

    /** System property: the table width, 4 or 8 bits ({@link #TABLE_BITS_DEFAULT}). */
    static final String TABLE_BITS_PROP_NAME = "io.sipline.srtp.ghash.bits";

    /** Default of {@link #TABLE_BITS_PROP_NAME}. */
    static final int TABLE_BITS_DEFAULT = 8;

    /** The table width of engines made by {@link JcaSrtpBackend#JAVA_GCM}. */
    static final int TABLE_BITS = Integer.getInteger(TABLE_BITS_PROP_NAME, TABLE_BITS_DEFAULT);

    private final JcaSrtpBackend.EcbCtr ctr;
    /** Bits of X consumed per table look-up: 4 (Shoup's 4-bit table) or 8. */
    private final int tableBits;
    private final long[] tableHigh;
    private final long[] tableLow;
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
        this(vectorXor, TABLE_BITS);
    }

    /**
     * @param vectorXor whether the keystream XOR may use the Vector API.
     * @param tableBits 4 (16 multiples of H, 256 octets per key) or 8 (256 multiples, 4 KB per key, half the
     *                  look-ups).
     */
    JavaGcm(final boolean vectorXor, final int tableBits)
    {
        if (4 != tableBits && 8 != tableBits)
        {
            throw new IllegalArgumentException("table bits must be 4 or 8: " + tableBits);
        }
        ctr = new JcaSrtpBackend.EcbCtr(vectorXor);
        this.tableBits = tableBits;
        tableHigh = new long[1 << tableBits];
        tableLow = new long[1 << tableBits];
    }

    @Override
    public void init(final byte[] key, final int keyLength)
    {
        ctr.init(key, keyLength);
        // H = AES_k(0^128): the keystream of the all-zero counter block.
        final byte[] h = ctr.keystream(new byte[16], 16);
        final long hHigh = (long)LONG_BE.get(h, 0);
        final long hLow = (long)LONG_BE.get(h, 8);
        // With b-bit look-ups, M[2^(b-1)] = H, M[2^(b-2)] = H·x, ..., M[1] = H·x^(b-1); M[a ^ c] = M[a] ^ M[c].
        final int size = 1 << tableBits;
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
        keyed = true;
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
        multiplyH(yHigh ^ (aadLength << 3), yLow ^ ((long)textLength << 3));
    }

    /** Y = (Y ^ X_i) · H for each whole block of {@code buffer[offset, offset + length)}; length a multiple of 16. */
    private void ghashBlocks(final byte[] buffer, final int offset, final int length)
    {
        for (int at = offset, end = offset + length; at < end; at += 16)
        {
            multiplyH(yHigh ^ (long)LONG_BE.get(buffer, at), yLow ^ (long)LONG_BE.get(buffer, at + 8));
        }
    }

    /** Y = X · H by Horner's rule over the nibbles (or octets) of X, last (lowest bits of {@code xLow}) first. */
    private void multiplyH(final long xHigh, final long xLow)
    {
        if (8 == tableBits)
        {
            multiplyH8(xHigh, xLow);
            return;
        }
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

    /** {@link #multiplyH} with octets: 16 look-ups per block, Z·x^8 folded with {@link #REDUCE_8}. */
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
