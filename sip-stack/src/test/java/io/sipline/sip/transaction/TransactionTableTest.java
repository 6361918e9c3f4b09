package io.sipline.sip.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * The transaction table over {@link io.sipline.sip.collection.LongHashIndex}: walks over a hash shared across a growth,
 * removal (twice is harmless) and random use through several growths ({@code LongHashIndexTest} has the growth itself).
 */
class TransactionTableTest
{
    private int made;

    private Transaction tx(final long hash)
    {
        final Transaction t = new NonInviteServerTransaction(null, made++);
        t.keyHash = hash;
        return t;
    }

    /** Every transaction the walk over {@code hash} finds. */
    private static Set<Transaction> walk(final TransactionTable table, final long hash)
    {
        final Set<Transaction> found = new HashSet<>();
        for (int i = table.first(hash); i >= 0; i = table.next(i, hash))
        {
            final Transaction t = table.entry(i);
            assertEquals(hash, t.keyHash, "a walk over one hash yields only that hash");
            assertTrue(found.add(t), "a walk yields each transaction once");
        }
        return found;
    }

    @Test
    void aHashSharedAcrossTheTwoTablesIsWalkedInBoth()
    {
        final TransactionTable table = new TransactionTable(16);
        final List<Transaction> sameHash = new ArrayList<>();
        for (int i = 0; i < 8; i++)
        {
            final Transaction t = tx(42);
            sameHash.add(t);
            table.put(t);
        }
        final Transaction afterGrowth = tx(42); // the 9th entry of 16 slots: growth, and it goes to the new table
        table.put(afterGrowth);
        sameHash.add(afterGrowth);
        assertTrue(table.migrating());
        assertEquals(Set.copyOf(sameHash), walk(table, 42));

        table.remove(sameHash.get(3)); // still in the previous table
        table.remove(afterGrowth); // in the current one
        final Set<Transaction> left = new HashSet<>(sameHash);
        left.remove(sameHash.get(3));
        left.remove(afterGrowth);
        assertEquals(left, walk(table, 42));
        assertEquals(7, table.size());
        assertTrue(walk(table, 43).isEmpty());
    }

    @Test
    void randomPutsAndRemovesThroughSeveralGrowthsMatchAModel()
    {
        final Random random = new Random(20261123);
        final TransactionTable table = new TransactionTable(16);
        final List<Transaction> live = new ArrayList<>();
        final List<Transaction> gone = new ArrayList<>();
        int checksWhileMigrating = 0;
        for (int op = 0; op < 60_000; op++)
        {
            // Mostly puts, so that it grows; hashes from a small range, so that they collide.
            if (live.isEmpty() || random.nextInt(100) < 60)
            {
                final Transaction t = tx(random.nextInt(3_000));
                table.put(t);
                live.add(t);
            }
            else
            {
                final Transaction t = live.remove(random.nextInt(live.size()));
                table.remove(t);
                assertFalse(t.inTable);
                gone.add(t);
            }
            if (0 == op % 997 || table.migrating() && 0 == op % 31)
            {
                checksWhileMigrating += table.migrating() ? 1 : 0;
                assertEquals(live.size(), table.size());
                for (final Transaction t : live)
                {
                    assertTrue(walk(table, t.keyHash).contains(t), "a live transaction is found");
                }
                for (int i = Math.max(0, gone.size() - 200); i < gone.size(); i++)
                {
                    final Transaction t = gone.get(i);
                    assertFalse(walk(table, t.keyHash).contains(t), "a removed transaction is not");
                }
            }
        }
        assertTrue(table.growths() >= 6, "grew from 16 slots to " + table.capacity());
        assertTrue(checksWhileMigrating > 0, "checked while entries were in both tables");
        table.remove(live.getFirst());
        table.remove(live.getFirst()); // a second removal of the same transaction does nothing
        assertEquals(live.size() - 1, table.size());
    }
}
