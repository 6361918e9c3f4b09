package io.sipline.sip.message;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import io.netty.buffer.ByteBuf;

/**
 * Copies between a Netty {@link ByteBuf} and a {@code byte[]} without allocating, eight bytes at a time.
 *
 * <p>Why not {@code getBytes}/{@code writeBytes}: without {@code sun.misc.Unsafe} (Netty's default on JDK 25) a bulk
 * copy out of or into a pooled direct buffer goes through the buffer's NIO view, and a pooled buffer makes that view
 * anew ({@code ByteBuffer.duplicate()}, 64 bytes) the first time it is asked for after each allocation; a slice or a
 * duplicate makes one on every call. {@code getLong}/{@code setLong} read and write through the buffer's memory with
 * absolute positions and allocate nothing. Heap buffers keep {@code System.arraycopy}.
 *
 * <p>Stateless; thread-safe. Neither method moves the indexes of the buffer it reads.
 */
public final class ByteBufCopy
{
    /** Eight bytes of a {@code byte[]} as one long, in the order {@link ByteBuf#getLong} reads them. */
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private ByteBufCopy()
    {
    }

    /**
     * Copies {@code length} bytes of {@code src} from {@code index} into {@code dst[dstOffset...]}.
     *
     * @param src borrowed; its indexes are not moved.
     */
    public static void copyOut(final ByteBuf src, final int index, final byte[] dst, final int dstOffset,
        final int length)
    {
        if (src.hasArray())
        {
            System.arraycopy(src.array(), src.arrayOffset() + index, dst, dstOffset, length);
            return;
        }
        final int longs = length & ~7;
        int i = 0;
        for (; i < longs; i += 8)
        {
            LONG_BE.set(dst, dstOffset + i, src.getLong(index + i));
        }
        for (; i < length; i++)
        {
            dst[dstOffset + i] = src.getByte(index + i);
        }
    }

    /**
     * Appends {@code src[offset, offset + length)} to {@code dst} at its writer index (grown if needed), which moves
     * past the bytes.
     */
    public static void write(final byte[] src, final int offset, final int length, final ByteBuf dst)
    {
        if (dst.hasArray())
        {
            dst.writeBytes(src, offset, length);
            return;
        }
        dst.ensureWritable(length);
        final int at = dst.writerIndex();
        final int longs = length & ~7;
        int i = 0;
        for (; i < longs; i += 8)
        {
            dst.setLong(at + i, (long)LONG_BE.get(src, offset + i));
        }
        for (; i < length; i++)
        {
            dst.setByte(at + i, src[offset + i]);
        }
        dst.writerIndex(at + length);
    }
}
