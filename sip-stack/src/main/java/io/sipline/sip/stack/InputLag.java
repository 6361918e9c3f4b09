package io.sipline.sip.stack;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * How far behind its input one shard is: the longest any message it handled lately had waited since the kernel
 * received it (its {@code SO_TIMESTAMPNS} time, or when Netty's read handed it over). Everything that reached the
 * shard before {@code now - lag} has been handled; anything newer may still wait in one of its sockets or its
 * hand-over queue. The transaction layer puts a retransmission off while its due time is inside that window
 * ({@code TransactionLayer}, {@code putOff}), so that a reply already received but not yet read does not cost a
 * retransmission: a JIT-cold start at full rate, or a shard stalled for a moment, builds such a backlog.
 *
 * <p>"Lately" is the current window of {@link #WINDOW_NS} and the one before it, so that a shard reading several
 * sockets, some further behind than others, reports the furthest. A shard that has noted nothing for
 * {@link #STALE_NS} is either idle or stuck in one long call (a class loaded and initialized on first use while the
 * JIT is cold, a listener that blocks): idle when its tick still runs ({@link #alive}), and then it has nothing
 * unread and its lag is 0; stuck when neither its messages nor its tick ran, and then whatever reached it meanwhile
 * is unread, so its lag is the last one plus the time since it last ran.
 *
 * <p><b>Threading.</b> {@link #note} on the owning shard's thread only, once per message; {@link #lagNs} from any
 * thread (opaque access: each long is read whole, and a lag a little out of date only moves a retransmission by that
 * much).
 */
final class InputLag
{
    /** Length of one window of the running maximum. */
    static final long WINDOW_NS = 25_000_000L;
    /** How long after the last note the lag still counts. */
    static final long STALE_NS = 2 * WINDOW_NS;

    private static final VarHandle LAG;
    private static final VarHandle NOTED_AT;
    private static final VarHandle ALIVE_AT;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            LAG = lookup.findVarHandle(InputLag.class, "lagNs", long.class);
            NOTED_AT = lookup.findVarHandle(InputLag.class, "notedAtNs", long.class);
            ALIVE_AT = lookup.findVarHandle(InputLag.class, "aliveAtNs", long.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Published: the larger of the two window maxima as of the last note. */
    @SuppressWarnings("unused") // through LAG
    private long lagNs;
    /** Published: the monotonic time ({@link System#nanoTime()} in the shard) of the last note. */
    @SuppressWarnings("unused") // through NOTED_AT
    private long notedAtNs;
    /** Published: the monotonic time of the shard's last tick (with {@link #notedAtNs}, when it last ran). */
    @SuppressWarnings("unused") // through ALIVE_AT
    private long aliveAtNs;

    // the owner's own state
    private boolean started;
    private long windowStartNs;
    private long windowMaxNs;
    private long previousMaxNs;
    /** What {@link #lagNs} holds, so that a message whose wait changes nothing stores only its time. */
    private long publishedLagNs;

    /** A shard's lag, made when the shard is, at {@code nowNs}: it has read nothing and runs from now on. */
    InputLag(final long nowNs)
    {
        NOTED_AT.setOpaque(this, nowNs - 2 * STALE_NS);
        ALIVE_AT.setOpaque(this, nowNs);
    }

    /**
     * Owning shard, per message: the message being handled at {@code nowNs} (monotonic) waited {@code waitNs} since
     * it arrived (a negative wait, from a step of the wall clock, counts as 0).
     */
    void note(final long nowNs, final long waitNs)
    {
        if (!started || nowNs - windowStartNs >= WINDOW_NS)
        {
            // a window with no note at all (an idle gap) leaves nothing for the next one
            previousMaxNs = started && nowNs - windowStartNs < 2 * WINDOW_NS ? windowMaxNs : 0;
            windowMaxNs = 0;
            windowStartNs = nowNs;
            started = true;
        }
        if (waitNs > windowMaxNs)
        {
            windowMaxNs = waitNs;
        }
        final long lag = Math.max(windowMaxNs, previousMaxNs);
        if (lag != publishedLagNs)
        {
            publishedLagNs = lag;
            LAG.setOpaque(this, lag);
        }
        NOTED_AT.setOpaque(this, nowNs);
    }

    /** Owning shard, every tick: the shard runs (so one that notes nothing is idle, not stuck). */
    void alive(final long nowNs)
    {
        ALIVE_AT.setOpaque(this, nowNs);
    }

    /**
     * Any thread: the lag as of the last note while the shard notes; 0 when it noted nothing within
     * {@link #STALE_NS} but still ticks (idle); the last lag plus the time since it last ran when it does neither
     * (stuck).
     */
    long lagNs(final long nowNs)
    {
        if (nowNs - (long)NOTED_AT.getOpaque(this) <= STALE_NS)
        {
            return (long)LAG.getOpaque(this);
        }
        final long sinceRan = Math.min(nowNs - (long)NOTED_AT.getOpaque(this), nowNs - (long)ALIVE_AT.getOpaque(this));
        return sinceRan <= STALE_NS ? 0 : (long)LAG.getOpaque(this) + sinceRan;
    }
}
