package io.sipline.sip.transport;

import java.time.Instant;
import java.util.function.LongSupplier;

/**
 * The wall clock in nanoseconds since the epoch ({@code CLOCK_REALTIME}): the time base of the kernel's receive
 * timestamps ({@code SO_TIMESTAMPNS}, socket(7)), so that a time read here can be subtracted from a datagram's
 * {@link io.sipline.sip.message.SipMessage#receivedAtNanos()}. Not for scheduling: timers run on
 * {@link System#nanoTime()}.
 *
 * <p>How: {@link System#nanoTime()} ({@code CLOCK_MONOTONIC}) plus an offset to the wall clock, taken from
 * {@link Instant#now()} and taken again once it is {@link #RECALIBRATE_NS} old. A calibration reads the monotonic
 * clock before and after the wall clock and pairs the wall reading with their midpoint; when the thread was
 * descheduled between the reads (seen on a loaded 2-core CI machine: the offset then lagged by the whole pause, for up
 * to a second, and a request that had waited looked as if it had not), the bracket is wide and the calibration reads
 * again, up to {@link #CALIBRATION_TRIES} times, keeping the narrowest bracket. NTP's frequency corrections slew both
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
    /** A bracket this narrow ends a calibration (a wall-clock read takes well under a microsecond once compiled). */
    static final long GOOD_BRACKET_NS = 20_000L;
    /** Reads a calibration makes at most before it keeps its narrowest bracket. */
    static final int CALIBRATION_TRIES = 8;
    private static final LongSupplier MONOTONIC = System::nanoTime;
    private static final LongSupplier WALL = RealtimeClock::wallNanos;

    /**
     * The wall clock minus the monotonic clock, the monotonic time it was taken at, and the width of the bracket of
     * monotonic reads around the wall-clock read it came from (its error is at most half of that).
     */
    record Offset(long wallMinusMonotonic, long takenAtNs, long bracketNs)
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
        return calibrate(MONOTONIC, WALL);
    }

    /**
     * One calibration from these clocks: the wall reading paired with the midpoint of the narrowest bracket of
     * monotonic reads around it, of at most {@link #CALIBRATION_TRIES} tries (the first one narrower than
     * {@link #GOOD_BRACKET_NS} ends it).
     */
    static Offset calibrate(final LongSupplier monotonic, final LongSupplier wall)
    {
        long narrowest = Long.MAX_VALUE;
        long wallMinusMonotonic = 0;
        long takenAt = 0;
        for (int i = 0; i < CALIBRATION_TRIES && narrowest > GOOD_BRACKET_NS; i++)
        {
            final long before = monotonic.getAsLong();
            final long w = wall.getAsLong();
            final long after = monotonic.getAsLong();
            final long width = after - before;
            if (width < narrowest)
            {
                narrowest = width;
                takenAt = before + width / 2;
                wallMinusMonotonic = w - takenAt;
            }
        }
        return new Offset(wallMinusMonotonic, takenAt, narrowest);
    }

    private static long wallNanos()
    {
        final Instant wall = Instant.now();
        return wall.getEpochSecond() * NANOS_PER_SECOND + wall.getNano();
    }
}
