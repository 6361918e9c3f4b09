package io.sipline.sip.dialog;

import io.sipline.sip.collection.RecentFreeList;

/**
 * The shard's free list of {@link Dialog} records (a per-thread free list, never a shared pool). Bounded: a dialog
 * released when the list is full is left to the collector and counted as an eviction; an empty list means a new
 * record, counted as a miss. Neither blocks nor fails.
 *
 * <p>A transaction user whose objects outlive their dialogs (a JSR 289 container: an application may keep a
 * SipSession, and read its Call-ID and tags, as long as it likes) takes its records from an {@link #unpooled()}
 * pool: every record is new, and a released one keeps its contents (terminated) for whoever still holds it.
 *
 * <p>A record keeps the arrays it has grown, so in steady state a recycled dialog stores the next call's ids and
 * route set without allocating. Releasing a record twice is a bug and throws {@link IllegalStateException} (the
 * check is one boolean, so it is always on).
 *
 * <p>The list follows recent use ({@link #trim}, once a second from the shard's tick; a {@link RecentFreeList}): it
 * keeps as many free records as were acquired over the last {@link #TRIM_WINDOW} seconds, at least {@link #MIN_KEPT},
 * and leaves the rest to the collector. A steady load keeps its records; a burst (a flood of INVITEs, a registration
 * storm) gives its records and their arrays back seconds after it ends.
 *
 * <p>Not thread-safe; owned by one shard.
 */
public final class DialogPool
{
    /** How often {@link #trim} looks at the list. */
    static final long TRIM_PERIOD_NS = RecentFreeList.TRIM_PERIOD_NS;
    /** Trims over which the acquires are counted. */
    static final int TRIM_WINDOW = RecentFreeList.TRIM_WINDOW;
    /**
     * Free records a trim always leaves: a few calls' worth for a shard that has been idle, not a burst's. A load keeps
     * what its last {@link #TRIM_WINDOW} seconds acquired, so this floor matters only below a call or two a second.
     */
    static final int MIN_KEPT = 16;

    private final RecentFreeList<Dialog> free;
    private final boolean recycles;
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
        this(maxFree, prefill, true);
    }

    private DialogPool(final int maxFree, final int prefill, final boolean recycles)
    {
        this.recycles = recycles;
        if (maxFree < 0 || prefill < 0 || prefill > maxFree)
        {
            throw new IllegalArgumentException("need 0 <= prefill <= maxFree: " + prefill + ", " + maxFree);
        }
        free = new RecentFreeList<>(maxFree, MIN_KEPT);
        for (int i = 0; i < prefill; i++)
        {
            final Dialog d = new Dialog();
            d.pooled = true;
            free.give(d);
        }
    }

    /**
     * A pool that never recycles: {@link #acquire()} makes a new record (not counted as a miss) and
     * {@link #release(Dialog)} leaves the record's contents as they are, so that a transaction user's object that
     * holds it may keep reading it after the dialog ended; the collector frees it with that object.
     */
    public static DialogPool unpooled()
    {
        return new DialogPool(0, 0, false);
    }

    /** False for an {@link #unpooled()} pool. */
    public boolean recycles()
    {
        return recycles;
    }

    /** Takes a record: a reset one from the free list, or a new one (a counted miss). Returns owned. */
    public Dialog acquire()
    {
        acquires++;
        Dialog d = free.take();
        if (null == d)
        {
            misses += recycles ? 1 : 0;
            d = new Dialog();
        }
        d.pooled = false;
        d.handle = ++nextHandle;
        return d;
    }

    /**
     * Gives a record back (takes ownership). A recycling pool resets the record, and every reference to it is stale
     * from now on; an {@link #unpooled()} one leaves it as it is.
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
        if (!recycles)
        {
            d.pooled = true; // released: a second release throws; the contents stay readable
            return;
        }
        d.reset();
        d.pooled = true;
        if (!free.give(d))
        {
            evictions++;
        }
    }

    /**
     * Once a second (earlier calls return at once): lets go of the free records beyond what the last
     * {@link #TRIM_WINDOW} seconds acquired, keeping at least {@link #MIN_KEPT}. Allocates nothing.
     *
     * @param nowNs the shard's monotonic clock.
     */
    public void trim(final long nowNs)
    {
        free.trim(nowNs);
    }

    /** Free records let go by {@link #trim}. */
    public long trimmed()
    {
        return free.trimmed();
    }

    /** Records ready for reuse. */
    public int freeCount()
    {
        return free.size();
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
