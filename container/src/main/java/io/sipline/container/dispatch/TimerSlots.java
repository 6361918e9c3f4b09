package io.sipline.container.dispatch;

import java.util.Arrays;
import io.sipline.container.api.ContainerShard;
import io.sipline.sip.stack.StackShard;

/**
 * The timers of one shard's container on the stack's timing wheel: a slot per pending timer, whose handle is
 * {@code slot | generation << 32}, so that cancelling is O(1), a stale handle is ignored, and a slot is reused without
 * allocation once its timer fired or was cancelled. The wheel's payload is the slot.
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard, created with it).
 */
final class TimerSlots
{
    private final StackShard shard;
    private final ServletInvoker invoker;
    private final ContainerShardImpl.Counters counters;

    private ContainerShard.TimerTarget[] timerTargets = new ContainerShard.TimerTarget[256];
    private long[] timerWheelIds = new long[256];
    private int[] timerGenerations = new int[256];
    private int[] freeSlots = new int[256];
    private int freeCount;
    private int slotCount;

    TimerSlots(final StackShard shard, final ServletInvoker invoker, final ContainerShardImpl.Counters counters)
    {
        this.shard = shard;
        this.invoker = invoker;
        this.counters = counters;
    }

    /** Schedules {@code target} after {@code delayMillis} on the shard's wheel; returns its handle. */
    long schedule(final long delayMillis, final ContainerShard.TimerTarget target)
    {
        final int slot;
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
                freeSlots = Arrays.copyOf(freeSlots, n);
            }
            slot = slotCount++;
        }
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
        freeSlots[freeCount++] = slot;
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
