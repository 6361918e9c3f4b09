package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The states of {@link OverloadControl} with a clock the test moves: target 30 ms, interval 100 ms. A request is
 * given as its wait and the time it is dispatched ({@code now - wait} is its receive time); the answer is whether it
 * would be refused if it were new.
 */
class OverloadControlTest
{
    private static final long MS = 1_000_000L;
    private static final long START = 1_700_000_000_000_000_000L;

    private final OverloadControl control = new OverloadControl(30 * MS, 100 * MS);
    private long now = START;

    private boolean request(final long waitMs)
    {
        return control.onRequest(now - waitMs * MS, now);
    }

    @Test
    void shouldNotShedForOneSlowMessage()
    {
        assertFalse(request(500), "a first request of a cold server that waited 500 ms alone");
        now += MS;
        assertFalse(request(2), "the next one did not wait: no standing queue");
        now += 150 * MS;
        assertFalse(request(1));
        assertFalse(control.overloaded());
    }

    @Test
    void shouldNotShedWhenTheBacklogOfAStallDrainsWithinTheInterval()
    {
        // A 300 ms stall, then its backlog served in 80 ms: every wait above target, but not for a whole interval
        for (int i = 0; i <= 80; i++)
        {
            assertFalse(request(300 - 3L * i), "request " + i + " of the backlog");
            now += MS;
        }
        assertFalse(request(5), "the backlog is gone");
        now += 200 * MS;
        assertFalse(request(60), "one slow message much later: a new interval, not the old one's end");
    }

    @Test
    void shouldNotCountTwoSlowMessagesApartAsAStandingQueue()
    {
        assertFalse(request(50));
        now += 5_000 * MS;
        assertFalse(request(50), "nothing came between them for 5 s: the queue was empty");
        now += 50 * MS;
        assertFalse(request(50), "still within the interval this one started");
    }

    @Test
    void shouldStartSheddingWithinAnIntervalOfSustainedDelay()
    {
        boolean shed = false;
        int i = 0;
        for (; i <= 100 && !shed; i++)
        {
            shed = request(40);
            now += MS;
        }
        assertTrue(shed, "shedding after 100 ms above target");
        assertTrue(i >= 100 && i <= 101, "not before the interval's end, and at it: " + i);
        assertTrue(request(35), "every request while the delay stands above the target");
        now += MS;
        assertTrue(request(31));
    }

    @Test
    void shouldJudgeEachNewRequestByItsOwnWaitWhileOverloaded()
    {
        overload();
        assertFalse(request(30), "within the target: served");
        assertTrue(control.overloaded(), "one request within the target does not end the overload");
        now += MS;
        assertTrue(request(31), "past the target: refused");
        now += MS;
        assertFalse(request(1));
        now += MS;
        assertTrue(request(200), "the overload goes on: refused at once, no new interval");
    }

    @Test
    void shouldLeaveOverloadAfterAnIntervalWithinTheTarget()
    {
        overload();
        for (int ms = 1; ms < 100; ms++)
        {
            assertFalse(request(5));
            assertTrue(control.overloaded(), ms + " ms after the last wait past the target: still overloaded");
            now += MS;
        }
        assertFalse(request(5));
        assertFalse(control.overloaded(), "a whole interval within the target: the queue has drained");
        now += MS;
        assertFalse(request(200), "above again: a new interval starts, no refusal at once");
        for (int ms = 1; ms < 100; ms++)
        {
            now += MS;
            assertFalse(request(200));
        }
        now += MS;
        assertTrue(request(200), "a whole interval above again");
    }

    @Test
    void shouldFindAQueueStandingBehindOneCallerBetweenTheShortWaitsOfOthers()
    {
        // Two sockets read in turn: a surging caller's, whose backlog stands at 200 ms, and another peer's, served at
        // once. Each short wait must not end the run of long ones.
        boolean shed = false;
        int ms = 0;
        for (; ms <= 100 && !shed; ms++)
        {
            assertFalse(request(2), "the other peer's request, " + ms + " ms in");
            shed = request(200);
            now += MS;
        }
        assertTrue(shed, "the standing queue found after an interval");
        assertTrue(ms >= 100, "not before the interval's end: " + ms);
        assertFalse(request(2), "the other peer's requests are still served");
        assertTrue(request(200), "the surging caller's are refused");
    }

    @Test
    void shouldStartANewRunAfterAGapWithoutALongWait()
    {
        for (int ms = 0; ms < 60; ms++)
        {
            assertFalse(request(200));
            assertFalse(request(2));
            now += MS;
        }
        for (int ms = 0; ms < 30; ms++)
        {
            assertFalse(request(2), "the backlog is gone: only short waits for 30 ms");
            now += MS;
        }
        for (int ms = 0; ms < 60; ms++)
        {
            assertFalse(request(200), "a new run, 60 ms old after 90 of long and short waits with a gap between");
            now += MS;
        }
    }

    @Test
    void shouldLeaveOverloadAfterASilence()
    {
        overload();
        now += 101 * MS;
        assertFalse(request(200), "nothing for more than an interval: the queue was empty, a new interval starts");
        assertFalse(control.overloaded());
    }

    /** Waits of 200 ms for a whole interval: overloaded, with the last request refused at {@link #now}. */
    private void overload()
    {
        for (int i = 0; i < 100; i++)
        {
            assertFalse(request(200));
            now += MS;
        }
        assertTrue(request(200));
        assertTrue(control.overloaded());
        now += MS;
    }

    @Test
    void shouldNeverShedWithATargetOfZeroOrWithoutReceiveTimes()
    {
        final OverloadControl off = new OverloadControl(0, 100 * MS);
        for (int i = 0; i < 1_000; i++)
        {
            assertFalse(off.onRequest(now - 1_000 * MS, now));
            now += MS;
        }
        for (int i = 0; i < 1_000; i++)
        {
            assertFalse(control.onRequest(0, now), "no receive time: not a sample");
            now += MS;
        }
    }

    @Test
    void shouldRefuseAnIntervalOfZero()
    {
        assertThrows(IllegalArgumentException.class, () -> new OverloadControl(30 * MS, 0));
        assertThrows(IllegalArgumentException.class, () -> new OverloadControl(-1, 100 * MS));
    }
}
