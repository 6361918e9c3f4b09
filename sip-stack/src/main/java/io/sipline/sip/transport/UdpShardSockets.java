package io.sipline.sip.transport;

import java.net.Inet6Address;
import java.net.InetSocketAddress;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.sipline.sip.capture.HepCaptureAgent;
import io.sipline.sip.capture.HepEncoder;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;

/**
 * The UDP sockets of one shard: the inbound handler of every listening channel the shard owns (one per address:port,
 * bound with {@code SO_REUSEPORT} so the kernel spreads datagrams over the shards), and the face its
 * {@link SipMessageHandler} answers through. Each stage is a class of its own, made once per shard:
 * {@link UdpShardReads} (recvmsg on epoll sockets), {@link UdpPeerChannels} and {@link UdpPeers} (connected channels
 * of busy peers, unreachable reports), {@link UdpShardOutput} (socket choice, sendto or Netty's write, batched flush)
 * and {@link UdpCounterSlots}.
 *
 * <p>Per datagram ({@link #onDatagram}): count it, demultiplex on the first bytes ({@link DatagramKind}: keep-alive,
 * STUN, SIP), mirror SIP to the HEP collector when capture is on ({@link HepCaptureAgent}, as every SIP datagram
 * sent), parse SIP into the shard's reused {@link SipMessage} (one copy out of the receive buffer), stamp its
 * arrival time (the kernel's where the shard reads the socket itself, else {@link RealtimeClock}), and hand it to the
 * handler. Nothing is allocated per datagram on the recvmsg and sendto paths.
 *
 * <p>Buffers: a {@link DatagramPacket} Netty passes in is released by {@link #channelRead}, once, whatever happens;
 * its bytes are copied into the message. {@link #send} and {@link #sendFrom} take ownership of their buffer.
 *
 * <p>Not thread-safe; owned by shard k's event loop (every channel it handles is registered on that loop, which is
 * why one instance may sit in several pipelines). Only {@link #snapshot()} and {@link #index()} are for other threads.
 * Errors are counted and each distinct one logged once; nothing is logged per packet.
 */
@ChannelHandler.Sharable
public final class UdpShardSockets extends ChannelInboundHandlerAdapter
{
    /**
     * Largest UDP payload an IPv4 datagram can carry: 65,535 minus the 8-byte UDP header minus the 20-byte IP header
     * (RFC 768, RFC 791). Answers above it are not sent.
     */
    public static final int MAX_UDP_PAYLOAD = 65_507;

    /** Datagrams read per wake-up of a socket read with recvmsg (Netty's default per read, too). */
    public static final int READS_PER_WAKEUP = 16;
    private static final AttributeKey<UdpEndpoint> ENDPOINT =
        AttributeKey.valueOf(UdpShardSockets.class, "endpoint");

    private final int index;
    private final SipMessageHandler handler;
    private final ByteBufAllocator allocator;
    private final DistinctErrors errors;
    private final SipMessage message = new SipMessage();
    private final UdpCounterSlots counters = new UdpCounterSlots();
    /** Connected peer channels and their handler; null when off. */
    final UdpPeerChannels peerChannels;
    /** {@code peerChannels.peers}; null when off. */
    final UdpPeers peers;
    final UdpShardOutput output;
    final UdpShardReads reads;
    /** True when this shard writes its epoll listening sockets with sendto. */
    private final boolean sendsDirect;
    /** This shard's HEP mirror of every SIP datagram read and sent; null when off. Set once before the first bind. */
    private HepCaptureAgent capture;
    /** Every shard of the transport (for reports that concern them all); set once before the first bind. */
    UdpShardSockets[] all = {this};
    /** This shard's loop, from its first active listening channel on; read by other shards to post reports. */
    volatile EventLoop loop;

    UdpShardSockets(final int index, final SipMessageHandler handler, final ByteBufAllocator allocator,
        final DistinctErrors errors)
    {
        this(index, handler, allocator, errors, UdpPeerConfig.OFF, null, null);
    }

    /**
     * @param sendTo   the shard's own sendto on listening sockets (used only on epoll channels), or null for Netty's
     *                 write of every datagram.
     * @param recvFrom the shard's own recvmsg on listening sockets and peer channels (epoll channels only), or null
     *                 for Netty's reads.
     */
    UdpShardSockets(final int index, final SipMessageHandler handler, final ByteBufAllocator allocator,
        final DistinctErrors errors, final UdpPeerConfig peerConfig, final UdpSendTo sendTo,
        final UdpRecvMsg recvFrom)
    {
        this(index, handler, allocator, errors, peerConfig, sendTo, recvFrom, null);
    }

    /** @param batch the batched reads on {@code recvFrom}'s senders, or null for one recvmsg per datagram. */
    UdpShardSockets(final int index, final SipMessageHandler handler, final ByteBufAllocator allocator,
        final DistinctErrors errors, final UdpPeerConfig peerConfig, final UdpSendTo sendTo,
        final UdpRecvMsg recvFrom, final UdpRecvMmsg batch)
    {
        this.index = index;
        this.handler = handler;
        this.allocator = allocator;
        this.errors = errors;
        this.peerChannels = peerConfig.enabled() ? new UdpPeerChannels(this, counters, errors, peerConfig) : null;
        this.peers = null == peerChannels ? null : peerChannels.peers;
        this.output = new UdpShardOutput(index, counters, errors, peers, sendTo);
        this.reads = new UdpShardReads(this, counters, errors, recvFrom, batch);
        this.sendsDirect = null != sendTo;
    }

    /** Before any bind: every shard of the transport, this one included. */
    void shards(final UdpShardSockets[] shards)
    {
        all = shards;
    }

    /** Before any bind: mirror every SIP datagram this shard reads or sends to {@code agent} (null: none). */
    void capture(final HepCaptureAgent agent)
    {
        capture = agent;
        output.capture(agent);
    }

    /** This shard's index, 0 to N-1. Any thread. */
    public int index()
    {
        return index;
    }

    /** The handler this shard feeds. */
    public SipMessageHandler handler()
    {
        return handler;
    }

    /**
     * A pooled direct buffer for an outbound datagram, to fill and pass to {@link #send}.
     *
     * @return owned by the caller until it passes it to {@link #send}; released by the caller if not sent.
     */
    public ByteBuf allocate(final int initialCapacity)
    {
        return allocator.directBuffer(initialCapacity);
    }

    /**
     * Sends a datagram from the socket the current datagram arrived on (RFC 3581 §4), flushed when the shard's read
     * batch ends. Valid only during {@link SipMessageHandler#onMessage}.
     *
     * @param datagram  ownership passes to this method, sent or not.
     * @param recipient where to; null counts as a send failure (no usable destination).
     * @return true when the datagram was handed to the socket, false when it was released unsent.
     */
    public boolean send(final ByteBuf datagram, final InetSocketAddress recipient)
    {
        return output.write(output.current, datagram, recipient);
    }

    /**
     * Sends a datagram from one of this shard's sockets, inside a read or outside it (a timer, a hand-over drained
     * from another shard, an API call on this shard's loop). The write is flushed when the read batch ends or when
     * the caller calls {@link #flush()}; code that runs outside a read calls {@link #flush()} before it returns to
     * the loop. Shard thread only.
     *
     * @param local     the local address:port to send from (RFC 3581 §4: where the request arrived); null for the
     *                  socket of the datagram being handled, or else the first socket of the recipient's family.
     * @param datagram  ownership passes to this method, sent or not.
     * @param recipient where to; null counts as a send failure.
     * @return true when the datagram was handed to the socket, false when it was released unsent (counted).
     */
    public boolean sendFrom(final InetSocketAddress local, final ByteBuf datagram, final InetSocketAddress recipient)
    {
        return output.write(output.endpointFor(local, recipient), datagram, recipient);
    }

    /**
     * The local address:port {@link #sendFrom} would use for these arguments: {@code local} when this shard has a
     * socket there, else the socket of the datagram being handled, else the first socket of the recipient's family;
     * null when there is none. The object is the channel's own: it may be kept (a client transaction keeps the one
     * its first send used, so that its retransmissions leave from the same socket). Shard thread only.
     */
    public InetSocketAddress localFor(final InetSocketAddress local, final InetSocketAddress recipient)
    {
        final UdpEndpoint endpoint = output.endpointFor(local, recipient);
        return null == endpoint ? null : endpoint.local;
    }

    /**
     * Once a second, between two datagrams: the receive message lets go of a burst's arrays and of the last datagram
     * ({@link SipMessage#trimScratch}). Shard thread only.
     */
    public void trim()
    {
        message.trimScratch();
    }

    /**
     * Flushes every socket written by {@link #sendFrom} or {@link #send} since the last flush. Shard thread only.
     * Re-entrant: a call from inside a flush (a refused write's unreachable report) returns at once, and the outer
     * flush sends what it wrote.
     */
    public void flush()
    {
        output.flush();
    }

    /**
     * The local address:port of the datagram being handled (valid during {@link SipMessageHandler#onMessage}), or
     * null outside a read. The object is the listening channel's own and lives as long as it: it may be kept.
     */
    public InetSocketAddress currentLocal()
    {
        final UdpEndpoint current = output.current;
        return null == current ? null : current.local;
    }

    /** The number of listening channels this shard has active; shard thread only. */
    public int endpointCount()
    {
        return output.endpointCount();
    }

    /**
     * The number of listening sockets this shard reads with recvmsg; shard thread only (or after its loop ended).
     */
    int nativeReaders()
    {
        return reads.nativeReaders();
    }

    /** The number of connected peer channels open or opening; shard thread only. */
    public int connectedPeers()
    {
        return null == peers ? 0 : peers.connected();
    }

    /** Closes every connected peer channel (the listening ones stay); shard thread only. At close, and in tests. */
    public void closePeers()
    {
        if (null != peers)
        {
            peers.forgetAll();
        }
    }

    /** A copy of the counters; any thread. */
    public ShardCounters snapshot()
    {
        return counters.snapshot(index);
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        // Runs on this shard's loop once per bound channel: index it for sends made outside a read.
        final InetSocketAddress local = ctx.channel().localAddress() instanceof InetSocketAddress address ?
            address : null; // not a socket (an EmbeddedChannel in tests): answers only, nothing to index
        final UdpEndpoint endpoint = new UdpEndpoint(ctx, local, null == local ? null : ctx.channel().eventLoop());
        if ((sendsDirect || reads.enabled()) && null != local && ctx.channel() instanceof EpollDatagramChannel epoll)
        {
            // The transport makes each listening socket of its address's family (UdpTransport.bind).
            endpoint.fd = epoll.fd().intValue();
            endpoint.ipv6Socket = local.getAddress() instanceof Inet6Address;
        }
        ctx.channel().attr(ENDPOINT).set(endpoint);
        if (reads.enabled() && endpoint.fd >= 0)
        {
            reads.startReading(ctx, endpoint);
        }
        if (null != local)
        {
            output.add(endpoint);
            loop = ctx.channel().eventLoop();
            if (null != peerChannels)
            {
                peerChannels.scheduleSweep(loop);
            }
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        final UdpEndpoint endpoint = ctx.channel().attr(ENDPOINT).get();
        if (null != endpoint)
        {
            endpoint.fd = -1; // closed: its number may be reused by any new descriptor
            reads.stopReading(endpoint);
        }
        if (null != endpoint && null != endpoint.local)
        {
            output.remove(endpoint);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        try
        {
            if (msg instanceof DatagramPacket packet)
            {
                final UdpEndpoint endpoint = ctx.channel().attr(ENDPOINT).get();
                if (null != peers && null != endpoint)
                {
                    peers.note(endpoint, packet.sender(), System.nanoTime());
                }
                onDatagram(endpoint, packet.content(), packet.sender(), 0L); // arrival: now
            }
            else
            {
                counters.increment(ShardCounters.DROPPED);
            }
        }
        finally
        {
            // Release rule (class javadoc): the inbound datagram is released here, once, whatever happened above.
            ReferenceCountUtil.release(msg);
        }
    }

    /**
     * One datagram read on a listening socket or a peer's channel, by Netty or by {@link UdpShardReads}.
     *
     * @param content         borrowed: read here, never released or kept (its bytes are copied into the reused
     *                        message).
     * @param receivedAtNanos the kernel's receive time of the datagram ({@link RealtimeClock} time base), or 0 for
     *                        "read just now" (Netty's reads): the clock is then read here, once the datagram is SIP.
     */
    void onDatagram(final UdpEndpoint endpoint, final ByteBuf content, final InetSocketAddress sender,
        final long receivedAtNanos)
    {
        counters.increment(ShardCounters.DATAGRAMS_IN);
        final int kind = DatagramKind.classify(content);
        if (DatagramKind.KEEP_ALIVE == kind)
        {
            // RFC 5626 §4.4.1: no CRLF pong over UDP (see DatagramKind); the NAT binding is refreshed by the ping.
            counters.increment(ShardCounters.KEEP_ALIVES);
            return;
        }
        output.current = endpoint;
        try
        {
            if (DatagramKind.STUN == kind)
            {
                counters.increment(ShardCounters.STUN);
                answerStun(content, sender);
                return;
            }

            final long arrival = 0L != receivedAtNanos ? receivedAtNanos : RealtimeClock.nanos();
            if (null != capture && null != endpoint && null != endpoint.local)
            {
                capture.capture(HepEncoder.PROTOCOL_UDP, content, content.readerIndex(), content.readableBytes(),
                    sender, endpoint.local, arrival);
            }
            // One copy into the message's own array (ByteBufCopy: no ByteBuffer view made, JDK 25), parsed there.
            final ParseResult result = SipMessageParser.parseDatagram(content, message);
            message.receivedAtNanos(arrival);
            if (ParseResult.OK == result)
            {
                counters.increment(message.isRequest() ? ShardCounters.REQUESTS_IN : ShardCounters.RESPONSES_IN);
            }
            else
            {
                counters.increment(ShardCounters.PARSE_ERRORS);
                counters.increment(ShardCounters.BY_PARSE_RESULT + result.ordinal());
            }
            if (!handler.onMessage(this, message, sender))
            {
                counters.increment(ShardCounters.DROPPED);
            }
        }
        finally
        {
            output.current = null;
        }
    }

    /**
     * RFC 5626 §4.4.2, §8.4: a STUN Binding request on a SIP port is a keep-alive that wants the sender's reflexive
     * address back ({@link StunKeepAlive}); any other STUN message is dropped and counted.
     */
    private void answerStun(final ByteBuf content, final InetSocketAddress sender)
    {
        final int at = content.readerIndex();
        final ByteBuf answer = StunKeepAlive.answer(allocator, content.getUnsignedShort(at), content.getInt(at + 8),
            content.getInt(at + 12), content.getInt(at + 16), sender);
        if (null == answer)
        {
            counters.increment(ShardCounters.DROPPED);
            return;
        }
        send(answer, sender); // ownership passes to send
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        endReadBatch();
        ctx.fireChannelReadComplete();
    }

    /**
     * A read batch ended (up to {@link #READS_PER_WAKEUP} datagrams, or Netty's maxMessagesPerRead): the handler's
     * deferred work ({@link SipMessageHandler#onReadBatchEnd}), then one flush of what the batch wrote, which epoll
     * sends with sendmmsg. Shard thread only.
     */
    void endReadBatch()
    {
        handler.onReadBatchEnd(this);
        if (output.pending())
        {
            output.flush();
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        // Never close the channel and never rethrow: one bad datagram must not take the shard's socket down.
        counters.increment(ShardCounters.ERRORS);
        errors.record("udp shard " + index, cause);
    }

    /**
     * Another shard (or this one) learnt that {@code peer} refuses datagrams sent from {@code local}
     * ({@link UdpPeerChannels#onPeerRefused}): forget the peer's channel here too, and tell the handler. On this
     * shard's loop.
     */
    void onUnreachable(final InetSocketAddress local, final InetSocketAddress peer)
    {
        final UdpEndpoint endpoint = output.byLocal(local);
        if (null != peers && null != endpoint)
        {
            peers.forget(endpoint, peer);
        }
        try
        {
            handler.onUnreachable(this, local, peer);
        }
        catch (final RuntimeException e)
        {
            counters.increment(ShardCounters.ERRORS);
            errors.record("udp shard " + index + " unreachable report", e);
        }
        flush();
    }
}
