package io.sipline.sip.transaction;

/**
 * The clock the transaction layer schedules its timers on: {@code System.nanoTime()} in production, a value the
 * test advances in tests (the clock is injected and advanced by the test; nothing calls sleep).
 *
 * <p>Called on the owning shard only.
 */
@FunctionalInterface
public interface NanoClock
{
    /** The system clock. */
    NanoClock SYSTEM = System::nanoTime;

    /** Monotonic time in nanoseconds. */
    long nowNs();
}
