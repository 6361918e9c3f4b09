package io.sipline.sip.transport;

import java.time.Instant;

/**
 * The wall clock in nanoseconds since the epoch ({@code CLOCK_REALTIME}): the time base of the kernel's receive
 * timestamps ({@code SO_TIMESTAMPNS}, socket(7)), so that a time read here can be subtracted from a datagram's
 * {@link io.sipline.sip.message.SipMessage#receivedAtNanos()}. Not monotonic (the wall clock can be stepped): use it
 * only for such differences, never to schedule timers (those run on {@link System#nanoTime()}).
 *
 * <p>Thread-safe; allocates nothing once C2 has compiled the caller (the {@link Instant} does not escape).
 */
public final class RealtimeClock
{
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private RealtimeClock()
    {
    }

    /** @return now, nanoseconds since 1970-01-01T00:00:00Z. */
    public static long nanos()
    {
        final Instant now = Instant.now();
        return now.getEpochSecond() * NANOS_PER_SECOND + now.getNano();
    }
}
