package io.sipline.sip.dialog;

/**
 * The shard's free list of {@link Dialog} records (a per-thread free list, as the 389 DS
 * study found, never a shared pool). Bounded: a dialog released when the list is full is left to the collector and
 * counted as an eviction; an empty list means a new record, counted as a miss. Neither blocks nor fails.
 *
 * <p>A record keeps the arrays it has grown, so in steady state a recycled dialog stores the next call's ids and
 * route set without allocating. Releasing a record twice is a bug and throws {@link IllegalStateException} (the
 * check is one boolean, so it is always on).
 *
 * <p>Not thread-safe; owned by one shard.
 */
public final class DialogPool
{
    private final Dialog[] free;
    private int freeCount;
    private long nextHandle;
    private long acquires;
    private long misses;
    private long releases;
    private long evictions;

    /**
     * @param maxFree  the most released records kept for reuse.
     * @param prefill  records created now so the first calls do not miss (at most {@code maxFree}).
     */
    public DialogPool(final int maxFree, final int prefill)
    {
        if (maxFree < 0 || prefill < 0 || prefill > maxFree)
        {
            throw new IllegalArgumentException("need 0 <= prefill <= maxFree: " + prefill + ", " + maxFree);
        }
        free = new Dialog[maxFree];
        for (int i = 0; i < prefill; i++)
        {
            final Dialog d = new Dialog();
            d.pooled = true;
            free[freeCount++] = d;
        }
    }

    /** Takes a record: a reset one from the free list, or a new one (a counted miss). Returns owned. */
    public Dialog acquire()
    {
        acquires++;
        final Dialog d;
        if (freeCount > 0)
        {
            d = free[--freeCount];
            free[freeCount] = null;
        }
        else
        {
            misses++;
            d = new Dialog();
        }
        d.pooled = false;
        d.handle = ++nextHandle;
        return d;
    }

    /**
     * Gives a record back (takes ownership). The record is reset; every reference to it is stale from now on.
     *
     * @throws IllegalStateException when the record is already in the pool (a double release).
     */
    public void release(final Dialog d)
    {
        if (d.pooled)
        {
            throw new IllegalStateException("dialog released twice");
        }
        releases++;
        d.reset();
        d.pooled = true;
        if (freeCount < free.length)
        {
            free[freeCount++] = d;
        }
        else
        {
            evictions++;
        }
    }

    /** Records ready for reuse. */
    public int freeCount()
    {
        return freeCount;
    }

    public long acquires()
    {
        return acquires;
    }

    /** Acquires that found the list empty and created a record. */
    public long misses()
    {
        return misses;
    }

    public long releases()
    {
        return releases;
    }

    /** Releases that found the list full and dropped the record. */
    public long evictions()
    {
        return evictions;
    }
}
