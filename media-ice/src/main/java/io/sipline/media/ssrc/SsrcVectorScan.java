package io.sipline.media.ssrc;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The SIMD scan of a dense SSRC array, with the JDK Vector API ({@code jdk.incubator.vector}), kept in its own
 * class so that {@link SsrcIndex} loads it only when the incubator module is in the boot layer: without
 * {@code --add-modules jdk.incubator.vector} this class is never initialised and the index scans with scalar code.
 *
 * <p>One step compares {@link #LANES} SSRCs with the needle (a broadcast of the SSRC looked for) and turns the
 * result into bits with {@code VectorMask.toLong()}; on AVX-512 that is {@code vpcmpeqd} into a mask register and
 * {@code kmovq}. There is no scalar tail: the caller keeps the array length a multiple of {@link #LANES} and the
 * last step may read lanes past {@code size}. Those lanes hold stale SSRCs (any int is a valid SSRC, so there is
 * nothing to clear them with); their bits are masked off before the lowest set bit is taken, so a stale lane can
 * never be reported nor hide a real match.
 *
 * <p>Stateless and thread-safe.
 */
final class SsrcVectorScan
{
    /** The preferred species of this machine: 16 ints with AVX-512, 8 with AVX2, 4 with SSE or NEON. */
    static final VectorSpecies<Integer> SPECIES = IntVector.SPECIES_PREFERRED;

    /** SSRCs compared per step. */
    static final int LANES = SPECIES.length();

    /** Entries whose step masks are folded into one {@code long} before a single test: {@link Long#SIZE}. */
    static final int FOLD = Long.SIZE;

    private SsrcVectorScan()
    {
    }

    /**
     * Finds an SSRC in {@code keys[0, size)}.
     *
     * <p>Up to {@link #LANES} entries this is one compare and {@code firstTrue()}. Beyond, the entries are taken
     * in chunks of {@link #FOLD} (64): every step of a chunk compares, and the step masks
     * are folded into one {@code long} (step k's lanes at bits k * LANES and up) before anything is tested. The
     * number of steps depends only on {@code size}, which is the same for every packet of a session, so the branch
     * predictor learns it; where the SSRC sits among them is found with one {@code numberOfTrailingZeros}, not
     * with a data-dependent loop exit that would mispredict on most packets. Up to 64 entries that is one chunk and
     * the whole lookup has no unpredictable branch but "found or not".
     *
     * @param keys the dense SSRC array; its length is a multiple of {@link #LANES}, at least {@code size} and not 0.
     * @param size the number of live entries.
     * @param ssrc the SSRC to find.
     * @return the index of {@code ssrc} in {@code keys}, or -1 if it is not among the first {@code size} entries.
     */
    static int indexOf(final int[] keys, final int size, final int ssrc)
    {
        if (size <= LANES)
        {
            // One step: firstTrue() is the lowest matching lane, so a stale lane (at size or above) is reported
            // only when no live lane matches.
            final int lane = IntVector.fromArray(SPECIES, keys, 0).compare(VectorOperators.EQ, ssrc).firstTrue();
            return lane < size ? lane : -1;
        }
        final IntVector needle = IntVector.broadcast(SPECIES, ssrc);
        int base = 0;
        do
        {
            final int end = Math.min(size, base + FOLD);
            long bits = 0;
            for (int i = base; i < end; i += LANES)
            {
                bits |= IntVector.fromArray(SPECIES, keys, i).compare(VectorOperators.EQ, needle).toLong()
                    << (i - base);
            }
            // Lanes past size hold stale SSRCs: keep only the end - base live bits (when base == end, bits is 0).
            bits &= -1L >>> (FOLD - (end - base));
            if (0 != bits)
            {
                return base + Long.numberOfTrailingZeros(bits);
            }
            base += FOLD;
        }
        while (base < size);
        return -1;
    }

    /**
     * One step over the first {@link #LANES} keys: the lowest lane that holds {@code ssrc}, or {@link #LANES} when
     * none does. Lanes past the caller's size hold stale SSRCs and may match, but only when no live lane does: a lane
     * at or above the size is a miss.
     *
     * @param keys the dense SSRC array, at least {@link #LANES} long.
     * @param ssrc the SSRC to find.
     * @return a lane in {@code [0, LANES]}.
     */
    static int firstLane(final int[] keys, final int ssrc)
    {
        return IntVector.fromArray(SPECIES, keys, 0).compare(VectorOperators.EQ, ssrc).firstTrue();
    }

    /** 4 ints (128 bits): the step for up to 4 entries when the preferred species is wider. */
    static final VectorSpecies<Integer> SPECIES_4 = IntVector.SPECIES_128;

    /** 8 ints (256 bits): the step for 5 to 8 entries when the preferred species is wider. */
    static final VectorSpecies<Integer> SPECIES_8 = IntVector.SPECIES_256;

    /**
     * {@link #firstLane} over the first 4 keys, with a 128-bit vector: a few entries need no wider compare, and a
     * narrower one is cheaper where 512-bit operations are split in two (AMD Zen 4).
     *
     * @param keys the dense SSRC array, at least {@link #LANES} long (so at least 4).
     * @return a lane in {@code [0, 4]}.
     */
    static int firstLaneOf4(final int[] keys, final int ssrc)
    {
        return IntVector.fromArray(SPECIES_4, keys, 0).compare(VectorOperators.EQ, ssrc).firstTrue();
    }

    /**
     * {@link #firstLane} over the first 8 keys, with a 256-bit vector (see {@link #firstLaneOf4}).
     *
     * @param keys the dense SSRC array, at least {@link #LANES} long, and {@link #LANES} is above 8 when this is
     *             used.
     * @return a lane in {@code [0, 8]}.
     */
    static int firstLaneOf8(final int[] keys, final int ssrc)
    {
        return IntVector.fromArray(SPECIES_8, keys, 0).compare(VectorOperators.EQ, ssrc).firstTrue();
    }

    /**
     * Probes an open-addressing table (linear probing, {@code 0} the key of an empty slot) at its home slot: one
     * compare of the {@link #LANES} keys from {@code home} on. The keys array repeats its first slots past the end,
     * so that a window starting near the end reads the slots it wraps to.
     *
     * @param keys the table's keys, at least {@code home + LANES} long.
     * @param home the home slot of {@code ssrc}.
     * @param ssrc the SSRC to find, not 0.
     * @return the lane ({@code < LANES}) where {@code ssrc} is; {@link #LANES} if the window has an empty slot and
     * no match, which proves a miss because a key never sits past an empty slot of its run; -1 if the window is
     * full without a match, and the probe goes on from {@code home + LANES}.
     */
    static int probe(final int[] keys, final int home, final int ssrc)
    {
        final IntVector window = IntVector.fromArray(SPECIES, keys, home);
        final int lane = window.compare(VectorOperators.EQ, ssrc).firstTrue();
        if (lane < LANES)
        {
            return lane;
        }
        return window.compare(VectorOperators.EQ, 0).anyTrue() ? LANES : -1;
    }
}
