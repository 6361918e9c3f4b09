package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

class RealtimeClockTest
{
    /** The offset's error is half a calibration's bracket: 10 µs at most unless every try was paused; 1 ms is more. */
    private static final long SLACK_NS = 1_000_000L;

    @Test
    void shouldReadTheWallClockBetweenTwoInstants()
    {
        for (int i = 0; i < 1_000; i++)
        {
            final long before = nanos(Instant.now());
            final long t = RealtimeClock.nanos();
            final long after = nanos(Instant.now());
            assertTrue(before - SLACK_NS <= t && t <= after + SLACK_NS, before + " <= " + t + " <= " + after);
        }
    }

    @Test
    void shouldGiveTheWallClockOfAMonotonicReading()
    {
        for (int i = 0; i < 1_000; i++)
        {
            final long before = nanos(Instant.now());
            final long t = RealtimeClock.fromMonotonic(System.nanoTime());
            final long after = nanos(Instant.now());
            assertTrue(before - SLACK_NS <= t && t <= after + SLACK_NS, before + " <= " + t + " <= " + after);
        }
        final long now = System.nanoTime();
        final long difference = RealtimeClock.fromMonotonic(now) - RealtimeClock.fromMonotonic(now - 5_000_000L);
        assertTrue(Math.abs(difference - 5_000_000L) <= SLACK_NS, // exact unless a recalibration fell between
            "a reading 5 ms earlier is 5 ms earlier on the wall clock too: " + difference);
    }

    @Test
    void shouldReadAgainWhenTheThreadWasDescheduledBetweenTheReads()
    {
        // Monotonic reads 0, then 5 ms later (a pause between the wall read and the second monotonic read), then a
        // 2 µs bracket: the offset is the second bracket's, not the first's 2.5 ms error.
        final long[] monotonic = {0L, 5_000_000L, 10_000_000L, 10_002_000L};
        final long[] wall = {1_000_000_000L, 1_010_001_000L};
        final int[] reads = new int[2];
        final RealtimeClock.Offset o = RealtimeClock.calibrate(() -> monotonic[reads[0]++], () -> wall[reads[1]++]);
        assertEquals(2_000L, o.bracketNs());
        assertEquals(10_001_000L, o.takenAtNs(), "the middle of the narrow bracket");
        assertEquals(1_000_000_000L, o.wallMinusMonotonic());
        assertEquals(4, reads[0], "two tries, the second narrow enough to stop");
    }

    @Test
    void shouldKeepTheNarrowestBracketWhenNoneIsNarrowEnough()
    {
        // Every bracket wide (a machine pausing the thread at each try): the narrowest of the tries is kept.
        final long[] widths = {900_000L, 300_000L, 700_000L, 500_000L, 800_000L, 600_000L, 400_000L, 1_000_000L};
        final long[] next = {0L};
        final int[] call = {0};
        final RealtimeClock.Offset o = RealtimeClock.calibrate(() ->
        {
            final int k = call[0]++;
            final long t = next[0];
            next[0] += k % 2 == 0 ? widths[k / 2] : 1_000_000_000L;
            return t;
        }, () -> 7L);
        assertEquals(RealtimeClock.CALIBRATION_TRIES * 2, call[0]);
        assertEquals(300_000L, o.bracketNs());
    }

    @Test
    void shouldNeverGoBackBetweenCalibrations()
    {
        long last = RealtimeClock.nanos();
        for (int i = 0; i < 100_000; i++)
        {
            final long t = RealtimeClock.nanos();
            assertTrue(t >= last - SLACK_NS, last + " then " + t);
            last = t;
        }
    }

    @Test
    void shouldNotAllocateEvenBeforeC2()
    {
        // 100,000 reads take far less than the one second an offset lives, so at most one Instant and one Offset
        // (well under 100 B) even when the loop runs interpreted.
        final long allocated = AllocationMeter.leastBytes(RealtimeClockTest::read, RealtimeClockTest::read, 3, 255);
        assertTrue(allocated < 256, "bytes allocated over 100,000 reads: " + allocated);
    }

    private static void read()
    {
        long sum = 0;
        for (int i = 0; i < 100_000; i++)
        {
            sum += RealtimeClock.nanos();
        }
        assertTrue(sum != 0);
    }

    private static long nanos(final Instant i)
    {
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }
}
