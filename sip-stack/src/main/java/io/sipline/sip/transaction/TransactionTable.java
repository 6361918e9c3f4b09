package io.sipline.sip.transaction;

import java.util.Arrays;

/**
 * A primitive open-addressing map from a 64-bit key hash to transactions, with linear probing and backward-shift
 * deletion (no tombstones). Several transactions may share a hash (a CANCEL and its INVITE under RFC 2543 matching, or
 * a collision): the caller walks the probe run and compares the key bytes on each hash hit, so no key object and no
 * {@code String} is ever made (STYLE.md, "What to avoid").
 *
 * <pre>
 *   hashes[]:  | h0 | 0 | h2 | h3 | 0 | ...      slot = mix(hash) & mask; a run ends at the first null entry
 *   entries[]: | t0 |   | t2 | t3 |   | ...
 * </pre>
 *
 * Grows (doubling, an allocation) at half load; shrinks never. Not thread-safe; owned by one shard.
 */
final class TransactionTable
{
    private long[] hashes;
    private Transaction[] entries;
    private int mask;
    private int size;
    private long growths;

    TransactionTable(final int initialCapacity)
    {
        final int capacity = Math.max(16, Integer.highestOneBit(Math.max(1, initialCapacity - 1)) << 1);
        hashes = new long[capacity];
        entries = new Transaction[capacity];
        mask = capacity - 1;
    }

    int size()
    {
        return size;
    }

    int capacity()
    {
        return entries.length;
    }

    long growths()
    {
        return growths;
    }

    /** First slot of the probe run for a hash. */
    int first(final long hash)
    {
        return slot(hash);
    }

    /** Next slot of a probe run. */
    int next(final int slot)
    {
        return (slot + 1) & mask;
    }

    /** The entry at a slot; null ends the run. */
    Transaction entry(final int slot)
    {
        return entries[slot];
    }

    long hash(final int slot)
    {
        return hashes[slot];
    }

    void put(final Transaction tx)
    {
        if ((size + 1) * 2 > entries.length)
        {
            grow();
        }
        insert(tx);
        size++;
        tx.inTable = true;
    }

    void remove(final Transaction tx)
    {
        if (!tx.inTable)
        {
            return;
        }
        int i = slot(tx.keyHash);
        while (null != entries[i] && entries[i] != tx)
        {
            i = (i + 1) & mask;
        }
        if (null == entries[i])
        {
            return;
        }
        tx.inTable = false;
        size--;
        // Backward-shift deletion: pull later members of the run into the hole when their home allows it.
        int hole = i;
        int j = (i + 1) & mask;
        while (null != entries[j])
        {
            final int home = slot(hashes[j]);
            final boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
            if (movable)
            {
                entries[hole] = entries[j];
                hashes[hole] = hashes[j];
                hole = j;
            }
            j = (j + 1) & mask;
        }
        entries[hole] = null;
        hashes[hole] = 0;
    }

    private void insert(final Transaction tx)
    {
        int i = slot(tx.keyHash);
        while (null != entries[i])
        {
            i = (i + 1) & mask;
        }
        entries[i] = tx;
        hashes[i] = tx.keyHash;
    }

    private void grow()
    {
        final Transaction[] old = entries;
        entries = new Transaction[old.length * 2];
        hashes = new long[old.length * 2];
        mask = entries.length - 1;
        for (int i = 0; i < old.length; i++)
        {
            if (null != old[i])
            {
                insert(old[i]);
            }
        }
        Arrays.fill(old, null);
        growths++;
    }

    private int slot(final long hash)
    {
        long h = hash;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return (int)h & mask;
    }
}
