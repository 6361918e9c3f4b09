package io.sipline.sip.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocalThread;

/** {@link TlsAllocator}: heap buffers from its small-chunk pool, direct ones from the shared allocator. */
class TlsAllocatorTest
{
    /** The JDK engine's packet buffer size, the size of each wrap buffer {@code SslHandler} asks for. */
    private static final int PACKET = 16_709;

    @Test
    void directBuffersComeFromTheSharedAllocatorAndHeapBuffersFromThePool()
    {
        final PooledByteBufAllocator shared = new PooledByteBufAllocator(true, 1, 1, 8192, 9, 0, 0, false, 0);
        final TlsAllocator tls = new TlsAllocator(shared, 1);
        final ByteBuf read = tls.ioBuffer(2048);
        final ByteBuf plain = tls.buffer(512);
        final ByteBuf record = tls.heapBuffer(PACKET);
        try
        {
            assertTrue(read.isDirect());
            assertTrue(plain.isDirect());
            assertFalse(record.isDirect());
            assertTrue(shared.metric().usedDirectMemory() > 0, "reads and writes from the shared allocator");
            assertEquals(0, shared.metric().usedHeapMemory(), "no heap chunk in the shared allocator");
            assertEquals(TlsAllocator.CHUNK_SIZE, tls.heapMetric().usedHeapMemory(), "one small chunk");
        }
        finally
        {
            read.release();
            plain.release();
            record.release();
        }
    }

    @Test
    void aBurstOfRecordsLeavesAtMostOneChunkPerArenaOnceTheCacheIsTrimmed() throws InterruptedException
    {
        final TlsAllocator tls = new TlsAllocator(new PooledByteBufAllocator(true), 1);
        final AtomicReference<long[]> seen = new AtomicReference<>();
        final AtomicReference<Throwable> failed = new AtomicReference<>();
        // an event-loop-like thread: Netty gives its thread cache only to these
        final Thread loop = new FastThreadLocalThread(() ->
        {
            try
            {
                final List<ByteBuf> burst = new ArrayList<>();
                for (int i = 0; i < 200; i++)
                {
                    burst.add(tls.heapBuffer(PACKET));
                }
                final long during = tls.heapMetric().usedHeapMemory();
                burst.forEach(ByteBuf::release);
                final long released = tls.heapMetric().usedHeapMemory();
                tls.trimCurrentThreadCache();
                seen.set(new long[] {during, released, tls.heapMetric().usedHeapMemory()});
            }
            catch (final Throwable t)
            {
                failed.set(t);
            }
        });
        loop.start();
        loop.join();
        assertEquals(null, failed.get());
        final long[] memory = seen.get();
        assertTrue(memory[0] >= 200L * PACKET, "the burst's records: " + memory[0]);
        assertTrue(memory[1] > TlsAllocator.CHUNK_SIZE, "the thread cache keeps some after the release: " + memory[1]);
        assertTrue(memory[2] <= TlsAllocator.CHUNK_SIZE, "one chunk stays, no more: " + memory[2]);
    }
}
