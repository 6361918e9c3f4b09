package io.sipline.container.dispatch;

/**
 * A budget of one shard for new requests that have no completion to count: REGISTER (one instance), and the other new
 * non-INVITE requests, OPTIONS, MESSAGE, SUBSCRIBE, PUBLISH and the rest (another). While the shard is under pressure,
 * at most {@code perBucket} of them are let in per bucket (the overload interval); the rest are refused with
 * {@code 503} and {@code Retry-After} (RFC 3261 §21.5.4), so that a registration storm (every device of a network
 * registering again after an outage) or a scan (OPTIONS to every address) takes no more of a loaded shard than its
 * budget and does not starve the calls. Outside pressure every such request is let in: a shard with cores to spare
 * serves the storm.
 * <p>
 * Pressure ({@link PressureBuckets}), as for the {@link AdmissionLimit}: a request's wait above {@code pressureNs}
 * puts the shard under pressure for the rest of its bucket and the next; with {@code pressureNs} 0 the budget always
 * holds (a plain rate limit).
 * These requests have no completion to measure (no ACK, no dialog), so the budget is a fixed rate, set by the
 * operator ({@link #REGISTER_RATE_PROP_NAME}, {@link #OTHER_RATE_PROP_NAME}).
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard). No allocation, no lock: a few
 * fields. The clock is the caller's; tests pass their own.
 */
final class RequestBudget
{
    /** System property: REGISTERs per second per shard let in under pressure, or {@code off}. */
    static final String REGISTER_RATE_PROP_NAME = "sipline.overload.register.rate";
    /** System property: other new non-INVITE requests per second per shard let in under pressure, or {@code off}. */
    static final String OTHER_RATE_PROP_NAME = "sipline.overload.other.rate";
    /** REGISTERs/s per shard let in under pressure by default (how it was chosen: reliability.md, Overload). */
    static final int REGISTER_RATE_DEFAULT = 4000;
    static final int OTHER_RATE_DEFAULT = 1000;

    private final PressureBuckets buckets;
    private final int perBucket;
    private int admitted;
    private long refused;

    /**
     * @param bucketNs   the length of a bucket (the overload interval).
     * @param pressureNs a wait above this puts the shard under pressure for the rest of its bucket and the next; 0:
     *                   always.
     * @param perBucket  requests a bucket lets in under pressure.
     */
    RequestBudget(final long bucketNs, final long pressureNs, final int perBucket)
    {
        if (bucketNs <= 0 || pressureNs < 0 || perBucket < 0)
        {
            throw new IllegalArgumentException("request budget bucket " + bucketNs + " ns, pressure " + pressureNs
                + " ns, " + perBucket + " per bucket");
        }
        this.buckets = new PressureBuckets(bucketNs, pressureNs);
        this.perBucket = perBucket;
    }

    /**
     * The budget a shard runs with: none when overload control is off ({@code overloadWaitNs} 0) or the rate's
     * property is {@code off}; otherwise the rate per second over buckets of {@code intervalNs}, and the admission
     * limit's pressure mark ({@link AdmissionLimit#PRESSURE_PROP_NAME}).
     *
     * @param rateProperty {@link #REGISTER_RATE_PROP_NAME} or {@link #OTHER_RATE_PROP_NAME}.
     * @return null for no budget.
     */
    static RequestBudget configured(final String rateProperty, final long overloadWaitNs, final long intervalNs)
    {
        final int rateDefault =
            REGISTER_RATE_PROP_NAME.equals(rateProperty) ? REGISTER_RATE_DEFAULT : OTHER_RATE_DEFAULT;
        final String rate = System.getProperty(rateProperty, Integer.toString(rateDefault)).trim();
        if (0 == overloadWaitNs || "off".equals(rate))
        {
            return null;
        }
        final String pressure = System.getProperty(AdmissionLimit.PRESSURE_PROP_NAME,
            Integer.toString(AdmissionLimit.PRESSURE_MS_DEFAULT)).trim();
        try
        {
            final long perSecond = Long.parseLong(rate);
            if (perSecond < 0)
            {
                throw new IllegalArgumentException(rateProperty + "=" + rate + ": not a rate");
            }
            final long perBucket = Math.min(Integer.MAX_VALUE, perSecond * intervalNs / 1_000_000_000L);
            return new RequestBudget(intervalNs, Long.parseLong(pressure) * 1_000_000L, (int)perBucket);
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException(rateProperty + "=" + rate + " (requests per second per shard, or "
                + "off), " + AdmissionLimit.PRESSURE_PROP_NAME + "=" + pressure + " (milliseconds): not a number", e);
        }
    }

    /** One request's wait: above the pressure mark, the budget holds for the rest of this bucket and the next. */
    void onWait(final long waitNs, final long nowNs)
    {
        if (buckets.above(waitNs))
        {
            roll(nowNs);
            buckets.press();
        }
    }

    /**
     * Whether a request is let in now.
     *
     * @return false when the shard is under pressure and this bucket has let in its budget.
     */
    boolean admit(final long nowNs)
    {
        roll(nowNs);
        if (admitted >= perBucket && buckets.pressed(nowNs))
        {
            refused++;
            return false;
        }
        admitted++;
        return true;
    }

    private void roll(final long nowNs)
    {
        if (buckets.roll(nowNs))
        {
            admitted = 0;
        }
    }

    /** Requests a bucket lets in under pressure. */
    int perBucket()
    {
        return perBucket;
    }

    /** Requests refused by this budget so far. */
    long refused()
    {
        return refused;
    }
}
