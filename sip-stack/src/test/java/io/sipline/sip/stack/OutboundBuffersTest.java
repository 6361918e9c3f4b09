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
 * records accesses; a burst's buffers and the chunks of the pool's own allocator go back after the trim window, all
 * the kept ones at once (those in use when their holder releases them) when they hold that allocator's chunks
 * sparsely, and only once for one burst; buffers are made in powers of two. The detector is switched off around
 * the tests that keep buffers (kept buffers are the point) and restored after each.
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
        // nothing; once it has stopped for a window, twice the most in use at once over it stays. A buffer held from
        // one trim to the next is no longer kept (its holder frees it).
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
        assertEquals(300, pool.kept(), "the free ones, fewer than 2 x the 200 in use");
        assertEquals(200, pool.letGoInUse());
        for (int i = 0; i < 200; i++)
        {
            assertEquals(1, steady[i].refCnt(), "held across two trims: the holder's reference alone");
            steady[i].release();
            assertEquals(0, steady[i].refCnt(), "the holder's release freed it");
        }
        pool.close();
    }

    @Test
    void shouldStopKeepingABufferHeldFromOneTrimToTheNext()
    {
        // A non-INVITE's final response is held by its transaction for timer J (RFC 3261 §17.2.2, 32 s): kept, such
        // buffers would fill the pool, and every acquire would look at them and make a buffer anyway.
        final OutboundBuffers pool = new OutboundBuffers(PooledByteBufAllocator.DEFAULT, 4);
        final ByteBuf held = pool.acquire(100);
        final ByteBuf reused = pool.acquire(100);
        final ByteBuf free = pool.acquire(100);
        long now = 0;
        assertEquals(0, pool.trim(now), "all in use at a first trim: kept");
        assertEquals(3, pool.kept());
        free.release();
        reused.release();
        assertSame(reused, pool.acquire(100), "handed out again since the trim");
        now += OutboundBuffers.TRIM_PERIOD_NS;
        pool.trim(now);
        assertEquals(1, pool.letGoInUse(), "only the one in use at both trims and not handed out between");
        assertEquals(2, pool.kept());
        assertEquals(1, held.refCnt(), "the holder's reference alone");
        assertEquals(2, reused.refCnt(), "in use again, still kept");
        assertEquals(1, free.refCnt(), "free, still kept");
        held.release();
        assertEquals(0, held.refCnt(), "the holder's release freed it");

        now += OutboundBuffers.TRIM_PERIOD_NS;
        pool.trim(now);
        assertEquals(2, pool.letGoInUse(), "the reused one, in use at this trim and the last");
        assertEquals(1, pool.kept());
        reused.release();
        assertEquals(0, reused.refCnt());
        assertSame(free, pool.acquire(100), "the free one serves");
        final ByteBuf fresh = pool.acquire(100);
        assertEquals(2, pool.kept(), "a buffer made takes a slot let go");
        free.release();
        fresh.release();
        pool.close();
        assertEquals(0, free.refCnt());
        assertEquals(0, fresh.refCnt());
    }

    @Test
    void shouldGiveTheChunksOfABurstBack()
    {
        // After a burst of 8 KiB messages (dozens of the own allocator's chunks) and the trim window, the chunks
        // holding the buffers a quiet shard keeps are left, not every chunk the burst took.
        final PooledByteBufAllocator own = OutboundBuffers.ownAllocator();
        final OutboundBuffers pool = new OutboundBuffers(PooledByteBufAllocator.DEFAULT, own, 4096);
        final ByteBuf[] burst = burst(pool, 2_000);
        final long chunk = own.metric().chunkSize();
        final long peak = own.metric().usedDirectMemory();
        assertTrue(peak >= 32 * chunk, "the burst took dozens of chunks: " + peak);
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
        assertTrue(own.metric().usedDirectMemory() <= 4 * chunk,
            "direct memory after the window: " + own.metric().usedDirectMemory() + " (peak " + peak + ")");
        assertEquals(0, pool.compactions(), "the buffers kept fill their chunks");
        pool.close();
        assertTrue(own.metric().usedDirectMemory() <= chunk, "closed: every chunk back but an empty first one, which "
            + "Netty keeps: " + own.metric().usedDirectMemory());
    }

    @Test
    void shouldLetGoOfEveryFreeBufferWhenTheKeptOnesHoldChunksSparsely()
    {
        // Kept buffers spread over a burst's chunks, one in thirty (the others let go because they grew too large),
        // hold every chunk: the pool lets go of all of them, and what it makes again fills a chunk or two.
        final PooledByteBufAllocator own = OutboundBuffers.ownAllocator();
        final OutboundBuffers pool = new OutboundBuffers(PooledByteBufAllocator.DEFAULT, own, 4096);
        final ByteBuf[] burst = burst(pool, 960);
        final long chunk = own.metric().chunkSize();
        assertTrue(own.metric().usedDirectMemory() >= 24 * chunk, "" + own.metric().usedDirectMemory());
        for (int i = 0; i < burst.length; i++)
        {
            if (i % 30 != 0)
            {
                burst[i].writeZero(OutboundBuffers.MAX_KEPT_CAPACITY + 1);
            }
            burst[i].release();
        }
        assertEquals(burst.length, pool.trim(0), "the grown ones let go, then the sparse rest");
        assertEquals(1, pool.compactions());
        assertEquals(0, pool.kept(), "every kept buffer let go");
        assertTrue(own.metric().usedDirectMemory() <= 2 * chunk, "the burst's chunks back: "
            + own.metric().usedDirectMemory());

        // Made again, the buffers a steady load needs fill few chunks, and nothing more is let go.
        final ByteBuf[] steady = new ByteBuf[burst.length / 30];
        for (int i = 0; i < steady.length; i++)
        {
            steady[i] = pool.acquire(8_000);
        }
        for (final ByteBuf b : steady)
        {
            b.release();
        }
        long now = 0;
        for (int t = 0; t < 2 * OutboundBuffers.TRIM_WINDOW; t++)
        {
            now += OutboundBuffers.TRIM_PERIOD_NS;
            pool.trim(now);
        }
        assertEquals(1, pool.compactions(), "dense: not let go again");
        assertEquals(steady.length, pool.kept());
        assertTrue(own.metric().usedDirectMemory() <= 4 * chunk, "" + own.metric().usedDirectMemory());
        pool.close();
    }

    @Test
    void shouldLetGoOfTheBuffersInUseTooWhenTheKeptOnesHoldChunksSparsely()
    {
        // A burst's tail: one buffer in thirty still held (a transaction's answer) when the rest, grown, is let go.
        // The pool lets go of those too, so that their holders' releases give the chunks back with no second time.
        final PooledByteBufAllocator own = OutboundBuffers.ownAllocator();
        final OutboundBuffers pool = new OutboundBuffers(PooledByteBufAllocator.DEFAULT, own, 4096);
        final ByteBuf[] burst = burst(pool, 960);
        final long chunk = own.metric().chunkSize();
        for (int i = 0; i < burst.length; i++)
        {
            if (i % 30 != 0)
            {
                burst[i].writeZero(OutboundBuffers.MAX_KEPT_CAPACITY + 1);
                burst[i].release();
            }
        }
        assertEquals(burst.length, pool.trim(0), "the grown ones let go, then the ones in use");
        assertEquals(1, pool.compactions());
        assertEquals(0, pool.kept());
        for (int i = 0; i < burst.length; i += 30)
        {
            assertEquals(1, burst[i].refCnt(), "the holder's reference alone");
            burst[i].release();
        }
        assertTrue(own.metric().usedDirectMemory() <= 2 * chunk, "the burst's chunks back once the holders released: "
            + own.metric().usedDirectMemory());

        // A load that comes and goes afterwards: buffers made, let go by the trims, the allocator dense each time.
        long now = 0;
        for (int round = 0; round < 3; round++)
        {
            final ByteBuf[] load = new ByteBuf[200];
            for (int i = 0; i < load.length; i++)
            {
                load[i] = pool.acquire(1_000);
            }
            for (final ByteBuf b : load)
            {
                b.release();
            }
            for (int t = 0; t <= OutboundBuffers.TRIM_WINDOW; t++)
            {
                now += OutboundBuffers.TRIM_PERIOD_NS;
                pool.trim(now);
            }
            assertEquals(OutboundBuffers.MIN_KEPT, pool.kept(), "round " + round);
        }
        assertEquals(1, pool.compactions(), "dense after the burst: never let go of all again");
        pool.close();
    }

    @Test
    void shouldMakeBuffersOfPowerOfTwoSizes()
    {
        // As a buffer grows: the own allocator sees few size classes, each of which Netty keeps a run of for good.
        assertEquals(OutboundBuffers.MIN_CAPACITY, OutboundBuffers.roundedCapacity(100));
        assertEquals(1024, OutboundBuffers.roundedCapacity(1024));
        assertEquals(2048, OutboundBuffers.roundedCapacity(1025));
        assertEquals(8192, OutboundBuffers.roundedCapacity(7_300));
        assertEquals(32_768, OutboundBuffers.roundedCapacity(20_000));
        final OutboundBuffers pool = new OutboundBuffers(PooledByteBufAllocator.DEFAULT, 4);
        final ByteBuf b = pool.acquire(7_300);
        assertEquals(8192, b.capacity());
        b.release();
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

    /** {@code n} buffers of 8,000 bytes from {@code pool}, all in use: a burst of large messages. */
    private static ByteBuf[] burst(final OutboundBuffers pool, final int n)
    {
        final ByteBuf[] burst = new ByteBuf[n];
        for (int i = 0; i < n; i++)
        {
            burst[i] = pool.acquire(8_000);
        }
        return burst;
    }
}
