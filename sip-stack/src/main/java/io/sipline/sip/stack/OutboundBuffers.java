package io.sipline.sip.stack;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;

/**
 * One shard's outbound message buffers, kept for reuse (per-shard pools): the buffers {@link StackShard#allocate}
 * hands to the listener for responses and requests, and the copies a hand-over sends to another shard. Netty's
 * pooled allocator recycles the memory of a buffer but not the buffer object: every allocation makes a new
 * {@code PooledDirectByteBuf}, a {@code PoolThreadCache} entry when it is freed, and, as Netty runs without
 * {@code sun.misc.Unsafe} on JDK 25, a new {@code ByteBuffer} view the first time it is written or sent. A buffer
 * kept here keeps its view and is never freed, so reusing it allocates nothing (none are kept under the tests' leak
 * detector: {@link #keeping()}).
 *
 * <p><b>Reference counts.</b> Each kept buffer carries one reference owned by this pool. {@link #acquire} hands a
 * buffer out with one more reference, which passes with the buffer as usual (to a send, a transaction, Netty's write,
 * another shard) and is released by whoever ends its use, on any thread; derived buffers count on the same buffer. A
 * kept buffer whose count is back to 1 is free: the next {@link #acquire} that finds it clears its indexes and hands
 * it out again, or lets it go when it grew above {@link #MAX_KEPT_CAPACITY}. {@link #close} releases the pool's
 * references.
 *
 * <p><b>Trimming.</b> Once a second ({@link #trim}) the pool lets go of the free buffers that recent use does not
 * need: it keeps as many as were handed out over its last {@link #TRIM_WINDOW} trims (acquires take the kept buffers
 * in turn, so a load that hands out that many touches every one of them), at least twice the most found in use at
 * any of those trims, at least {@link #MIN_KEPT}, and no free buffer above {@link #MAX_KEPT_CAPACITY}. A steady load
 * so keeps its buffers and allocates nothing, while a burst (a flood of large messages, each held by a transaction for
 * its retransmissions) gives its memory back to Netty's allocator seconds after the traffic that needed it is gone.
 *
 * <p><b>Threading.</b> {@link #acquire} and {@link #close} run on the owning shard's thread only; the references
 * handed out may be released on any thread (Netty's reference count is atomic, and a count of 1 read here means
 * nobody else holds the buffer).
 */
final class OutboundBuffers
{
    /** Kept buffers looked at per {@link #acquire} before a new one is made. */
    static final int PROBES = 8;
    /** The smallest buffer made: room for a typical SIP message, so that reuse rarely has to grow one. */
    static final int MIN_CAPACITY = 1024;
    /** A free kept buffer larger than this is let go rather than reused. */
    static final int MAX_KEPT_CAPACITY = 16 * 1024;
    /** How often {@link #trim} looks at the kept buffers. */
    static final long TRIM_PERIOD_NS = 1_000_000_000L;
    /** Trims whose largest in-use count sets how many buffers stay kept. */
    static final int TRIM_WINDOW = 10;
    /** Buffers a trim always leaves kept. */
    static final int MIN_KEPT = 64;

    private final ByteBufAllocator allocator;
    private final ByteBuf[] kept;
    private int count;
    private int cursor;
    private long reused;
    private long made;
    private long trimmed;
    /** Buffers in use at each of the last {@link #TRIM_WINDOW} trims (a ring). */
    private final int[] inUseAtTrims = new int[TRIM_WINDOW];
    /** Buffers handed out in all ({@link #reused} + {@link #made}) at each of the last trims (the same ring). */
    private final long[] acquiredAtTrims = new long[TRIM_WINDOW];
    private int trimSlot;
    private boolean trimStarted;
    private long nextTrimNs;

    /**
     * @param allocator where new buffers come from.
     * @param capacity  most buffers kept at once (in use or free); 0 keeps none.
     */
    OutboundBuffers(final ByteBufAllocator allocator, final int capacity)
    {
        this.allocator = allocator;
        this.kept = new ByteBuf[Math.max(0, capacity)];
    }

    /**
     * A direct buffer with at least {@code initialCapacity} bytes of room (it grows on demand like any buffer),
     * indexes at 0, carrying one reference that the caller owns.
     */
    ByteBuf acquire(final int initialCapacity)
    {
        for (int probes = Math.min(PROBES, count); probes > 0; probes--)
        {
            if (cursor >= count)
            {
                cursor = 0;
            }
            final ByteBuf buffer = kept[cursor];
            final int references = buffer.refCnt();
            if (0 == references)
            {
                // Released once too often by a holder (the pool's reference with it): already freed, forget it.
                kept[cursor] = kept[--count];
                kept[count] = null;
                continue;
            }
            if (1 != references)
            {
                cursor++;
                continue;
            }
            if (buffer.capacity() > MAX_KEPT_CAPACITY)
            {
                kept[cursor] = kept[--count]; // let it go: the slot takes the last kept buffer
                kept[count] = null;
                buffer.release(); // the pool's reference: the buffer goes back to Netty's allocator
                continue;
            }
            cursor++;
            reused++;
            buffer.clear();
            return buffer.retain(); // the caller's reference
        }
        made++;
        final ByteBuf fresh = allocator.directBuffer(Math.max(initialCapacity, MIN_CAPACITY));
        if (count < kept.length && keeping())
        {
            kept[count++] = fresh.retain(); // the pool's own reference; the caller has the first
        }
        return fresh;
    }

    /**
     * Lets go of the free kept buffers beyond what recent use needs (see the class), and of any free one above
     * {@link #MAX_KEPT_CAPACITY}; then has Netty's allocator trim this thread's cache (what it cached and
     * was not allocated again since the last trim), so that what the pool let go is not kept there instead. Does
     * nothing until {@link #TRIM_PERIOD_NS} has passed since the last trim. Shard thread only; allocates nothing.
     *
     * @param nowNs the shard's clock.
     * @return the buffers let go.
     */
    int trim(final long nowNs)
    {
        if (trimStarted && nowNs - nextTrimNs < 0)
        {
            return 0;
        }
        trimStarted = true;
        nextTrimNs = nowNs + TRIM_PERIOD_NS;
        int inUse = 0;
        for (int i = 0; i < count; i++)
        {
            inUse += kept[i].refCnt() > 1 ? 1 : 0;
        }
        final long acquired = reused + made;
        final long acquiredInWindow = acquired - acquiredAtTrims[trimSlot]; // the slot holds the oldest trim's total
        acquiredAtTrims[trimSlot] = acquired;
        inUseAtTrims[trimSlot] = inUse;
        trimSlot = (trimSlot + 1) % TRIM_WINDOW;
        int peak = 0;
        for (final int n : inUseAtTrims)
        {
            peak = Math.max(peak, n);
        }
        final long target = Math.max(Math.max(MIN_KEPT, 2L * peak), acquiredInWindow);
        int released = 0;
        for (int i = count - 1; i >= 0; i--) // a removal moves the last buffer, already looked at, into slot i
        {
            final ByteBuf buffer = kept[i];
            final int references = buffer.refCnt();
            if (0 == references)
            {
                forget(i); // freed by a holder's extra release
            }
            else if (1 == references && (count > target || buffer.capacity() > MAX_KEPT_CAPACITY))
            {
                forget(i);
                buffer.release(); // the pool's reference: nobody else holds it, back to Netty's allocator
                released++;
            }
        }
        if (cursor >= count)
        {
            cursor = 0;
        }
        if (allocator instanceof final PooledByteBufAllocator pooled)
        {
            // Netty trims a thread's cache only every few thousand allocations by that thread: a shard gone quiet after
            // a burst would keep the cached memory, and with it whole chunks, for good
            pooled.trimCurrentThreadCache();
        }
        trimmed += released;
        return released;
    }

    private void forget(final int slot)
    {
        kept[slot] = kept[--count];
        kept[count] = null;
    }

    /** Buffers let go by {@link #trim}. */
    long trimmed()
    {
        return trimmed;
    }

    /** Buffers handed out again. */
    long reused()
    {
        return reused;
    }

    /** Buffers made because none kept was free. */
    long made()
    {
        return made;
    }

    /** Buffers kept now, in use or free. */
    int kept()
    {
        return count;
    }

    /** Releases the pool's reference on every kept buffer; buffers still in use are freed by their last holder. */
    void close()
    {
        for (int i = 0; i < count; i++)
        {
            if (kept[i].refCnt() > 0) // not already freed by a holder's extra release
            {
                kept[i].release();
            }
            kept[i] = null;
        }
        count = 0;
        cursor = 0;
    }

    /**
     * False while Netty's leak detector runs at {@code ADVANCED} or {@code PARANOID} (the tests): such a buffer records
     * a trace on every access, so keeping it would allocate on every use, and a buffer that is never freed could not
     * be checked for leaks. Buffers are then plain allocations.
     */
    private static boolean keeping()
    {
        return ResourceLeakDetector.getLevel().ordinal() < ResourceLeakDetector.Level.ADVANCED.ordinal();
    }
}
