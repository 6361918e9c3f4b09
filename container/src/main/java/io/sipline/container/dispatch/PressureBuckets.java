package io.sipline.container.dispatch;

/**
 * The clock of a shard's admission checks ({@link AdmissionLimit}, {@link RequestBudget}): time cut into buckets of
 * the overload interval, and whether the shard is under pressure. A request's wait above {@code pressureNs} puts the
 * shard under pressure for the rest of its bucket and the next; with {@code pressureNs} 0 it always is. The owner
 * calls {@link #roll} before it counts anything or presses, and starts its counts again when a new bucket begins.
 * A queue stands ({@link #standing}) when the two buckets before the current one each had a wait above the mark.
 * <p>
 * Threading: not threadsafe; owned by its check, on the shard's event loop. No allocation. The clock is the caller's.
 */
final class PressureBuckets
{
    private static final long NONE = Long.MIN_VALUE;

    private final long bucketNs;
    private final long pressureNs;
    private long bucketEndNs = NONE;
    /** Until when the shard is under pressure: the end of the bucket after the one with a wait above the mark. */
    private long pressedUntilNs = NONE;
    /** The end of the last bucket with a wait above the mark, and of the one with such a wait before it. */
    private long pressedBucketEndNs = NONE;
    private long pressedBucketBeforeEndNs = NONE;

    /**
     * @param bucketNs   the length of a bucket (the overload interval), above 0.
     * @param pressureNs the pressure mark, 0 or more.
     */
    PressureBuckets(final long bucketNs, final long pressureNs)
    {
        this.bucketNs = bucketNs;
        this.pressureNs = pressureNs;
    }

    /**
     * Moves to the bucket of {@code nowNs}.
     *
     * @return true when a new bucket began (never on the first call, which starts the first bucket).
     */
    boolean roll(final long nowNs)
    {
        if (NONE == bucketEndNs)
        {
            bucketEndNs = nowNs + bucketNs;
            return false;
        }
        if (nowNs - bucketEndNs < 0)
        {
            return false;
        }
        bucketEndNs += ((nowNs - bucketEndNs) / bucketNs + 1) * bucketNs;
        return true;
    }

    /** Whether a request's wait is above the pressure mark (never when the mark is 0: the shard always is). */
    boolean above(final long waitNs)
    {
        return pressureNs > 0 && waitNs > pressureNs;
    }

    /** After {@link #roll}: under pressure until the end of the next bucket. */
    void press()
    {
        pressedUntilNs = bucketEndNs + bucketNs;
        if (bucketEndNs != pressedBucketEndNs)
        {
            pressedBucketBeforeEndNs = pressedBucketEndNs;
            pressedBucketEndNs = bucketEndNs;
        }
    }

    /** After {@link #roll}: whether the two buckets before the current one each had a wait above the mark. */
    boolean standing()
    {
        return pressedBucketEndNs == bucketEndNs - bucketNs && pressedBucketBeforeEndNs == bucketEndNs - 2 * bucketNs;
    }

    /** Whether the shard is under pressure at {@code nowNs}, after {@link #roll}. */
    boolean pressed(final long nowNs)
    {
        return 0 == pressureNs || (NONE != pressedUntilNs && nowNs - pressedUntilNs < 0);
    }
}
