package io.sipline.sip.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The counters of one UDP shard ({@link ShardCounters} slots): plain {@code long} slots padded against false sharing,
 * written by the shard with opaque stores so that {@link #snapshot} can read them from another thread without a lock.
 *
 * <p>Single writer: {@link #increment} only on the shard's event loop; {@link #snapshot} from any thread.
 */
final class UdpCounterSlots
{
    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Eight longs: one cache line on each side of the counters. */
    private static final int PAD = 8;

    private final long[] counts = new long[PAD + ShardCounters.SLOTS + PAD];

    /** Single writer (the shard's thread): a plain read of its own last store, then an opaque store. */
    void increment(final int slot)
    {
        final int i = PAD + slot;
        COUNTS.setOpaque(counts, i, counts[i] + 1);
    }

    /** A copy of the counters of shard {@code index}; any thread. */
    ShardCounters snapshot(final int index)
    {
        final long[] copy = new long[ShardCounters.SLOTS];
        for (int i = 0; i < ShardCounters.SLOTS; i++)
        {
            copy[i] = (long)COUNTS.getOpaque(counts, PAD + i);
        }
        return new ShardCounters(index, copy);
    }
}
