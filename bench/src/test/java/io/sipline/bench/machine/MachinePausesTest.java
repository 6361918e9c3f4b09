package io.sipline.bench.machine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** Which gaps of the spinning threads make a pause of every core at once, and what a real probe returns. */
class MachinePausesTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** Gaps of one thread as {start, end} pairs in ms, into the probe's arrays. */
    private static long[][] gaps(final long... ms)
    {
        final long[] starts = new long[ms.length / 2];
        final long[] ends = new long[ms.length / 2];
        for (int i = 0; i < ms.length / 2; i++)
        {
            starts[i] = ms[2 * i] * MS;
            ends[i] = ms[2 * i + 1] * MS;
        }
        return new long[][] {starts, ends};
    }

    private static long[][] together(final long[][]... threads)
    {
        final long[][] starts = new long[threads.length][];
        final long[][] ends = new long[threads.length][];
        final int[] counts = new int[threads.length];
        for (int t = 0; t < threads.length; t++)
        {
            starts[t] = threads[t][0];
            ends[t] = threads[t][1];
            counts[t] = starts[t].length;
        }
        return MachinePauses.together(starts, ends, counts);
    }

    @Test
    void shouldCountOnlyTheTimeInWhichEveryCoreWasStopped()
    {
        // core 0 stops 10-40 ms and 100-105; core 1 stops 20-60 and 200-230: together only 20-40.
        final long[][] p = together(gaps(10, 40, 100, 105), gaps(20, 60, 200, 230));
        assertEquals(1, p.length);
        assertArrayEquals(new long[] {20 * MS, 40 * MS}, p[0]);
    }

    @Test
    void shouldFindEachCommonStopWhenOneCoresGapSpansSeveralOfTheOthers()
    {
        // core 0 stops 0-100 ms; core 1 stops 10-19 and 50-59 inside it: two stops together, 9 ms each.
        final long[][] p = together(gaps(0, 100), gaps(10, 19, 50, 59));
        assertEquals(2, p.length);
        assertArrayEquals(new long[] {10 * MS, 19 * MS}, p[0]);
        assertArrayEquals(new long[] {50 * MS, 59 * MS}, p[1]);
    }

    @Test
    void shouldNotCountGapsThatOnlyTouchOrOverlapByLessThanAGap()
    {
        // 0-10 and 10-20 touch; 30-40 and 39-50 overlap for 1 ms (counted: the bound is >= 1 ms);
        // 60-70 and 69.5-80 would overlap for 0.5 ms, modelled as 70-80 against 60-70 plus a sliver: not counted.
        final long[][] core0 = {{0, 30 * MS, 60 * MS}, {10 * MS, 40 * MS, 70 * MS}};
        final long[][] core1 = {{10 * MS, 39 * MS, 70 * MS - MS / 2}, {20 * MS, 50 * MS, 80 * MS}};
        final long[][] p = together(core0, core1);
        assertEquals(1, p.length);
        assertArrayEquals(new long[] {39 * MS, 40 * MS}, p[0]);
    }

    @Test
    void shouldNeedEveryThreadNotJustTwoOfThree()
    {
        final long[][] p = together(gaps(0, 50), gaps(0, 50), gaps(60, 70));
        assertEquals(0, p.length);
        final long[][] q = together(gaps(0, 50), gaps(5, 50), gaps(10, 70));
        assertEquals(1, q.length);
        assertArrayEquals(new long[] {10 * MS, 50 * MS}, q[0]);
    }

    @Test
    void shouldTakeEveryGapOfASingleThread()
    {
        final long[][] p = together(gaps(0, 2, 5, 9));
        assertEquals(2, p.length);
    }

    @Test
    void shouldMeasureForTheTimeAskedAndCountNoMoreCommonStopsThanGaps() throws InterruptedException
    {
        final MachinePauses.Result r = MachinePauses.measure(2, TimeUnit.MILLISECONDS.toNanos(200));
        assertEquals(2, r.threads());
        assertTrue(r.nanos() >= TimeUnit.MILLISECONDS.toNanos(200), r.toString());
        assertTrue(r.together() <= r.gaps(), r.toString());
        assertTrue(r.longestTogetherNs() <= r.longestGapNs(), r.toString());
        assertTrue(r.togetherNs() <= r.nanos(), r.toString());
        assertTrue(r.describe().startsWith("2 threads spinning on the clock for "), r.describe());
        assertThrows(IllegalArgumentException.class, () -> MachinePauses.measure(0, 1));
        assertEquals("1 thread spinning on the clock for 2.0 s: its core stopped 1 time for >= 1 ms (3.0 ms in all, "
            + "the longest 3.00 ms)", new MachinePauses.Result(1, 2_000_000_000L, 1, 3_000_000, 1, 3_000_000,
                3_000_000, 0, false).describe());
    }
}
