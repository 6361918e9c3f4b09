package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;

/**
 * {@link SocketFilters#acceptOnlyFrom}: an unconnected socket with the filter reads only its peer's datagrams, over
 * IPv4 and IPv6; another sender on the same address and a sender on the peer's address with another port are dropped
 * by the kernel. The peer's datagram is sent last, so reading it first proves the others were never queued.
 */
class SocketFiltersTest
{
    @Test
    void shouldLetOnlyThePeerInOverIpv4() throws Exception
    {
        filterOnLoopback(InetAddress.ofLiteral("127.0.0.1"), SocketProtocolFamily.INET);
    }

    @Test
    void shouldLetOnlyThePeerInOverIpv6() throws Exception
    {
        filterOnLoopback(io.sipline.sip.test.Loopback6.orAbort(), SocketProtocolFamily.INET6);
    }

    private static void filterOnLoopback(final InetAddress loopback, final SocketProtocolFamily family)
        throws Exception
    {
        assumeTrue(Epoll.isAvailable(), "native epoll only");
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try (DatagramSocket peer = new DatagramSocket(new InetSocketAddress(loopback, 0));
            DatagramSocket other = new DatagramSocket(new InetSocketAddress(loopback, 0)))
        {
            final BlockingQueue<String> read = new LinkedBlockingQueue<>();
            final EpollDatagramChannel channel = new EpollDatagramChannel(family);
            SocketFilters.acceptOnlyFrom(channel, (InetSocketAddress)peer.getLocalSocketAddress());
            channel.pipeline().addLast(new ChannelInboundHandlerAdapter()
            {
                @Override
                public void channelRead(final ChannelHandlerContext ctx, final Object msg)
                {
                    try
                    {
                        final io.netty.channel.socket.DatagramPacket p = (io.netty.channel.socket.DatagramPacket)msg;
                        read.add(p.sender().getPort() + ":" + p.content().toString(StandardCharsets.US_ASCII));
                    }
                    finally
                    {
                        ReferenceCountUtil.release(msg);
                    }
                }
            });
            group.register(channel).sync();
            channel.bind(new InetSocketAddress(loopback, 0)).sync();
            final InetSocketAddress to = channel.localAddress();

            send(other, to, "other");
            send(peer, to, "peer");
            assertEquals(peer.getLocalPort() + ":peer", read.poll(10, TimeUnit.SECONDS));
            send(other, to, "other again");
            send(peer, to, "peer again");
            assertEquals(peer.getLocalPort() + ":peer again", read.poll(10, TimeUnit.SECONDS));
            assertEquals(0, read.size());
            channel.close().sync();
        }
        finally
        {
            assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS), "loop stopped");
        }
    }

    private static void send(final DatagramSocket from, final InetSocketAddress to, final String text)
        throws Exception
    {
        final byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        from.send(new DatagramPacket(b, b.length, to));
    }
}
