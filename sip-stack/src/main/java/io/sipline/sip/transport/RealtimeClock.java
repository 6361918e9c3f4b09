package io.sipline.sip.transport;

import java.time.Instant;

/**
 * The wall clock in nanoseconds since the epoch ({@code CLOCK_REALTIME}): the time base of the kernel's receive
 * timestamps ({@code SO_TIMESTAMPNS}, socket(7)), so that a time read here can be subtracted from a datagram's
 * {@link io.sipline.sip.message.SipMessage#receivedAtNanos()}. Not for scheduling: timers run on
 * {@link System#nanoTime()}.
 *
 * <p>How: {@link System#nanoTime()} ({@code CLOCK_MONOTONIC}) plus an offset to the wall clock, taken from
 * {@link Instant#now()} and taken again once it is {@link #RECALIBRATE_NS} old. NTP's frequency corrections slew both
 * clocks alike, so the offset holds between calibrations; only a step of the wall clock (settimeofday, an NTP step)
 * moves it, and then a time read here is off by that step for at most one second. Reading {@code Instant.now()} on
 * every call was exact but made an {@code Instant} whenever the caller was not yet compiled by C2 (24 B a call, seen
 * as a flaky allocation test); this makes one a second at most, on whichever thread finds the offset old.
 *
 * <p>Thread-safe without locks: the offset and the time it was taken are one immutable pair published through a
 * volatile field; threads that recalibrate at the same moment each publish a correct pair.
 */
public final class RealtimeClock
{
    /** How old an offset may get before the next read takes a new one. */
    static final long RECALIBRATE_NS = 1_000_000_000L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** The wall clock minus the monotonic clock, and the monotonic time it was taken at. */
    private record Offset(long wallMinusMonotonic, long takenAtNs)
    {
    }

    private static volatile Offset offset = calibrate();

    private RealtimeClock()
    {
    }

    /** @return now, nanoseconds since 1970-01-01T00:00:00Z. */
    public static long nanos()
    {
        final long now = System.nanoTime();
        Offset o = offset;
        if (now - o.takenAtNs > RECALIBRATE_NS)
        {
            o = calibrate();
            offset = o;
            return o.takenAtNs + o.wallMinusMonotonic;
        }
        return now + o.wallMinusMonotonic;
    }

    /**
     * The wall-clock time of a {@link System#nanoTime()} reading the caller already has (so that timing a message
     * costs no second clock read): {@code nanoTimeNs} plus the current offset, recalibrated as {@link #nanos()} does.
     */
    public static long fromMonotonic(final long nanoTimeNs)
    {
        Offset o = offset;
        if (nanoTimeNs - o.takenAtNs > RECALIBRATE_NS)
        {
            o = calibrate();
            offset = o;
        }
        return nanoTimeNs + o.wallMinusMonotonic;
    }

    private static Offset calibrate()
    {
        final Instant wall = Instant.now();
        final long monotonic = System.nanoTime();
        return new Offset(wall.getEpochSecond() * NANOS_PER_SECOND + wall.getNano() - monotonic, monotonic);
    }
}
