package io.sipline.sip.transaction;

/**
 * A primitive open-addressing map from a 64-bit key hash to transactions, with linear probing and backward-shift
 * deletion. Several transactions may share a hash (a CANCEL and its INVITE under RFC 2543 matching, or a collision):
 * the caller walks the entries with that hash ({@link #first}, {@link #next}) and compares the key bytes of each, so
 * no key object and no {@code String} is ever made (STYLE.md, "What to avoid").
 *
 * <pre>
 *   hashes[]:  | h0 | 0 | h2 | h3 | 0 | ...      slot = mix(hash) & mask; a run ends at the first null entry
 *   entries[]: | t0 |   | t2 | t3 |   | ...
 * </pre>
 *
 * <p><b>Growth without a stall.</b> At half load the table doubles, but it does not rehash everything at once: a shard
 * that jumps from a few hundred to several thousand calls per second holds hundreds of thousands of transactions
 * (each lives up to 64*T1 = 32 s, RFC 3261 §17), and rehashing 256 Ki entries in one go held a shard for 10 to 16 ms
 * (perf, 6,000 calls/s right after a warm-up at 800). Instead the old arrays stay beside the new ones as the
 * <i>previous</i> table, and every {@link #put} moves the entries of {@link #MIGRATE_PER_PUT} of its slots into the
 * new one, leaving {@link #MOVED} behind so that the previous table's probe runs stay intact. Lookups walk the
 * current table, then the previous one; removal takes an entry out of whichever holds it. The previous table holds
 * at most a quarter of the new capacity in half as many slots, so it is empty long before the new table reaches half
 * load (a migration needs capacity/16 puts, the next growth at least capacity/4); the old arrays are then dropped.
 * What stays per growth is the allocation of the new arrays (the JVM zeroes them).
 *
 * <p>Shrinks never. Not thread-safe; owned by one shard.
 */
final class TransactionTable
{
    /** Slots of the previous table moved by each put while a growth is under way. */
    static final int MIGRATE_PER_PUT = 8;
    /** A cursor bit: the slot is in the previous table. Tables stay below 2^30 slots. */
    private static final int IN_PREVIOUS = 1 << 30;
    /** Left in a previous table's slot whose entry has moved: keeps the probe runs through it unbroken. */
    static final Transaction MOVED = new NonInviteServerTransaction(null, -1);

    private long[] hashes;
    private Transaction[] entries;
    private int mask;
    private long[] previousHashes;
    private Transaction[] previousEntries;
    private int previousMask;
    /** Slots of the previous table below this one have been moved. */
    private int migrated;
    private int size;
    private long growths;

    TransactionTable(final int initialCapacity)
    {
        final int capacity = Math.max(16, Integer.highestOneBit(Math.max(1, initialCapacity - 1)) << 1);
        hashes = new long[capacity];
        entries = new Transaction[capacity];
        mask = capacity - 1;
    }

    /** Transactions held, in both tables. */
    int size()
    {
        return size;
    }

    /** Slots of the current table. */
    int capacity()
    {
        return entries.length;
    }

    long growths()
    {
        return growths;
    }

    /** Whether a growth is under way: some entries are still in the previous table. */
    boolean migrating()
    {
        return null != previousEntries;
    }

    /** Cursor of the first transaction with {@code hash}, or -1 when there is none. */
    int first(final long hash)
    {
        final int i = match(hashes, entries, mask, slot(hash, mask), hash);
        return i >= 0 ? i : firstInPrevious(hash);
    }

    /** Cursor of the next transaction with {@code hash} after {@code cursor}, or -1 when there is none. */
    int next(final int cursor, final long hash)
    {
        if (0 == (cursor & IN_PREVIOUS))
        {
            final int i = match(hashes, entries, mask, (cursor + 1) & mask, hash);
            return i >= 0 ? i : firstInPrevious(hash);
        }
        final int i = match(previousHashes, previousEntries, previousMask, ((cursor & ~IN_PREVIOUS) + 1) & previousMask,
            hash);
        return i < 0 ? -1 : i | IN_PREVIOUS;
    }

    /** The transaction at a cursor of {@link #first} or {@link #next}. */
    Transaction entry(final int cursor)
    {
        return 0 == (cursor & IN_PREVIOUS) ? entries[cursor] : previousEntries[cursor & ~IN_PREVIOUS];
    }

    void put(final Transaction tx)
    {
        if (null != previousEntries)
        {
            migrate(MIGRATE_PER_PUT);
        }
        if ((size + 1) * 2 > entries.length)
        {
            if (null != previousEntries)
            {
                migrate(Integer.MAX_VALUE); // not reached by the sizes above; kept so that two growths never overlap
            }
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
        final int i = indexOf(entries, mask, tx);
        if (i >= 0)
        {
            removeAt(i);
        }
        else
        {
            // In the previous table: marked moved, so that the run through its slot stays whole.
            final int j = null == previousEntries ? -1 : indexOf(previousEntries, previousMask, tx);
            if (j < 0)
            {
                return;
            }
            previousEntries[j] = MOVED;
        }
        tx.inTable = false;
        size--;
    }

    /** Backward-shift deletion: pulls later members of the run into the hole when their home allows it. */
    private void removeAt(final int i)
    {
        int hole = i;
        int j = (i + 1) & mask;
        while (null != entries[j])
        {
            final int home = slot(hashes[j], mask);
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

    /** The slot of {@code tx} along its run in {@code entries}, or -1. */
    private static int indexOf(final Transaction[] entries, final int mask, final Transaction tx)
    {
        for (int i = slot(tx.keyHash, mask); null != entries[i]; i = (i + 1) & mask)
        {
            if (entries[i] == tx)
            {
                return i;
            }
        }
        return -1;
    }

    private int firstInPrevious(final long hash)
    {
        if (null == previousEntries)
        {
            return -1;
        }
        final int i = match(previousHashes, previousEntries, previousMask, slot(hash, previousMask), hash);
        return i < 0 ? -1 : i | IN_PREVIOUS;
    }

    /** From slot {@code from} along its run: the first slot holding a transaction with {@code hash}, else -1. */
    private static int match(final long[] hashes, final Transaction[] entries, final int mask, final int from,
        final long hash)
    {
        for (int i = from; ; i = (i + 1) & mask)
        {
            final Transaction t = entries[i];
            if (null == t)
            {
                return -1;
            }
            if (hashes[i] == hash && t != MOVED)
            {
                return i;
            }
        }
    }

    private void insert(final Transaction tx)
    {
        int i = slot(tx.keyHash, mask);
        while (null != entries[i])
        {
            i = (i + 1) & mask;
        }
        entries[i] = tx;
        hashes[i] = tx.keyHash;
    }

    /** Starts a growth: the current arrays become the previous table, emptied by {@link #migrate}. */
    private void grow()
    {
        previousHashes = hashes;
        previousEntries = entries;
        previousMask = mask;
        migrated = 0;
        entries = new Transaction[previousEntries.length * 2];
        hashes = new long[previousEntries.length * 2];
        mask = entries.length - 1;
        growths++;
    }

    /** Moves the entries of up to {@code slots} slots of the previous table; drops it once every slot is done. */
    private void migrate(final int slots)
    {
        final Transaction[] from = previousEntries;
        final int end = (int)Math.min(from.length, (long)migrated + slots);
        for (int i = migrated; i < end; i++)
        {
            final Transaction t = from[i];
            if (null != t && t != MOVED)
            {
                insert(t);
                from[i] = MOVED;
            }
        }
        migrated = end;
        if (end == from.length)
        {
            previousEntries = null;
            previousHashes = null;
        }
    }

    private static int slot(final long hash, final int mask)
    {
        long h = hash;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return (int)h & mask;
    }
}
