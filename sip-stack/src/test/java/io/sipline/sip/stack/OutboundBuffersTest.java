package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OutboundBuffers}: a kept buffer is handed out again only once every reference handed out with it (and every
 * derived buffer) is released, with its indexes cleared; a buffer that grew too large is let go; one a holder freed
 * by releasing too often is forgotten; close releases the pool's references; nothing is kept while the leak detector
 * records accesses. The detector is switched off around the tests that keep buffers (kept buffers are the point) and
 * restored after each.
 */
class OutboundBuffersTest
{
    private ResourceLeakDetector.Level level;

    @BeforeEach
    void detectorOff()
    {
        level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }

    @AfterEach
    void detectorBack()
    {
        ResourceLeakDetector.setLevel(level);
    }

    @Test
    void shouldHandOutAKeptBufferAgainOnlyOnceEveryReferenceIsReleased()
    {
        final OutboundBuffers pool = new OutboundBuffers(PooledByteBufAllocator.DEFAULT, 4);
        final ByteBuf a = pool.acquire(100);
        a.writeCharSequence("INVITE", StandardCharsets.US_ASCII);
        assertEquals(2, a.refCnt(), "the caller's reference and the pool's");
        final ByteBuf b = pool.acquire(100);
        assertNotSame(a, b, "a is in use");

        final ByteBuf duplicate = a.retainedDuplicate(); // e.g. a transaction's copy for retransmission
        a.release();
        final ByteBuf c = pool.acquire(100);
        assertNotSame(a, c, "a derived buffer still holds a");
        duplicate.release();

        final ByteBuf again = pool.acquire(100);
        assertSame(a, again, "every reference is back: a is reused");
        assertEquals(0, again.readerIndex());
        assertEquals(0, again.writerIndex());
        assertEquals(2, again.refCnt());
        assertEquals(1, pool.reused());
        assertEquals(3, pool.made());
        assertEquals(3, pool.kept());

        again.release();
        b.release();
        c.release();
        pool.close();
        assertEquals(0, a.refCnt(), "close released the pool's reference: back to Netty's allocator");
        assertEquals(0, b.refCnt());
        assertEquals(0, c.refCnt());
        assertEquals(0, pool.kept());
    }

    @Test
    void shouldGiveABurstsBuffersBackOnceRecentUseNoLongerNeedsThem()
    {
        // A flood: 1,000 buffers in use at once (each held by a transaction), then every one released.
        final OutboundBuffers pool = new OutboundBuffers(PooledByteBufAllocator.DEFAULT, 4096);
        final ByteBuf[] burst = new ByteBuf[1_000];
        long now = 7_000_000_000L;
        for (int i = 0; i < burst.length; i++)
        {
            burst[i] = pool.acquire(100);
        }
        assertEquals(0, pool.trim(now), "all in use: nothing to let go");
        for (final ByteBuf b : burst)
        {
            b.release();
        }
        assertEquals(1_000, pool.kept());
        assertEquals(0, pool.trim(now + OutboundBuffers.TRIM_PERIOD_NS - 1), "not a period yet");

        // The peak of the last trims (1,000 in use) still covers them all...
        now += OutboundBuffers.TRIM_PERIOD_NS;
        assertEquals(0, pool.trim(now));
        // ... until it has left the window: then only what a quiet shard needs stays kept, the rest is freed.
        for (int t = 1; t < OutboundBuffers.TRIM_WINDOW; t++)
        {
            now += OutboundBuffers.TRIM_PERIOD_NS;
            pool.trim(now);
        }
        assertEquals(OutboundBuffers.MIN_KEPT, pool.kept());
        assertEquals(1_000 - OutboundBuffers.MIN_KEPT, pool.trimmed());
        int freed = 0;
        for (final ByteBuf b : burst)
        {
            freed += 0 == b.refCnt() ? 1 : 0;
        }
        assertEquals(1_000 - OutboundBuffers.MIN_KEPT, freed, "back to Netty's allocator");

        // A steady load keeps what it uses: every buffer handed out within the window stays, so the load allocates
        // nothing; once it has stopped for a window, twice the most in use at once over it stays.
        final ByteBuf[] steady = new ByteBuf[500];
        for (int i = 0; i < steady.length; i++)
        {
            steady[i] = pool.acquire(100);
        }
        for (int i = 200; i < steady.length; i++)
        {
            steady[i].release();
        }
        now += OutboundBuffers.TRIM_PERIOD_NS;
        assertEquals(0, pool.trim(now));
        assertEquals(500, pool.kept(), "the 500 handed out in the window");
        for (int t = 0; t < OutboundBuffers.TRIM_WINDOW; t++)
        {
            now += OutboundBuffers.TRIM_PERIOD_NS;
            pool.trim(now);
        }
        assertEquals(400, pool.kept(), "2 x the 200 in use");
        for (int i = 0; i < 200; i++)
        {
            assertEquals(2, steady[i].refCnt(), "a buffer in use is never let go");
            steady[i].release();
        }
        pool.close();
    }

    @Test
    void shouldGiveTheAllocatorsChunksBackAfterABurst()
    {
        // An allocator of its own, with a thread cache for this thread as a shard's event loop has: after a burst of
        // 8 KiB messages (four 4 MiB chunks) and the trim window, at most two chunks are left (the buffers a quiet
        // shard keeps are in one), not every chunk the burst took, neither in the pool nor in the thread's cache.
        final PooledByteBufAllocator allocator = new PooledByteBufAllocator(true, 0, 1, 8192, 9, 256, 64, true);
        final OutboundBuffers pool = new OutboundBuffers(allocator, 4096);
        final ByteBuf[] burst = new ByteBuf[2_000];
        for (int i = 0; i < burst.length; i++)
        {
            burst[i] = pool.acquire(8_000);
        }
        final long chunk = allocator.metric().chunkSize();
        final long peak = allocator.metric().usedDirectMemory();
        assertTrue(peak >= 3 * chunk, "the burst took several chunks: " + peak);
        for (final ByteBuf b : burst)
        {
            b.release();
        }
        long now = 0;
        for (int t = 0; t <= OutboundBuffers.TRIM_WINDOW; t++)
        {
            pool.trim(now);
            now += OutboundBuffers.TRIM_PERIOD_NS;
        }
        assertEquals(OutboundBuffers.MIN_KEPT, pool.kept());
        assertTrue(allocator.metric().usedDirectMemory() <= 2 * chunk && peak >= 4 * chunk,
            "direct memory after the window: " + allocator.metric().usedDirectMemory() + " (peak " + peak + ")");
        pool.close();
    }

    @Test
    void shouldTrimAFreeBufferThatGrewTooLargeWithoutWaitingForAnAcquire()
    {
        final OutboundBuffers pool = new OutboundBuffers(PooledByteBufAllocator.DEFAULT, 4);
        final ByteBuf large = pool.acquire(100);
        large.writeZero(OutboundBuffers.MAX_KEPT_CAPACITY + 1);
        large.release();
        assertEquals(1, pool.trim(0L));
        assertEquals(0, large.refCnt());
        assertEquals(0, pool.kept());
        pool.close();
    }

    @Test
    void shouldLetGoOfAFreeBufferThatGrewTooLarge()
    {
        final OutboundBuffers pool = new OutboundBuffers(PooledByteBufAllocator.DEFAULT, 4);
        final ByteBuf large = pool.acquire(100);
        large.writeZero(OutboundBuffers.MAX_KEPT_CAPACITY + 1);
        large.release();
        assertEquals(1, large.refCnt(), "free, and still kept");
        final ByteBuf next = pool.acquire(100);
        // Let go (the pool released its reference), so the buffer handed out is a new one of the asked size (Netty's
        // recycler may hand the same object back, re-pointed at new memory).
        assertEquals(0, pool.reused());
        assertEquals(2, pool.made());
        assertEquals(1, pool.kept(), "only the new one is kept");
        assertEquals(OutboundBuffers.MIN_CAPACITY, next.capacity());
        assertEquals(2, next.refCnt());
        next.release();
        pool.close();
        assertEquals(0, next.refCnt());
    }

    @Test
    void shouldForgetABufferAHolderReleasedOnceTooOften()
    {
        final OutboundBuffers pool = new OutboundBuffers(PooledByteBufAllocator.DEFAULT, 4);
        final ByteBuf a = pool.acquire(100);
        a.release();
        a.release(); // a holder's bug: the pool's reference goes too, the buffer is freed
        assertEquals(0, a.refCnt());
        final ByteBuf next = pool.acquire(100);
        assertEquals(0, pool.reused(), "a freed buffer is never handed out");
        assertEquals(1, pool.kept(), "it was forgotten; the new one is kept");
        assertEquals(2, next.refCnt());
        next.release();
        pool.close();
        assertEquals(0, next.refCnt());
    }

    @Test
    void shouldKeepNothingWhileTheLeakDetectorRecordsAccesses()
    {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        final OutboundBuffers pool = new OutboundBuffers(PooledByteBufAllocator.DEFAULT, 4);
        final ByteBuf a = pool.acquire(100);
        assertEquals(1, a.refCnt(), "a plain allocation: the caller's reference only");
        assertEquals(0, pool.kept());
        a.release();
        assertEquals(0, a.refCnt());
        pool.close();
    }

    @Test
    void shouldKeepNoneWithCapacityZero()
    {
        final OutboundBuffers pool = new OutboundBuffers(PooledByteBufAllocator.DEFAULT, 0);
        final ByteBuf a = pool.acquire(10);
        assertEquals(1, a.refCnt());
        assertEquals(0, pool.kept());
        a.release();
        pool.close();
    }
}
