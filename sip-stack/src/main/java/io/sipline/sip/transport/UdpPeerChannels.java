package io.sipline.sip.transport;

import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.Errors;
import io.netty.util.ReferenceCountUtil;

/**
 * The handler of every connected peer channel of one UDP shard ({@link UdpPeers} opens and closes them): reads go
 * through the same path as a listening socket's (the peer's listening {@link UdpEndpoint} is the current one), by
 * Netty or by the shard's recvmsg reader ({@link UdpShardReads}), and errors never close a listening socket. An ICMP
 * port unreachable on a peer channel ({@code ECONNREFUSED}, RFC 3261 §18.4) closes that channel and is reported to
 * every shard ({@link UdpShardSockets#onUnreachable}); datagrams still queued on a channel when it closes count as
 * send failures, not errors. Idle peers are swept on a timer, one per shard.
 *
 * <p>Buffers: a {@link DatagramPacket} Netty passes in is released by {@link #channelRead}, once, whatever happens.
 *
 * <p>Not thread-safe; owned by the shard's event loop (every peer channel is registered on it). Made once per shard.
 */
@ChannelHandler.Sharable
final class UdpPeerChannels extends ChannelInboundHandlerAdapter
{
    private final UdpShardSockets shard;
    private final UdpCounterSlots counters;
    private final DistinctErrors errors;
    final UdpPeers peers;
    private final long sweepNs;
    private boolean sweepScheduled;

    UdpPeerChannels(final UdpShardSockets shard, final UdpCounterSlots counters, final DistinctErrors errors,
        final UdpPeerConfig config)
    {
        this.shard = shard;
        this.counters = counters;
        this.errors = errors;
        this.peers = new UdpPeers(config, this);
        this.sweepNs = TimeUnit.MILLISECONDS.toNanos(Math.max(1, config.idleMillis() / 4));
    }

    /** Sweeps idle peers on {@code loop} from now on; once per shard, at its first active listening channel. */
    void scheduleSweep(final EventLoop loop)
    {
        if (!sweepScheduled)
        {
            sweepScheduled = true;
            loop.scheduleAtFixedRate(this::sweep, sweepNs, sweepNs, TimeUnit.NANOSECONDS);
        }
    }

    private void sweep()
    {
        if (peers.sweep(System.nanoTime()) > 0)
        {
            shard.flush(); // nothing pending is lost: a closed channel's flush is skipped, the others go now
        }
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        final UdpPeers.Peer peer = ctx.channel().attr(UdpPeers.PEER).get();
        if (null != peer && peer.channel == ctx.channel())
        {
            peer.ctx = ctx;
            shard.reads.startReading(ctx, peer);
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        stopReading(ctx.channel()); // closed by anything but UdpPeers (which stops it first): the duplicate too
        final UdpPeers.Peer peer = ctx.channel().attr(UdpPeers.PEER).get();
        if (null != peer)
        {
            peers.onClosed(peer, ctx.channel());
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        try
        {
            final UdpPeers.Peer peer = ctx.channel().attr(UdpPeers.PEER).get();
            if (msg instanceof DatagramPacket packet && null != peer)
            {
                peers.touch(peer, System.nanoTime());
                counters.increment(ShardCounters.PEER_DATAGRAMS_IN);
                shard.onDatagram(peer.endpoint, packet.content(), packet.sender(), 0L); // arrival: now
            }
            else
            {
                counters.increment(ShardCounters.DROPPED);
            }
        }
        finally
        {
            // Release rule (class javadoc): as on a listening socket, once, here.
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        shard.channelReadComplete(ctx); // the same flush of everything the batch wrote
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        if (cause instanceof ClosedChannelException && !ctx.channel().isOpen())
        {
            // A datagram still queued when the channel closed (its peer unreachable, idle, evicted): not sent, as
            // when a socket cannot take it; the peer's transactions retransmit or time out (RFC 3261 §17).
            counters.increment(ShardCounters.SEND_FAILURES);
            return;
        }
        final UdpPeers.Peer peer = ctx.channel().attr(UdpPeers.PEER).get();
        if (!isRefused(cause) || null == peer)
        {
            counters.increment(ShardCounters.ERRORS);
            errors.record("udp shard " + shard.index() + " peer channel", cause);
            return;
        }
        onPeerRefused(peer);
    }

    /**
     * A connected peer channel reported an ICMP port unreachable ({@code ECONNREFUSED}, RFC 3261 §18.4), through
     * Netty's read or write or through the shard's own recvmsg: the peer is gone from that port. Its channel closes
     * (the listening socket is untouched); every shard forgets the peer and fails its transactions with it.
     */
    void onPeerRefused(final UdpPeers.Peer peer)
    {
        counters.increment(ShardCounters.PEERS_UNREACHABLE);
        final InetSocketAddress local = peer.endpoint.local;
        final InetSocketAddress address = peer.address;
        for (final UdpShardSockets other : shard.all)
        {
            if (other == shard)
            {
                shard.onUnreachable(local, address);
            }
            else
            {
                final EventLoop loop = other.loop;
                if (null != loop)
                {
                    loop.execute(() -> other.onUnreachable(local, address)); // rare: one task per shard
                }
            }
        }
    }

    /** True for the error a connected UDP socket reports after an ICMP port unreachable (RFC 3261 §18.4). */
    static boolean isRefused(final Throwable cause)
    {
        return cause instanceof PortUnreachableException
            || cause instanceof Errors.NativeIoException e && e.expectedErr() == Errors.ERROR_ECONNREFUSED_NEGATIVE;
    }

    /** Stops the shard's recvmsg reader of a peer channel before it closes; see {@link UdpShardReads#stopReading}. */
    void stopReading(final Channel channel)
    {
        shard.reads.stopReading(channel);
    }

    void countPeerOpened()
    {
        counters.increment(ShardCounters.PEERS_OPENED);
    }

    void countPeerClosed()
    {
        counters.increment(ShardCounters.PEERS_CLOSED);
    }

    void countPeerOpenFailure(final Throwable cause)
    {
        counters.increment(ShardCounters.PEER_OPEN_FAILURES);
        errors.record("udp shard " + shard.index() + " connecting a peer channel", cause);
    }
}
