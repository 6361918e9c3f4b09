package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.sipline.container.api.ContainerShard;
import io.sipline.sip.timer.TimerHandler;
import io.sipline.sip.timer.TimerWheel;
import io.sipline.test.AllocationMeter;

/** {@link TimerSlots} on a real {@link TimerWheel} and a clock the test moves: growth, shrink, stale handles. */
class TimerSlotsTest
{
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final long START = 1_000_000_000_000L;

    /** The wheel the slots schedule on, with a clock the test moves. */
    private static final class FakeWheel implements TimerSlots.Wheel, TimerHandler
    {
        final TimerWheel wheel = new TimerWheel(START, MS, 64, 4);
        long now = START;
        TimerSlots slots;

        @Override
        public long nowNs()
        {
            return now;
        }

        @Override
        public long schedule(final long deadlineNs, final long payload)
        {
            return wheel.schedule(deadlineNs, payload);
        }

        @Override
        public boolean cancel(final long wheelId)
        {
            return wheel.cancel(wheelId);
        }

        @Override
        public int index()
        {
            return 0;
        }

        @Override
        public boolean onTimer(final long timerId, final long nowNs)
        {
            slots.onTimer(timerId, wheel.payload(timerId));
            return true;
        }

        /** Moves the clock and fires what is due. */
        void advance(final long ns)
        {
            now += ns;
            wheel.poll(now, this, Integer.MAX_VALUE);
        }
    }

    /** Counts its firings; a plain object, so firing allocates nothing. */
    private static final class Target implements ContainerShard.TimerTarget
    {
        int fired;

        @Override
        public void onTimer(final long timerId)
        {
            fired++;
        }
    }

    private static FakeWheel wheel()
    {
        final FakeWheel w = new FakeWheel();
        w.slots = new TimerSlots(w, new ServletInvoker(null, null, new ContainerShardImpl.Counters()),
            new ContainerShardImpl.Counters());
        return w;
    }

    /** A trim a second, QUIET_TRIMS + 1 times: the first sees the burst's peak, the others are quiet. */
    private static int quietTrims(final FakeWheel w)
    {
        int shrinks = 0;
        for (int t = 0; t <= TimerSlots.QUIET_TRIMS; t++)
        {
            w.advance(SECOND);
            shrinks += w.slots.trim(w.now) ? 1 : 0;
        }
        return shrinks;
    }

    @Test
    void aBurstGrowsTheSlotsAndTheyShrinkBackOnceItEnded()
    {
        final FakeWheel w = wheel();
        final Target target = new Target();
        for (int i = 0; i < 3_000; i++)
        {
            w.slots.schedule(100, target);
        }
        assertEquals(4_096, w.slots.capacity());
        w.advance(200 * MS);
        assertEquals(3_000, target.fired);
        assertEquals(0, w.slots.pending());
        assertEquals(1, quietTrims(w));
        assertEquals(TimerSlots.INITIAL_SLOTS, w.slots.capacity());
        // the shrunk slots serve again
        final long handle = w.slots.schedule(100, target);
        w.advance(200 * MS);
        assertEquals(3_001, target.fired);
        w.slots.cancel(handle); // already fired: ignored
        assertEquals(0, w.slots.pending());
    }

    @Test
    void slotsWhoseBurstEndedAtAQuarterShrinkAfterASecondQuietSpell()
    {
        final FakeWheel w = wheel();
        final Target target = new Target();
        for (int i = 0; i < 3_000; i++)
        {
            w.slots.schedule(100, target);
        }
        w.advance(200 * MS);
        // the burst's tail: a quarter of the 4,096 slots pending at the trim that starts the quiet spell
        final long[] tail = new long[1_024];
        for (int i = 0; i < tail.length; i++)
        {
            tail[i] = w.slots.schedule(600_000, target);
        }
        w.advance(SECOND);
        assertFalse(w.slots.trim(w.now), "the burst's peak: not quiet");
        for (final long handle : tail)
        {
            w.slots.cancel(handle);
        }
        assertEquals(0, quietTrims(w), "four times the spell's most is every slot: kept, and a new spell begins");
        assertEquals(4_096, w.slots.capacity());
        assertEquals(1, quietTrims(w), "the new spell saw none pending");
        assertEquals(TimerSlots.INITIAL_SLOTS, w.slots.capacity());
    }

    @Test
    void aPendingTimerInThePartToLetGoHoldsTheShrinkUntilItFires()
    {
        final FakeWheel w = wheel();
        final Target target = new Target();
        final List<Long> handles = new ArrayList<>();
        for (int i = 0; i < 1_000; i++)
        {
            handles.add(w.slots.schedule(60_000, target));
        }
        for (int i = 0; i < 999; i++)
        {
            w.slots.cancel(handles.get(i));
        }
        // the last one, in slot 999, is pending for a minute
        assertEquals(0, quietTrims(w));
        assertEquals(1_024, w.slots.capacity());
        assertEquals(1, w.slots.pending());
        assertEquals(0, target.fired);
        w.advance(30 * SECOND);
        assertEquals(1, target.fired, "the timer kept its slot and fired");
        w.advance(SECOND);
        assertTrue(w.slots.trim(w.now));
        assertEquals(TimerSlots.INITIAL_SLOTS, w.slots.capacity());
    }

    @Test
    void aTrickleOfTimersTakesTheLowerSlotsSoThatAPendingOneHighUpCannotHoldTheArraysLarge()
    {
        final FakeWheel w = wheel();
        final Target target = new Target();
        final List<Long> handles = new ArrayList<>();
        for (int i = 0; i < 1_000; i++)
        {
            handles.add(w.slots.schedule(40_000, target));
        }
        for (int i = 0; i < 999; i++)
        {
            w.slots.cancel(handles.get(i));
        }
        // slot 999 pending for 40 s; meanwhile a timer of 5 s every 100 ms, freed slots reused at once (LIFO)
        final Target trickle = new Target();
        for (int ms = 0; ms < 45_000; ms += 100)
        {
            w.slots.schedule(5_000, trickle);
            w.advance(100 * MS);
            w.slots.trim(w.now);
        }
        assertEquals(1, target.fired);
        assertTrue(trickle.fired > 350, "the trickle ran: " + trickle.fired);
        assertEquals(TimerSlots.INITIAL_SLOTS, w.slots.capacity(), "shrunk once the one high up ended");
    }

    @Test
    void heldBackSlotsComeBackWhenTheLowerOnesRunOut()
    {
        final FakeWheel w = wheel();
        final Target target = new Target();
        final List<Long> handles = new ArrayList<>();
        for (int i = 0; i < 1_000; i++)
        {
            handles.add(w.slots.schedule(600_000, target));
        }
        for (int i = 0; i < 999; i++)
        {
            w.slots.cancel(handles.get(i));
        }
        quietTrims(w); // blocked by slot 999: the slots from 256 up are held back
        assertEquals(1_024, w.slots.capacity());
        // a burst needs more than the 256 lower free slots: it gets the held-back ones, no growth
        for (int i = 0; i < 900; i++)
        {
            w.slots.schedule(1_000, target);
        }
        assertEquals(901, w.slots.pending());
        assertEquals(1_024, w.slots.capacity());
        w.advance(2 * SECOND);
        assertEquals(900, target.fired);
    }

    @Test
    void aStaleHandleCancelsNothingAfterTheSlotsShrankAndGrewAgain()
    {
        final FakeWheel w = wheel();
        final Target target = new Target();
        final long[] old = new long[1_000];
        for (int i = 0; i < old.length; i++)
        {
            old[i] = w.slots.schedule(100, target);
        }
        w.advance(200 * MS);
        assertEquals(1, quietTrims(w));
        final Target second = new Target();
        for (int i = 0; i < old.length; i++)
        {
            w.slots.schedule(100, second);
        }
        for (final long handle : old)
        {
            w.slots.cancel(handle); // fired long ago: must not cancel the timer now in its slot
        }
        assertEquals(old.length, w.slots.pending());
        w.advance(200 * MS);
        assertEquals(old.length, second.fired);
    }

    @Test
    void aSteadyLoadKeepsItsSlots()
    {
        final FakeWheel w = wheel();
        final Target target = new Target();
        for (int t = 0; t < 3 * TimerSlots.QUIET_TRIMS; t++)
        {
            for (int i = 0; i < 600; i++)
            {
                w.slots.schedule(500, target);
            }
            w.advance(SECOND);
            assertFalse(w.slots.trim(w.now));
        }
        assertEquals(1_024, w.slots.capacity());
    }

    @Test
    void trimsAllocateNothingWhenNothingGrew()
    {
        final FakeWheel w = wheel();
        final Target target = new Target();
        final Runnable rounds = () ->
        {
            for (int round = 0; round < 2_000; round++)
            {
                for (int i = 0; i < 100; i++)
                {
                    w.slots.schedule(100, target);
                }
                w.advance(SECOND);
                w.slots.trim(w.now);
            }
        };
        assertEquals(0, AllocationMeter.leastBytes(rounds, rounds, 5, 0));
        assertEquals(TimerSlots.INITIAL_SLOTS, w.slots.capacity());
    }
}
