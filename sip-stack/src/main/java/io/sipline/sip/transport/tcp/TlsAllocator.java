package io.sipline.sip.transport.tcp;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;

/**
 * The allocator of TLS connections (SIP over TLS and WSS, accepted or opened): direct buffers (the socket's reads,
 * the handlers' writes) from the stack's shared allocator, heap buffers over arrays of a {@link HeapArrayPool}.
 *
 * <p>Why: Netty's {@code SslHandler} over the JDK's {@code SSLEngine} wraps every record into a heap buffer of the
 * engine's packet size (about 16 KiB), as the engine works on byte arrays. From a pooled allocator of Netty's those
 * take chunks of a heap arena, and an arena keeps some chunks for good however little of them is used (its first
 * chunk list, the last subpage of each size class): heap that a burst of TLS traffic left behind. Here a heap buffer
 * is a plain heap buffer whose array comes from the pool and goes back to it on release; the pool keeps what the
 * last seconds used ({@link #trim}, once a second, from the shards), so once TLS traffic stops nothing stays. A buffer
 * object is made per heap buffer (a record's), its array is not.
 *
 * <p>Threading: any thread, as Netty's allocators; the pool takes a lock per array taken or given back.
 *
 * <p>Buffer ownership: a buffer handed out belongs to the caller, who releases it; its array goes back to the pool
 * then. Heap buffers are under Netty's leak detector as its own allocators' are.
 */
public final class TlsAllocator implements ByteBufAllocator
{
    /** The one every TLS channel of the stack uses: heap from the array pool, direct from Netty's shared one. */
    public static final TlsAllocator SHARED = new TlsAllocator(PooledByteBufAllocator.DEFAULT);

    private final ByteBufAllocator direct;
    private final HeapArrayPool arrays = new HeapArrayPool();
    private final ArrayHeapAllocator heap;

    /** @param direct where direct buffers, and direct composites, come from. */
    TlsAllocator(final ByteBufAllocator direct)
    {
        this.direct = direct;
        this.heap = new ArrayHeapAllocator(direct, arrays);
    }

    /** The bytes of the free heap arrays the pool keeps for reuse. */
    public long keptHeapBytes()
    {
        return arrays.keptBytes();
    }

    /**
     * Once a second, from any shard (earlier calls do nothing): the pool lets go of the free arrays beyond what the
     * last ten seconds took, so that a quiet server keeps none.
     */
    public void trim(final long nowNs)
    {
        arrays.trim(nowNs);
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

    /** Heap buffers over the pool's arrays, under the leak detector; direct ones from {@code direct}. */
    private static final class ArrayHeapAllocator extends AbstractByteBufAllocator
    {
        private final ByteBufAllocator direct;
        private final HeapArrayPool arrays;

        ArrayHeapAllocator(final ByteBufAllocator direct, final HeapArrayPool arrays)
        {
            super(false);
            this.direct = direct;
            this.arrays = arrays;
        }

        @Override
        protected ByteBuf newHeapBuffer(final int initialCapacity, final int maxCapacity)
        {
            final byte[] array = HeapArrayPool.arrayLength(initialCapacity) <= maxCapacity
                ? arrays.take(initialCapacity) : new byte[initialCapacity];
            return toLeakAwareBuffer(new ArrayHeapByteBuf(this, arrays, array, maxCapacity));
        }

        @Override
        protected ByteBuf newDirectBuffer(final int initialCapacity, final int maxCapacity)
        {
            return direct.directBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled()
        {
            return direct.isDirectBufferPooled();
        }
    }

    /** A heap buffer whose arrays, the first and any it grows into, come from the pool and go back to it. */
    static final class ArrayHeapByteBuf extends UnpooledHeapByteBuf
    {
        private final HeapArrayPool arrays;

        ArrayHeapByteBuf(final ByteBufAllocator alloc, final HeapArrayPool arrays, final byte[] array,
            final int maxCapacity)
        {
            super(alloc, array, maxCapacity);
            this.arrays = arrays;
            setIndex(0, 0); // the array constructor takes the array as written, this one is empty
        }

        @Override
        protected byte[] allocateArray(final int initialCapacity)
        {
            return HeapArrayPool.arrayLength(initialCapacity) <= maxCapacity() ? arrays.take(initialCapacity)
                : new byte[initialCapacity];
        }

        @Override
        protected void freeArray(final byte[] array)
        {
            arrays.give(array);
        }
    }
}
