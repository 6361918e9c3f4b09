package io.sipline.container.dispatch;

/**
 * Admission limit of one shard: while the shard is under pressure, at most the number of calls it has shown it can
 * complete per bucket, plus a margin, are let in; the new INVITEs past that are refused at once.
 * <p>
 * A wait-based check ({@link OverloadControl}) sees only the shard's own backlog. Forwarding a new INVITE is a small
 * part of its call: the responses, ACKs and BYEs of both legs come after, and a far end that falls behind does not
 * show in the shard's waits at all. So a surge can be admitted at well above the rate the calls complete, and the
 * calls time out later. This limit counts, per bucket (the overload interval), the new INVITEs admitted and the calls
 * completed (the ACK of a 2xx, RFC 3261 §13.3.1.4: the caller has the answer), and keeps the most calls completed in
 * a bucket over the last {@link #WINDOW} buckets. Under pressure a bucket admits at most that many plus
 * {@code marginPercent} (and never fewer than {@link #FLOOR}), so that the admitted rate can grow by the margin per
 * bucket while the completions follow it, and stops growing when they do not; a shard that has never completed
 * {@link #FLOOR} calls in a bucket is not limited. Pressure: a request's wait above {@code pressureNs} in this bucket
 * or the one before; with {@code pressureNs} 0 the limit always holds. When the waits have stood above the mark for
 * two buckets in a row (a standing queue), the next bucket's limit comes from the last bucket alone: what it completed
 * plus the margin while its completions followed its admissions (at least {@link #FOLLOWING_PERCENT}% of them: the
 * queue is the refusals', and the shard still carries more), else what it completed, with no margin (the shard is past
 * what it can carry, and the calls let in would add to the backlog); after a bucket without such a wait the limit
 * grows again by the margin per bucket, up to the most completed plus the margin.
 * Calls that end in a failure response are not counted as completed: for a failure-heavy mix the limit is lower
 * than the rate the shard serves.
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard). No allocation, no lock: a few
 * counters and a ring of {@link #WINDOW} ints. The clock is the caller's; tests pass their own.
 */
final class AdmissionLimit
{
    /** Buckets over which the most calls completed in one is the rate the shard has shown it sustains. */
    static final int WINDOW = 10;
    /**
     * The least a bucket admits under pressure, and the calls a shard must have completed in one bucket before it is
     * limited at all: 500 calls/s per shard, so that the noise of a light load (a burst of calls at once, calls that
     * arrive at random) is never refused.
     */
    static final int FLOOR = 50;

    /** System property: the margin in percent, or {@code off}; default {@link #MARGIN_PERCENT_DEFAULT}. */
    static final String MARGIN_PROP_NAME = "sipline.overload.admission.margin";
    static final int MARGIN_PERCENT_DEFAULT = 25;
    /** System property: the pressure mark in milliseconds (0: always); default {@link #PRESSURE_MS_DEFAULT}. */
    static final String PRESSURE_PROP_NAME = "sipline.overload.admission.pressure";
    static final int PRESSURE_MS_DEFAULT = 10;
    /** In a standing queue, a bucket whose completions were at least this share of its admissions grows the limit. */
    static final int FOLLOWING_PERCENT = 90;

    private final PressureBuckets buckets;
    private final int marginPercent;
    /** Calls completed in each of the last {@link #WINDOW} buckets (a ring; {@link #slot} is the oldest). */
    private final int[] completedInBucket = new int[WINDOW];
    private int slot;
    private int admitted;
    private int completed;
    private long refused;
    /**
     * What a bucket admits under pressure, set at each bucket's start from {@link #completedInBucket}; no limit until
     * the shard has completed {@link #FLOOR} calls in a bucket (before that it has shown nothing to hold to).
     */
    private int limit = Integer.MAX_VALUE;
    /** Whether a bucket ever completed {@link #FLOOR} calls. */
    private boolean learned;

    /**
     * @param bucketNs      the length of a bucket (the overload interval).
     * @param pressureNs    a wait above this puts the shard under pressure for the rest of its bucket and the next;
     *                      0: always under pressure.
     * @param marginPercent how much more than the most calls completed in a recent bucket a bucket admits.
     */
    AdmissionLimit(final long bucketNs, final long pressureNs, final int marginPercent)
    {
        if (bucketNs <= 0 || pressureNs < 0 || marginPercent < 0)
        {
            throw new IllegalArgumentException("admission bucket " + bucketNs + " ns, pressure " + pressureNs
                + " ns, margin " + marginPercent + "%");
        }
        this.buckets = new PressureBuckets(bucketNs, pressureNs);
        this.marginPercent = marginPercent;
    }

    /**
     * The limit a shard runs with: none when overload control is off ({@code overloadWaitNs} 0) or
     * {@link #MARGIN_PROP_NAME} is {@code off}; otherwise buckets of {@code intervalNs} and the properties' values.
     *
     * @return null for no limit.
     */
    static AdmissionLimit configured(final long overloadWaitNs, final long intervalNs)
    {
        final String margin = System.getProperty(MARGIN_PROP_NAME, Integer.toString(MARGIN_PERCENT_DEFAULT)).trim();
        if (0 == overloadWaitNs || "off".equals(margin))
        {
            return null;
        }
        final String pressure = System.getProperty(PRESSURE_PROP_NAME, Integer.toString(PRESSURE_MS_DEFAULT)).trim();
        try
        {
            return new AdmissionLimit(intervalNs, Long.parseLong(pressure) * 1_000_000L, Integer.parseInt(margin));
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException(MARGIN_PROP_NAME + "=" + margin + " (percent or off), "
                + PRESSURE_PROP_NAME + "=" + pressure + " (milliseconds): not a number", e);
        }
    }

    /** One request's wait, as {@link OverloadControl#onRequest} takes it. */
    void onWait(final long waitNs, final long nowNs)
    {
        if (buckets.above(waitNs))
        {
            roll(nowNs);
            buckets.press();
        }
    }

    /** A call of this shard completed: its caller acknowledged a 2xx to its INVITE. */
    void onCompleted(final long nowNs)
    {
        roll(nowNs);
        completed++;
    }

    /**
     * Whether a new INVITE is let in now.
     *
     * @return false when the shard is under pressure and this bucket has admitted its limit.
     */
    boolean admit(final long nowNs)
    {
        roll(nowNs);
        if (admitted >= limit && buckets.pressed(nowNs))
        {
            refused++;
            return false;
        }
        admitted++;
        return true;
    }

    /**
     * Starts a new bucket when {@code nowNs} is past the current one. Buckets in which nothing happened at all are not
     * counted: a shard without traffic has not shown that it completes less.
     */
    private void roll(final long nowNs)
    {
        if (!buckets.roll(nowNs))
        {
            return;
        }
        final int completedLast = completed;
        final int admittedLast = admitted;
        push(completed);
        admitted = 0;
        completed = 0;
        int most = 0;
        for (int i = 0; i < WINDOW; i++)
        {
            most = Math.max(most, completedInBucket[i]);
        }
        learned |= most >= FLOOR;
        if (!learned)
        {
            limit = Integer.MAX_VALUE;
            return;
        }
        if (buckets.standing())
        {
            final boolean following = 100L * completedLast >= (long)FOLLOWING_PERCENT * admittedLast;
            limit = Math.max(FLOOR, following ? (int)grown(completedLast) : completedLast);
            return;
        }
        // Out of a standing queue the limit grows back by the margin per bucket (with no margin: to the most at once)
        limit = Math.max(FLOOR, (int)(0 == marginPercent ? most : Math.min(grown(most), grown(limit))));
    }

    /** {@code count} plus the margin. */
    private long grown(final int count)
    {
        return count + (long)count * marginPercent / 100;
    }

    private void push(final int count)
    {
        completedInBucket[slot] = count;
        slot = (slot + 1) % WINDOW;
    }

    /** New INVITEs a bucket admits under pressure now. */
    int limit()
    {
        return limit;
    }

    /** New INVITEs refused by this limit so far. */
    long refused()
    {
        return refused;
    }
}
