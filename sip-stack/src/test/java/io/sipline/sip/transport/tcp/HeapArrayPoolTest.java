package io.sipline.sip.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** {@link HeapArrayPool}: size classes, reuse, the bound per class, and arrays outside the classes. */
class HeapArrayPoolTest
{
    @Test
    void shouldRoundPooledSizesUpToTheirClassAndLeaveOthersAsAsked()
    {
        assertEquals(100, HeapArrayPool.arrayLength(100));
        assertEquals(4_096, HeapArrayPool.arrayLength(1_024));
        assertEquals(4_096, HeapArrayPool.arrayLength(4_096));
        assertEquals(20_480, HeapArrayPool.arrayLength(16_709));
        assertEquals(65_536, HeapArrayPool.arrayLength(65_536));
        assertEquals(65_537, HeapArrayPool.arrayLength(65_537));
    }

    @Test
    void shouldReuseAGivenBackArrayOfTheSameClassOnly()
    {
        final HeapArrayPool pool = new HeapArrayPool();
        final byte[] record = pool.take(16_709);
        pool.give(record);
        assertNotSame(record, pool.take(8_000), "another class");
        assertSame(record, pool.take(17_000), "the same class: 20 KiB");
        assertEquals(2, pool.made());
    }

    @Test
    void shouldKeepAtMostItsBoundPerClassAndNoArrayOutsideTheClasses()
    {
        final HeapArrayPool pool = new HeapArrayPool();
        for (int i = 0; i <= HeapArrayPool.MAX_FREE_PER_CLASS; i++)
        {
            pool.give(new byte[8_192]);
        }
        assertEquals(HeapArrayPool.MAX_FREE_PER_CLASS * 8_192L, pool.keptBytes());
        pool.give(new byte[500]);
        pool.give(new byte[70_000]);
        pool.give(new byte[5_000]);
        assertEquals(HeapArrayPool.MAX_FREE_PER_CLASS * 8_192L, pool.keptBytes());
        assertEquals(500, pool.take(500).length);
        assertEquals(70_000, pool.take(70_000).length);
    }
}
