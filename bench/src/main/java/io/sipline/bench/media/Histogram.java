package io.sipline.bench.media;

import java.util.Arrays;

/**
 * A histogram of durations in fixed 10 µs buckets up to 200 ms, and one bucket above: recording is an array
 * increment, so the load generator's receive thread records every packet without allocating.
 * {@link #percentile} answers with the upper edge of the bucket that holds the rank, so it never understates.
 *
 * <p>Not threadsafe: one writer; read it after the writer has stopped (a join orders the two).
 */
public final class Histogram
{
    /** The width of one bucket. */
    static final long BUCKET_NANOS = 10_000;
    private static final int BUCKETS = 20_000;

    private final long[] counts = new long[BUCKETS + 1];
    private long count;
    private long max;

    /** @param nanos a duration; a negative one counts as 0. */
    public void record(final long nanos)
    {
        final long b = Math.max(0, nanos) / BUCKET_NANOS;
        counts[(int)Math.min(BUCKETS, b)]++;
        count++;
        max = Math.max(max, nanos);
    }

    /** @return how many durations were recorded. */
    public long count()
    {
        return count;
    }

    /** @return the longest duration recorded; 0 when none. */
    public long max()
    {
        return max;
    }

    /**
     * @param fraction e.g. 0.99.
     * @return the smallest bucket edge at or under which at least {@code fraction} of the durations fall; the
     *         maximum when the rank is in the overflow bucket; 0 when nothing was recorded.
     */
    public long percentile(final double fraction)
    {
        if (0 == count)
        {
            return 0;
        }
        final long rank = Math.max(1, (long)Math.ceil(fraction * count));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++)
        {
            seen += counts[i];
            if (seen >= rank)
            {
                return Math.min(max, (i + 1) * BUCKET_NANOS);
            }
        }
        return max;
    }

    /** Adds another histogram's durations to this one. */
    public void add(final Histogram other)
    {
        for (int i = 0; i <= BUCKETS; i++)
        {
            counts[i] += other.counts[i];
        }
        count += other.count;
        max = Math.max(max, other.max);
    }

    /** Forgets every duration. */
    public void clear()
    {
        Arrays.fill(counts, 0);
        count = 0;
        max = 0;
    }
}
