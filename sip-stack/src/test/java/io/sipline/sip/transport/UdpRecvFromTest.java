package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
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
 * {@link UdpRecvFrom} on a real epoll socket (its auto-read off, so that only the test reads it): datagrams and their
 * senders over IPv4 and IPv6, one sender object per sender, {@code EAGAIN} when nothing is queued, reads through a
 * {@code dup} of the descriptor; and the transport with its recvfrom readers turned off by the system property.
 * Reads poll with a deadline; nothing sleeps.
 */
class UdpRecvFromTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

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
    void shouldLeaveTheListeningSocketsToNettyWhenTurnedOff() throws Exception
    {
        assumeNative();
        final String before = System.getProperty(UdpTransport.RECVFROM_PROP_NAME);
        System.setProperty(UdpTransport.RECVFROM_PROP_NAME, "false");
        try (UdpTransport transport = UdpTransport.start(new UdpTransportConfig(List.of(LOOPBACK), new int[] {0}, 1,
            true, UdpPeerConfig.OFF, false), StatelessResponder.factory());
            DatagramSocket client = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            client.setSoTimeout((int)TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NS));
            final byte[] request = ("OPTIONS sip:ping@example.com SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:"
                + client.getLocalPort() + ";branch=z9hG4bKoff1;rport\r\nMax-Forwards: 70\r\n"
                + "From: <sip:t@example.com>;tag=t1\r\nTo: <sip:ping@example.com>\r\nCall-ID: off1\r\n"
                + "CSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            client.send(new DatagramPacket(request, request.length, transport.localAddresses().get(0)));
            final DatagramPacket reply = new DatagramPacket(new byte[4096], 4096);
            client.receive(reply);
            assertTrue(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.US_ASCII)
                .startsWith("SIP/2.0 200 OK\r\n"));
            final ShardCounters totals = transport.totals();
            assertEquals(1, totals.datagramsIn(), totals.toString());
            assertEquals(0, totals.nativeDatagramsIn(), "read by Netty: " + totals);
            assertEquals(0, (int)transport.eventLoop(0).submit(transport.shard(0)::nativeReaders).get());
        }
        finally
        {
            if (null == before)
            {
                System.clearProperty(UdpTransport.RECVFROM_PROP_NAME);
            }
            else
            {
                System.setProperty(UdpTransport.RECVFROM_PROP_NAME, before);
            }
        }
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
            final UdpRecvFrom recv = new UdpRecvFrom();
            final int fd = ((EpollDatagramChannel)channel).fd().intValue();

            assertEquals(-1, recv.receive(fd, buffer), "nothing queued yet");
            assertEquals(-UdpRecvFrom.EAGAIN, recv.receiveOrErrno(fd, buffer), "nothing queued yet: EAGAIN");

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

    private static void send(final DatagramSocket from, final InetSocketAddress to, final String text) throws Exception
    {
        final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        from.send(new DatagramPacket(bytes, bytes.length, to));
    }

    /** The next datagram, polled until it is there (loopback delivers it at once; the deadline guards a failure). */
    private static String read(final UdpRecvFrom recv, final int fd, final ByteBuf buffer)
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
    private static String readOrErrno(final UdpRecvFrom recv, final int fd, final ByteBuf buffer)
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
            assertEquals(-UdpRecvFrom.EAGAIN, n);
            assertTrue(System.nanoTime() - deadline < 0, "no datagram within the deadline");
            Thread.onSpinWait();
        }
    }

    private static void assumeNative()
    {
        assumeTrue(Epoll.isAvailable(), "native epoll is not available here");
        assumeTrue(UdpRecvFrom.AVAILABLE, "recvfrom through FFM is not available here");
    }
}
