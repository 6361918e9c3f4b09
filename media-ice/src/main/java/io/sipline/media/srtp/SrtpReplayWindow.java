package io.sipline.media.srtp;

/**
 * The sliding replay list of RFC 3711 §3.3.2 over 48-bit SRTP or 31-bit SRTCP indices: the highest index received and
 * a bitmask of the {@code size} indices at and below it, kept in a {@code long[]}.
 *
 * <pre>
 *   bit k of the mask  ==  index (highest - k) was received         (k = 0 is the highest itself)
 *
 *            words[size/64 - 1]         ...          words[0]
 *   +-------------------------------+     +-------------------------------+
 *   |63 ......................... 0 | ... |63 ......................... 0 |
 *   +-------------------------------+     +-------------------------------+
 *    k = size-1 (oldest)                                         k = 0 (highest)
 * </pre>
 *
 * <p>{@link #check} and {@link #update} are separate because an index may only be recorded after its packet
 * authenticates (RFC 3711 §3.3 steps 2 and 7). An index {@code i} is in the window when
 * {@code highest - size < i}; libsrtp uses the same bound.
 *
 * <p>Not thread-safe; owned by one stream and so by one media thread. Allocates only at construction.
 */
final class SrtpReplayWindow
{
    /** RFC 3711 §3.3.2 asks for at least 64; libsrtp and we default to 128. */
    static final int DEFAULT_SIZE = 128;
    /** Upper bound on a configured window (libsrtp caps at 0x8000 too). */
    static final int MAX_SIZE = 0x8000;

    private final long[] words;
    private final int size;
    private long highest = -1;

    SrtpReplayWindow(final int size)
    {
        if (size < 64 || size > MAX_SIZE || 0 != (size & 63))
        {
            throw new IllegalArgumentException("replay window must be a multiple of 64 in [64, 32768]: " + size);
        }
        this.size = size;
        this.words = new long[size >>> 6];
    }

    /**
     * Window size in indices.
     *
     * @return the size.
     */
    int size()
    {
        return size;
    }

    /**
     * Highest index recorded.
     *
     * @return the index, or -1 before the first.
     */
    long highest()
    {
        return highest;
    }

    /**
     * Whether {@code index} may be accepted.
     *
     * @param index a non-negative index.
     * @return 0 if new, {@link SrtpResult#REPLAY_DUPLICATE} or {@link SrtpResult#REPLAY_OLD}.
     */
    int check(final long index)
    {
        final long delta = index - highest;
        if (delta > 0 || highest < 0)
        {
            return 0;
        }
        final long back = -delta;
        if (back >= size)
        {
            return SrtpResult.REPLAY_OLD;
        }
        final int k = (int)back;
        return 0 != (words[k >>> 6] & (1L << (k & 63))) ? SrtpResult.REPLAY_DUPLICATE : 0;
    }

    /**
     * Records {@code index} as received, sliding the window when it is the new highest.
     *
     * @param index an index that passed {@link #check} and authenticated.
     */
    void update(final long index)
    {
        if (highest < 0)
        {
            highest = index;
            words[0] = 1L;
            return;
        }
        final long delta = index - highest;
        if (delta > 0)
        {
            shift(delta);
            highest = index;
            words[0] |= 1L;
        }
        else
        {
            final int k = (int)-delta;
            if (k < size)
            {
                words[k >>> 6] |= 1L << (k & 63);
            }
        }
    }

    /**
     * Forgets everything and makes {@code index} the highest without marking it received, so that it and anything
     * after it are accepted (used when the ROC is set from signalling).
     *
     * @param index the new reference index, or -1 to start over.
     */
    void reset(final long index)
    {
        java.util.Arrays.fill(words, 0L);
        highest = index;
    }

    /** Moves every bit {@code delta} places towards the old end (bit k becomes bit k + delta). */
    private void shift(final long delta)
    {
        if (delta >= size)
        {
            java.util.Arrays.fill(words, 0L);
            return;
        }
        final int wordShift = (int)(delta >>> 6);
        final int bitShift = (int)(delta & 63);
        for (int w = words.length - 1; w >= 0; w--)
        {
            final int from = w - wordShift;
            long value = 0;
            if (from >= 0)
            {
                value = words[from] << bitShift;
                if (0 != bitShift && from > 0)
                {
                    value |= words[from - 1] >>> (64 - bitShift);
                }
            }
            words[w] = value;
        }
    }
}
