package io.sipline.sip.timer;

/**
 * Called by {@link TimerWheel#poll(long, TimerHandler, int)} for each due timer, on the wheel's owning thread.
 *
 * <p>Implement it on a long-lived object (the transaction layer does) rather than with a capturing lambda, so that
 * polling allocates nothing.
 */
@FunctionalInterface
public interface TimerHandler
{
    /**
     * A timer is due.
     *
     * @param timerId the id {@link TimerWheel#schedule(long)} returned; its payload is readable with
     *                {@link TimerWheel#payload(long)} for the duration of the call.
     * @param nowNs   the time passed to {@code poll}.
     * @return true when the timer was handled (it is then removed); false to leave it in place and stop this poll,
     *         so that it fires again on the next poll.
     */
    boolean onTimer(long timerId, long nowNs);
}
