package io.sipline.sip.transport;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.util.AttributeKey;

/**
 * One shard's connected UDP channels, one per busy peer and local address:port. Every datagram the shard reads from or
 * sends to a peer on a listening socket counts for that (local address:port, peer) pair; at
 * {@link UdpPeerConfig#connectAfter()} the shard opens a channel bound to the same address:port with
 * {@code SO_REUSEPORT} and connected to the peer. The kernel then delivers the peer's datagrams to that socket (a
 * connected socket scores above the reuseport group for its own 4-tuple, Linux {@code compute_score}), the shard writes
 * to the peer without an address, and an ICMP port unreachable is reported on it (RFC 3261 §18.4). Responses still
 * leave from the address:port the request arrived on (RFC 3261 §18.2.2, RFC 3581 §4). Between its bind and its connect
 * a new socket could be picked for another peer's datagram; {@link SocketFilters#acceptOnlyFrom} drops those.
 *
 * <p>Bounds: at most {@link UdpPeerConfig#maxConnected()} channels and four times as many peers counted, in LRU order.
 * With the table full one new peer in {@link #ADMIT_ONE_IN} is counted; a channel makes room for a new busy peer only
 * once its own peer has been quiet for {@link UdpPeerConfig#quietMillis()}; a peer idle for
 * {@link UdpPeerConfig#idleMillis()} is forgotten. Every close made here first stops the shard's recvmsg reader of the
 * channel ({@link UdpShardReads#stopReading(Channel)}), whose duplicate descriptor would keep the socket open.
 *
 * <p>Allocation: a {@link Peer} and a map entry per new peer counted, a channel per connection; nothing per datagram.
 *
 * <p>Not thread-safe; owned by one shard's event loop. Made once per shard by {@link UdpPeerChannels}.
 */
final class UdpPeers
{
    /** The peer a connected channel serves. */
    static final AttributeKey<Peer> PEER = AttributeKey.valueOf(UdpPeers.class, "peer");
    /**
     * Receive and send buffer asked for a connected socket: the same as a listening socket's
     * ({@link UdpTransport#SOCKET_BUFFER_BYTES}), since a busy peer (a proxy, a trunk) sends a whole port's traffic
     * and once connected all of it queues there. The kernel charges only what is queued, not the limit.
     */
    static final int PEER_SOCKET_BUFFER_BYTES = UdpTransport.SOCKET_BUFFER_BYTES;
    /**
     * When every slot of the peer table is taken, one new peer in this many is counted (the least recently used one
     * making room), so that a shard with more peers than slots does not make a {@link Peer} per datagram; a peer that
     * stays busy is still admitted after a few of its datagrams.
     */
    static final int ADMIT_ONE_IN = 16;
    /** How many of the least recently used peers {@link #roomFor} looks at. */
    private static final int ADMIT_SCAN = 16;

    private final UdpPeerConfig config;
    private final long idleNs;
    /**
     * A connected channel is closed to make room for another peer only when its own peer has been quiet this long
     * ({@link UdpPeerConfig#quietMillis()}), so that shards with more busy peers than channels do not close and reopen
     * channels every few transactions, losing the datagrams queued on each closed socket.
     */
    private final long quietNs;
    private final int maxTracked;
    /** The handler of the shard's peer channels, and its reader and counters of them. */
    private final UdpPeerChannels channels;
    private final ChannelFutureListener onConnect = this::onConnect;

    /** Most recently used first; every tracked peer is on it. */
    private Peer head;
    private Peer tail;
    private int tracked;
    private int connected;
    /** New peers seen while the table was full, for {@link #ADMIT_ONE_IN}. */
    private int turnedAway;

    UdpPeers(final UdpPeerConfig config, final UdpPeerChannels channels)
    {
        this.config = config;
        this.idleNs = TimeUnit.MILLISECONDS.toNanos(config.idleMillis());
        this.quietNs = TimeUnit.MILLISECONDS.toNanos(config.quietMillis());
        this.maxTracked = Math.max(64, 4 * config.maxConnected());
        this.channels = channels;
    }

    /** How many connected channels are open (or opening). */
    int connected()
    {
        return connected;
    }

    /** How many peers are counted, connected or not. */
    int tracked()
    {
        return tracked;
    }

    /**
     * One datagram read from or sent to {@code address} through {@code endpoint}: counts it, makes the pair the most
     * recently used, and connects a channel when the count reaches the threshold.
     *
     * @return the peer; its {@link Peer#ctx} is non-null once its connected channel is active.
     */
    Peer note(final UdpEndpoint endpoint, final InetSocketAddress address, final long nowNs)
    {
        Peer peer = endpoint.peers.get(address);
        if (null == peer)
        {
            if (null == address.getAddress() || null == endpoint.local || null == endpoint.loop)
            {
                return null; // unresolved, or a channel that is no socket (tests): nothing to connect
            }
            if (tracked >= maxTracked)
            {
                final Peer room = ++turnedAway % ADMIT_ONE_IN == 0 ? roomFor(nowNs) : null;
                if (null == room)
                {
                    return null; // not counted: its datagrams go through the listening socket as before
                }
                forget(room);
            }
            peer = new Peer(endpoint, address);
            endpoint.peers.put(address, peer);
            tracked++;
            linkFirst(peer);
        }
        else if (head != peer)
        {
            unlink(peer);
            linkFirst(peer);
        }
        peer.lastNs = nowNs;
        if (null == peer.channel && ++peer.count >= config.connectAfter())
        {
            open(peer, nowNs);
        }
        return peer;
    }

    /**
     * The peer to forget for a new one when the table is full: the least recently used one without a channel, or with
     * a channel quiet for {@link #quietNs}, among the {@link #ADMIT_SCAN} least recently used; null when there is none
     * (a busy channel is not closed for a peer that has sent one datagram).
     */
    private Peer roomFor(final long nowNs)
    {
        int n = 0;
        for (Peer p = tail; null != p && n < ADMIT_SCAN; p = p.prev, n++)
        {
            if (null == p.channel || nowNs - p.lastNs >= quietNs)
            {
                return p;
            }
        }
        return null;
    }

    /** A datagram read on a peer's connected channel: the peer is in use. */
    void touch(final Peer peer, final long nowNs)
    {
        peer.lastNs = nowNs;
        if (head != peer && peer.tracked)
        {
            unlink(peer);
            linkFirst(peer);
        }
    }

    /** Forgets every peer not used for the idle time, least recently used first. */
    int sweep(final long nowNs)
    {
        int n = 0;
        while (null != tail && nowNs - tail.lastNs > idleNs)
        {
            forget(tail);
            n++;
        }
        return n;
    }

    /** Forgets the peer {@code address} of {@code endpoint} (closing its channel). */
    boolean forget(final UdpEndpoint endpoint, final InetSocketAddress address)
    {
        final Peer peer = endpoint.peers.get(address);
        if (null == peer)
        {
            return false;
        }
        forget(peer);
        return true;
    }

    /** Forgets every peer (closing their channels); at close. */
    void forgetAll()
    {
        while (null != tail)
        {
            forget(tail);
        }
    }

    /** A connected channel closed (idle, evicted, unreachable, or the loop going down): the peer counts anew. */
    void onClosed(final Peer peer, final Channel channel)
    {
        if (peer.channel == channel)
        {
            peer.channel = null;
            peer.ctx = null;
            peer.count = 0;
            connected--;
        }
    }

    private void forget(final Peer peer)
    {
        unlink(peer);
        peer.tracked = false;
        tracked--;
        peer.endpoint.peers.remove(peer.address, peer);
        close(peer);
    }

    private void close(final Peer peer)
    {
        final Channel channel = peer.channel;
        if (null != channel)
        {
            if (null != peer.ctx)
            {
                peer.ctx.flush(); // what this read batch wrote to the peer still goes
            }
            channels.stopReading(channel); // the shard's reader lets go of its duplicate first: nothing read after this
            onClosed(peer, channel);
            channel.close();
            channels.countPeerClosed();
        }
    }

    private void open(final Peer peer, final long nowNs)
    {
        if (connected >= config.maxConnected())
        {
            // Room for the new one: the least recently used connected peer loses its channel (it keeps its count),
            // but only when it has been quiet for a while (quietNs); else the new peer waits.
            for (Peer p = tail; null != p; p = p.prev)
            {
                if (null != p.channel && p != peer)
                {
                    if (nowNs - p.lastNs >= quietNs)
                    {
                        close(p);
                    }
                    break;
                }
            }
            if (connected >= config.maxConnected())
            {
                peer.count = -config.connectAfter(); // ask again after twice the connect count, not every datagram
                return;
            }
        }
        final UdpEndpoint endpoint = peer.endpoint;
        final EpollDatagramChannel channel = new EpollDatagramChannel(
            peer.address.getAddress() instanceof Inet6Address ? SocketProtocolFamily.INET6 : SocketProtocolFamily.INET);
        peer.channel = channel;
        connected++;
        try
        {
            channel.config().setOption(EpollChannelOption.SO_REUSEPORT, true);
            channel.config().setOption(ChannelOption.SO_RCVBUF, PEER_SOCKET_BUFFER_BYTES);
            channel.config().setOption(ChannelOption.SO_SNDBUF, PEER_SOCKET_BUFFER_BYTES);
            channel.config().setAllocator(PooledByteBufAllocator.DEFAULT);
            channel.config().setRecvByteBufAllocator(new FixedRecvByteBufAllocator(UdpTransport.RECEIVE_BUFFER_BYTES));
            SocketFilters.acceptOnlyFrom(channel, peer.address);
        }
        catch (final RuntimeException e)
        {
            channel.close();
            onClosed(peer, channel);
            peer.count = -8 * config.connectAfter(); // retry much later, not on every datagram
            channels.countPeerOpenFailure(e);
            return;
        }
        channel.attr(PEER).set(peer);
        channel.pipeline().addLast(channels);
        // On this loop both complete at once: register inline, then bind to the listening address:port and connect.
        endpoint.loop.register(channel);
        channel.connect(peer.address, endpoint.local).addListener(onConnect);
    }

    private void onConnect(final ChannelFuture future)
    {
        if (future.isSuccess())
        {
            channels.countPeerOpened();
            return;
        }
        final Channel channel = future.channel();
        final Peer peer = channel.attr(PEER).get();
        if (null != peer)
        {
            onClosed(peer, channel);
            peer.count = -8 * config.connectAfter();
        }
        channel.close();
        channels.countPeerOpenFailure(future.cause());
    }

    private void linkFirst(final Peer peer)
    {
        peer.prev = null;
        peer.next = head;
        if (null != head)
        {
            head.prev = peer;
        }
        head = peer;
        if (null == tail)
        {
            tail = peer;
        }
    }

    private void unlink(final Peer peer)
    {
        if (null != peer.prev)
        {
            peer.prev.next = peer.next;
        }
        else
        {
            head = peer.next;
        }
        if (null != peer.next)
        {
            peer.next.prev = peer.prev;
        }
        else
        {
            tail = peer.prev;
        }
        peer.prev = null;
        peer.next = null;
    }

    /**
     * One (local address:port, peer) pair of a shard: its count, its place in the LRU list, and its connected channel
     * once opened. Owned by the shard's loop.
     */
    static final class Peer extends UdpSink
    {
        final UdpEndpoint endpoint;
        final InetSocketAddress address;
        /** Datagrams counted towards the connect; negative after a failed connect (a back-off). */
        int count;
        long lastNs;
        boolean tracked = true;
        /** The connected channel, from the moment it is opened; {@link #ctx} is set once it is active. */
        Channel channel;
        Peer prev;
        Peer next;

        Peer(final UdpEndpoint endpoint, final InetSocketAddress address)
        {
            this.endpoint = endpoint;
            this.address = address;
        }
    }
}
