package io.sipline.sip.transport;

import java.net.InetSocketAddress;
import java.util.HashMap;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;

/**
 * One listening channel of a UDP shard, with the peers counted on it ({@link UdpPeers}), its descriptor for
 * {@link UdpSendTo} and its {@link UdpRecvMsg} reader while it has them.
 *
 * <p>Not thread-safe; owned by the shard's event loop, from the channel's activation to its close.
 */
final class UdpEndpoint extends UdpSink
{
    /** Null for a channel that is no socket (EmbeddedChannel in tests). */
    final InetSocketAddress local;
    final EventLoop loop;
    final HashMap<InetSocketAddress, UdpPeers.Peer> peers = new HashMap<>();
    /** The socket's descriptor for {@link UdpSendTo}, from its activation to its close; -1 for Netty's write. */
    int fd = -1;
    /** True for an IPv6 socket (it takes a {@code sockaddr_in6}, IPv4 peers mapped). */
    boolean ipv6Socket;
    /** The recvmsg reader of this socket, from its registration to the channel's close; null for Netty's. */
    UdpNativeReader.Listening reader;

    UdpEndpoint(final ChannelHandlerContext ctx, final InetSocketAddress local, final EventLoop loop)
    {
        this.ctx = ctx;
        this.local = local;
        this.loop = loop;
    }
}
