package io.sipline.sip.transport.tcp;

import io.sipline.sip.collection.RecentFreeList;

/**
 * The byte arrays behind the TLS connections' heap buffers ({@link TlsAllocator}): arrays of {@link #MIN_POOLED} to
 * {@link #MAX_POOLED} bytes, in size classes of {@link #CLASS_STEP}, kept for reuse when their buffer is released and
 * let go once they are no longer used, so that what stays after a burst of TLS records is nothing.
 *
 * <p>Why not a pooled allocator of Netty's: an arena there keeps chunks it will never free (an arena's first chunk
 * list, the last subpage of each size class), so a burst of records left chunks behind for good. Here each class is a
 * {@link RecentFreeList}: {@link #trim} (once a second, from the shards) keeps as many free arrays as the last ten
 * seconds took, and none when nothing did. An array of another size is made and dropped as asked.
 *
 * <p>Threading: any thread (a buffer may be released on another thread than its loop); one lock for all classes, held
 * for a push or a pop: the TLS loops are few and take a record's array once per record.
 *
 * <p>Ownership: an array given back belongs to the pool; the caller keeps no reference to it. An array handed out
 * belongs to the caller, and is not cleared (a heap buffer's bytes are undefined until written).
 */
final class HeapArrayPool
{
    /** Smaller requests get an array of their own size, not kept. */
    static final int MIN_POOLED = 1024;
    /** The size classes: multiples of this, up to {@link #MAX_POOLED}. */
    static final int CLASS_STEP = 4096;
    /** Four times the JDK engine's 16,709-byte record buffer; larger requests get an array of their own. */
    static final int MAX_POOLED = 65_536;
    /** Free arrays kept per class at most. */
    static final int MAX_FREE_PER_CLASS = 64;

    private final RecentFreeList<byte[]>[] classes;
    private long made;

    @SuppressWarnings({"unchecked", "rawtypes"})
    HeapArrayPool()
    {
        classes = new RecentFreeList[MAX_POOLED / CLASS_STEP];
        for (int i = 0; i < classes.length; i++)
        {
            classes[i] = new RecentFreeList<>(MAX_FREE_PER_CLASS, 0);
        }
    }

    /** The length of the array {@link #take} gives for {@code size} bytes: its class's, or {@code size} itself. */
    static int arrayLength(final int size)
    {
        return size < MIN_POOLED || size > MAX_POOLED ? size : (size + CLASS_STEP - 1) / CLASS_STEP * CLASS_STEP;
    }

    /** An array of {@link #arrayLength}{@code (size)} bytes, a kept one when there is one. */
    byte[] take(final int size)
    {
        if (size < MIN_POOLED || size > MAX_POOLED)
        {
            return new byte[size];
        }
        final int length = arrayLength(size);
        final byte[] kept;
        synchronized (this)
        {
            kept = classes[length / CLASS_STEP - 1].take();
            if (null == kept)
            {
                made++;
            }
        }
        return null != kept ? kept : new byte[length];
    }

    /** Gives back an array no longer used: kept when it is of a class and its class has room, else dropped. */
    void give(final byte[] array)
    {
        final int length = array.length;
        if (length < CLASS_STEP || length > MAX_POOLED || 0 != length % CLASS_STEP)
        {
            return;
        }
        synchronized (this)
        {
            classes[length / CLASS_STEP - 1].give(array);
        }
    }

    /** Once a second (earlier calls do nothing): each class keeps what the last ten seconds took. */
    void trim(final long nowNs)
    {
        synchronized (this)
        {
            for (final RecentFreeList<byte[]> free : classes)
            {
                free.trim(nowNs);
            }
        }
    }

    /** The bytes of the free arrays kept. */
    synchronized long keptBytes()
    {
        long bytes = 0;
        for (int i = 0; i < classes.length; i++)
        {
            bytes += (long)classes[i].size() * (i + 1) * CLASS_STEP;
        }
        return bytes;
    }

    /** Arrays of a class made because none was free. */
    synchronized long made()
    {
        return made;
    }
}
