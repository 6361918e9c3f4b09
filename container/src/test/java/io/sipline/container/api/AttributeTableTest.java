package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

/** {@link AttributeTable}: set, replace, read and remove by name, in arrays while few and in a map beyond. */
class AttributeTableTest
{
    @Test
    void shouldSetReplaceAndRemoveInTheOrderFirstSet()
    {
        final AttributeTable t = new AttributeTable(2);
        assertNull(t.put("role", "caller"));
        assertNull(t.put("state", "offered"));
        assertNull(t.put("ref", 7));
        assertEquals("offered", t.put(new String("state"), "confirmed"), "an equal name replaces");
        assertEquals(3, t.size());
        assertEquals("confirmed", t.get("state"));
        assertArrayEquals(new String[] {"role", "state", "ref"}, t.names());
        assertEquals("caller", t.remove("role"));
        assertNull(t.remove("role"), "already removed");
        assertNull(t.get("role"));
        assertArrayEquals(new String[] {"state", "ref"}, t.names());
        assertEquals(7, t.get("ref"));
        assertNull(t.get("absent"));
    }

    @Test
    void shouldEmptyByFirstNameInTheOrderSetWithoutAllocating()
    {
        final AttributeTable t = new AttributeTable(4);
        final String[] removed = new String[4];
        final Runnable drain = () ->
        {
            t.put("caller", "a");
            t.put("callee", "b");
            t.put("started", 1);
            // how an invalidated session removes its attributes: the first name, once per attribute there was
            int k = 0;
            for (int n = t.size(); n > 0; n--)
            {
                final String name = t.firstName();
                t.remove(name);
                removed[k++] = name;
            }
        };
        assertEquals(0, AllocationMeter.leastBytes(() ->
        {
            for (int i = 0; i < 20_000; i++)
            {
                drain.run();
            }
        }, drain, 5, 0), "bytes to fill and empty the table once more");
        assertArrayEquals(new String[] {"caller", "callee", "started", null}, removed);
        assertEquals(0, t.size());
        assertNull(t.firstName(), "nothing left");
    }

    @Test
    void shouldKeepEveryAttributeBeyondTheLinearLimit()
    {
        final AttributeTable t = new AttributeTable(4);
        final int n = AttributeTable.MAX_LINEAR * 3;
        for (int i = 0; i < n; i++)
        {
            assertNull(t.put("a" + i, i));
        }
        assertEquals(n, t.size());
        for (int i = 0; i < n; i++)
        {
            assertEquals(i, t.get("a" + i));
        }
        assertEquals(5, t.put("a5", -5));
        assertEquals(-5, t.remove("a5"));
        assertEquals(n - 1, t.size());
        final Set<String> names = new HashSet<>(Arrays.asList(t.names()));
        assertEquals(n - 1, names.size());
        assertEquals(false, names.contains("a5"));
    }

    @Test
    void shouldCopyIndependently()
    {
        final AttributeTable small = new AttributeTable(4);
        small.put("x", "1");
        final AttributeTable copy = new AttributeTable(small);
        copy.put("x", "2");
        copy.put("y", "3");
        assertEquals("1", small.get("x"));
        assertNull(small.get("y"));
        assertEquals("2", copy.get("x"));

        final AttributeTable big = new AttributeTable(4);
        for (int i = 0; i <= AttributeTable.MAX_LINEAR; i++)
        {
            big.put("b" + i, i);
        }
        final AttributeTable bigCopy = new AttributeTable(big);
        bigCopy.remove("b0");
        assertEquals(0, big.get("b0"));
        assertSame(null, bigCopy.get("b0"));
        assertEquals(AttributeTable.MAX_LINEAR + 1, big.size());
    }

    /**
     * A call's application session sets four attributes: the table and its one array of pairs, 16 + 48 B with
     * compact object headers, 24 + 48 with 12-byte headers (two arrays of names and values would be 24 + 32 + 32).
     */
    @Test
    void shouldHoldFourAttributesInOneSmallArray()
    {
        final AttributeTable[] kept = new AttributeTable[1_000];
        final Runnable fill = () ->
        {
            for (int i = 0; i < kept.length; i++)
            {
                final AttributeTable t = new AttributeTable(4);
                t.put("caller", "a");
                t.put("callee", "b");
                t.put("started", "c");
                t.put("ref", "d");
                kept[i] = t;
            }
        };
        final long bytes = AllocationMeter.leastBytes(fill, fill, 5, 72L * kept.length);
        assertTrue(bytes <= 72L * kept.length, "B per table of four: " + (double)bytes / kept.length);
        assertEquals("d", kept[kept.length - 1].get("ref"));
    }
}
