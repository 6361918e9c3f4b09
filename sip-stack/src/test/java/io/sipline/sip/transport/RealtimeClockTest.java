package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

class RealtimeClockTest
{
    /** The offset is taken within one calibration's two reads; a millisecond is far more than that error. */
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
