package io.sipline.container.dispatch;

import java.util.concurrent.atomic.AtomicLongArray;

import io.sipline.sip.shard.ShardIds;

/**
 * What {@code /metrics} reports per application: its live application sessions and a histogram of its
 * servlet call times. Each shard writes its own stripe (one cache line apart from the others), so shards never touch
 * the same counter; virtual-thread calls of one shard may overlap, hence atomic adds (uncontended, no allocation).
 * The admin thread sums the stripes at scrape time (a racy but monotone read).
 * <p>
 * Threading: {@link #sessionCreated}, {@link #sessionDestroyed} and {@link #servletCall} from any thread, with the
 * index of the shard that owns the session; reads from any thread.
 */
public final class ApplicationStats
{
    /** Upper bounds of the servlet time buckets, seconds; the last is +Inf. */
    public static final double[] UPPER_BOUNDS_SECONDS = {
        0.00001, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.1, 0.5, 1,
        Double.POSITIVE_INFINITY
    };
    private static final long[] UPPER_BOUNDS_NANOS = new long[UPPER_BOUNDS_SECONDS.length - 1];

    static
    {
        for (int i = 0; i < UPPER_BOUNDS_NANOS.length; i++)
        {
            UPPER_BOUNDS_NANOS[i] = Math.round(UPPER_BOUNDS_SECONDS[i] * 1e9);
        }
    }

    private static final int BUCKETS = UPPER_BOUNDS_SECONDS.length;
    private static final int SESSIONS = BUCKETS;
    private static final int SUM_NANOS = BUCKETS + 1;
    /** Longs per stripe, rounded up to whole 64-byte lines. */
    private static final int STRIPE = ((BUCKETS + 2 + 7) / 8) * 8;

    private final AtomicLongArray counters;
    private final int stripes;

    /** @param shards the number of shards that write (at most {@link ShardIds#MAX_SHARDS}). */
    public ApplicationStats(final int shards)
    {
        stripes = Math.max(1, Math.min(shards, ShardIds.MAX_SHARDS));
        counters = new AtomicLongArray(stripes * STRIPE);
    }

    private int base(final int shard)
    {
        return Math.floorMod(shard, stripes) * STRIPE;
    }

    public void sessionCreated(final int shard)
    {
        counters.getAndIncrement(base(shard) + SESSIONS);
    }

    public void sessionDestroyed(final int shard)
    {
        counters.getAndDecrement(base(shard) + SESSIONS);
    }

    /** Records one servlet call of {@code nanos}. */
    public void servletCall(final int shard, final long nanos)
    {
        final int b = base(shard);
        int bucket = 0;
        while (bucket < UPPER_BOUNDS_NANOS.length && nanos > UPPER_BOUNDS_NANOS[bucket])
        {
            bucket++;
        }
        counters.getAndIncrement(b + bucket);
        counters.getAndAdd(b + SUM_NANOS, Math.max(0, nanos));
    }

    /** Live application sessions over every shard. */
    public long sessions()
    {
        long n = 0;
        for (int s = 0; s < stripes; s++)
        {
            n += counters.get(s * STRIPE + SESSIONS);
        }
        return Math.max(0, n);
    }

    /** Calls per bucket (not cumulative), summed over the shards. */
    public long[] counts()
    {
        final long[] out = new long[BUCKETS];
        for (int s = 0; s < stripes; s++)
        {
            for (int i = 0; i < BUCKETS; i++)
            {
                out[i] += counters.get(s * STRIPE + i);
            }
        }
        return out;
    }

    /** The sum of every call's time, seconds. */
    public double sumSeconds()
    {
        long n = 0;
        for (int s = 0; s < stripes; s++)
        {
            n += counters.get(s * STRIPE + SUM_NANOS);
        }
        return n / 1e9;
    }
}
