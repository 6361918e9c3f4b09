package io.sipline.container.warmup;

import java.util.function.LongSupplier;

import io.sipline.sip.transport.RealtimeClock;

/**
 * The wall clock of the warm-up's overload control: the real one, run ahead by {@code lateNs} in a window at the
 * start of every period, so that every request read in a window seems to have waited that long. The warm-up B2BUA's
 * overload control then goes through what a surge makes it do (a standing queue found after an interval, new INVITEs
 * refused with a stateless {@code 503}, their ACKs absorbed, the admission limit under pressure, the end of overload
 * an interval after the window) on its real code, so that the JIT compiles that code before the server takes traffic.
 * Left cold, it is first run in the first second of the first surge, interpreted and then compiled on the cores the
 * surge needs, and a call path compiled without it is thrown away on the first refusal (a branch never taken).
 * <p>
 * Threading: any thread; immutable after construction (the windows are counted from {@link System#nanoTime()} at
 * construction).
 */
final class LateWindows implements LongSupplier
{
    private final long originNs = System.nanoTime();
    private final long firstNs;
    private final long windowNs;
    private final long periodNs;
    private final long lateNs;

    /**
     * @param firstNs  when the first window opens, from construction.
     * @param windowNs how long each window lasts.
     * @param periodNs from the start of one window to the next.
     * @param lateNs   how far ahead the clock runs in a window.
     */
    LateWindows(final long firstNs, final long windowNs, final long periodNs, final long lateNs)
    {
        if (firstNs < 0 || windowNs <= 0 || periodNs < windowNs || lateNs <= 0)
        {
            throw new IllegalArgumentException("late windows: first " + firstNs + " ns, window " + windowNs
                + " ns, period " + periodNs + " ns, late " + lateNs + " ns");
        }
        this.firstNs = firstNs;
        this.windowNs = windowNs;
        this.periodNs = periodNs;
        this.lateNs = lateNs;
    }

    @Override
    public long getAsLong()
    {
        return RealtimeClock.nanos() + (late(System.nanoTime() - originNs) ? lateNs : 0);
    }

    /** Whether {@code sinceOriginNs} after construction falls in a window. */
    boolean late(final long sinceOriginNs)
    {
        final long t = sinceOriginNs - firstNs;
        return t >= 0 && t % periodNs < windowNs;
    }
}
