package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.unix.FileDescriptor;
import io.sipline.sip.test.Loopback6;

/**
 * {@link UdpRecvMsg} on a real epoll socket (its auto-read off, so that only the test reads it): datagrams and their
 * senders over IPv4 and IPv6, one sender object per sender, {@code EAGAIN} when nothing is queued, reads through a
 * {@code dup} of the descriptor; the kernel's receive time once {@code SO_TIMESTAMPNS} is on (between a clock read
 * before the send and one after the read: an ordering, not a duration), none before it is on or when the control
 * buffer is too small ({@code MSG_CTRUNC}); {@code ECONNREFUSED} on a connected socket whose peer is gone; and the
 * transport with its recvmsg readers turned off by the system property. Reads poll with a deadline; nothing sleeps.
 */
class UdpRecvMsgTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    private static final long RESEND_NS = TimeUnit.MILLISECONDS.toNanos(100);

    @Test
    void shouldReadDatagramsAndReuseTheSenderOverIpv4() throws Exception
    {
        assumeNative();
        readAndReuseSenders(LOOPBACK);
    }

    @Test
    void shouldReadDatagramsAndReuseTheSenderOverIpv6() throws Exception
    {
        assumeNative();
        readAndReuseSenders(Loopback6.orAbort());
    }

    @Test
    void shouldReadTheKernelReceiveTimeOverIpv4() throws Exception
    {
        assumeNative();
        receiveTimes(LOOPBACK);
    }

    @Test
    void shouldReadTheKernelReceiveTimeOverIpv6() throws Exception
    {
        assumeNative();
        receiveTimes(Loopback6.orAbort());
    }

    @Test
    void shouldReportARefusedPeerOnAConnectedSocket() throws Exception
    {
        assumeNative();
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        final ByteBuf buffer = PooledByteBufAllocator.DEFAULT.directBuffer(UdpTransport.RECEIVE_BUFFER_BYTES,
            UdpTransport.RECEIVE_BUFFER_BYTES);
        try
        {
            assumeTrue(buffer.hasMemoryAddress(), "pooled direct buffers have no memory address here");
            final InetSocketAddress gone;
            try (DatagramSocket closed = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
            {
                gone = (InetSocketAddress)closed.getLocalSocketAddress();
            }
            final Channel channel = new Bootstrap().group(group)
                .channelFactory(() -> new EpollDatagramChannel(SocketProtocolFamily.INET))
                .option(ChannelOption.AUTO_READ, false).handler(new ChannelInboundHandlerAdapter())
                .connect(gone, new InetSocketAddress(LOOPBACK, 0)).sync().channel();
            final UdpRecvMsg recv = new UdpRecvMsg();
            final int fd = ((EpollDatagramChannel)channel).fd().intValue();
            assertEquals(-UdpRecvMsg.EAGAIN, recv.receiveConnected(fd, buffer), "nothing yet");
            final long deadline = System.nanoTime() + TIMEOUT_NS;
            long sentAt = System.nanoTime() - RESEND_NS;
            int n;
            while ((n = recv.receiveConnected(fd, buffer)) == -UdpRecvMsg.EAGAIN)
            {
                assertTrue(System.nanoTime() - deadline < 0, "no ICMP port unreachable within the deadline");
                if (System.nanoTime() - sentAt >= RESEND_NS)
                {
                    // Again until it comes: the kernel may drop an ICMP error under its global rate limit
                    // (icmp_msgs_per_sec), which other tests on the machine share.
                    sentAt = System.nanoTime();
                    channel.writeAndFlush(io.netty.buffer.Unpooled.copiedBuffer("anyone?", StandardCharsets.US_ASCII))
                        .sync();
                }
                Thread.onSpinWait();
            }
            assertEquals(-UdpRecvMsg.ECONNREFUSED, n, "RFC 3261 §18.4: the peer's port is closed");
            assertEquals(-UdpRecvMsg.EAGAIN, recv.receiveConnected(fd, buffer), "reported once");
            channel.close().sync();
        }
        finally
        {
            buffer.release();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(TIMEOUT_NS, TimeUnit.NANOSECONDS);
        }
    }

    @Test
    void shouldLeaveTheListeningSocketsToNettyWhenTurnedOff() throws Exception
    {
        assumeNative();
        final OptionsThroughTransport.Answer<Integer> a = OptionsThroughTransport.send(UdpTransport.RECVFROM_PROP_NAME,
            "false", "off1", t -> t.shard(0).nativeReaders());
        assertTrue(a.ok());
        assertEquals(1, a.totals().datagramsIn(), a.totals().toString());
        assertEquals(0, a.totals().nativeDatagramsIn(), "read by Netty: " + a.totals());
        assertEquals(0, (int)a.probe());
    }

    private static void readAndReuseSenders(final InetAddress address) throws Exception
    {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        final ByteBuf buffer = PooledByteBufAllocator.DEFAULT.directBuffer(UdpTransport.RECEIVE_BUFFER_BYTES,
            UdpTransport.RECEIVE_BUFFER_BYTES);
        FileDescriptor copy = null;
        try (DatagramSocket a = new DatagramSocket(new InetSocketAddress(address, 0));
            DatagramSocket b = new DatagramSocket(new InetSocketAddress(address, 0)))
        {
            assumeTrue(buffer.hasMemoryAddress(), "pooled direct buffers have no memory address here");
            final SocketProtocolFamily family = address instanceof java.net.Inet6Address ?
                SocketProtocolFamily.INET6 : SocketProtocolFamily.INET;
            final Channel channel = new Bootstrap().group(group).channelFactory(() -> new EpollDatagramChannel(family))
                .option(ChannelOption.AUTO_READ, false).handler(new ChannelInboundHandlerAdapter())
                .bind(new InetSocketAddress(address, 0)).sync().channel();
            final InetSocketAddress server = (InetSocketAddress)channel.localAddress();
            final UdpRecvMsg recv = new UdpRecvMsg();
            final int fd = ((EpollDatagramChannel)channel).fd().intValue();

            assertEquals(-1, recv.receive(fd, buffer), "nothing queued yet");
            assertEquals(-UdpRecvMsg.EAGAIN, recv.receiveOrErrno(fd, buffer), "nothing queued yet: EAGAIN");

            send(a, server, "first from a");
            assertEquals("first from a", read(recv, fd, buffer));
            final InetSocketAddress senderA = recv.sender();
            assertEquals(a.getLocalSocketAddress(), senderA);

            send(b, server, "from b");
            assertEquals("from b", readOrErrno(recv, fd, buffer));
            final InetSocketAddress senderB = recv.sender();
            assertEquals(b.getLocalSocketAddress(), senderB);
            assertNotEquals(senderA, senderB);

            // Through a duplicate of the descriptor, as the shard reads: the same socket, the same cached sender.
            final int dup = recv.dup(fd);
            assertTrue(dup >= 0 && dup != fd, "dup: " + dup);
            copy = new FileDescriptor(dup);
            send(a, server, "second from a");
            assertEquals("second from a", read(recv, dup, buffer));
            assertSame(senderA, recv.sender(), "a sender seen before is the same object");
            assertEquals(2, recv.senderMisses());
            channel.close().sync();
        }
        finally
        {
            if (null != copy)
            {
                copy.close();
            }
            buffer.release();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(TIMEOUT_NS, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * No receive time before {@code SO_TIMESTAMPNS} is on; the kernel's after, through a duplicate descriptor too; none
     * with a control buffer too small for it ({@code MSG_CTRUNC}).
     */
    private static void receiveTimes(final InetAddress address) throws Exception
    {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        final ByteBuf buffer = PooledByteBufAllocator.DEFAULT.directBuffer(UdpTransport.RECEIVE_BUFFER_BYTES,
            UdpTransport.RECEIVE_BUFFER_BYTES);
        FileDescriptor copy = null;
        try (DatagramSocket a = new DatagramSocket(new InetSocketAddress(address, 0)))
        {
            assumeTrue(buffer.hasMemoryAddress(), "pooled direct buffers have no memory address here");
            final SocketProtocolFamily family = address instanceof java.net.Inet6Address ?
                SocketProtocolFamily.INET6 : SocketProtocolFamily.INET;
            final Channel channel = new Bootstrap().group(group).channelFactory(() -> new EpollDatagramChannel(family))
                .option(ChannelOption.AUTO_READ, false).handler(new ChannelInboundHandlerAdapter())
                .bind(new InetSocketAddress(address, 0)).sync().channel();
            final InetSocketAddress server = (InetSocketAddress)channel.localAddress();
            final UdpRecvMsg recv = new UdpRecvMsg();
            final int fd = ((EpollDatagramChannel)channel).fd().intValue();

            send(a, server, "untimed");
            assertEquals("untimed", read(recv, fd, buffer));
            assertEquals(0, recv.receivedAtNanos(), "SO_TIMESTAMPNS is not on yet");
            assertFalse(recv.controlTruncated());

            final int dup = recv.dup(fd);
            assertTrue(dup >= 0, "dup: " + dup);
            copy = new FileDescriptor(dup);
            assertEquals(0, recv.enableTimestamps(dup), "set through the duplicate: the option is the socket's");
            for (int i = 0; i < 3; i++)
            {
                final long before = wallNanos();
                send(a, server, "timed " + i);
                assertEquals("timed " + i, 0 == i % 2 ? read(recv, fd, buffer) : readOrErrno(recv, dup, buffer));
                final long after = wallNanos();
                final long at = recv.receivedAtNanos();
                assertTrue(before <= at && at <= after, before + " <= " + at + " <= " + after);
                assertEquals(a.getLocalSocketAddress(), recv.sender());
                assertFalse(recv.truncated());
            }

            final UdpRecvMsg small = new UdpRecvMsg(24); // room for a cmsghdr, not for its timespec
            send(a, server, "no room");
            assertEquals("no room", read(small, fd, buffer));
            assertTrue(small.controlTruncated(), "MSG_CTRUNC");
            assertEquals(0, small.receivedAtNanos(), "a truncated control message gives no time");
            assertEquals(a.getLocalSocketAddress(), small.sender());
            channel.close().sync();
        }
        finally
        {
            if (null != copy)
            {
                copy.close();
            }
            buffer.release();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(TIMEOUT_NS, TimeUnit.NANOSECONDS);
        }
    }

    private static void send(final DatagramSocket from, final InetSocketAddress to, final String text) throws Exception
    {
        final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        from.send(new DatagramPacket(bytes, bytes.length, to));
    }

    /** The next datagram, polled until it is there (loopback delivers it at once; the deadline guards a failure). */
    private static String read(final UdpRecvMsg recv, final int fd, final ByteBuf buffer)
    {
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (true)
        {
            final int n = recv.receive(fd, buffer);
            if (n >= 0)
            {
                assertEquals(n, buffer.readableBytes());
                return buffer.toString(StandardCharsets.US_ASCII);
            }
            assertEquals(-1, n);
            assertTrue(System.nanoTime() - deadline < 0, "no datagram within the deadline");
            Thread.onSpinWait();
        }
    }

    /** As {@link #read}, through the call that reports errno. */
    private static String readOrErrno(final UdpRecvMsg recv, final int fd, final ByteBuf buffer)
    {
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (true)
        {
            final int n = recv.receiveOrErrno(fd, buffer);
            if (n >= 0)
            {
                assertEquals(n, buffer.readableBytes());
                return buffer.toString(StandardCharsets.US_ASCII);
            }
            assertEquals(-UdpRecvMsg.EAGAIN, n);
            assertTrue(System.nanoTime() - deadline < 0, "no datagram within the deadline");
            Thread.onSpinWait();
        }
    }

    /**
     * The wall clock read exactly ({@code CLOCK_REALTIME}, the kernel's timestamps' clock): {@link RealtimeClock} is
     * the monotonic clock plus a calibrated offset, off by up to half its calibration's bracket, too much to order.
     */
    private static long wallNanos()
    {
        final Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private static void assumeNative()
    {
        assumeTrue(Epoll.isAvailable(), "native epoll is not available here");
        assumeTrue(UdpRecvMsg.AVAILABLE, "recvfrom through FFM is not available here");
    }
}
