package io.sipline.sip.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocatorMetric;

/**
 * The allocator of TLS connections (SIP over TLS and WSS, accepted or opened): direct buffers (the socket's reads,
 * the handlers' writes) from the stack's shared allocator, heap buffers from a pool of small chunks of its own.
 *
 * <p>Why: Netty's {@code SslHandler} over the JDK's {@code SSLEngine} wraps every record into a heap buffer of the
 * engine's packet size (about 16 KiB), as the engine works on byte arrays. From Netty's shared allocator those take
 * a heap arena per event-loop thread, and each arena keeps its first chunk (4 MiB by default) for good
 * once allocated, however little of it is used: 4 MiB of heap per shard that ever served TLS. Here a chunk is
 * {@link #CHUNK_SIZE}, so what stays after TLS traffic, however heavy, is one such chunk per arena and what the
 * thread caches hold until their shard trims them ({@link #trimCurrentThreadCache}, once a second).
 *
 * <p>Threading: any thread, as Netty's allocators; the heap pool has {@link #HEAP_ARENAS} arenas, so the shards'
 * loops rarely meet on one, and a thread cache per event-loop thread (Netty gives none to other threads).
 *
 * <p>Buffer ownership: a buffer handed out belongs to the caller, who releases it; nothing is kept here.
 */
public final class TlsAllocator implements ByteBufAllocator
{
    /** Netty's page size; with {@link #MAX_ORDER} a chunk of {@link #CHUNK_SIZE}. */
    static final int PAGE_SIZE = 8192;
    static final int MAX_ORDER = 5;
    /** 256 KiB: a dozen of the engine's 16 KiB records, against the 4 MiB of Netty's default chunk. */
    public static final int CHUNK_SIZE = PAGE_SIZE << MAX_ORDER;
    /** As many arenas as cores: Netty's default is twice that, for its 4 MiB chunks. */
    static final int HEAP_ARENAS = Math.max(1, Runtime.getRuntime().availableProcessors());
    /** The one every TLS channel of the stack uses: heap from the small-chunk pool, direct from Netty's shared one. */
    public static final TlsAllocator SHARED = new TlsAllocator(PooledByteBufAllocator.DEFAULT, HEAP_ARENAS);

    private final ByteBufAllocator direct;
    private final PooledByteBufAllocator heap;

    /**
     * @param direct     where direct buffers, and composites, come from.
     * @param heapArenas the heap pool's arenas (at least 1).
     */
    TlsAllocator(final ByteBufAllocator direct, final int heapArenas)
    {
        this.direct = direct;
        this.heap = new PooledByteBufAllocator(false, heapArenas, 0, PAGE_SIZE, MAX_ORDER,
            PooledByteBufAllocator.defaultSmallCacheSize(), PooledByteBufAllocator.defaultNormalCacheSize(), false, 0);
    }

    /** The heap pool's figures (chunks held, heap memory used). */
    public PooledByteBufAllocatorMetric heapMetric()
    {
        return heap.metric();
    }

    /**
     * Lets go of what the calling thread's cache of the heap pool holds, so that a loop gone quiet after TLS traffic
     * does not keep its chunks (Netty trims a cache only every few thousand allocations by its thread).
     */
    public void trimCurrentThreadCache()
    {
        heap.trimCurrentThreadCache();
    }

    @Override
    public ByteBuf buffer()
    {
        return direct.buffer();
    }

    @Override
    public ByteBuf buffer(final int initialCapacity)
    {
        return direct.buffer(initialCapacity);
    }

    @Override
    public ByteBuf buffer(final int initialCapacity, final int maxCapacity)
    {
        return direct.buffer(initialCapacity, maxCapacity);
    }

    @Override
    public ByteBuf ioBuffer()
    {
        return direct.ioBuffer();
    }

    @Override
    public ByteBuf ioBuffer(final int initialCapacity)
    {
        return direct.ioBuffer(initialCapacity);
    }

    @Override
    public ByteBuf ioBuffer(final int initialCapacity, final int maxCapacity)
    {
        return direct.ioBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public ByteBuf heapBuffer()
    {
        return heap.heapBuffer();
    }

    @Override
    public ByteBuf heapBuffer(final int initialCapacity)
    {
        return heap.heapBuffer(initialCapacity);
    }

    @Override
    public ByteBuf heapBuffer(final int initialCapacity, final int maxCapacity)
    {
        return heap.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public ByteBuf directBuffer()
    {
        return direct.directBuffer();
    }

    @Override
    public ByteBuf directBuffer(final int initialCapacity)
    {
        return direct.directBuffer(initialCapacity);
    }

    @Override
    public ByteBuf directBuffer(final int initialCapacity, final int maxCapacity)
    {
        return direct.directBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public CompositeByteBuf compositeBuffer()
    {
        return direct.compositeBuffer();
    }

    @Override
    public CompositeByteBuf compositeBuffer(final int maxNumComponents)
    {
        return direct.compositeBuffer(maxNumComponents);
    }

    @Override
    public CompositeByteBuf compositeHeapBuffer()
    {
        return heap.compositeHeapBuffer();
    }

    @Override
    public CompositeByteBuf compositeHeapBuffer(final int maxNumComponents)
    {
        return heap.compositeHeapBuffer(maxNumComponents);
    }

    @Override
    public CompositeByteBuf compositeDirectBuffer()
    {
        return direct.compositeDirectBuffer();
    }

    @Override
    public CompositeByteBuf compositeDirectBuffer(final int maxNumComponents)
    {
        return direct.compositeDirectBuffer(maxNumComponents);
    }

    @Override
    public boolean isDirectBufferPooled()
    {
        return direct.isDirectBufferPooled();
    }

    @Override
    public int calculateNewCapacity(final int minNewCapacity, final int maxCapacity)
    {
        return direct.calculateNewCapacity(minNewCapacity, maxCapacity);
    }
}
