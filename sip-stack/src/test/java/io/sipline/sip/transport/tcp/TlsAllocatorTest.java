package io.sipline.sip.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;

/** {@link TlsAllocator}: heap buffers over the pool's arrays, given back once unused; direct ones from the shared. */
class TlsAllocatorTest
{
    /** The JDK engine's packet buffer size, the size of each wrap buffer {@code SslHandler} asks for. */
    private static final int PACKET = 16_709;
    private static final long SECOND = 1_000_000_000L;

    @Test
    void directBuffersComeFromTheSharedAllocatorAndHeapBuffersFromThePool()
    {
        final PooledByteBufAllocator shared = new PooledByteBufAllocator(true, 1, 1, 8192, 9, 0, 0, false, 0);
        final TlsAllocator tls = new TlsAllocator(shared);
        final ByteBuf read = tls.ioBuffer(2048);
        final ByteBuf plain = tls.buffer(512);
        final ByteBuf record = tls.heapBuffer(PACKET);
        try
        {
            assertTrue(read.isDirect());
            assertTrue(plain.isDirect());
            assertFalse(record.isDirect());
            assertTrue(record.hasArray());
            assertEquals(20_480, record.capacity(), "the record's size class");
            assertEquals(0, record.readableBytes());
            assertTrue(shared.metric().usedDirectMemory() > 0, "reads and writes from the shared allocator");
            assertEquals(0, shared.metric().usedHeapMemory(), "no heap chunk in the shared allocator");
        }
        finally
        {
            read.release();
            plain.release();
            record.release();
        }
    }

    @Test
    void aReleasedRecordsArrayServesTheNextRecord()
    {
        final TlsAllocator tls = new TlsAllocator(PooledByteBufAllocator.DEFAULT);
        final ByteBuf first = tls.heapBuffer(PACKET);
        final byte[] array = first.array();
        first.release();
        assertEquals(20_480, tls.keptHeapBytes(), "kept for reuse");
        final ByteBuf second = tls.heapBuffer(PACKET);
        try
        {
            assertSame(array, second.array());
            assertEquals(0, tls.keptHeapBytes());
        }
        finally
        {
            second.release();
        }
    }

    @Test
    void aBurstOfRecordsLeavesNothingOnceTenQuietSecondsOfTrimsHavePassed()
    {
        final TlsAllocator tls = new TlsAllocator(PooledByteBufAllocator.DEFAULT);
        long now = 5 * SECOND;
        tls.trim(now);
        final List<ByteBuf> burst = new ArrayList<>();
        for (int i = 0; i < 200; i++)
        {
            burst.add(tls.heapBuffer(PACKET));
        }
        burst.forEach(ByteBuf::release);
        assertEquals(HeapArrayPool.MAX_FREE_PER_CLASS * 20_480L, tls.keptHeapBytes(), "kept up to the class's bound");
        tls.trim(now += SECOND);
        assertEquals(HeapArrayPool.MAX_FREE_PER_CLASS * 20_480L, tls.keptHeapBytes(), "the burst is recent use");
        tls.trim(now + SECOND / 2);
        for (int i = 0; i < 9; i++)
        {
            tls.trim(now += SECOND);
            assertTrue(tls.keptHeapBytes() > 0, "still within the ten seconds of the burst: trim " + i);
        }
        tls.trim(now += SECOND);
        assertEquals(0, tls.keptHeapBytes(), "ten quiet seconds: every array let go");

        final ByteBuf again = tls.heapBuffer(PACKET);
        again.release();
        tls.trim(now + SECOND);
        assertEquals(20_480, tls.keptHeapBytes(), "what the last seconds took is kept again");
    }

    @Test
    void aGrowingBufferTakesItsLargerArrayFromThePoolAndGivesTheSmallerBack()
    {
        final TlsAllocator tls = new TlsAllocator(PooledByteBufAllocator.DEFAULT);
        final ByteBuf buffer = tls.heapBuffer(2_000);
        final byte[] small = buffer.array();
        assertEquals(4_096, small.length);
        buffer.writeBytes(new byte[10_000]);
        try
        {
            assertNotSame(small, buffer.array());
            assertEquals(0, buffer.array().length % HeapArrayPool.CLASS_STEP, "a class's array");
            assertEquals(4_096, tls.keptHeapBytes(), "the smaller array went back");
            assertEquals(10_000, buffer.readableBytes());
        }
        finally
        {
            buffer.release();
        }
    }

    @Test
    void aBufferWhoseMaximumIsBelowItsClassGetsAnArrayOfItsOwnSize()
    {
        final TlsAllocator tls = new TlsAllocator(PooledByteBufAllocator.DEFAULT);
        final ByteBuf buffer = tls.heapBuffer(5_000, 5_000);
        try
        {
            assertEquals(5_000, buffer.capacity());
            assertEquals(5_000, buffer.maxCapacity());
        }
        finally
        {
            buffer.release();
        }
        assertEquals(0, tls.keptHeapBytes(), "not of a class: not kept");
    }
}
