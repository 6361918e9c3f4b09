package io.sipline.media.srtp;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;

/**
 * The JDK's own GHASH (SP 800-38D §6.4), reached without its {@code Cipher}: the static method
 * {@code com.sun.crypto.provider.GHASH.processBlocks(byte[] data, int offset, int blocks, long[] state,
 * long[] subkeyTable)}, which HotSpot replaces by its carry-less-multiply stub (PCLMULQDQ, AVX) when C2 compiles a
 * caller. Called through a {@code static final} {@link MethodHandle}, C2 inlines the handle and the stub is used, so
 * a block costs what it costs inside the JDK's {@code AES/GCM} (about 2.3 ns here, against about 30 ns for a table
 * GHASH in Java), with no allocation: the state and the key's table are arrays {@link JavaGcm} owns.
 *
 * <p>The JDK keeps this class private: the handle needs {@code --add-opens java.base/com.sun.crypto.provider=
 * ALL-UNNAMED} (as Netty needs openings for its fast paths). Without it, or on a JDK whose class differs, {@link
 * #AVAILABLE} is false and {@link JavaGcm} uses a table in Java instead. Before being trusted the handle is checked
 * once against GHASH computed here by the definition (bit by bit) on a fixed key and a few blocks.
 *
 * <p>The stub does no bounds checks of its own (the JDK checks before calling it); {@link #process} checks every
 * argument first, so a wrong length is an exception, never a write out of bounds.
 *
 * <p>Stateless and thread-safe; the arrays passed in belong to the caller's thread.
 */
final class JdkGhash
{
    /** The {@code --add-opens} option that makes the JDK path available. */
    static final String ADD_OPENS = "--add-opens java.base/com.sun.crypto.provider=ALL-UNNAMED";

    private static final VarHandle LONG_BE =
        MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);

    /** {@code GHASH.processBlocks}, or null when not reachable. */
    private static final MethodHandle PROCESS_BLOCKS;

    /**
     * Longs in the key table the stub expects (2 for H, the rest powers of H the stub computes on first use); read
     * from a {@code GHASH} the JDK builds, not assumed. 0 when not available.
     */
    static final int SUBKEY_LONGS;

    /** True when the JDK's GHASH can be called and gave the right answer on the check. */
    static final boolean AVAILABLE;

    /** Why the JDK path is not available, for diagnostics and the tests; null when it is. */
    static final String UNAVAILABLE_REASON;

    static
    {
        MethodHandle process = null;
        int subkeyLongs = 0;
        String reason = null;
        try
        {
            final Class<?> ghash = Class.forName("com.sun.crypto.provider.GHASH");
            final MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(ghash, MethodHandles.lookup());
            process = lookup.findStatic(ghash, "processBlocks", MethodType.methodType(
                void.class, byte[].class, int.class, int.class, long[].class, long[].class));
            final Object sample = lookup.findConstructor(ghash, MethodType.methodType(void.class, byte[].class))
                .invoke(new byte[16]);
            subkeyLongs = ((long[])lookup.findVarHandle(ghash, "subkeyHtbl", long[].class).get(sample)).length;
            if (!check(process, subkeyLongs))
            {
                reason = "GHASH.processBlocks gave a wrong result";
                process = null;
            }
        }
        catch (final Throwable ex)
        {
            // Not opened (IllegalAccessException), or another JDK's class: the table GHASH serves instead.
            reason = ex.toString();
            process = null;
        }
        PROCESS_BLOCKS = process;
        AVAILABLE = null != process;
        SUBKEY_LONGS = AVAILABLE ? subkeyLongs : 0;
        UNAVAILABLE_REASON = reason;
    }

    private JdkGhash()
    {
    }

    /**
     * Sets a key table for H: H in longs 0 and 1 (big-endian halves), zeros after, which tells the stub to compute
     * its powers of H again on first use, as for a new {@code GHASH} in the JDK.
     *
     * @param subkey a table of {@link #SUBKEY_LONGS} longs.
     * @param hHigh  octets 0..7 of H, big-endian.
     * @param hLow   octets 8..15 of H.
     */
    static void key(final long[] subkey, final long hHigh, final long hLow)
    {
        java.util.Arrays.fill(subkey, 0);
        subkey[0] = hHigh;
        subkey[1] = hLow;
    }

    /**
     * Y = (...((Y ^ X_1) · H) ^ X_2) · H ...) over whole blocks.
     *
     * @param data   the blocks; borrowed for the call.
     * @param offset where they start.
     * @param length octets, a multiple of 16.
     * @param state  Y as two big-endian longs, updated in place.
     * @param subkey the key table from {@link #key}.
     * @throws IllegalArgumentException if any bound or length is wrong (nothing is read or written then).
     */
    static void process(final byte[] data, final int offset, final int length, final long[] state,
        final long[] subkey)
    {
        if (offset < 0 || length < 0 || (length & 15) != 0 || length > data.length - offset || 2 != state.length ||
            SUBKEY_LONGS != subkey.length)
        {
            throw new IllegalArgumentException("GHASH bounds: offset " + offset + ", length " + length + ", data " +
                data.length + ", state " + state.length + ", subkey " + subkey.length);
        }
        if (0 == length)
        {
            return;
        }
        try
        {
            PROCESS_BLOCKS.invokeExact(data, offset, length >>> 4, state, subkey);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** The handle against the definition of GHASH (bit-serial multiply, SP 800-38D §6.3, Algorithm 1). */
    private static boolean check(final MethodHandle process, final int subkeyLongs) throws Throwable
    {
        final long hHigh = 0x66E9_4BD4_EF8A_2C3BL;
        final long hLow = 0x884C_FA59_CA34_2B2EL;
        final byte[] data = new byte[16 * 9];
        for (int i = 0; i < data.length; i++)
        {
            data[i] = (byte)(i * 37 + 11);
        }
        final long[] subkey = new long[subkeyLongs];
        key(subkey, hHigh, hLow);
        final long[] state = new long[2];
        // 9 blocks: past the 8-block path of the AVX stub, and one block alone after it.
        process.invokeExact(data, 0, 8, state, subkey);
        process.invokeExact(data, 128, 1, state, subkey);
        long yHigh = 0;
        long yLow = 0;
        for (int at = 0; at < data.length; at += 16)
        {
            final long[] product = multiply(yHigh ^ (long)LONG_BE.get(data, at), yLow ^ (long)LONG_BE.get(data, at + 8),
                hHigh, hLow);
            yHigh = product[0];
            yLow = product[1];
        }
        return state[0] == yHigh && state[1] == yLow;
    }

    /** X · Y in GF(2^128) by SP 800-38D Algorithm 1 (for the check only: allocates). */
    private static long[] multiply(final long xHigh, final long xLow, final long yHigh, final long yLow)
    {
        long zHigh = 0;
        long zLow = 0;
        long vHigh = yHigh;
        long vLow = yLow;
        for (int i = 0; i < 128; i++)
        {
            final long bit = i < 64 ? (xHigh >>> (63 - i)) & 1 : (xLow >>> (127 - i)) & 1;
            zHigh ^= vHigh & -bit;
            zLow ^= vLow & -bit;
            final long carry = vLow & 1;
            vLow = (vLow >>> 1) | (vHigh << 63);
            vHigh = (vHigh >>> 1) ^ (0xE100_0000_0000_0000L & -carry);
        }
        return new long[] {zHigh, zLow};
    }
}
