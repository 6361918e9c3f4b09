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

/**
 * The index's lookups, removal, replacement, growth and shrink, both moving a few slots per put or trim (no rehash at
 * once).
 */
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
        // keys around 0: the slots whose key is 0 are told empty or not by their values
        randomOperationsMatchAModel(-2_000);
    }

    @Test
    void randomOperationsWithoutKeyZeroMatchAModelWithProbesThatReadOnlyTheKeys()
    {
        randomOperationsMatchAModel(1);
    }

    @Test
    void aValuePutUnderKeyZeroIsFoundBesideKeysThatShareItsRunAndRemovedFromIt()
    {
        final LongHashIndex<Entry> index = new LongHashIndex<>(16);
        final List<Entry> all = new ArrayList<>();
        for (long k = 1; k <= 5; k++)
        {
            final Entry e = entry(k);
            index.put(k, e);
            all.add(e);
        }
        assertEquals(-1, index.first(0), "no value under key 0 yet: an empty slot ends the probe");
        final Entry zero = entry(0);
        index.put(0, zero);
        final Entry zeroToo = entry(0);
        index.put(0, zeroToo);
        assertEquals(Set.of(zero, zeroToo), walk(index, 0));
        for (final Entry e : all)
        {
            assertEquals(Set.of(e), walk(index, e.key()));
        }
        assertTrue(index.remove(0, zero));
        assertEquals(Set.of(zeroToo), walk(index, 0));
        for (final Entry e : all)
        {
            assertTrue(index.remove(e.key(), e));
            assertEquals(-1, index.first(e.key()));
        }
        assertEquals(Set.of(zeroToo), walk(index, 0), "the backward shifts kept the value under key 0 reachable");
        assertTrue(index.remove(0, zeroToo));
        assertEquals(-1, index.first(0));
        assertEquals(0, index.size());
    }

    private void randomOperationsMatchAModel(final int lowestKey)
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
                final Entry e = entry(random.nextInt(4_000) + lowestKey);
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

    @Test
    void aTrimShrinksAnIndexThatStayedAnEighthFullForTheQuietTrims()
    {
        final LongHashIndex<Entry> index = new LongHashIndex<>(16);
        final List<Entry> kept = new ArrayList<>();
        for (int i = 0; i < 3_000; i++)
        {
            final Entry e = entry(i * 7919L);
            index.put(e.key(), e);
            if (i < 10)
            {
                kept.add(e);
            }
        }
        assertEquals(8_192, index.capacity());
        for (int i = 10; i < 3_000; i++)
        {
            assertTrue(index.remove(i * 7919L, walk(index, i * 7919L).iterator().next()));
        }
        assertFalse(index.trim(3), "the peak since the last trim was 3,000: not sparse");
        assertFalse(index.trim(3));
        assertFalse(index.trim(3));
        assertEquals(8_192, index.capacity());
        assertTrue(index.trim(3), "the third trim in a row at 10 values");
        assertEquals(1, index.shrinks());
        assertEquals(64, index.capacity(), "four times the largest size seen over the quiet trims, a power of two");
        assertFalse(index.migrating(), "8,192 old slots are moved by the trim itself");
        for (final Entry e : kept)
        {
            assertEquals(Set.of(e), walk(index, e.key()));
        }
        assertEquals(10, index.size());
        for (int i = 0; i < 10; i++)
        {
            assertFalse(index.trim(3));
        }
        assertEquals(64, index.capacity(), "at 10 of 64 slots (over an eighth) it stays");
    }

    @Test
    void aPeakBetweenTrimsStartsTheQuietCountAgainAndTheInitialCapacityIsTheFloor()
    {
        final LongHashIndex<Entry> index = new LongHashIndex<>(256);
        final Entry a = entry(1);
        index.put(1, a);
        for (int i = 0; i < 100; i++)
        {
            assertFalse(index.trim(1), "never below the initial capacity");
        }
        for (int i = 0; i < 200; i++)
        {
            index.put(1_000 + i, entry(1_000 + i));
        }
        assertEquals(512, index.capacity());
        for (int i = 0; i < 200; i++)
        {
            index.remove(1_000 + i, walk(index, 1_000 + i).iterator().next());
        }
        index.trim(2); // the peak of 201
        index.trim(2);
        // 100 values put and removed between two trims: the peak of 101 is more than an eighth of 512
        for (int i = 0; i < 100; i++)
        {
            index.put(5_000 + i, entry(5_000 + i));
        }
        for (int i = 0; i < 100; i++)
        {
            index.remove(5_000 + i, walk(index, 5_000 + i).iterator().next());
        }
        assertFalse(index.trim(2));
        assertFalse(index.trim(2), "one quiet trim since the peak");
        assertTrue(index.trim(2));
        assertEquals(256, index.capacity(), "down to the initial capacity, not below");
        assertEquals(Set.of(a), walk(index, 1));
    }

    @Test
    void aShrinkOfALargeIndexMovesItsSlotsOverTrimsAndPutsAndAReturningLoadGrowsItAgain()
    {
        final LongHashIndex<Entry> index = new LongHashIndex<>(16);
        final Map<Long, Entry> live = new HashMap<>();
        for (int i = 0; i < 40_000; i++)
        {
            final Entry e = entry(i);
            index.put(i, e);
            live.put((long)i, e);
        }
        assertEquals(131_072, index.capacity());
        for (int i = 100; i < 40_000; i++)
        {
            assertTrue(index.remove(i, live.remove((long)i)));
        }
        index.trim(1);
        assertTrue(index.trim(1));
        assertEquals(512, index.capacity());
        assertTrue(index.migrating(), "131,072 old slots, 16,384 a trim");
        for (final Entry e : live.values())
        {
            assertEquals(Set.of(e), walk(index, e.key()), "found in either table");
        }
        // puts go to the new table and move 8 old slots each; removal finds a value in either table
        for (int i = 0; i < 50; i++)
        {
            final Entry e = entry(100_000 + i);
            index.put(e.key(), e);
            live.put(e.key(), e);
            assertTrue(index.remove(i, live.remove((long)i)));
        }
        for (int i = 0; i < 8 && index.migrating(); i++)
        {
            index.trim(1);
        }
        assertFalse(index.migrating());
        assertEquals(1, index.shrinks());
        for (final Entry e : live.values())
        {
            assertEquals(Set.of(e), walk(index, e.key()));
        }

        // a load back at once: the index grows again, and every value is still found
        for (int i = 0; i < 5_000; i++)
        {
            final Entry e = entry(200_000 + i);
            index.put(e.key(), e);
            live.put(e.key(), e);
        }
        assertEquals(16_384, index.capacity());
        assertEquals(live.size(), index.size());
        for (final Entry e : live.values())
        {
            assertEquals(Set.of(e), walk(index, e.key()));
        }
    }

    @Test
    void aShrinkInterruptedByAReturningLoadMovesTheRestAtOnceAndLosesNothing()
    {
        final Random random = new Random(20261130);
        final LongHashIndex<Entry> index = new LongHashIndex<>(16);
        final Map<Long, List<Entry>> model = new HashMap<>();
        final List<Entry> live = new ArrayList<>();
        int shrinksWhileMigrating = 0;
        for (int round = 0; round < 30; round++)
        {
            // a burst, then most of it gone, then quiet trims: a shrink; then the next burst while it migrates
            final int burst = 500 + random.nextInt(20_000);
            for (int i = 0; i < burst; i++)
            {
                final Entry e = entry(random.nextInt(50_000));
                index.put(e.key(), e);
                live.add(e);
                model.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
            }
            while (live.size() > 40)
            {
                final Entry e = live.remove(random.nextInt(live.size()));
                assertTrue(index.remove(e.key(), e));
                model.get(e.key()).remove(e);
            }
            for (int t = 0; t < 3; t++)
            {
                index.trim(2);
            }
            shrinksWhileMigrating += index.migrating() ? 1 : 0;
            assertEquals(live.size(), index.size());
            for (final Map.Entry<Long, List<Entry>> under : model.entrySet())
            {
                assertEquals(Set.copyOf(under.getValue()), walk(index, under.getKey()), "key " + under.getKey());
            }
        }
        assertTrue(index.shrinks() >= 20, "shrinks: " + index.shrinks());
        assertTrue(shrinksWhileMigrating > 0, "some bursts came while a shrink was moving slots");
    }
}
