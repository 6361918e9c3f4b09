package io.sipline.sip.transaction;

import io.sipline.sip.collection.LongHashIndex;

/**
 * One shard's client or server transactions by their key's 64-bit hash ({@link Transaction#keyHash}), in a
 * {@link LongHashIndex} (growth a few slots per put, no rehash at once). Several transactions may share a hash (a
 * CANCEL and its INVITE under RFC 2543 matching, or a collision): the caller walks them with {@link #first} and
 * {@link #next} and compares the key bytes of each, so no key object and no {@code String} is ever made. A
 * transaction notes whether it is in the table ({@link Transaction#inTable}), so that removing it twice is harmless.
 *
 * <p>Not thread-safe; owned by one shard.
 */
final class TransactionTable
{
    private final LongHashIndex<Transaction> index;

    TransactionTable(final int initialCapacity)
    {
        index = new LongHashIndex<>(initialCapacity);
    }

    /** Transactions held. */
    int size()
    {
        return index.size();
    }

    /** Slots of the current table. */
    int capacity()
    {
        return index.capacity();
    }

    long growths()
    {
        return index.growths();
    }

    long shrinks()
    {
        return index.shrinks();
    }

    /**
     * Once a second: shrinks the index a burst grew once it has stayed mostly empty for {@code quietTrims} trims
     * ({@link LongHashIndex#trim}); allocates nothing unless it starts a shrink.
     */
    void trim(final int quietTrims)
    {
        index.trim(quietTrims);
    }

    /** Whether a growth or a shrink is under way: some transactions are still in the previous table. */
    boolean migrating()
    {
        return index.migrating();
    }

    /** Cursor of the first transaction with {@code hash}, or -1 when there is none. */
    int first(final long hash)
    {
        return index.first(hash);
    }

    /** Cursor of the next transaction with {@code hash} after {@code cursor}, or -1 when there is none. */
    int next(final int cursor, final long hash)
    {
        return index.next(cursor, hash);
    }

    /** The transaction at a cursor of {@link #first} or {@link #next}. */
    Transaction entry(final int cursor)
    {
        return index.valueAt(cursor);
    }

    void put(final Transaction tx)
    {
        index.put(tx.keyHash, tx);
        tx.inTable = true;
    }

    void remove(final Transaction tx)
    {
        if (tx.inTable && index.remove(tx.keyHash, tx))
        {
            tx.inTable = false;
        }
    }
}
