package io.sipline.sip.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;

import io.netty.buffer.ByteBuf;

/**
 * One shard's batched reads of its UDP sockets with {@code recvmmsg(2)}: up to {@link #slots()} datagrams per downcall,
 * each into a slot of its own (buffer, {@code sockaddr}, control buffer with its {@code SO_TIMESTAMPNS} time), where
 * {@link UdpRecvMsg} takes one downcall per datagram and one more, failing with {@code EAGAIN}, to end each batch.
 * <pre>
 * struct mmsghdr (64 bytes, LP64), one per slot, in one array
 *   struct msghdr msg_hdr  @0  (56 bytes, as drawn in UdpRecvMsg; msg_iovlen = 1)
 *   unsigned      msg_len  @56 (out: the datagram's length)
 * </pre>
 * Per slot beside it: an {@code iovec} (16 bytes), a {@code sockaddr_in6}-sized name (32 bytes) and
 * {@link UdpRecvMsg#CONTROL_BYTES} of control; senders come from the shard's {@link UdpRecvMsg} and its cache.
 *
 * <p>Buffers: the caller lends one direct buffer per slot, each of {@link UdpTransport#RECEIVE_BUFFER_BYTES}, larger
 * than any UDP payload: the kernel cuts a datagram longer than its slot ({@code MSG_TRUNC}) and the rest of a batch is
 * already read by then, so a slot smaller than the largest datagram would lose data that one read at a time keeps.
 * That is 64 KiB per slot, 1 MiB per shard with 16 slots, of which each datagram touches only its own bytes. The
 * native headers are allocated once here; nothing is allocated per call. Linux x86-64 and AArch64 only
 * ({@link #AVAILABLE}). Not thread-safe: one per shard, on its loop only.
 */
final class UdpRecvMmsg
{
    /** True where {@code recvmmsg} can be called (as {@link UdpRecvMsg#AVAILABLE}, and libc has it). */
    static final boolean AVAILABLE = UdpRecvMsg.AVAILABLE && null != UdpRecvMsg.RECVMMSG
        && null != UdpRecvMsg.RECVMMSG_ERRNO;

    private static final int MMSGHDR_BYTES = 64;
    private static final long MSG_NAME = UdpRecvMsg.MSG_NAME;
    private static final long MSG_NAMELEN = UdpRecvMsg.MSG_NAMELEN;
    private static final long MSG_IOV = UdpRecvMsg.MSG_IOV;
    private static final long MSG_IOVLEN = UdpRecvMsg.MSG_IOVLEN;
    private static final long MSG_CONTROL = UdpRecvMsg.MSG_CONTROL;
    private static final long MSG_CONTROLLEN = UdpRecvMsg.MSG_CONTROLLEN;
    private static final long MSG_FLAGS = UdpRecvMsg.MSG_FLAGS;
    /** After the {@code msghdr}: the datagram's length. */
    private static final long MSG_LEN = UdpRecvMsg.MSGHDR_BYTES;
    private static final int IOVEC_BYTES = 16;
    private static final int NAME_BYTES = 32;

    private final UdpRecvMsg single;
    private final int slots;
    private final long controlBytes;
    private final long controlStride;
    private final MemorySegment callState;
    private final MemorySegment vector;
    private final MemorySegment iovs;
    private final MemorySegment names;
    private final MemorySegment controls;
    /** Per slot, of the last batch: the kernel's receive time (0: none) and {@code msg_flags}. */
    private final long[] receivedAtNanos;
    private final int[] flags;

    /**
     * @param single the shard's one-datagram reader, whose sender cache this shares.
     * @param slots  datagrams per call at most.
     */
    UdpRecvMmsg(final UdpRecvMsg single, final int slots)
    {
        this(single, slots, UdpRecvMsg.CONTROL_BYTES);
    }

    /** @param controlBytes room offered for each slot's control messages; tests pass less to see {@code MSG_CTRUNC}. */
    UdpRecvMmsg(final UdpRecvMsg single, final int slots, final int controlBytes)
    {
        if (!AVAILABLE)
        {
            throw new IllegalStateException("recvmmsg through FFM is not available here");
        }
        if (slots < 1)
        {
            throw new IllegalArgumentException("slots " + slots);
        }
        this.single = single;
        this.slots = slots;
        this.controlBytes = controlBytes;
        this.controlStride = Math.max(8, controlBytes + 7 & ~7L);
        final Arena arena = Arena.ofAuto(); // freed by the GC after this object; any thread
        callState = arena.allocate(UdpRecvMsg.CALL_STATE);
        vector = arena.allocate((long)MMSGHDR_BYTES * slots, 8);
        iovs = arena.allocate((long)IOVEC_BYTES * slots, 8);
        names = arena.allocate((long)NAME_BYTES * slots, 8);
        controls = arena.allocate(controlStride * slots, 8);
        receivedAtNanos = new long[slots];
        flags = new int[slots];
        for (int i = 0; i < slots; i++)
        {
            final long h = (long)MMSGHDR_BYTES * i;
            vector.set(ValueLayout.JAVA_LONG, h + MSG_IOV, iovs.address() + (long)IOVEC_BYTES * i);
            vector.set(ValueLayout.JAVA_LONG, h + MSG_IOVLEN, 1L);
            vector.set(ValueLayout.JAVA_LONG, h + MSG_CONTROL, controls.address() + controlStride * i);
        }
    }

    /** The most datagrams one call reads. */
    int slots()
    {
        return slots;
    }

    /**
     * Reads up to {@code count} datagrams of the unconnected socket {@code fd} without blocking, datagram {@code i}
     * into {@code into[i]} (its whole capacity, from index 0; the indexes are set to the datagram's bytes), its
     * source and receive time into slot {@code i} ({@link #sender}, {@link #receivedAtNanos}). Fewer than
     * {@code count} means the socket's queue was found empty. No errno: for the reason of a failure,
     * {@link #receiveOrErrno}.
     *
     * @param into borrowed: direct buffers with a memory address, each of at least the largest UDP payload.
     * @return how many were read (at least 1), or -1 when the call failed (most often {@code EAGAIN}).
     */
    int receive(final int fd, final ByteBuf[] into, final int count)
    {
        final int n = prepare(into, count, true);
        final int read;
        try
        {
            read = (int)UdpRecvMsg.RECVMMSG.invokeExact(fd, vector, n, UdpRecvMsg.MSG_DONTWAIT, MemorySegment.NULL);
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable e)
        {
            throw new IllegalStateException(e);
        }
        return read < 0 ? -1 : received(into, read);
    }

    /**
     * As {@link #receive}, with the reason of a failure; {@code withSource} false for a connected socket (its peer
     * is the source: no name read, {@link #sender} not to be called). A pending socket error ({@code ECONNREFUSED}
     * after an ICMP port unreachable) fails the call that finds it before any datagram; found after some, the kernel
     * keeps it for the next call.
     *
     * @return how many were read (at least 1), or minus the errno ({@code -EAGAIN}: nothing left to read).
     */
    int receiveOrErrno(final int fd, final ByteBuf[] into, final int count, final boolean withSource)
    {
        final int n = prepare(into, count, withSource);
        final int read;
        try
        {
            read = (int)UdpRecvMsg.RECVMMSG_ERRNO.invokeExact(callState, fd, vector, n, UdpRecvMsg.MSG_DONTWAIT,
                MemorySegment.NULL);
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable e)
        {
            throw new IllegalStateException(e);
        }
        return read < 0 ? -Math.max(1, (int)UdpRecvMsg.ERRNO.get(callState, 0L)) : received(into, read);
    }

    /** Points the first {@code count} slots at their buffers, names (or none) and control room; their number. */
    private int prepare(final ByteBuf[] into, final int count, final boolean withSource)
    {
        final int n = Math.min(Math.min(count, slots), into.length);
        for (int i = 0; i < n; i++)
        {
            final long h = (long)MMSGHDR_BYTES * i;
            final long v = (long)IOVEC_BYTES * i;
            iovs.set(ValueLayout.JAVA_LONG, v, into[i].memoryAddress());
            iovs.set(ValueLayout.JAVA_LONG, v + 8, into[i].capacity());
            vector.set(ValueLayout.JAVA_LONG, h + MSG_NAME, withSource ? names.address() + (long)NAME_BYTES * i : 0L);
            vector.set(ValueLayout.JAVA_INT, h + MSG_NAMELEN, withSource ? UdpSendTo.SOCKADDR_IN6_BYTES : 0);
            vector.set(ValueLayout.JAVA_LONG, h + MSG_CONTROLLEN, controlBytes);
            vector.set(ValueLayout.JAVA_INT, h + MSG_FLAGS, 0);
        }
        return n;
    }

    /** After a successful call: each slot's buffer indexes, flags and timestamp. */
    private int received(final ByteBuf[] into, final int read)
    {
        for (int i = 0; i < read; i++)
        {
            final long h = (long)MMSGHDR_BYTES * i;
            into[i].setIndex(0, vector.get(ValueLayout.JAVA_INT, h + MSG_LEN));
            final int f = vector.get(ValueLayout.JAVA_INT, h + MSG_FLAGS);
            flags[i] = f;
            receivedAtNanos[i] = 0 != (f & UdpRecvMsg.MSG_CTRUNC) ? 0 : UdpRecvMsg.kernelTime(controls,
                controlStride * i, Math.min(controlBytes, vector.get(ValueLayout.JAVA_LONG, h + MSG_CONTROLLEN)));
        }
        return read;
    }

    /** The kernel's receive time of slot {@code i}'s datagram, as {@link UdpRecvMsg#receivedAtNanos()}; 0 for none. */
    long receivedAtNanos(final int i)
    {
        return receivedAtNanos[i];
    }

    /** True when slot {@code i}'s datagram was longer than its buffer ({@code MSG_TRUNC}): its tail is lost. */
    boolean truncated(final int i)
    {
        return 0 != (flags[i] & UdpRecvMsg.MSG_TRUNC);
    }

    /** True when slot {@code i}'s datagram lost control data ({@code MSG_CTRUNC}): it has no receive time. */
    boolean controlTruncated(final int i)
    {
        return 0 != (flags[i] & UdpRecvMsg.MSG_CTRUNC);
    }

    /**
     * The source of slot {@code i}'s datagram read from an unconnected socket, from the shard's cache
     * ({@link UdpRecvMsg#sender()}); null for a family other than IPv4 and IPv6.
     */
    InetSocketAddress sender(final int i)
    {
        return single.sender(names, (long)NAME_BYTES * i);
    }
}
