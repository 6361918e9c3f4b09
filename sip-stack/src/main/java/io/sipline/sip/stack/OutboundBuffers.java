package io.sipline.sip.stack;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocatorMetric;
import io.netty.util.ResourceLeakDetector;
import io.sipline.sip.transport.tcp.TlsAllocator;

/**
 * One shard's outbound message buffers, kept for reuse (per-shard pools): the buffers {@link StackShard#allocate}
 * hands to the listener for responses and requests, and the copies a hand-over sends to another shard. Netty's
 * pooled allocator recycles the memory of a buffer but not the buffer object: every allocation makes a new
 * {@code PooledDirectByteBuf}, a {@code PoolThreadCache} entry when it is freed, and, as Netty runs without
 * {@code sun.misc.Unsafe} on JDK 25, a new {@code ByteBuffer} view the first time it is written or sent. A buffer
 * kept here keeps its view and is never freed, so reusing it allocates nothing (none are kept under the tests' leak
 * detector: {@link #keeping()}).
 *
 * <p><b>Memory.</b> A kept buffer lives for seconds to hours, and Netty frees a chunk only once nothing in it is
 * allocated: beside the short-lived buffers of the transports, the few buffers kept after a burst would hold every
 * chunk the burst took. So this pool's buffers, kept or not, come from an allocator of its own
 * ({@link #ownAllocator()}: one arena, small chunks), and the shard's allocator holds only buffers of
 * microseconds. Within its own, the buffers still kept after a burst are spread over the chunks the burst took, a few
 * in each: once they hold more than {@link #SPARSE_FACTOR} times what the kept buffers take (and a few chunks),
 * {@link #trim} lets go of every one, free or in use, so the chunks empty and go back, and the buffers made again
 * fill few. It looks only after a trim let buffers go (the end of a burst; a steady load lets none go, so it never pays
 * for this), and the buffers it kept are let go at once, so no second time is needed for the ones in use then.
 *
 * <p><b>Reference counts.</b> Each kept buffer carries one reference owned by this pool. {@link #acquire} hands a
 * buffer out with one more reference, which passes with the buffer as usual (to a send, a transaction, Netty's write,
 * another shard) and is released by whoever ends its use, on any thread; derived buffers count on the same buffer. A
 * kept buffer whose count is back to 1 is free: the next {@link #acquire} that finds it clears its indexes and hands
 * it out again, or lets it go when it grew above {@link #MAX_KEPT_CAPACITY}. {@link #close}, letting go of a
 * sparse allocator's buffers ({@link #compactIfSparse}) and of a buffer held across trims ({@link #trim}) release the
 * pool's references, also on buffers still in use: their last holder frees them.
 *
 * <p><b>Trimming.</b> Once a second ({@link #trim}) the pool lets go of the free buffers that recent use does not
 * need: it keeps as many as were handed out over its last {@link #TRIM_WINDOW} trims (acquires take the kept buffers
 * in turn, so a load that hands out that many touches every one of them), at least twice the most found in use at
 * any of those trims, at least {@link #MIN_KEPT}, and no free buffer above {@link #MAX_KEPT_CAPACITY}. A steady load
 * so keeps its buffers and allocates nothing, while a burst (a flood of large messages, each held by a transaction for
 * its retransmissions) gives its memory back seconds after the traffic that needed it is gone. A buffer in use at two
 * trims in a row and not handed out between them (an answer a transaction keeps for its timer: a non-INVITE's final
 * response, 32 s) is no longer kept: the pool's reference is released, the holder's release frees it, and its slot
 * goes to a buffer that serves again; else a steady load would leave every kept buffer held so, and each
 * {@link #acquire} would look at {@link #PROBES} of them and then make a buffer anyway.
 *
 * <p><b>Threading.</b> {@link #acquire}, {@link #trim} and {@link #close} run on the owning shard's thread only; the
 * references handed out may be released on any thread (Netty's reference count is atomic, and a count of 1 read here
 * means nobody else holds the buffer); {@link #ownMemory} any thread.
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
    /** Page of {@link #ownAllocator()}: Netty's default. */
    static final int OWN_PAGE_SIZE = 8192;
    /** Chunk of {@link #ownAllocator()}: 2^5 pages of 8 KiB = 256 KiB, 16 of the largest kept buffers. */
    static final int OWN_MAX_ORDER = 5;
    /** The own allocator holding more than this times the kept buffers' capacity (and the slack) is sparse. */
    static final int SPARSE_FACTOR = 2;
    /**
     * Chunks a dense own allocator may hold beyond its kept buffers: Netty keeps an empty run of each size class
     * (five up to 16 KiB, {@link #roundedCapacity}) and its first chunk for good, each holding a chunk.
     */
    static final long SPARSE_SLACK_CHUNKS = 8;
    /** Most trims between two times the pool lets go of every free buffer of a sparse own allocator. */
    static final int MAX_COMPACTION_WAIT = 32 * TRIM_WINDOW;

    /** The shard's allocator, shared with the transports: {@link #trim} trims this thread's cache of it. */
    private final ByteBufAllocator shared;
    /** Where this pool's buffers come from; {@link #shared} itself when that is not a pooled allocator. */
    private final ByteBufAllocator own;
    /** {@link #own}'s metric when it is this pool's alone, else null (nothing to compact). */
    private final PooledByteBufAllocatorMetric ownMetric;
    private final ByteBuf[] kept;
    /** Per slot of {@link #kept}: its buffer was in use at the last trim and has not been handed out since. */
    private final boolean[] inUseAtTrim;
    private int count;
    private int cursor;
    private long reused;
    private long made;
    private long trimmed;
    private long letGoInUse;
    /** Buffers in use at each of the last {@link #TRIM_WINDOW} trims (a ring). */
    private final int[] inUseAtTrims = new int[TRIM_WINDOW];
    /** Buffers handed out in all ({@link #reused} + {@link #made}) at each of the last trims (the same ring). */
    private final long[] acquiredAtTrims = new long[TRIM_WINDOW];
    private int trimSlot;
    private boolean trimStarted;
    private long nextTrimNs;
    /** Trims since the last time every free kept buffer was let go (see the class); no such time yet: a window. */
    private int trimsSinceCompaction = TRIM_WINDOW;
    /** Trims from one such time to the next look at the own allocator ({@link #compactIfSparse}). */
    private int compactionWait = TRIM_WINDOW;
    /** A trim let buffers go since {@link #own} was last looked at for sparseness. */
    private boolean sparseCheckDue;
    private long compactions;

    /**
     * @param shared   the shard's allocator; when it is Netty's pooled allocator this pool's buffers come from an
     *                 {@link #ownAllocator()}, else from it.
     * @param capacity most buffers kept at once (in use or free); 0 keeps none.
     */
    OutboundBuffers(final ByteBufAllocator shared, final int capacity)
    {
        this(shared, shared instanceof PooledByteBufAllocator ? ownAllocator() : shared, capacity);
    }

    /**
     * @param own where this pool's buffers come from; compacted (see the class) when it is a pooled allocator other
     *            than {@code shared}, which nothing else uses.
     */
    OutboundBuffers(final ByteBufAllocator shared, final ByteBufAllocator own, final int capacity)
    {
        this.shared = shared;
        this.own = own;
        this.ownMetric = own != shared && own instanceof final PooledByteBufAllocator pooled ? pooled.metric() : null;
        this.kept = new ByteBuf[Math.max(0, capacity)];
        this.inUseAtTrim = new boolean[kept.length];
    }

    /**
     * A pooled allocator for one shard's outbound buffers: direct only, one arena (one shard allocates from it; its
     * lock is taken only when a buffer is made, grows or is let go, not when a kept one is reused), chunks of 256 KiB
     * (a chunk that a few kept buffers hold after a burst holds little), and Netty's thread cache for the shard's
     * thread, trimmed with every {@link #trim}: beyond the kept buffers (a load that holds more at once) each message
     * takes a buffer from the allocator and its holder frees it, and without the cache each would go to the arena,
     * where Netty makes and drops run and chunk records as buffers come and go, on the shard's heap.
     */
    static PooledByteBufAllocator ownAllocator()
    {
        return new PooledByteBufAllocator(true, 0, 1, OWN_PAGE_SIZE, OWN_MAX_ORDER,
            PooledByteBufAllocator.defaultSmallCacheSize(), PooledByteBufAllocator.defaultNormalCacheSize(), false, 0);
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
                forget(cursor);
                continue;
            }
            if (1 != references)
            {
                cursor++;
                continue;
            }
            if (buffer.capacity() > MAX_KEPT_CAPACITY)
            {
                forget(cursor); // let it go: the slot takes the last kept buffer
                buffer.release(); // the pool's reference: the buffer goes back to Netty's allocator
                continue;
            }
            inUseAtTrim[cursor] = false;
            cursor++;
            reused++;
            buffer.clear();
            return buffer.retain(); // the caller's reference
        }
        made++;
        final ByteBuf fresh = own.directBuffer(roundedCapacity(initialCapacity));
        if (count < kept.length && keeping())
        {
            inUseAtTrim[count] = false;
            kept[count++] = fresh.retain(); // the pool's own reference; the caller has the first
        }
        return fresh;
    }

    /**
     * {@code initialCapacity}, at least {@link #MIN_CAPACITY}, rounded up to a power of two, as a buffer grows anyway:
     * the own allocator sees few size classes, and Netty keeps one run of each class for good, holding its chunk.
     */
    static int roundedCapacity(final int initialCapacity)
    {
        final int wanted = Math.max(initialCapacity, MIN_CAPACITY);
        return wanted > 1 << 30 ? wanted : Integer.highestOneBit(wanted - 1) << 1;
    }

    /**
     * Lets go of the free kept buffers beyond what recent use needs (see the class), of any free one above
     * {@link #MAX_KEPT_CAPACITY}, and of those in use since the last trim ({@link #letGoInUse}, not counted in the
     * result: their holders free them); then, when that left the own allocator sparse, of every free one
     * ({@link #compactIfSparse}); then has Netty's allocator trim this thread's cache (what it cached and was
     * not allocated again since the last trim), so that what the pool let go is not kept there instead. Does nothing
     * until {@link #TRIM_PERIOD_NS} has passed since the last trim. Shard thread only; allocates nothing but when it
     * reads the own allocator's chunks (Netty's metric lists them), after a trim that let buffers go.
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
        long keptBytes = 0;
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
            else if (1 != references && inUseAtTrim[i])
            {
                forget(i); // held since the last trim (a transaction's answer kept for its timer): its slot serves
                buffer.release(); // the pool's reference: the holder's release frees it
                letGoInUse++;
            }
            else
            {
                inUseAtTrim[i] = 1 != references;
                keptBytes += buffer.capacity();
            }
        }
        sparseCheckDue |= released > 0;
        released += compactIfSparse(keptBytes);
        if (cursor >= count)
        {
            cursor = 0;
        }
        if (shared instanceof final PooledByteBufAllocator pooled)
        {
            // Netty trims a thread's cache only every few thousand allocations by that thread: a shard gone quiet after
            // a burst would keep the transports' cached buffers, and with them whole chunks, for good
            pooled.trimCurrentThreadCache();
        }
        TlsAllocator.SHARED.trim(nowNs); // the TLS connections' heap records: the free arrays no longer used
        if (null != ownMetric)
        {
            ((PooledByteBufAllocator)own).trimCurrentThreadCache(); // what the pool let go is not kept there instead
        }
        trimmed += released;
        return released;
    }

    /**
     * Lets go of every free kept buffer when the own allocator holds more than {@link #SPARSE_FACTOR} times the
     * capacity of the kept buffers, and {@link #SPARSE_SLACK_CHUNKS} chunks; the ones in use too, which go back when
     * their holder releases them (the pool no longer keeps them), so that nothing of the burst stays kept. Looked at
     * only after a trim that let buffers go (the end of a burst: a steady load lets none go), a window of trims after
     * the last time at the soonest, and twice as long each time it is found sparse again (at most
     * {@link #MAX_COMPACTION_WAIT}): a load that comes and goes cannot make the pool let go of its buffers every
     * window.
     *
     * @param keptBytes the capacity of the buffers kept now, in use or free.
     * @return the buffers let go.
     */
    private int compactIfSparse(final long keptBytes)
    {
        if (trimsSinceCompaction < compactionWait)
        {
            trimsSinceCompaction++;
        }
        if (null == ownMetric || !sparseCheckDue || trimsSinceCompaction < compactionWait)
        {
            return 0;
        }
        sparseCheckDue = false;
        final long held = ownMetric.usedDirectMemory();
        if (held <= SPARSE_FACTOR * keptBytes + SPARSE_SLACK_CHUNKS * ownMetric.chunkSize())
        {
            compactionWait = TRIM_WINDOW;
            return 0;
        }
        if (compactions > 0)
        {
            compactionWait = Math.min(2 * compactionWait, MAX_COMPACTION_WAIT);
        }
        trimsSinceCompaction = 0;
        compactions++;
        final int released = count;
        for (int i = 0; i < count; i++)
        {
            final ByteBuf buffer = kept[i];
            kept[i] = null;
            if (buffer.refCnt() > 0) // not already freed by a holder's extra release
            {
                // The pool's reference: a free buffer goes back now, one in use when its holder releases it
                buffer.release();
            }
        }
        count = 0;
        return released;
    }

    /** Drops slot {@code slot}, which takes the last kept buffer (and what the last trim saw of it). */
    private void forget(final int slot)
    {
        kept[slot] = kept[--count];
        inUseAtTrim[slot] = inUseAtTrim[count];
        kept[count] = null;
    }

    /** Times {@link #trim} found the own allocator sparse and let go of every free kept buffer. */
    long compactions()
    {
        return compactions;
    }

    /**
     * Direct memory this pool's own allocator holds, in chunks (0 when its buffers come from the shard's allocator);
     * any thread.
     */
    long ownMemory()
    {
        return null == ownMetric ? 0 : ownMetric.usedDirectMemory();
    }

    /** Buffers let go by {@link #trim}. */
    long trimmed()
    {
        return trimmed;
    }

    /** Buffers in use at two trims in a row, not handed out between them, that the pool stopped keeping. */
    long letGoInUse()
    {
        return letGoInUse;
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
