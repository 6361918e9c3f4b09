package io.sipline.sip.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.Locale;

import io.netty.buffer.ByteBuf;

/**
 * One shard's reads of its UDP sockets with {@code recvmsg(2)}, through the FFM API (a {@link Linker} downcall to
 * libc), with the kernel's receive timestamp of each datagram ({@code SO_TIMESTAMPNS}, socket(7), the time base of
 * {@link RealtimeClock}) and the senders' addresses cached for reuse ({@link #sender()}). {@link UdpShardReads} reads
 * a socket's duplicate descriptor ({@link #dup}) with it, in place of Netty's read, which allocates per datagram,
 * where its reads are not batched with {@link UdpRecvMmsg} (which shares this object's sender cache, downcall handles
 * and control-message walk, {@link #kernelTime}).
 * <pre>
 * struct msghdr (56 bytes, LP64)            struct iovec (16 bytes)      struct cmsghdr + timespec (32 bytes)
 *   void  *msg_name        @0                 void  *iov_base  @0          size_t cmsg_len   = 32        @0
 *   u32    msg_namelen     @8                 size_t iov_len   @8          int    cmsg_level = SOL_SOCKET @8
 *   struct iovec *msg_iov  @16                                             int    cmsg_type  = SCM_TIMESTAMPNS @12
 *   size_t msg_iovlen = 1  @24                                             long   tv_sec             @16
 *   void  *msg_control     @32                                             long   tv_nsec            @24
 *   size_t msg_controllen  @40 (in: room; out: bytes written)
 *   int    msg_flags       @48 (out: MSG_TRUNC, MSG_CTRUNC)
 * </pre>
 * The sockaddr layouts are drawn in {@link UdpSendTo}; an IPv4-mapped IPv6 source (RFC 4291 §2.5.5.2) is returned as
 * an IPv4 address. {@link #receivedAtNanos()} is 0 when the datagram came without a timestamp.
 *
 * <p>Buffers: the receive methods borrow the shard's direct buffer, writing the datagram at its start; nothing is
 * allocated per datagram (one reused {@code msghdr}, {@code iovec}, {@code sockaddr} and control buffer). Available
 * on Linux x86-64 and AArch64 ({@link #AVAILABLE}). Not thread-safe: one per shard, on its loop only.
 */
final class UdpRecvMsg
{
    /** Linux {@code EAGAIN} (= {@code EWOULDBLOCK}): nothing left to read on a non-blocking socket. */
    static final int EAGAIN = 11;
    /** Linux {@code ECONNREFUSED}: on a connected UDP socket, an ICMP port unreachable came back (RFC 3261 §18.4). */
    static final int ECONNREFUSED = 111;
    /** Linux {@code MSG_DONTWAIT}: never block, even if the socket were blocking. */
    static final int MSG_DONTWAIT = 0x40;
    /** Linux {@code MSG_CTRUNC} (in {@code msg_flags}): some control data was lost for lack of room. */
    static final int MSG_CTRUNC = 0x08;
    /** Linux {@code MSG_TRUNC} (in {@code msg_flags}): the datagram was longer than the buffer. */
    static final int MSG_TRUNC = 0x20;
    /** {@code SOL_SOCKET} (x86-64 and AArch64). */
    static final int SOL_SOCKET = 1;
    /**
     * {@code SO_TIMESTAMPNS} (= {@code SO_TIMESTAMPNS_OLD}, whose {@code timespec} has 64-bit fields on LP64), and the
     * type of its control message {@code SCM_TIMESTAMPNS} (x86-64 and AArch64: asm-generic/socket.h).
     */
    static final int SO_TIMESTAMPNS = 35;
    /** Room for control messages: {@code CMSG_SPACE(sizeof(struct timespec))} = 32, and as much again to spare. */
    static final int CONTROL_BYTES = 64;
    /** Senders kept per family; a power of two. */
    static final int SENDER_SLOTS = 4096;

    /** {@code struct msghdr}'s size and field offsets (LP64, drawn above); {@link UdpRecvMmsg} lays out the same. */
    static final int MSGHDR_BYTES = 56;
    static final long MSG_NAME = 0;
    static final long MSG_NAMELEN = 8;
    static final long MSG_IOV = 16;
    static final long MSG_IOVLEN = 24;
    static final long MSG_CONTROL = 32;
    static final long MSG_CONTROLLEN = 40;
    static final long MSG_FLAGS = 48;
    private static final int CMSGHDR_BYTES = 16;
    private static final int CMSG_TIMESPEC_BYTES = CMSGHDR_BYTES + 16;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** True where the downcalls can be made: Linux on x86-64 or AArch64, with the functions found in libc. */
    static final boolean AVAILABLE;
    /**
     * {@code ssize_t recvmsg(int fd, struct msghdr *msg, int flags)}. Without the call state: capturing it costs a
     * 40-byte segment per call until the JIT's escape analysis removes it (C1 does not), and every batch of
     * reads on a listening socket ends with a call that fails ({@code EAGAIN}).
     */
    private static final MethodHandle RECVMSG;
    /** The same, with {@code errno} captured into a segment passed first: to tell why a call failed. */
    private static final MethodHandle RECVMSG_ERRNO;
    /**
     * {@code int recvmmsg(int fd, struct mmsghdr *vector, unsigned vlen, int flags, struct timespec *timeout)}, for
     * {@link UdpRecvMmsg}; null where libc has none. Without the call state, as {@link #RECVMSG}.
     */
    static final MethodHandle RECVMMSG;
    /** The same, with {@code errno} captured into a segment passed first. */
    static final MethodHandle RECVMMSG_ERRNO;
    /** {@code int dup(int fd)}, errno captured. */
    private static final MethodHandle DUP;
    /** {@code int setsockopt(int fd, int level, int name, const void *value, socklen_t length)}, errno captured. */
    private static final MethodHandle SETSOCKOPT;
    /** The layout of the call state the {@code _ERRNO} handles capture into, and its {@code errno}. */
    static final StructLayout CALL_STATE;
    static final VarHandle ERRNO;

    static
    {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        MethodHandle recvmsg = null;
        MethodHandle recvmsgErrno = null;
        MethodHandle recvmmsg = null;
        MethodHandle recvmmsgErrno = null;
        MethodHandle dup = null;
        MethodHandle setsockopt = null;
        StructLayout state = null;
        VarHandle errno = null;
        if (os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64")))
        {
            try
            {
                final Linker linker = Linker.nativeLinker();
                final SymbolLookup libc = linker.defaultLookup();
                final Linker.Option capture = Linker.Option.captureCallState("errno");
                final FunctionDescriptor type = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                    ValueLayout.ADDRESS, ValueLayout.JAVA_INT);
                recvmsg = libc.find("recvmsg").map(symbol -> downcall(linker, symbol, type)).orElse(null);
                recvmsgErrno = libc.find("recvmsg").map(symbol -> downcall(linker, symbol, type, capture))
                    .orElse(null);
                final FunctionDescriptor batch = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS);
                recvmmsg = libc.find("recvmmsg").map(symbol -> downcall(linker, symbol, batch)).orElse(null);
                recvmmsgErrno = libc.find("recvmmsg").map(symbol -> downcall(linker, symbol, batch, capture))
                    .orElse(null);
                dup = libc.find("dup").map(symbol -> downcall(linker, symbol,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT), capture)).orElse(null);
                setsockopt = libc.find("setsockopt").map(symbol -> downcall(linker, symbol,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT), capture)).orElse(null);
                state = Linker.Option.captureStateLayout();
                errno = state.varHandle(MemoryLayout.PathElement.groupElement("errno"));
            }
            catch (final RuntimeException | LinkageError e)
            {
                recvmsg = null; // no native access: Netty keeps reading
                recvmmsg = null;
            }
        }
        RECVMSG = recvmsg;
        RECVMSG_ERRNO = recvmsgErrno;
        RECVMMSG = null == recvmsg ? null : recvmmsg;
        RECVMMSG_ERRNO = null == recvmsg ? null : recvmmsgErrno;
        DUP = dup;
        SETSOCKOPT = setsockopt;
        CALL_STATE = state;
        ERRNO = errno;
        AVAILABLE = null != recvmsg && null != recvmsgErrno && null != dup && null != setsockopt;
    }

    /**
     * A downcall handle to {@code symbol} of libc. {@link Linker#downcallHandle} is a restricted method, allowed by
     * {@code --enable-native-access}; without it, it throws and the caller falls back to Netty.
     */
    @SuppressWarnings("restricted")
    private static MethodHandle downcall(final Linker linker, final MemorySegment symbol, final FunctionDescriptor type,
        final Linker.Option... options)
    {
        return linker.downcallHandle(symbol, type, options);
    }

    private final MemorySegment callState;
    private final MemorySegment from;
    private final MemorySegment header;
    private final MemorySegment iov;
    private final MemorySegment control;
    private final MemorySegment one;
    private final long controlBytes;
    private final ValueLayout.OfShort familyLayout = ValueLayout.JAVA_SHORT.withOrder(ByteOrder.nativeOrder());
    private final ValueLayout.OfShort portLayout = ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);
    private final ValueLayout.OfInt addressLayout = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    private final ValueLayout.OfLong address6Layout = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN);
    private final ValueLayout.OfInt hostIntLayout = ValueLayout.JAVA_INT.withOrder(ByteOrder.nativeOrder());
    private final ValueLayout.OfLong hostLongLayout = ValueLayout.JAVA_LONG.withOrder(ByteOrder.nativeOrder());

    /** IPv4 senders: key {@code 1 << 48 | address << 16 | port} (0 = empty), and the address made for it. */
    private final long[] keys4 = new long[SENDER_SLOTS];
    private final InetSocketAddress[] senders4 = new InetSocketAddress[SENDER_SLOTS];
    /** IPv6 senders: the address's two halves, {@code port << 32 | scope id}, and the address made for them. */
    private final long[] high6 = new long[SENDER_SLOTS];
    private final long[] low6 = new long[SENDER_SLOTS];
    private final long[] portScope6 = new long[SENDER_SLOTS];
    private final InetSocketAddress[] senders6 = new InetSocketAddress[SENDER_SLOTS];
    private long senderMisses;
    /** The kernel's receive time of the last datagram read, or 0 (see {@link #receivedAtNanos()}). */
    private long receivedAtNanos;
    /** {@code msg_flags} of the last datagram read. */
    private int flags;

    UdpRecvMsg()
    {
        this(CONTROL_BYTES);
    }

    /** @param controlBytes room offered for control messages; tests pass less to see {@code MSG_CTRUNC}. */
    UdpRecvMsg(final int controlBytes)
    {
        if (!AVAILABLE)
        {
            throw new IllegalStateException("recvmsg through FFM is not available here");
        }
        final Arena arena = Arena.ofAuto(); // freed by the GC after this object; any thread
        callState = arena.allocate(CALL_STATE);
        from = arena.allocate(UdpSendTo.SOCKADDR_IN6_BYTES, 8);
        header = arena.allocate(MSGHDR_BYTES, 8);
        iov = arena.allocate(16, 8);
        control = arena.allocate(Math.max(8, controlBytes), 8);
        one = arena.allocate(ValueLayout.JAVA_INT);
        one.set(ValueLayout.JAVA_INT, 0, 1);
        this.controlBytes = controlBytes;
        header.set(hostLongLayout, MSG_IOV, iov.address());
        header.set(hostLongLayout, MSG_IOVLEN, 1L);
    }

    /** A new descriptor for the socket of {@code fd} ({@code dup(2)}), or minus the errno. */
    int dup(final int fd)
    {
        final int copy;
        try
        {
            copy = (int)DUP.invokeExact(callState, fd);
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable e)
        {
            throw new IllegalStateException(e);
        }
        return copy >= 0 ? copy : -Math.max(1, (int)ERRNO.get(callState, 0L));
    }

    /**
     * Turns {@code SO_TIMESTAMPNS} on for the socket of {@code fd} (any descriptor of it: the option belongs to the
     * socket), so that every datagram read from then on carries its kernel receive time.
     *
     * @return 0, or minus the errno.
     */
    int enableTimestamps(final int fd)
    {
        final int result;
        try
        {
            result = (int)SETSOCKOPT.invokeExact(callState, fd, SOL_SOCKET, SO_TIMESTAMPNS, one,
                (int)ValueLayout.JAVA_INT.byteSize());
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable e)
        {
            throw new IllegalStateException(e);
        }
        return 0 == result ? 0 : -Math.max(1, (int)ERRNO.get(callState, 0L));
    }

    /**
     * Reads one datagram of the unconnected socket {@code fd} into {@code into} (its whole capacity, from index 0;
     * the indexes are set to the datagram's bytes), its source into this object ({@link #sender()}) and its receive
     * time ({@link #receivedAtNanos()}), without blocking.
     *
     * @param into borrowed: a direct buffer with a memory address, of at least the largest UDP payload.
     * @return the datagram's length, or -1 when the call failed (most often {@code EAGAIN}: nothing left to read;
     *         {@link #receiveOrErrno} tells).
     */
    int receive(final int fd, final ByteBuf into)
    {
        prepare(into, true);
        final long n;
        try
        {
            n = (long)RECVMSG.invokeExact(fd, header, MSG_DONTWAIT);
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable e)
        {
            throw new IllegalStateException(e);
        }
        if (n < 0)
        {
            return -1;
        }
        return received(into, n);
    }

    /**
     * As {@link #receive}, with the reason of a failure.
     *
     * @return the datagram's length, or minus the errno ({@code -EAGAIN}: nothing left to read).
     */
    int receiveOrErrno(final int fd, final ByteBuf into)
    {
        return receiveOrErrno(fd, into, true);
    }

    /**
     * Reads one datagram of the connected socket {@code fd}, as {@link #receiveOrErrno} but without its source (the
     * socket's peer; {@link #sender()} is not to be called after it). Always with the reason of a failure: a pending
     * socket error ({@code ECONNREFUSED} after an ICMP port unreachable) is reported, and cleared, by the first read
     * that finds it, whichever read of a batch that is.
     *
     * @return the datagram's length, or minus the errno ({@code -EAGAIN}: nothing left to read).
     */
    int receiveConnected(final int fd, final ByteBuf into)
    {
        return receiveOrErrno(fd, into, false);
    }

    private int receiveOrErrno(final int fd, final ByteBuf into, final boolean withSource)
    {
        prepare(into, withSource);
        final long n;
        try
        {
            n = (long)RECVMSG_ERRNO.invokeExact(callState, fd, header, MSG_DONTWAIT);
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable e)
        {
            throw new IllegalStateException(e);
        }
        if (n < 0)
        {
            return -Math.max(1, (int)ERRNO.get(callState, 0L));
        }
        return received(into, n);
    }

    /** Points the reused {@code msghdr} at {@code into}, the sockaddr (or none) and the control buffer. */
    private void prepare(final ByteBuf into, final boolean withSource)
    {
        iov.set(hostLongLayout, 0, into.memoryAddress());
        iov.set(hostLongLayout, 8, into.capacity());
        header.set(hostLongLayout, MSG_NAME, withSource ? from.address() : 0L);
        header.set(hostIntLayout, MSG_NAMELEN, withSource ? UdpSendTo.SOCKADDR_IN6_BYTES : 0);
        header.set(hostLongLayout, MSG_CONTROL, control.address());
        header.set(hostLongLayout, MSG_CONTROLLEN, controlBytes);
        header.set(hostIntLayout, MSG_FLAGS, 0);
        receivedAtNanos = 0;
        flags = 0;
    }

    /** After a successful call: the buffer's indexes, the flags, the timestamp. */
    private int received(final ByteBuf into, final long n)
    {
        into.setIndex(0, (int)n);
        flags = header.get(hostIntLayout, MSG_FLAGS);
        if (0 == (flags & MSG_CTRUNC))
        {
            receivedAtNanos = kernelTime(control, 0, Math.min(controlBytes, header.get(hostLongLayout,
                MSG_CONTROLLEN)));
        }
        return (int)n;
    }

    /**
     * The {@code SCM_TIMESTAMPNS} time in the control messages the kernel wrote at {@code base} of {@code control}
     * ({@code written} bytes, no more than their room), walking them: nanoseconds since the epoch, or 0 for none.
     */
    static long kernelTime(final MemorySegment control, final long base, final long written)
    {
        final ValueLayout.OfLong hostLong = ValueLayout.JAVA_LONG;
        final ValueLayout.OfInt hostInt = ValueLayout.JAVA_INT;
        long at = 0;
        while (at + CMSGHDR_BYTES <= written)
        {
            final long length = control.get(hostLong, base + at);
            if (length < CMSGHDR_BYTES || at + length > written)
            {
                return 0; // malformed: nothing further can be trusted
            }
            if (SOL_SOCKET == control.get(hostInt, base + at + 8)
                && SO_TIMESTAMPNS == control.get(hostInt, base + at + 12) && length >= CMSG_TIMESPEC_BYTES)
            {
                final long seconds = control.get(hostLong, base + at + CMSGHDR_BYTES);
                final long nanos = control.get(hostLong, base + at + CMSGHDR_BYTES + 8);
                return seconds > 0 && nanos >= 0 && nanos < NANOS_PER_SECOND ? seconds * NANOS_PER_SECOND + nanos : 0;
            }
            at += length + 7 & ~7L; // CMSG_ALIGN
        }
        return 0;
    }

    /**
     * The kernel's receive time of the last datagram read ({@code SCM_TIMESTAMPNS}): nanoseconds since the epoch,
     * {@code CLOCK_REALTIME}; 0 when it came without one (timestamps not enabled, or {@code MSG_CTRUNC}).
     */
    long receivedAtNanos()
    {
        return receivedAtNanos;
    }

    /** True when the last datagram read was longer than the buffer ({@code MSG_TRUNC}): its tail is lost. */
    boolean truncated()
    {
        return 0 != (flags & MSG_TRUNC);
    }

    /** True when the last datagram read lost control data ({@code MSG_CTRUNC}): it has no receive time. */
    boolean controlTruncated()
    {
        return 0 != (flags & MSG_CTRUNC);
    }

    /**
     * The source of the last datagram {@link #receive} or {@link #receiveOrErrno} read: the same object as for every
     * earlier datagram from that address and port while it stays in the cache, a new one otherwise; null for a family
     * other than IPv4 and IPv6.
     */
    InetSocketAddress sender()
    {
        return sender(from, 0);
    }

    /**
     * The sender whose {@code sockaddr} the kernel wrote at {@code at} of {@code names} (the cache of
     * {@link #sender()}, shared with {@link UdpRecvMmsg}); null for a family other than IPv4 and IPv6.
     */
    InetSocketAddress sender(final MemorySegment names, final long at)
    {
        final short family = names.get(familyLayout, at);
        final int port = Short.toUnsignedInt(names.get(portLayout, at + 2));
        if (UdpSendTo.AF_INET == family)
        {
            return sender4(names.get(addressLayout, at + 4), port);
        }
        if (UdpSendTo.AF_INET6 != family)
        {
            return null;
        }
        final long high = names.get(address6Layout, at + 8);
        final long low = names.get(address6Layout, at + 16);
        if (0 == high && 0x0000_FFFFL == low >>> 32)
        {
            return sender4((int)low, port); // ::ffff:a.b.c.d
        }
        final int scope = names.get(hostIntLayout, at + 24);
        final long portScope = (long)port << 32 | (scope & 0xFFFF_FFFFL);
        final int slot = slot((high * 31 + low) ^ portScope);
        final InetSocketAddress known = senders6[slot];
        if (null != known && high6[slot] == high && low6[slot] == low && portScope6[slot] == portScope)
        {
            return known;
        }
        final byte[] bytes = new byte[16];
        MemorySegment.copy(names, ValueLayout.JAVA_BYTE, at + 8, bytes, 0, 16);
        final InetSocketAddress made;
        try
        {
            made = new InetSocketAddress(Inet6Address.getByAddress(null, bytes, scope), port);
        }
        catch (final UnknownHostException cannotHappen)
        {
            throw new IllegalStateException(cannotHappen); // 16 bytes are always an IPv6 address
        }
        senderMisses++;
        high6[slot] = high;
        low6[slot] = low;
        portScope6[slot] = portScope;
        senders6[slot] = made;
        return made;
    }

    private InetSocketAddress sender4(final int address, final int port)
    {
        final long key = 1L << 48 | (address & 0xFFFF_FFFFL) << 16 | port;
        final int slot = slot(key);
        if (keys4[slot] == key)
        {
            return senders4[slot];
        }
        final byte[] bytes = {(byte)(address >>> 24), (byte)(address >>> 16), (byte)(address >>> 8), (byte)address};
        final InetSocketAddress made;
        try
        {
            made = new InetSocketAddress(InetAddress.getByAddress(bytes), port);
        }
        catch (final UnknownHostException cannotHappen)
        {
            throw new IllegalStateException(cannotHappen); // 4 bytes are always an IPv4 address
        }
        senderMisses++;
        keys4[slot] = key;
        senders4[slot] = made;
        return made;
    }

    /** Senders made because the cache did not have them. */
    long senderMisses()
    {
        return senderMisses;
    }

    private static int slot(final long key)
    {
        final long h = key * 0x9E37_79B9_7F4A_7C15L; // Fibonacci hashing: the high bits mix every bit of the key
        return (int)(h >>> 52) & (SENDER_SLOTS - 1);
    }
}
