package io.sipline.sip.collection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

/** {@link RecentFreeList}: bounded, follows recent use on its trims, on a clock the test moves. */
class RecentFreeListTest
{
    private static final long SECOND = 1_000_000_000L;

    private static final class Item
    {
    }

    @Test
    void keepsWhatItWasGivenUpToItsCapacityAndHandsItOutAgain()
    {
        final RecentFreeList<Item> list = new RecentFreeList<>(2, 1);
        assertNull(list.take(), "empty: the caller makes one");
        final Item a = new Item();
        final Item b = new Item();
        assertTrue(list.give(a));
        assertTrue(list.give(b));
        assertFalse(list.give(new Item()), "full: left to the collector");
        assertSame(b, list.take());
        assertSame(a, list.take());
        assertNull(list.take());
    }

    @Test
    void aBurstsObjectsGoOnceTheWindowHasPassedAndMinKeptStay()
    {
        final RecentFreeList<Item> list = new RecentFreeList<>(256, 16);
        final Item[] burst = new Item[200];
        for (int i = 0; i < burst.length; i++)
        {
            burst[i] = null == list.take() ? new Item() : null;
        }
        for (final Item item : burst)
        {
            list.give(item);
        }
        long now = 0;
        list.trim(now);
        assertEquals(200, list.size(), "the burst is recent use");
        for (int t = 1; t < RecentFreeList.TRIM_WINDOW; t++)
        {
            now += SECOND;
            list.trim(now);
            assertEquals(200, list.size(), "trim " + t);
        }
        now += SECOND;
        list.trim(now);
        assertEquals(16, list.size(), "a window after the burst: what the last window took, at least minKept");
    }

    @Test
    void aSteadyLoadKeepsWhatItReuses()
    {
        final RecentFreeList<Item> list = new RecentFreeList<>(256, 16);
        final Item[] inUse = new Item[50];
        long now = 0;
        for (int second = 0; second < 5 * RecentFreeList.TRIM_WINDOW; second++)
        {
            for (int i = 0; i < inUse.length; i++)
            {
                final Item reused = list.take();
                inUse[i] = null == reused ? new Item() : reused;
            }
            for (final Item item : inUse)
            {
                list.give(item);
            }
            list.trim(now);
            now += SECOND;
            assertEquals(50, list.size(), "second " + second);
        }
    }

    @Test
    void callsBetweenTrimPeriodsDoNothing()
    {
        final RecentFreeList<Item> list = new RecentFreeList<>(256, 0);
        list.trim(0);
        list.give(new Item());
        list.trim(SECOND / 2);
        assertEquals(1, list.size(), "half a second: not a trim yet");
    }

    @Test
    void takingGivingAndTrimmingAllocateNothing()
    {
        final RecentFreeList<Item> list = new RecentFreeList<>(256, 16);
        final Item[] items = new Item[64];
        for (int i = 0; i < items.length; i++)
        {
            items[i] = new Item();
        }
        final long[] now = {0};
        final Runnable rounds = () ->
        {
            for (int round = 0; round < 10_000; round++)
            {
                for (final Item item : items)
                {
                    list.give(item);
                }
                for (int i = 0; i < items.length; i++)
                {
                    items[i] = list.take();
                }
                now[0] += SECOND;
                list.trim(now[0]);
            }
        };
        assertEquals(0, AllocationMeter.leastBytes(rounds, rounds, 5, 0));
    }
}
