package io.sipline.container.dispatch;

/**
 * Overload control of one shard, after CoDel (RFC 8289 §3-§4): the shard refuses new requests only once the queueing
 * delay of the requests it takes in has stayed above the target for a whole interval, so that one slow message (a
 * cold server loading and compiling its classes, a GC pause, a burst) is absorbed and only a standing backlog sheds.
 * <p>
 * Each request's delay (its wait from the kernel's receive time to its dispatch) is a sample. A sample below the
 * target ends any period above it and stops shedding (RFC 8289 §4.4: the sojourn time fell below target). The first
 * sample above it starts the interval; a later sample, still above, at or past the interval's end starts shedding,
 * and shedding goes on while the samples stay above. The minimum delay over the interval is then above the target,
 * which is what RFC 8289 §3.2 calls a standing queue. CoDel resets when its queue empties; the shard cannot see its
 * queue, so a gap of more than one interval without a sample counts as an empty queue (nothing is known to have
 * stood there). CoDel's control law (drops spaced by interval/sqrt(count), §3.3) signals TCP senders one drop at a
 * time; a SIP caller told 503 with Retry-After stops by itself, so while shedding every new request is refused.
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard). No allocation, no lock: three
 * fields. The clock is the caller's (the nanoseconds of the receive times); tests pass their own.
 */
final class OverloadControl
{
    private final long targetNs;
    private final long intervalNs;
    /** The end of the interval started by the first sample above the target; {@link #NONE} when below. */
    private long aboveUntilNs = NONE;
    private long lastSampleNs = NONE;
    private boolean shedding;

    private static final long NONE = Long.MIN_VALUE;

    /**
     * @param targetNs   the delay that, standing for an interval, is overload; 0: never overloaded.
     * @param intervalNs how long the delay must stay above the target (RFC 8289 §4.3: 100 ms).
     */
    OverloadControl(final long targetNs, final long intervalNs)
    {
        if (targetNs < 0 || intervalNs <= 0)
        {
            throw new IllegalArgumentException("overload target " + targetNs + " ns, interval " + intervalNs + " ns");
        }
        this.targetNs = targetNs;
        this.intervalNs = intervalNs;
    }

    /**
     * Takes one request's delay and says whether the shard sheds now.
     *
     * @param receivedNs when the kernel received the request (0: unknown, not a sample).
     * @param nowNs      the clock now, in the same time base.
     * @return true when new requests are refused now: the delay has stood above the target for an interval.
     */
    boolean onRequest(final long receivedNs, final long nowNs)
    {
        if (0 == targetNs || 0 == receivedNs)
        {
            return shedding;
        }
        final long last = lastSampleNs;
        lastSampleNs = nowNs;
        if (nowNs - receivedNs <= targetNs || (NONE != last && nowNs - last > intervalNs))
        {
            // Below the target, or the first sample after a silence: no standing queue behind this one.
            shedding = false;
            aboveUntilNs = nowNs - receivedNs <= targetNs ? NONE : nowNs + intervalNs;
            return false;
        }
        if (NONE == aboveUntilNs)
        {
            aboveUntilNs = nowNs + intervalNs;
            return shedding;
        }
        shedding = nowNs - aboveUntilNs >= 0;
        return shedding;
    }

    /** True while new requests are refused. */
    boolean shedding()
    {
        return shedding;
    }
}
