package io.sipline.container.dispatch;

import java.util.Arrays;
import io.sipline.container.api.ContainerShard;
import io.sipline.sip.collection.QuietSpells;
import io.sipline.sip.stack.StackShard;

/**
 * The timers of one shard's container on the stack's timing wheel: a slot per pending timer, whose handle is
 * {@code slot | generation << 32}, so that cancelling is O(1), a stale handle is ignored, and a slot is reused without
 * allocation once its timer fired or was cancelled. The wheel's payload is the slot.
 * <p>
 * The slot arrays grow (doubling) with the timers pending at once; {@link #trim} (once a second, from the shard's
 * tick) shrinks them back once at most a quarter of them was in use for {@link #QUIET_TRIMS} trims in a row, when no
 * pending timer sits in the part let go (a handle names its slot, so a pending timer never moves); while one does,
 * the slots up there that end are held back and new timers take the lower ones, so a trickle of timers cannot keep
 * the arrays large (running out of lower slots gives the held-back ones back at once). Slots made again
 * after a shrink start their generations above those the dropped ones issued, so a stale handle stays stale.
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard, created with it).
 */
final class TimerSlots
{
    /** Slots the arrays start with, and the least {@link #trim} leaves. */
    static final int INITIAL_SLOTS = 256;
    /** Trims in a row the slots in use must stay at a quarter of the arrays or less before they shrink. */
    static final int QUIET_TRIMS = 32;
    static final long TRIM_PERIOD_NS = 1_000_000_000L;

    /** The shard's application timer wheel, as this class uses it (a test's fake in unit tests). */
    interface Wheel
    {
        long nowNs();

        long schedule(long deadlineNs, long payload);

        boolean cancel(long wheelId);

        int index();
    }

    private final Wheel shard;
    private final ServletInvoker invoker;
    private final ContainerShardImpl.Counters counters;

    private ContainerShard.TimerTarget[] timerTargets = new ContainerShard.TimerTarget[INITIAL_SLOTS];
    private long[] timerWheelIds = new long[INITIAL_SLOTS];
    private int[] timerGenerations = new int[INITIAL_SLOTS];
    private int[] freeSlots = new int[INITIAL_SLOTS];
    private int freeCount;
    private int slotCount;
    /** Timers pending. */
    private int pendingCount;
    /** Slots from here up are not handed out again while a shrink waits for their timers to end. */
    private int slotLimit = Integer.MAX_VALUE;
    /** The quiet spell, at a quarter of the slots or less, that {@link #trim} shrinks them after. */
    private final QuietSpells spell = new QuietSpells(1, 2, INITIAL_SLOTS);
    private long nextTrimNs;
    private boolean trimmedOnce;
    /** The generation a slot made again after a shrink starts from (the highest of the dropped slots'). */
    private int generationFloor;

    TimerSlots(final StackShard shard, final ServletInvoker invoker, final ContainerShardImpl.Counters counters)
    {
        this(new Wheel()
        {
            @Override
            public long nowNs()
            {
                return shard.nowNs();
            }

            @Override
            public long schedule(final long deadlineNs, final long payload)
            {
                return shard.schedule(deadlineNs, payload);
            }

            @Override
            public boolean cancel(final long wheelId)
            {
                return shard.cancel(wheelId);
            }

            @Override
            public int index()
            {
                return shard.index();
            }
        }, invoker, counters);
    }

    TimerSlots(final Wheel wheel, final ServletInvoker invoker, final ContainerShardImpl.Counters counters)
    {
        this.shard = wheel;
        this.invoker = invoker;
        this.counters = counters;
    }

    /** Schedules {@code target} after {@code delayMillis} on the shard's wheel; returns its handle. */
    long schedule(final long delayMillis, final ContainerShard.TimerTarget target)
    {
        final int slot;
        if (0 == freeCount && slotLimit < slotCount)
        {
            giveBackHeldSlots(); // the lower slots ran out: the shrink waits for another quiet spell
        }
        if (freeCount > 0)
        {
            slot = freeSlots[--freeCount];
        }
        else
        {
            if (slotCount == timerTargets.length)
            {
                final int n = slotCount * 2;
                timerTargets = Arrays.copyOf(timerTargets, n);
                timerWheelIds = Arrays.copyOf(timerWheelIds, n);
                timerGenerations = Arrays.copyOf(timerGenerations, n);
                // slots a shrink dropped may have issued handles still held: the new ones start above them
                Arrays.fill(timerGenerations, slotCount, n, generationFloor);
                freeSlots = Arrays.copyOf(freeSlots, n);
            }
            slot = slotCount++;
        }
        spell.use(0, ++pendingCount);
        timerTargets[slot] = target;
        final int generation = ++timerGenerations[slot] & 0x7FFFFFFF;
        timerWheelIds[slot] = shard.schedule(shard.nowNs() + Math.max(0, delayMillis) * 1_000_000L, slot);
        return ((long)generation << 32) | slot;
    }

    /** Cancels the timer of a handle from {@link #schedule}; a stale handle is ignored. */
    void cancel(final long timerId)
    {
        final int slot = (int)timerId;
        if (slot < 0 || slot >= slotCount || (timerGenerations[slot] & 0x7FFFFFFF) != (int)(timerId >>> 32)
            || null == timerTargets[slot])
        {
            return;
        }
        shard.cancel(timerWheelIds[slot]);
        freeSlot(slot);
    }

    private void freeSlot(final int slot)
    {
        timerTargets[slot] = null;
        timerGenerations[slot]++;
        pendingCount--;
        if (slot < slotLimit)
        {
            freeSlots[freeCount++] = slot;
        }
    }

    /**
     * The wheel fired {@code wheelId} for the slot {@code payload}: its target runs (a throw is counted, logged once).
     */
    void onTimer(final long wheelId, final long payload)
    {
        final int slot = (int)payload;
        if (slot < 0 || slot >= slotCount || timerWheelIds[slot] != wheelId || null == timerTargets[slot])
        {
            return;
        }
        final ContainerShard.TimerTarget target = timerTargets[slot];
        final long handle = ((long)(timerGenerations[slot] & 0x7FFFFFFF) << 32) | slot;
        freeSlot(slot);
        invoker.enter();
        try
        {
            target.onTimer(handle);
        }
        catch (final RuntimeException e)
        {
            counters.servletErrors.incrementAndGet();
            ShardLog.logOnce("timer:" + e.getClass().getName(), "a timer listener threw on shard " + shard.index(),
                e);
        }
        finally
        {
            invoker.exit();
        }
    }

    /**
     * Once a second (earlier calls return at once): shrinks the slot arrays a burst grew, to four times the most
     * timers pending at once over the last {@link #QUIET_TRIMS} trims (at least {@link #INITIAL_SLOTS}), once that
     * many trims in a row saw at most a quarter of them in use and no pending timer sits in the part let go; a spell
     * whose most needs every slot (a quarter exactly) starts a new spell. Allocates only when it shrinks.
     *
     * @return true when this trim shrank the arrays.
     */
    boolean trim(final long nowNs)
    {
        if (trimmedOnce && nowNs - nextTrimNs < 0)
        {
            return false;
        }
        trimmedOnce = true;
        nextTrimNs = nowNs + TRIM_PERIOD_NS;
        final int target = spell.trim(0, timerTargets.length, pendingCount, QUIET_TRIMS);
        if (QuietSpells.BUSY == target)
        {
            giveBackHeldSlots();
            return false;
        }
        return QuietSpells.KEEP != target && shrink(target);
    }

    private boolean shrink(final int target)
    {
        int floor = generationFloor;
        for (int i = target; i < slotCount; i++)
        {
            if (null != timerTargets[i])
            {
                holdBack(target); // a pending timer up there: new timers take lower slots until it ends
                return false;
            }
            floor = Math.max(floor, timerGenerations[i] & 0x7FFFFFFF);
        }
        generationFloor = floor;
        slotCount = Math.min(slotCount, target);
        timerTargets = Arrays.copyOf(timerTargets, target);
        timerWheelIds = Arrays.copyOf(timerWheelIds, target);
        timerGenerations = Arrays.copyOf(timerGenerations, target);
        freeSlots = new int[target];
        freeCount = 0;
        for (int i = slotCount - 1; i >= 0; i--)
        {
            if (null == timerTargets[i])
            {
                freeSlots[freeCount++] = i; // the lowest free slot ends on top
            }
        }
        spell.restart(0, pendingCount);
        slotLimit = Integer.MAX_VALUE;
        return true;
    }

    /** From now on the free slots from {@code limit} up are held back: new timers take the lower ones. */
    private void holdBack(final int limit)
    {
        if (slotLimit == limit)
        {
            return;
        }
        slotLimit = limit;
        int kept = 0;
        for (int i = 0; i < freeCount; i++)
        {
            if (freeSlots[i] < limit)
            {
                freeSlots[kept++] = freeSlots[i];
            }
        }
        freeCount = kept;
    }

    /** Ends {@link #holdBack}: the free slots held back go back on the free stack. Allocates nothing. */
    private void giveBackHeldSlots()
    {
        if (Integer.MAX_VALUE == slotLimit)
        {
            return;
        }
        for (int i = slotLimit; i < slotCount; i++)
        {
            if (null == timerTargets[i])
            {
                freeSlots[freeCount++] = i;
            }
        }
        slotLimit = Integer.MAX_VALUE;
    }

    /** Slots the arrays hold (in use, free, or never used yet). */
    int capacity()
    {
        return timerTargets.length;
    }

    /** Timers pending. */
    int pending()
    {
        return pendingCount;
    }

    /** The shard stops: the bytes of the pending retransmissions are released (their timers never fire). */
    void releaseRetransmissions()
    {
        for (int i = 0; i < slotCount; i++)
        {
            if (timerTargets[i] instanceof Retransmission r)
            {
                r.release();
            }
        }
    }
}
