package io.sipline.sip.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.Locale;

import io.netty.buffer.ByteBuf;

/**
 * One shard's {@code sendto(2)} on its listening sockets, through the FFM API (a {@link Linker} downcall to libc, no
 * JNI), for datagrams to peers that have no connected channel ({@link UdpPeers}): a response leaves from the socket
 * its request arrived on (RFC 3261 §18.2.2, RFC 3581 §4). The recipient goes into one reused native {@code sockaddr},
 * the payload is read where it lies (the direct buffer's address, passed as a {@code long}), and no {@code errno} is
 * captured, so a call allocates nothing, unlike Netty's write of a {@code DatagramPacket}.
 * <pre>
 * struct sockaddr_in  (16 bytes)            struct sockaddr_in6 (28 bytes)
 *   u16 sin_family  = AF_INET   @0 (host)     u16 sin6_family   = AF_INET6 @0 (host)
 *   u16 sin_port               @2 (network)   u16 sin6_port                @2 (network)
 *   u32 sin_addr               @4 (network)   u32 sin6_flowinfo = 0        @4
 *   u8  sin_zero[8] = 0        @8             u8  sin6_addr[16]            @8 (network; IPv4 as ::ffff:a.b.c.d)
 *                                             u32 sin6_scope_id            @24 (host)
 * </pre>
 *
 * <p>Buffers: {@link #send} borrows the buffer (indexes and reference count untouched); the caller
 * ({@link UdpShardOutput}) releases it once sent, or hands it to Netty's write when {@code send} declined (no memory
 * address, IPv6 recipient on an IPv4 socket) or returned {@link #FAILED} ({@code EAGAIN} or an error).
 *
 * <p>Available on Linux x86-64 and AArch64 ({@link #AVAILABLE}). Not thread-safe: one per shard, on the loop that owns
 * the listening channels whose descriptors it writes to (so a descriptor cannot be closed under a call).
 */
final class UdpSendTo
{
    /** {@code AF_INET}, {@code AF_INET6} (Linux). */
    static final short AF_INET = 2;
    static final short AF_INET6 = 10;
    /** Returned by {@link #send} when the call failed (the caller falls back to Netty's write). */
    static final int FAILED = 1;
    /** {@code sizeof(struct sockaddr_in)}, {@code sizeof(struct sockaddr_in6)}. */
    static final int SOCKADDR_IN_BYTES = 16;
    static final int SOCKADDR_IN6_BYTES = 28;
    /** Returned by {@link #send} when it did not try (see the class javadoc); the caller uses Netty's write. */
    static final int DECLINED = -1;

    /** True where the downcall can be made: Linux on x86-64 or AArch64, with {@code sendto} found in libc. */
    static final boolean AVAILABLE;
    /**
     * {@code ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
     * socklen_t tolen)}.
     */
    private static final MethodHandle SENDTO;
    /**
     * True when {@link Inet4Address#hashCode()} is the address as a big-endian {@code int} (so it can be read without
     * the array {@link InetAddress#getAddress()} clones), checked once here on three addresses; OpenJDK has done so
     * since its first release, but the specification does not promise it.
     */
    private static final boolean IPV4_HASH_IS_ADDRESS;

    static
    {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        MethodHandle sendto = null;
        if (os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64")))
        {
            try
            {
                final Linker linker = Linker.nativeLinker();
                final SymbolLookup libc = linker.defaultLookup();
                sendto = libc.find("sendto").map(symbol -> downcall(linker, symbol,
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT)))
                    .orElse(null);
            }
            catch (final RuntimeException | LinkageError e)
            {
                // No native access (--enable-native-access refused, say): Netty's write stays in use.
                sendto = null;
            }
        }
        SENDTO = sendto;
        AVAILABLE = null != sendto;
        IPV4_HASH_IS_ADDRESS = hashIsAddress("127.0.0.1") && hashIsAddress("10.200.30.4")
            && hashIsAddress("255.1.128.7");
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

    private final MethodHandle sendto;
    /** Room for the larger of the two socket addresses; rewritten for every send. */
    private final MemorySegment sockaddr;
    /** Host order of the family and scope fields ({@code sockaddr} is written with explicit orders). */
    private final ValueLayout.OfShort familyLayout = ValueLayout.JAVA_SHORT.withOrder(ByteOrder.nativeOrder());
    private final ValueLayout.OfShort portLayout = ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);
    private final ValueLayout.OfInt addressLayout = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    private final ValueLayout.OfInt hostIntLayout = ValueLayout.JAVA_INT.withOrder(ByteOrder.nativeOrder());

    /** The libc call; only when {@link #AVAILABLE}. */
    UdpSendTo()
    {
        this(SENDTO);
    }

    /** With another function of the same type as the downcall (tests: one that fails as sendto does, with -1). */
    UdpSendTo(final MethodHandle sendto)
    {
        if (null == sendto)
        {
            throw new IllegalStateException("sendto through FFM is not available here");
        }
        this.sendto = sendto;
        // Auto arena: the segments live as long as this object (a shard), freed by the GC after it; any thread.
        final Arena arena = Arena.ofAuto();
        this.sockaddr = arena.allocate(SOCKADDR_IN6_BYTES, 8);
    }

    /** The type a replacement function must have ({@link #UdpSendTo(MethodHandle)}). */
    static MethodType type()
    {
        return MethodType.methodType(long.class, int.class, long.class, long.class, int.class, MemorySegment.class,
            int.class);
    }

    /**
     * Sends the readable bytes of {@code datagram} to {@code recipient} on socket {@code fd}, now, with no flags (the
     * socket is non-blocking: Netty made it so).
     *
     * @param fd        the listening channel's descriptor; its socket is IPv6 when {@code ipv6Socket}.
     * @param datagram  borrowed (see the class javadoc); direct, with a memory address.
     * @param recipient resolved.
     * @return 0 when sent, {@link #FAILED}, or {@link #DECLINED}.
     */
    int send(final int fd, final boolean ipv6Socket, final ByteBuf datagram, final InetSocketAddress recipient)
    {
        if (!datagram.hasMemoryAddress())
        {
            return DECLINED;
        }
        final InetAddress address = recipient.getAddress();
        final int length;
        if (ipv6Socket)
        {
            length = SOCKADDR_IN6_BYTES;
            sockaddr.set(familyLayout, 0, AF_INET6);
            sockaddr.set(ValueLayout.JAVA_INT, 4, 0); // flow info
            if (address instanceof Inet4Address v4)
            {
                // An IPv4 peer of a dual-stack socket: the IPv4-mapped IPv6 address (RFC 4291 §2.5.5.2).
                sockaddr.set(ValueLayout.JAVA_LONG, 8, 0L);
                sockaddr.set(addressLayout, 16, 0x0000_FFFF);
                sockaddr.set(addressLayout, 20, ipv4(v4));
                sockaddr.set(hostIntLayout, 24, 0);
            }
            else
            {
                final Inet6Address v6 = (Inet6Address)address;
                final byte[] bytes = v6.getAddress(); // a copy (32 B): an IPv6 address has no other way out
                MemorySegment.copy(bytes, 0, sockaddr, ValueLayout.JAVA_BYTE, 8, 16);
                sockaddr.set(hostIntLayout, 24, v6.getScopeId());
            }
        }
        else
        {
            if (!(address instanceof Inet4Address v4))
            {
                return DECLINED; // an IPv4 socket cannot reach an IPv6 address; Netty's write reports the failure
            }
            length = SOCKADDR_IN_BYTES;
            sockaddr.set(familyLayout, 0, AF_INET);
            sockaddr.set(addressLayout, 4, ipv4(v4));
            sockaddr.set(ValueLayout.JAVA_LONG, 8, 0L); // sin_zero
        }
        sockaddr.set(portLayout, 2, (short)recipient.getPort());
        final long sent;
        try
        {
            sent = (long)sendto.invokeExact(fd, datagram.memoryAddress() + datagram.readerIndex(),
                (long)datagram.readableBytes(), 0, sockaddr, length);
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable e)
        {
            throw new IllegalStateException(e); // the downcall declares no checked exception
        }
        return sent >= 0 ? 0 : FAILED;
    }

    private static int ipv4(final Inet4Address address)
    {
        if (IPV4_HASH_IS_ADDRESS)
        {
            return address.hashCode();
        }
        final byte[] b = address.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    private static boolean hashIsAddress(final String literal)
    {
        final InetAddress address = InetAddress.ofLiteral(literal);
        final byte[] b = address.getAddress();
        return address.hashCode() == ((b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF));
    }
}
