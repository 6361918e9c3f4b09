package io.sipline.sip.collection;

/**
 * A shard's free list of one kind of reusable object, bounded, that follows recent use: {@link #trim} (once a second,
 * from the shard's tick) keeps as many free objects as were taken over its last {@link #TRIM_WINDOW} trims, at least
 * {@code minKept}, and leaves the rest to the collector, so a burst's objects are gone seconds after it while a steady
 * load keeps what it reuses. An object released when the list is full is left to the collector.
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop. Ownership: an object in the list belongs to the list
 * until {@link #take} hands it out; the caller must hold no other reference to what it {@link #give}s back.
 *
 * @param <T> the pooled objects' type.
 */
public final class RecentFreeList<T>
{
    /** How often {@link #trim} looks at the list. */
    public static final long TRIM_PERIOD_NS = 1_000_000_000L;
    /** Trims over which the takes are counted. */
    public static final int TRIM_WINDOW = 10;

    private final Object[] free;
    private final int minKept;
    /** {@link #takes} at each of the last {@link #TRIM_WINDOW} trims (a ring). */
    private final long[] takenAtTrims = new long[TRIM_WINDOW];
    private int count;
    private long takes;
    private int trims;
    private long nextTrimNs;
    private long trimmed;

    /**
     * @param capacity the most free objects kept.
     * @param minKept  free objects a trim always leaves.
     */
    public RecentFreeList(final int capacity, final int minKept)
    {
        this.free = new Object[capacity];
        this.minKept = minKept;
    }

    /** A free object, or null when there is none (the caller makes one); counted as taken either way. */
    @SuppressWarnings("unchecked")
    public T take()
    {
        takes++;
        if (0 == count)
        {
            return null;
        }
        final T t = (T)free[--count];
        free[count] = null;
        return t;
    }

    /** Gives back an object no longer used; false when the list is full and it is left to the collector. */
    public boolean give(final T t)
    {
        if (count == free.length)
        {
            return false;
        }
        free[count++] = t;
        return true;
    }

    /**
     * Once a second (earlier calls return at once): lets go of the free objects beyond what the last
     * {@link #TRIM_WINDOW} trims took, keeping at least {@code minKept}. Allocates nothing.
     */
    public void trim(final long nowNs)
    {
        if (trims > 0 && nowNs - nextTrimNs < 0)
        {
            return;
        }
        nextTrimNs = nowNs + TRIM_PERIOD_NS;
        final int slot = trims % TRIM_WINDOW;
        // the ring's slot holds the count of TRIM_WINDOW trims ago (0 before the ring is full: all takes count)
        final long recent = takes - takenAtTrims[slot];
        takenAtTrims[slot] = takes;
        trims++;
        final long keep = Math.max(minKept, recent);
        while (count > keep)
        {
            free[--count] = null;
            trimmed++;
        }
    }

    /** Free objects let go by {@link #trim}. */
    public long trimmed()
    {
        return trimmed;
    }

    /** Free objects ready for reuse. */
    public int size()
    {
        return count;
    }
}
