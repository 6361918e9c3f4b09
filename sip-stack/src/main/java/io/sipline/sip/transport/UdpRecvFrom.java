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
 * One shard's {@code recvfrom(2)} on its listening sockets, called through the FFM API (a {@link Linker} downcall to
 * libc), with the senders' addresses kept for reuse.
 *
 * <p><b>Why.</b> Netty's epoll read of an unconnected datagram socket makes, per datagram, a {@code DatagramPacket}
 * and the sender's {@code InetSocketAddress}, its holder, an {@code InetAddress} and its holder (24 + 16 + 24 + 24 +
 * 32 B): with more peers than connected channels ({@link UdpPeers}) that was most of what the stack allocated per
 * transaction. Here a datagram is read into one pooled direct buffer of the shard (its memory address passed as a
 * {@code long}, as {@link UdpSendTo} does), its source into one reused native {@code sockaddr}, and the sender is
 * looked up in a direct-mapped cache ({@link #sender()}): a sender seen before costs nothing.
 *
 * <p>How the shard reads with it ({@link UdpShard}, "Reads on a listening socket"): the listening channel stays
 * Netty's (bind, {@code SO_REUSEPORT} group, writes that fall back, close) with its auto-read off, and a duplicate of
 * its descriptor ({@link #dup}) is registered on the same event loop as an {@code EpollIoHandle} that is called when
 * the socket is readable. Netty's epoll handler keys its registrations by descriptor number, so the duplicate is a
 * registration of its own on the same socket.
 *
 * <p>The sockaddr layouts are those drawn in {@link UdpSendTo}. An IPv4-mapped IPv6 source (an IPv4 peer of a
 * dual-stack socket, RFC 4291 §2.5.5.2) is returned as an IPv4 address, as Netty returns it.
 *
 * <p>Available on Linux x86-64 and AArch64 ({@link #AVAILABLE}). Not thread-safe: one per shard, on its loop only.
 */
final class UdpRecvFrom
{
    /** Linux {@code EAGAIN} (= {@code EWOULDBLOCK}): nothing left to read on a non-blocking socket. */
    static final int EAGAIN = 11;
    /** Linux {@code MSG_DONTWAIT}: never block, even if the socket were blocking. */
    static final int MSG_DONTWAIT = 0x40;
    /** Senders kept per family; a power of two. */
    static final int SENDER_SLOTS = 4096;

    /** True where the downcalls can be made: Linux on x86-64 or AArch64, with the functions found in libc. */
    static final boolean AVAILABLE;
    /**
     * {@code ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from, socklen_t *fromlen)}.
     * Without the call state: capturing it costs a 40-byte segment per call until the JIT's escape analysis removes
     * it (measured with C1 only), and every batch of reads ends with a call that fails ({@code EAGAIN}).
     */
    private static final MethodHandle RECVFROM;
    /** The same, with {@code errno} captured into a segment passed first: to tell why a call failed. */
    private static final MethodHandle RECVFROM_ERRNO;
    /** {@code int dup(int fd)}, errno captured. */
    private static final MethodHandle DUP;
    private static final StructLayout CALL_STATE;
    private static final VarHandle ERRNO;

    static
    {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        MethodHandle recvfrom = null;
        MethodHandle recvfromErrno = null;
        MethodHandle dup = null;
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
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.ADDRESS);
                recvfrom = libc.find("recvfrom").map(symbol -> linker.downcallHandle(symbol, type)).orElse(null);
                recvfromErrno = libc.find("recvfrom").map(symbol -> linker.downcallHandle(symbol, type, capture))
                    .orElse(null);
                dup = libc.find("dup").map(symbol -> linker.downcallHandle(symbol,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT), capture)).orElse(null);
                state = Linker.Option.captureStateLayout();
                errno = state.varHandle(MemoryLayout.PathElement.groupElement("errno"));
            }
            catch (final RuntimeException | LinkageError e)
            {
                recvfrom = null; // no native access: Netty keeps reading
            }
        }
        RECVFROM = recvfrom;
        RECVFROM_ERRNO = recvfromErrno;
        DUP = dup;
        CALL_STATE = state;
        ERRNO = errno;
        AVAILABLE = null != recvfrom && null != recvfromErrno && null != dup;
    }

    private final MemorySegment callState;
    private final MemorySegment from;
    private final MemorySegment fromLength;
    private final ValueLayout.OfShort familyLayout = ValueLayout.JAVA_SHORT.withOrder(ByteOrder.nativeOrder());
    private final ValueLayout.OfShort portLayout = ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);
    private final ValueLayout.OfInt addressLayout = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    private final ValueLayout.OfLong address6Layout = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN);
    private final ValueLayout.OfInt hostIntLayout = ValueLayout.JAVA_INT.withOrder(ByteOrder.nativeOrder());

    /** IPv4 senders: key {@code 1 << 48 | address << 16 | port} (0 = empty), and the address made for it. */
    private final long[] keys4 = new long[SENDER_SLOTS];
    private final InetSocketAddress[] senders4 = new InetSocketAddress[SENDER_SLOTS];
    /** IPv6 senders: the address's two halves, {@code port << 32 | scope id}, and the address made for them. */
    private final long[] high6 = new long[SENDER_SLOTS];
    private final long[] low6 = new long[SENDER_SLOTS];
    private final long[] portScope6 = new long[SENDER_SLOTS];
    private final InetSocketAddress[] senders6 = new InetSocketAddress[SENDER_SLOTS];
    private long senderMisses;

    UdpRecvFrom()
    {
        if (!AVAILABLE)
        {
            throw new IllegalStateException("recvfrom through FFM is not available here");
        }
        final Arena arena = Arena.ofAuto(); // freed by the GC after this object; any thread
        callState = arena.allocate(CALL_STATE);
        from = arena.allocate(UdpSendTo.SOCKADDR_IN6_BYTES, 8);
        fromLength = arena.allocate(ValueLayout.JAVA_INT);
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
     * Reads one datagram of socket {@code fd} into {@code into} (its whole capacity, from index 0; the indexes are
     * set to the datagram's bytes) and its source into this object ({@link #sender()}), without blocking.
     *
     * @param into borrowed: a direct buffer with a memory address, of at least the largest UDP payload.
     * @return the datagram's length, or -1 when the call failed (most often {@code EAGAIN}: nothing left to read;
     *         {@link #receiveOrErrno} tells).
     */
    int receive(final int fd, final ByteBuf into)
    {
        fromLength.set(ValueLayout.JAVA_INT, 0, UdpSendTo.SOCKADDR_IN6_BYTES);
        final long n;
        try
        {
            n = (long)RECVFROM.invokeExact(fd, into.memoryAddress(), (long)into.capacity(), MSG_DONTWAIT, from,
                fromLength);
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
        into.setIndex(0, (int)n);
        return (int)n;
    }

    /**
     * As {@link #receive}, with the reason of a failure.
     *
     * @return the datagram's length, or minus the errno ({@code -EAGAIN}: nothing left to read).
     */
    int receiveOrErrno(final int fd, final ByteBuf into)
    {
        fromLength.set(ValueLayout.JAVA_INT, 0, UdpSendTo.SOCKADDR_IN6_BYTES);
        final long n;
        try
        {
            n = (long)RECVFROM_ERRNO.invokeExact(callState, fd, into.memoryAddress(), (long)into.capacity(),
                MSG_DONTWAIT, from, fromLength);
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
        into.setIndex(0, (int)n);
        return (int)n;
    }

    /**
     * The source of the last datagram {@link #receive} read: the same object as for every earlier datagram from that
     * address and port while it stays in the cache, a new one otherwise; null for a family other than IPv4 and IPv6.
     */
    InetSocketAddress sender()
    {
        final short family = from.get(familyLayout, 0);
        final int port = Short.toUnsignedInt(from.get(portLayout, 2));
        if (UdpSendTo.AF_INET == family)
        {
            return sender4(from.get(addressLayout, 4), port);
        }
        if (UdpSendTo.AF_INET6 != family)
        {
            return null;
        }
        final long high = from.get(address6Layout, 8);
        final long low = from.get(address6Layout, 16);
        if (0 == high && 0x0000_FFFFL == low >>> 32)
        {
            return sender4((int)low, port); // ::ffff:a.b.c.d
        }
        final int scope = from.get(hostIntLayout, 24);
        final long portScope = (long)port << 32 | (scope & 0xFFFF_FFFFL);
        final int slot = slot((high * 31 + low) ^ portScope);
        final InetSocketAddress known = senders6[slot];
        if (null != known && high6[slot] == high && low6[slot] == low && portScope6[slot] == portScope)
        {
            return known;
        }
        final byte[] bytes = new byte[16];
        MemorySegment.copy(from, ValueLayout.JAVA_BYTE, 8, bytes, 0, 16);
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
