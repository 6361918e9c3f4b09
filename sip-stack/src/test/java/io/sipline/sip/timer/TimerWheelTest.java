package io.sipline.sip.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

class TimerWheelTest
{
    private static final long MS = 1_000_000L;
    private static final long START = 1_000_000_000_000L;

    /** Records fired ids in order; a plain object, so polling through it allocates nothing. */
    static final class Recorder implements TimerHandler
    {
        final long[] ids = new long[1 << 16];
        final long[] times = new long[1 << 16];
        int count;
        boolean refuse;

        @Override
        public boolean onTimer(final long timerId, final long nowNs)
        {
            if (refuse)
            {
                return false;
            }
            ids[count] = timerId;
            times[count] = nowNs;
            count++;
            return true;
        }
    }

    @Test
    void shouldNotFireBeforeDeadline()
    {
        final TimerWheel wheel = new TimerWheel(START);
        final Recorder r = new Recorder();
        final long id = wheel.schedule(START + 500 * MS);
        assertEquals(0, wheel.poll(START + 499 * MS, r, 100));
        assertEquals(0, r.count);
        assertEquals(1, wheel.poll(START + 500 * MS, r, 100));
        assertEquals(id, r.ids[0]);
        assertEquals(0, wheel.timerCount());
    }

    @Test
    void shouldFireInDeadlineOrderAcrossAndWithinTicks()
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 64, 4);
        final Recorder r = new Recorder();
        final long c = wheel.schedule(START + 3 * MS + 900);
        final long a = wheel.schedule(START + 3 * MS + 100);
        final long d = wheel.schedule(START + 5 * MS);
        final long b = wheel.schedule(START + 3 * MS + 500);
        assertEquals(4, wheel.poll(START + 10 * MS, r, 100));
        assertEquals(a, r.ids[0]);
        assertEquals(b, r.ids[1]);
        assertEquals(c, r.ids[2]);
        assertEquals(d, r.ids[3]);
    }

    @Test
    void shouldFireManyTimersInOneSlotInDeadlineOrder()
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 8, 2);
        final Recorder r = new Recorder();
        final int n = 1000;
        for (int i = n - 1; i >= 0; i--)
        {
            wheel.schedule(START + 7 * MS + i * 100);
        }
        assertTrue(wheel.spokeGrowths() > 0);
        assertEquals(n, wheel.poll(START + 8 * MS, r, 10_000));
        for (int i = 1; i < n; i++)
        {
            assertTrue(r.ids[i] != r.ids[i - 1]);
        }
        // deadlines increase: fire order re-derived from the schedule order (scheduled in reverse)
        final TimerWheel check = new TimerWheel(START, MS, 8, 2);
        final Recorder order = new Recorder();
        final long[] ids = new long[n];
        for (int i = n - 1; i >= 0; i--)
        {
            ids[i] = check.schedule(START + 7 * MS + i * 100);
        }
        check.poll(START + 8 * MS, order, 10_000);
        for (int i = 0; i < n; i++)
        {
            assertEquals(ids[i], order.ids[i]);
        }
    }

    @Test
    void shouldCancelInO1AndNotFireCancelled()
    {
        final TimerWheel wheel = new TimerWheel(START);
        final Recorder r = new Recorder();
        final long a = wheel.schedule(START + 10 * MS);
        final long b = wheel.schedule(START + 10 * MS);
        assertTrue(wheel.cancel(a));
        assertFalse(wheel.cancel(a));
        assertEquals(1, wheel.timerCount());
        assertEquals(1, wheel.poll(START + 20 * MS, r, 100));
        assertEquals(b, r.ids[0]);
    }

    @Test
    void shouldIgnoreStaleIdsAfterSlotReuse()
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 16, 1);
        final Recorder r = new Recorder();
        final long first = wheel.schedule(START + 2 * MS, 7);
        assertEquals(7, wheel.payload(first));
        assertTrue(wheel.cancel(first));
        final long second = wheel.schedule(START + 2 * MS, 8);
        // same slot, new generation
        assertEquals(first & 0xFF_FFFF_FFFFL, second & 0xFF_FFFF_FFFFL);
        assertTrue(first != second);
        assertFalse(wheel.cancel(first));
        assertEquals(0, wheel.payload(first));
        assertEquals(TimerWheel.NULL_DEADLINE, wheel.deadline(first));
        assertEquals(8, wheel.payload(second));
        assertEquals(1, wheel.poll(START + 3 * MS, r, 10));
        assertFalse(wheel.cancel(second));
        assertFalse(wheel.cancel(TimerWheel.NULL_TIMER_ID));
        assertFalse(wheel.isLive(Long.MAX_VALUE));
    }

    @Test
    void shouldReuseTheSlotsFreedInASpokeOfLongLivedTimersWithoutGrowing()
    {
        // one spoke of 8 slots holding timers of later rotations, as 32 s transaction timers do on a 1 s wheel
        final TimerWheel wheel = new TimerWheel(START, MS, 4, 8);
        final Recorder r = new Recorder();
        final long[] later = new long[6];
        for (int i = 0; i < later.length; i++)
        {
            later[i] = wheel.schedule(START + (1 + 4 * (i + 2)) * MS, 100 + i);
        }
        final long soon = wheel.schedule(START + MS, 1);
        final long cancelled = wheel.schedule(START + 5 * MS, 2);
        assertTrue(wheel.cancel(cancelled));
        assertEquals(1, wheel.poll(START + 2 * MS, r, 10));
        assertEquals(soon, r.ids[0]);
        // the two freed slots take the next two timers; only a ninth live timer grows the spoke
        final long a = wheel.schedule(START + 5 * MS, 3);
        final long b = wheel.schedule(START + 5 * MS + 1, 4);
        assertEquals(0, wheel.spokeGrowths());
        assertTrue(wheel.isLive(a) && wheel.isLive(b));
        assertEquals(3, wheel.payload(a));
        assertEquals(4, wheel.payload(b));
        final long c = wheel.schedule(START + 9 * MS, 5);
        assertEquals(1, wheel.spokeGrowths());
        assertEquals(9, wheel.timerCount());
        r.count = 0;
        assertEquals(9, wheel.poll(START + 40 * MS, r, 100));
        assertEquals(a, r.ids[0]);
        assertEquals(b, r.ids[1]);
        assertEquals(later[0], r.ids[2]);
        assertEquals(c, r.ids[3]);
        assertEquals(later[5], r.ids[8]);
        assertEquals(0, wheel.timerCount());
    }

    @Test
    void shouldFireTimersScheduledInThePastOnNextPoll()
    {
        final TimerWheel wheel = new TimerWheel(START);
        final Recorder r = new Recorder();
        wheel.poll(START + 100 * MS, r, 10);
        final long id = wheel.schedule(START + 5 * MS);
        assertEquals(1, wheel.poll(START + 100 * MS, r, 10));
        assertEquals(id, r.ids[0]);
    }

    @Test
    void shouldHonourLimitAndRefusal()
    {
        final TimerWheel wheel = new TimerWheel(START);
        final Recorder r = new Recorder();
        for (int i = 0; i < 10; i++)
        {
            wheel.schedule(START + (i + 1) * MS);
        }
        assertEquals(3, wheel.poll(START + 20 * MS, r, 3));
        r.refuse = true;
        assertEquals(0, wheel.poll(START + 20 * MS, r, 100));
        assertEquals(7, wheel.timerCount());
        r.refuse = false;
        assertEquals(7, wheel.poll(START + 20 * MS, r, 100));
        assertEquals(10, r.count);
    }

    @Test
    void shouldSurviveWrapAroundOverManyRotations()
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 16, 2);
        final Recorder r = new Recorder();
        // a timer 50 rotations away shares its spoke with near timers but fires only at its deadline
        final long far = wheel.schedule(START + 16 * 50 * MS + 3 * MS);
        long now = START;
        int near = 0;
        for (int rotation = 0; rotation < 50; rotation++)
        {
            wheel.schedule(now + 3 * MS);
            for (int t = 0; t < 16; t++)
            {
                now += MS;
                near += wheel.poll(now, r, 100);
            }
        }
        assertEquals(50, near);
        assertTrue(wheel.isLive(far));
        now += 3 * MS;
        assertEquals(1, wheel.poll(now, r, 100));
        assertEquals(far, r.ids[r.count - 1]);
    }

    @Test
    void shouldLetHandlersScheduleAndCancelDuringPoll()
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 8, 1);
        final long[] other = new long[1];
        final int[] fired = new int[1];
        final TimerHandler handler = new TimerHandler()
        {
            @Override
            public boolean onTimer(final long timerId, final long nowNs)
            {
                fired[0]++;
                wheel.cancel(other[0]);
                for (int i = 0; i < 4; i++)
                {
                    wheel.schedule(nowNs + 8 * MS); // same spoke, next rotation: grows it mid-poll
                }
                return true;
            }
        };
        wheel.schedule(START + 2 * MS);
        other[0] = wheel.schedule(START + 2 * MS + 10);
        assertEquals(1, wheel.poll(START + 3 * MS, handler, 100));
        assertEquals(1, fired[0]);
        assertEquals(4, wheel.timerCount());
    }

    @Test
    void shouldNotAllocateInSteadyState()
    {
        final TimerWheel wheel = new TimerWheel(START);
        final Recorder r = new Recorder();
        final long[] ids = new long[256];
        final long[] now = {START};
        final Runnable rounds = () ->
        {
            for (int round = 0; round < 20_000; round++)
            {
                now[0] = cycle(wheel, r, ids, now[0]);
            }
        };
        // The least of up to five attempts: a one-off deoptimisation is not charged to the wheel.
        final long allocated = AllocationMeter.leastBytes(rounds, rounds, 5, 0);
        assertEquals(0, allocated, "bytes allocated by 20,000 rounds of schedule/cancel/poll");
    }

    @Test
    void shouldShrinkASpokeABurstGrewOnceItStayedSmall()
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 64, 4);
        final Recorder r = new Recorder();
        // a burst: 200 timers in one tick grow its spoke from 4 to 256 slots
        for (int i = 0; i < 200; i++)
        {
            wheel.schedule(START + 10 * MS);
        }
        assertEquals(256, wheel.maxSpokeCapacity());
        assertEquals(200, wheel.poll(START + 10 * MS, r, Integer.MAX_VALUE));
        final long grown = wheel.totalSlots();
        assertEquals(63 * 4 + 256, grown);
        // the first trim after the burst sees its peak: not quiet yet
        assertEquals(0, wheel.trim());
        for (int t = 1; t < TimerWheel.QUIET_TRIMS; t++)
        {
            assertEquals(0, wheel.trim(), "trim " + t);
        }
        assertEquals(1, wheel.trim(), "quiet for QUIET_TRIMS trims in a row");
        assertEquals(64 * 4, wheel.totalSlots());
        assertEquals(4, wheel.maxSpokeCapacity());
        assertEquals(1, wheel.spokeShrinks());
        // the shrunk spoke still takes timers, and grows again under another burst
        final long[] ids = new long[10];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = wheel.schedule(START + 74 * MS, i);
        }
        for (int i = 0; i < ids.length; i++)
        {
            assertEquals(i, wheel.payload(ids[i]));
        }
        r.count = 0;
        assertEquals(10, wheel.poll(START + 74 * MS, r, Integer.MAX_VALUE));
    }

    @Test
    void shouldNeverShrinkOverALiveTimer()
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 64, 4);
        final Recorder r = new Recorder();
        final long[] ids = new long[64];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = wheel.schedule(START + 10 * MS + i, i);
        }
        // all but the last one end: the live one sits at position 63 of a 64-slot spoke
        for (int i = 0; i < ids.length - 1; i++)
        {
            assertTrue(wheel.cancel(ids[i]));
        }
        final long live = ids[ids.length - 1];
        for (int t = 0; t <= 2 * TimerWheel.QUIET_TRIMS; t++)
        {
            assertEquals(0, wheel.trim());
        }
        assertEquals(64, wheel.maxSpokeCapacity());
        assertTrue(wheel.isLive(live));
        assertEquals(63, wheel.payload(live));
        // once it fired, the next trim shrinks the spoke
        assertEquals(1, wheel.poll(START + 20 * MS, r, Integer.MAX_VALUE));
        assertEquals(live, r.ids[0]);
        assertEquals(1, wheel.trim());
        assertEquals(4, wheel.maxSpokeCapacity());
    }

    @Test
    void shouldShrinkASpokeWhoseBurstEndedAtAQuarterOfItsSlots()
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 64, 4);
        final Recorder r = new Recorder();
        // a burst grows the spoke of tick 10 from 4 to 32 slots ...
        for (int i = 0; i < 32; i++)
        {
            wheel.schedule(START + 10 * MS);
        }
        assertEquals(32, wheel.poll(START + 10 * MS, r, Integer.MAX_VALUE));
        // ... and its tail holds 8 of them, a quarter, at the trim that starts the quiet spell
        final long[] tail = new long[8];
        for (int i = 0; i < tail.length; i++)
        {
            tail[i] = wheel.schedule(START + 74 * MS);
        }
        assertEquals(0, wheel.trim(), "the burst's peak: not quiet");
        for (final long id : tail)
        {
            assertTrue(wheel.cancel(id));
        }
        for (int t = 1; t < TimerWheel.QUIET_TRIMS; t++)
        {
            assertEquals(0, wheel.trim(), "trim " + t);
        }
        // four times the spell's most (8) is every slot: a new spell, which sees an empty spoke
        assertEquals(0, wheel.trim());
        assertEquals(32, wheel.maxSpokeCapacity());
        for (int t = 1; t < TimerWheel.QUIET_TRIMS; t++)
        {
            assertEquals(0, wheel.trim(), "second spell, trim " + t);
        }
        assertEquals(1, wheel.trim(), "the second quiet spell shrinks it");
        assertEquals(4, wheel.maxSpokeCapacity());
        assertEquals(64 * 4, wheel.totalSlots());
    }

    @Test
    void shouldShrinkASpokeATrickleKeepsUsingOnceTheLiveTimerHighUpEnded()
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 64, 4);
        final Recorder r = new Recorder();
        final long[] ids = new long[64];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = wheel.schedule(START + 10 * MS + i);
        }
        // position 63 stays live for 40 rotations; the others end, pushed on the free stack in order (63 on top)
        for (int i = 0; i < ids.length - 1; i++)
        {
            wheel.cancel(ids[i]);
        }
        wheel.cancel(ids[ids.length - 1]);
        final long high = wheel.schedule(START + (10 + 40 * 64) * MS);
        long now = START + 10 * MS;
        for (int round = 0; round < 60; round++)
        {
            // a trickle on the same spoke, two rotations long, so one is live at every trim: a LIFO stack alone would
            // keep putting it at positions 61 and 62
            wheel.schedule(now + 128 * MS);
            now += 64 * MS;
            wheel.poll(now, r, Integer.MAX_VALUE);
            wheel.trim();
        }
        assertFalse(wheel.isLive(high), "the one up high fired");
        // four times the three it held at most (the one up high and two of the trickle)
        assertEquals(16, wheel.maxSpokeCapacity(), "shrunk once it ended, the trickle kept below the cut");
        assertEquals(1, wheel.spokeShrinks());
    }

    @Test
    void shouldGiveTheHeldBackPositionsBackWhenTheLowerOnesRunOut()
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 64, 4);
        final long[] ids = new long[64];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = wheel.schedule(START + 10 * MS + i);
        }
        for (int i = 0; i < ids.length - 1; i++)
        {
            wheel.cancel(ids[i]);
        }
        for (int t = 0; t <= TimerWheel.QUIET_TRIMS; t++)
        {
            assertEquals(0, wheel.trim()); // blocked by position 63: the positions from 4 up are held back
        }
        final long growths = wheel.spokeGrowths();
        for (int i = 0; i < 60; i++)
        {
            wheel.schedule(START + 10 * MS);
        }
        assertEquals(growths, wheel.spokeGrowths(), "60 more fit in the 63 free positions, held back or not");
        assertEquals(61, wheel.timerCount());
        assertTrue(wheel.isLive(ids[63]));
    }

    @Test
    void shouldKeepLiveTimersBelowTheCutWhenShrinking()
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 64, 4);
        final Recorder r = new Recorder();
        final long[] ids = new long[64];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = wheel.schedule(START + 10 * MS + i, i);
        }
        for (int i = 2; i < ids.length; i++)
        {
            wheel.cancel(ids[i]);
        }
        // the first trim sees the burst's peak; QUIET_TRIMS quiet ones follow
        for (int t = 0; t <= TimerWheel.QUIET_TRIMS; t++)
        {
            wheel.trim();
        }
        assertEquals(8, wheel.maxSpokeCapacity(), "four times the two it held, a power of two");
        assertTrue(wheel.isLive(ids[0]));
        assertTrue(wheel.isLive(ids[1]));
        assertEquals(1, wheel.payload(ids[1]));
        // the free positions were rebuilt: six more fit without growth, in order from the lowest
        final long growths = wheel.spokeGrowths();
        for (int i = 0; i < 6; i++)
        {
            wheel.schedule(START + 10 * MS + 100 + i);
        }
        assertEquals(growths, wheel.spokeGrowths());
        assertEquals(8, wheel.poll(START + 20 * MS, r, Integer.MAX_VALUE));
        assertEquals(ids[0], r.ids[0]);
        assertEquals(ids[1], r.ids[1]);
    }

    @Test
    void shouldNotLetAStaleIdNameATimerOfASpokeThatGrewAgain()
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 64, 4);
        final Recorder r = new Recorder();
        // ids of generation 0, as a fresh slot would issue again without the floor
        final long[] old = new long[64];
        for (int i = 0; i < old.length; i++)
        {
            old[i] = wheel.schedule(START + 10 * MS, i);
        }
        for (final long id : old)
        {
            wheel.cancel(id);
        }
        for (int t = 0; t <= TimerWheel.QUIET_TRIMS; t++)
        {
            wheel.trim();
        }
        assertEquals(4, wheel.maxSpokeCapacity());
        // the spoke grows again: its positions from 4 up are issued anew and must not answer to the ids they issued
        final long[] fresh = new long[64];
        for (int i = 0; i < fresh.length; i++)
        {
            fresh[i] = wheel.schedule(START + 10 * MS, 100 + i);
        }
        for (int i = 0; i < old.length; i++)
        {
            assertFalse(wheel.isLive(old[i]), "stale id " + i);
            assertFalse(wheel.cancel(old[i]), "stale id " + i);
        }
        assertEquals(64, wheel.timerCount());
        assertEquals(64, wheel.poll(START + 10 * MS, r, Integer.MAX_VALUE));
    }

    @Test
    void shouldNotShrinkASpokeASteadyLoadKeepsBusy()
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 64, 4);
        final Recorder r = new Recorder();
        long now = START;
        for (int t = 0; t < 3 * TimerWheel.QUIET_TRIMS; t++)
        {
            // every round the same tick of the wheel holds 40 timers: a load, not a burst
            for (int i = 0; i < 40; i++)
            {
                wheel.schedule(now + 64 * MS);
            }
            now += 64 * MS;
            wheel.poll(now, r, Integer.MAX_VALUE);
            r.count = 0;
            assertEquals(0, wheel.trim());
        }
        assertEquals(64, wheel.maxSpokeCapacity());
        assertEquals(0, wheel.spokeShrinks());
    }

    @Test
    void shouldNotAllocateWhenTrimmingInSteadyState()
    {
        final TimerWheel wheel = new TimerWheel(START);
        final Recorder r = new Recorder();
        final long[] ids = new long[256];
        final long[] now = {START};
        final Runnable rounds = () ->
        {
            for (int round = 0; round < 2_000; round++)
            {
                now[0] = cycle(wheel, r, ids, now[0]);
                wheel.trim();
            }
        };
        final long allocated = AllocationMeter.leastBytes(rounds, rounds, 5, 0);
        assertEquals(0, allocated, "bytes allocated by 2,000 rounds of schedule/cancel/poll/trim");
    }

    private static long cycle(final TimerWheel wheel, final Recorder r, final long[] ids, final long start)
    {
        long now = start;
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = wheel.schedule(now + (1 + (i * 7) % 600) * MS);
        }
        for (int i = 0; i < ids.length; i += 2)
        {
            wheel.cancel(ids[i]);
        }
        now += 700 * MS;
        wheel.poll(now, r, Integer.MAX_VALUE);
        r.count = 0;
        return now;
    }
}
