package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * {@link InputLag}: the longest wait of the current and the previous window while the shard reads; 0 once it reads
 * nothing but still ticks (idle); the last lag plus the time since it last ran once it does neither (stuck); never
 * below 0.
 */
class InputLagTest
{
    private static final long MS = 1_000_000L;
    private static final long T0 = -7_000 * MS; // System.nanoTime() may be negative

    @Test
    void shouldBeZeroForANewShard()
    {
        final InputLag lag = new InputLag(T0);
        assertEquals(0, lag.lagNs(T0));
        assertEquals(0, lag.lagNs(T0 + InputLag.STALE_NS));
    }

    @Test
    void shouldReportTheLongestWaitOfTheCurrentAndThePreviousWindow()
    {
        final InputLag lag = new InputLag(T0);
        lag.note(T0, 300 * MS); // a socket far behind
        lag.note(T0 + MS, 5 * MS); // another that keeps up
        assertEquals(300 * MS, lag.lagNs(T0 + MS), "the furthest behind, not the last read");
        lag.note(T0 + InputLag.WINDOW_NS, 4 * MS); // next window: the previous one still counts
        assertEquals(300 * MS, lag.lagNs(T0 + InputLag.WINDOW_NS));
        lag.note(T0 + 2 * InputLag.WINDOW_NS, 3 * MS); // two windows on: only the last one's 4 ms and now 3 ms
        assertEquals(4 * MS, lag.lagNs(T0 + 2 * InputLag.WINDOW_NS));
    }

    @Test
    void shouldBeZeroForAShardThatTicksButReadsNothing()
    {
        final InputLag lag = new InputLag(T0);
        lag.note(T0, 300 * MS);
        assertEquals(300 * MS, lag.lagNs(T0 + InputLag.STALE_NS));
        for (long t = T0 + MS; t <= T0 + InputLag.STALE_NS + MS; t += MS)
        {
            lag.alive(t); // its ticks
        }
        assertEquals(0, lag.lagNs(T0 + InputLag.STALE_NS + MS), "idle: nothing unread");
        lag.note(T0 + 10 * InputLag.WINDOW_NS, 2 * MS); // after an idle gap the old maximum is gone
        assertEquals(2 * MS, lag.lagNs(T0 + 10 * InputLag.WINDOW_NS));
    }

    @Test
    void shouldGrowForAShardStuckInOneCall()
    {
        final InputLag lag = new InputLag(T0);
        lag.note(T0, 30 * MS);
        lag.alive(T0 + MS); // its last tick, then nothing: one long call
        final long now = T0 + MS + InputLag.STALE_NS + 20 * MS;
        assertEquals(30 * MS + InputLag.STALE_NS + 20 * MS, lag.lagNs(now), "what reached it meanwhile is unread");
    }

    @Test
    void shouldTakeANegativeWaitForNone()
    {
        final InputLag lag = new InputLag(T0);
        lag.note(T0, -3 * MS); // the wall clock stepped back between the kernel's stamp and our read
        assertEquals(0, lag.lagNs(T0));
    }
}
