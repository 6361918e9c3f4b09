package io.sipline.sip.transaction;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One shard's histogram of a server response time (see {@link InviteResponse}): fixed buckets fine enough to judge a
 * 5 ms p99 honestly, plus the sum, the largest time seen and the responses that could not be timed.
 * <pre>
 *   upper bounds (le):  50 µs steps to 2 ms         (40 buckets: 0.05, 0.10, ... 2.00 ms)
 *                       250 µs steps to 10 ms       (32 buckets: 2.25, 2.50, ... 10.00 ms)
 *                       12.5, 15, 17.5, 20, 25, 30, 40, 50, 100, 200, 500 ms, 1, 2, 5, 10 s, +Inf
 *   slots (one long[]): | pad 8 | count per bucket (88, not cumulative) | sum ns | max ns | untimed | pad 8 |
 * </pre>
 * A time falls in the first bucket whose upper bound is at least the time (Prometheus {@code le}); the bucket is
 * found by arithmetic in the two linear ranges and by a scan of fifteen bounds above 10 ms, so recording costs a few
 * instructions and three stores, and allocates nothing. The bounds between 10 and 50 ms are there because a p99 on a
 * loaded 2-core machine lands there, and "at most 20 ms" could not tell 10.5 ms from 19.9.
 *
 * <p><b>Memory model.</b> A single writer ({@link #record}, {@link #recordUntimed}): the shard that owns the
 * transaction layer. Each slot is written with a plain read of the writer's own last value followed by an opaque
 * store ({@link VarHandle#setOpaque}), as in {@code io.sipline.sip.transport.MessageCounters}: every 64-bit value is
 * atomic and eventually visible to a reader on any thread, which uses {@code getOpaque}, with no lock and no fence on
 * the shard. A scrape may see a bucket a record ahead of the sum; {@link #count()} is the sum of the bucket counts
 * read, so a scrape's buckets and count always agree. The array is padded at both ends so that another shard's
 * histogram never shares a cache line.
 */
public final class ResponseTimeHistogram
{
    /** Buckets, the last one {@code +Inf}. */
    public static final int BUCKETS = 88;

    private static final long FINE_STEP_NS = 50_000L;
    private static final long FINE_END_NS = 2_000_000L;
    private static final int FINE_BUCKETS = 40;
    private static final long MEDIUM_STEP_NS = 250_000L;
    private static final long MEDIUM_END_NS = 10_000_000L;
    private static final int MEDIUM_BUCKETS = 32;
    private static final long[] COARSE_NS = {
        12_500_000L, 15_000_000L, 17_500_000L, 20_000_000L, 25_000_000L, 30_000_000L, 40_000_000L, 50_000_000L,
        100_000_000L, 200_000_000L, 500_000_000L,
        1_000_000_000L, 2_000_000_000L, 5_000_000_000L, 10_000_000_000L};
    /** Upper bounds in nanoseconds; the last, {@code +Inf}, as {@link Long#MAX_VALUE}. */
    private static final long[] UPPER_BOUNDS_NS = upperBounds();

    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Eight longs: one cache line on each side. */
    private static final int PAD = 8;
    private static final int SUM = PAD + BUCKETS;
    private static final int MAX = SUM + 1;
    private static final int UNTIMED = MAX + 1;

    private final long[] slots = new long[UNTIMED + 1 + PAD];

    /** The bucket upper bounds in seconds, increasing, the last {@code +Inf} (a copy). */
    public static double[] upperBoundsSeconds()
    {
        final double[] s = new double[BUCKETS];
        for (int i = 0; i < BUCKETS - 1; i++)
        {
            s[i] = UPPER_BOUNDS_NS[i] / 1e9;
        }
        s[BUCKETS - 1] = Double.POSITIVE_INFINITY;
        return s;
    }

    /** The upper bound of bucket {@code i} in nanoseconds ({@link Long#MAX_VALUE} for the last, {@code +Inf}). */
    public static long upperBoundNs(final int i)
    {
        return UPPER_BOUNDS_NS[i];
    }

    /** The bucket a time falls in: the first whose upper bound is at least {@code ns} (0 for 0 or less). */
    public static int bucketOf(final long ns)
    {
        if (ns <= FINE_END_NS)
        {
            return ns <= 0 ? 0 : (int)((ns - 1) / FINE_STEP_NS);
        }
        if (ns <= MEDIUM_END_NS)
        {
            return FINE_BUCKETS + (int)((ns - FINE_END_NS - 1) / MEDIUM_STEP_NS);
        }
        for (int i = 0; i < COARSE_NS.length; i++)
        {
            if (ns <= COARSE_NS[i])
            {
                return FINE_BUCKETS + MEDIUM_BUCKETS + i;
            }
        }
        return BUCKETS - 1;
    }

    // ================================================================================================================
    // Writers: the owning shard only
    // ================================================================================================================

    /** One response timed at {@code ns} (not negative). */
    public void record(final long ns)
    {
        increment(PAD + bucketOf(ns));
        // opaque: atomic and eventually visible to a scrape; no order with the bucket is needed (see the class)
        SLOTS.setOpaque(slots, SUM, slots[SUM] + ns);
        if (ns > slots[MAX]) // plain read: only this thread writes the slot
        {
            SLOTS.setOpaque(slots, MAX, ns);
        }
    }

    /**
     * Records {@code toNs - fromNs} (wall clock); untimed when either is unknown (0) or the wall clock was stepped back
     * between them (no honest figure).
     */
    void recordBetween(final long fromNs, final long toNs)
    {
        if (0 == fromNs || 0 == toNs || toNs < fromNs)
        {
            recordUntimed();
            return;
        }
        record(toNs - fromNs);
    }

    /** One response that could not be timed (its request's arrival time unknown, or the wall clock stepped back). */
    public void recordUntimed()
    {
        increment(UNTIMED);
    }

    private void increment(final int i)
    {
        // single writer: a plain read of its own last store, then an opaque store a reader sees untorn
        SLOTS.setOpaque(slots, i, slots[i] + 1);
    }

    // ================================================================================================================
    // Readers: any thread
    // ================================================================================================================

    /** Responses in bucket {@code i} (not cumulative). */
    public long bucketCount(final int i)
    {
        if (i < 0 || i >= BUCKETS)
        {
            throw new IndexOutOfBoundsException("bucket " + i + " of " + BUCKETS);
        }
        return read(PAD + i);
    }

    /** The bucket counts (not cumulative), read now; a new array. */
    public long[] bucketCounts()
    {
        final long[] c = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++)
        {
            c[i] = read(PAD + i);
        }
        return c;
    }

    /** Responses timed: the sum of the bucket counts. */
    public long count()
    {
        long n = 0;
        for (int i = 0; i < BUCKETS; i++)
        {
            n += read(PAD + i);
        }
        return n;
    }

    /** The sum of every time recorded, in nanoseconds. */
    public long sumNs()
    {
        return read(SUM);
    }

    /** The largest time recorded, in nanoseconds (0 before any). */
    public long maxNs()
    {
        return read(MAX);
    }

    /** Responses that could not be timed (see {@link #recordUntimed()}). */
    public long untimed()
    {
        return read(UNTIMED);
    }

    private long read(final int i)
    {
        return (long)SLOTS.getOpaque(slots, i);
    }

    private static long[] upperBounds()
    {
        final long[] b = new long[BUCKETS];
        int i = 0;
        for (int k = 1; k <= FINE_BUCKETS; k++)
        {
            b[i++] = k * FINE_STEP_NS;
        }
        for (int k = 1; k <= MEDIUM_BUCKETS; k++)
        {
            b[i++] = FINE_END_NS + k * MEDIUM_STEP_NS;
        }
        for (final long c : COARSE_NS)
        {
            b[i++] = c;
        }
        b[i] = Long.MAX_VALUE;
        return b;
    }
}
