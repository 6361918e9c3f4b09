package io.sipline.container.dispatch;

/**
 * Overload control of one shard: a new request is refused when it waited longer than the target, but only while the
 * shard is overloaded, which it becomes once waits above the target have kept coming for a whole interval (CoDel's
 * standing queue, RFC 8289 §3.2) and stops being once none has come for a whole interval.
 * <p>
 * Each request's wait (from the kernel's receive time to its dispatch) is a sample. A shard reads several queues: its
 * listening socket and a connected socket per busy peer, each with its own backlog, so a queue that stands behind a
 * surging caller shows only in that caller's samples, between the short waits of the others. Entering: the first
 * sample above the target starts a run, further ones continue it unless {@link #gapNs} passed without one, and a run
 * that has lasted an interval is overload; one slow message or the backlog of one stall (a cold server loading and
 * compiling its classes, a GC pause, a burst drained within the interval) is absorbed. While overloaded each new
 * request is judged by its own wait: the ones that waited past the target are refused, the others served, so that
 * the refusals, cheap beside a call, keep each queue at about the target (a deadline per request) instead of refusing
 * everything until the queues are empty and letting them build again for an interval. Leaving: an interval in which
 * no sample was above the target. CoDel resets when its queue empties; the shard cannot see its queues, so a gap of
 * more than one interval without a sample counts as empty queues.
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard). No allocation, no lock: a few
 * fields. The clock is the caller's (the nanoseconds of the receive times); tests pass their own.
 */
final class OverloadControl
{
    private final long targetNs;
    private final long intervalNs;
    /** Samples above the target further apart than this are two runs, not one standing queue. */
    private final long gapNs;
    /** The first sample of the current run above the target; {@link #NONE} when there is none. */
    private long aboveSinceNs = NONE;
    /** The time of the last sample above the target (while overloaded: an interval without one ends it). */
    private long lastAboveNs = NONE;
    private long lastSampleNs = NONE;
    private boolean overloaded;

    private static final long NONE = Long.MIN_VALUE;

    /**
     * @param targetNs   the wait that, standing for an interval, is overload, and past which a new request is then
     *                   refused; 0: never overloaded.
     * @param intervalNs how long the waits must stay above the target to enter overload, and at or below it to leave
     *                   (RFC 8289 §4.3: 100 ms).
     */
    OverloadControl(final long targetNs, final long intervalNs)
    {
        if (targetNs < 0 || intervalNs <= 0)
        {
            throw new IllegalArgumentException("overload target " + targetNs + " ns, interval " + intervalNs + " ns");
        }
        this.targetNs = targetNs;
        this.intervalNs = intervalNs;
        this.gapNs = Math.max(1, intervalNs / 4);
    }

    /**
     * Takes one request's wait and says whether this request, if new, is refused.
     *
     * @param receivedNs when the kernel received the request (0: unknown, not a sample, never refused).
     * @param nowNs      the clock now, in the same time base.
     * @return true when the shard is overloaded and this request waited longer than the target.
     */
    boolean onRequest(final long receivedNs, final long nowNs)
    {
        if (0 == targetNs || 0 == receivedNs)
        {
            return false;
        }
        final long last = lastSampleNs;
        lastSampleNs = nowNs;
        if (NONE != last && nowNs - last > intervalNs)
        {
            // The first sample after a silence: nothing stood in the queues meanwhile.
            overloaded = false;
            aboveSinceNs = NONE;
        }
        if (nowNs - receivedNs <= targetNs)
        {
            if (overloaded && nowNs - lastAboveNs >= intervalNs)
            {
                overloaded = false; // a whole interval with every wait within the target: the queues have drained
            }
            return false;
        }
        if (!overloaded)
        {
            if (NONE == aboveSinceNs || nowNs - lastAboveNs > gapNs)
            {
                aboveSinceNs = nowNs;
            }
            overloaded = nowNs - aboveSinceNs >= intervalNs;
        }
        lastAboveNs = nowNs;
        return overloaded;
    }

    /** True while the shard is overloaded: new requests that waited longer than the target are refused. */
    boolean overloaded()
    {
        return overloaded;
    }
}
