package io.sipline.sip.collection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The index's lookups, removal, replacement and growth, the growth moving a few slots per put (no rehash at once). */
class LongHashIndexTest
{
    /** A value that knows its key, so that a walk can check what it yields. */
    private record Entry(long key, int serial)
    {
    }

    private int made;

    private Entry entry(final long key)
    {
        return new Entry(key, made++);
    }

    /** Every value the walk over {@code key} finds. */
    private static Set<Entry> walk(final LongHashIndex<Entry> index, final long key)
    {
        final Set<Entry> found = new HashSet<>();
        for (int c = index.first(key); c >= 0; c = index.next(c, key))
        {
            final Entry e = index.valueAt(c);
            assertEquals(key, e.key(), "a walk over one key yields only that key");
            assertTrue(found.add(e), "a walk yields each value once");
        }
        return found;
    }

    @Test
    void growthMovesTheOldSlotsAFewPerPutAndEndsLongBeforeTheNextGrowth()
    {
        final LongHashIndex<Entry> index = new LongHashIndex<>(1024);
        for (int i = 0; i < 512; i++)
        {
            index.put(i * 7919L, entry(i * 7919L));
        }
        assertEquals(1024, index.capacity());
        assertFalse(index.migrating());

        index.put(-1, entry(-1)); // the 513th: past half load, the index doubles and moves the first 8 old slots
        assertEquals(2048, index.capacity());
        assertEquals(1, index.growths());
        assertTrue(index.migrating(), "the old values stay where they are, to be moved over the next puts");
        final int putsToMove = 1024 / LongHashIndex.MIGRATE_PER_PUT;
        for (int i = 1; i < putsToMove - 1; i++)
        {
            index.put(-1 - i, entry(-1 - i));
        }
        assertTrue(index.migrating(), "127 puts have moved 1,016 of the 1,024 old slots");
        index.put(-putsToMove, entry(-putsToMove));
        assertFalse(index.migrating(), "1,024 old slots, 8 a put: done after 128 puts, long before 1,024 values");
        assertEquals(512 + putsToMove, index.size());
        for (int i = 0; i < 512; i++)
        {
            assertEquals(1, walk(index, i * 7919L).size());
        }
    }

    @Test
    void migratingEverySlotAtOnceIsTheRehashOfOld()
    {
        final LongHashIndex<Entry> index = new LongHashIndex<>(16, Integer.MAX_VALUE);
        for (int i = 0; i < 9; i++)
        {
            index.put(i, entry(i));
        }
        assertEquals(32, index.capacity());
        assertFalse(index.migrating(), "the put that grew the index moved every old slot");
        for (int i = 0; i < 9; i++)
        {
            assertEquals(1, walk(index, i).size());
        }
        assertThrows(IllegalArgumentException.class, () -> new LongHashIndex<Entry>(16, 0));
    }

    @Test
    void aKeySharedAcrossTheTwoTablesIsWalkedReplacedAndRemovedInBoth()
    {
        final LongHashIndex<Entry> index = new LongHashIndex<>(16);
        final List<Entry> sameKey = new ArrayList<>();
        for (int i = 0; i < 8; i++)
        {
            final Entry e = entry(42);
            sameKey.add(e);
            index.put(42, e);
        }
        final Entry afterGrowth = entry(42); // the 9th value of 16 slots: growth, and it goes to the new table
        index.put(42, afterGrowth);
        sameKey.add(afterGrowth);
        assertTrue(index.migrating());
        assertEquals(Set.copyOf(sameKey), walk(index, 42));

        // the growing put moved old slots 0-7 only; key 42's 8 old values sat in slots 4-11 (its home slot is 4), so
        // four are in each table: replace and remove find a value in either
        final Entry replacement = entry(42);
        assertTrue(index.replace(42, sameKey.get(7), replacement));
        assertFalse(index.replace(42, sameKey.get(7), replacement), "the old value is no longer there");
        assertTrue(index.remove(42, sameKey.get(3)));
        assertTrue(index.remove(42, afterGrowth));
        assertFalse(index.remove(42, afterGrowth), "a second removal finds nothing");
        assertFalse(index.remove(43, sameKey.get(0)), "a value is removed only from under its own key");
        final Set<Entry> left = new HashSet<>(sameKey);
        left.remove(sameKey.get(3));
        left.remove(sameKey.get(7));
        left.remove(afterGrowth);
        left.add(replacement);
        assertEquals(left, walk(index, 42));
        assertEquals(7, index.size());
        assertTrue(walk(index, 43).isEmpty());
        assertEquals(-1, index.first(43));
    }

    @Test
    void setAtReplacesTheValueUnderACursor()
    {
        final LongHashIndex<Entry> index = new LongHashIndex<>(16);
        final Entry a = entry(7);
        index.put(7, a);
        final int c = index.first(7);
        assertSame(a, index.valueAt(c));
        final Entry b = entry(7);
        index.setAt(c, b);
        assertSame(b, index.valueAt(index.first(7)));
        assertEquals(-1, index.next(index.first(7), 7));
        assertEquals(1, index.size());
        assertThrows(NullPointerException.class, () -> index.put(8, null));
    }

    @Test
    void randomPutsRemovesAndReplacementsThroughSeveralGrowthsMatchAModel()
    {
        final Random random = new Random(20261124);
        final LongHashIndex<Entry> index = new LongHashIndex<>(16);
        final Map<Long, List<Entry>> model = new HashMap<>();
        final List<Entry> live = new ArrayList<>();
        final List<Entry> gone = new ArrayList<>();
        int checksWhileMigrating = 0;
        for (int op = 0; op < 80_000; op++)
        {
            final int dice = random.nextInt(100);
            // Mostly puts, so that it grows; keys from a small range, so that they share keys and collide.
            if (live.isEmpty() || dice < 60)
            {
                final Entry e = entry(random.nextInt(4_000) - 2_000);
                index.put(e.key(), e);
                live.add(e);
                model.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
            }
            else if (dice < 90)
            {
                final Entry e = live.remove(random.nextInt(live.size()));
                assertTrue(index.remove(e.key(), e));
                assertFalse(index.remove(e.key(), e));
                model.get(e.key()).remove(e);
                gone.add(e);
            }
            else
            {
                final int at = random.nextInt(live.size());
                final Entry old = live.get(at);
                final Entry replacement = entry(old.key());
                assertTrue(index.replace(old.key(), old, replacement));
                live.set(at, replacement);
                final List<Entry> under = model.get(old.key());
                under.set(under.indexOf(old), replacement);
                gone.add(old);
            }
            if (0 == op % 997 || index.migrating() && 0 == op % 31)
            {
                checksWhileMigrating += index.migrating() ? 1 : 0;
                assertEquals(live.size(), index.size());
                for (final Map.Entry<Long, List<Entry>> under : model.entrySet())
                {
                    assertEquals(Set.copyOf(under.getValue()), walk(index, under.getKey()), "key " + under.getKey());
                }
                for (int i = Math.max(0, gone.size() - 200); i < gone.size(); i++)
                {
                    final Entry e = gone.get(i);
                    assertFalse(walk(index, e.key()).contains(e), "a removed or replaced value is not found");
                }
            }
        }
        assertTrue(index.growths() >= 6, "grew from 16 slots to " + index.capacity());
        assertTrue(checksWhileMigrating > 0, "checked while values were in both tables");
        assertEquals(-1, index.first(123_456), "a key never put is not found");
    }
}
