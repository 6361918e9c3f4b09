package io.sipline.sip.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.util.HashMap;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.unix.Errors;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.AttributeKey;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;

/**
 * The UDP sockets of one shard: the inbound handler of every datagram channel the shard owns (one per listening
 * address:port, each bound with {@code SO_REUSEPORT} so the kernel spreads datagrams over the shards, and the
 * connected channels of its busy peers, {@link UdpPeers}), with the shard's reused {@link SipMessage}, its
 * {@link SipMessageHandler} and its counters.
 *
 * <p>Per datagram: count it, demultiplex on the first bytes ({@link DatagramKind}: keep-alive, STUN, SIP), parse SIP
 * into the reused message (one copy out of the receive buffer), stamp its arrival time (the kernel's receive
 * timestamp where the shard reads the socket itself, else {@link RealtimeClock}), and hand it to the handler, which
 * answers through {@link #send}. With epoll the shard reads its sockets itself ({@link UdpRecvMsg}: {@code recvmsg}
 * into one pooled buffer, up to {@link #READS_PER_WAKEUP} per wake-up) and writes to unconnected peers with
 * {@code sendto} ({@link UdpSendTo}), falling back to Netty's read and write, counted, where those fail; Netty's
 * datagram path allocates per datagram. An ICMP port unreachable on a peer channel (RFC 3261 §18.4) closes that
 * channel and is reported to every shard's handler ({@link SipMessageHandler#onUnreachable}).
 *
 * <p>Buffers: a {@link DatagramPacket} Netty passes in is released by {@link #channelRead}, once, whatever happens;
 * nothing downstream sees it (its bytes are copied into the message). {@link #send} takes ownership of its buffer:
 * passed to Netty (which releases it once written), or sent with {@code sendto} and released, or released when it
 * cannot be sent. The shard's receive buffer is never handed on, and is released when its last reader stops.
 *
 * <p>Counters: plain {@code long} slots written by this shard with opaque stores, padded against false sharing, so
 * that {@link #snapshot()} can read them from another thread without a lock. Errors are counted and each distinct
 * one logged once; nothing is logged per packet.
 *
 * <p>Not thread-safe; owned by shard k's event loop (every channel it handles is registered on that loop, which is
 * why one instance may sit in several pipelines). Only {@link #snapshot()} and {@link #index()} are for other threads.
 */
@ChannelHandler.Sharable
public final class UdpShardSockets extends ChannelInboundHandlerAdapter
{
    /**
     * Largest UDP payload an IPv4 datagram can carry: 65,535 minus the 8-byte UDP header minus the 20-byte IP header
     * (RFC 768, RFC 791). Answers above it are not sent.
     */
    public static final int MAX_UDP_PAYLOAD = 65_507;

    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Datagrams read per wake-up of a socket read with recvmsg (Netty's default per read, too). */
    static final int READS_PER_WAKEUP = 16;
    /** Eight longs: one cache line on each side of the counters. */
    private static final int PAD = 8;
    private static final AttributeKey<Endpoint> ENDPOINT = AttributeKey.valueOf(UdpShardSockets.class, "endpoint");
    /** The recvmsg reader of a connected peer channel, while it has one. */
    private static final AttributeKey<PeerReader> READER = AttributeKey.valueOf(UdpShardSockets.class, "reader");

    private final int index;
    private final SipMessageHandler handler;
    private final ByteBufAllocator allocator;
    private final DistinctErrors errors;
    private final SipMessage message = new SipMessage();
    private final long[] counts = new long[PAD + ShardCounters.SLOTS + PAD];
    /** Connected peer channels; null when off. */
    private final UdpPeers peers;
    /** This shard's sendto on its listening sockets; null when Netty writes everything (NIO, not Linux, off). */
    private final UdpSendTo sendTo;
    /** This shard's recvmsg on its sockets; null when Netty reads everything (NIO, not Linux, off). */
    private final UdpRecvMsg recvFrom;
    /** The buffer {@link #recvFrom} reads into, while at least one socket (listening or peer) is read that way. */
    private ByteBuf receiveBuffer;
    /**
     * What is read and handed on of {@link #receiveBuffer}: the buffer under the leak detector's wrapper when it has
     * one. Made while the detector runs at {@code ADVANCED} or {@code PARANOID} (tests start so), the wrapper would
     * record a stack trace on every access for the shard's whole life (as {@code StackManyPeersAllocationTest} would
     * see); the wrapper itself is kept for the release, so a missing release is
     * still reported.
     */
    private ByteBuf receiveView;
    private int nativeReaders;
    private int peerReaders;
    private final long peerSweepNs;
    /** Every shard of the transport (for reports that concern them all); set once before the first bind. */
    private UdpShardSockets[] all = {this};

    /** The listening socket of the datagram being handled; set only for the duration of the handler call. */
    private Endpoint currentEndpoint;

    /** This shard's channels by local address, for sends outside a read (timers, hand-overs); shard thread only. */
    private final HashMap<InetSocketAddress, Endpoint> byLocal = new HashMap<>();
    private Endpoint defaultV4;
    private Endpoint defaultV6;
    /** Sockets written since their last flush (each at most once: {@link Sink#dirty}). */
    private Sink[] dirty = new Sink[8];
    private int dirtyCount;
    /** True while {@link #flush} runs (it may be re-entered from a failed write's exceptionCaught). */
    private boolean flushing;
    private boolean sweepScheduled;
    /** This shard's loop, from its first active listening channel on; read by other shards to post reports. */
    private volatile EventLoop loop;

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
        this.sendTo = sendTo;
        this.recvFrom = recvFrom;
        this.index = index;
        this.handler = handler;
        this.allocator = allocator;
        this.errors = errors;
        this.peers = peerConfig.enabled() ? new UdpPeers(peerConfig, new PeerHandler(), this) : null;
        this.peerSweepNs = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Math.max(1, peerConfig.idleMillis() / 4));
    }

    /** Before any bind: every shard of the transport, this one included. */
    void shards(final UdpShardSockets[] shards)
    {
        all = shards;
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
     * A pooled direct buffer for an outbound datagram, to fill and pass to {@link #send}. The caller owns it until
     * then, and must release it if it does not send it.
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
        return write(currentEndpoint, datagram, recipient);
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
        return write(endpointFor(local, recipient), datagram, recipient);
    }

    /**
     * Writes on the peer's connected channel when it has an active one, else on the listening socket with the
     * recipient's address. Ownership of {@code datagram} passes here.
     */
    private boolean write(final Endpoint endpoint, final ByteBuf datagram, final InetSocketAddress recipient)
    {
        if (null == endpoint || null == recipient || datagram.readableBytes() > MAX_UDP_PAYLOAD)
        {
            // UDP has no back-pressure to offer: an answer that cannot go now is dropped; the peer retransmits.
            datagram.release(); // refused: the reference we were given
            increment(ShardCounters.SEND_FAILURES);
            return false;
        }
        final UdpPeers.Peer peer = null == peers ? null : peers.note(endpoint, recipient, System.nanoTime());
        final Sink sink;
        final Object msg;
        if (null != peer && null != peer.ctx && peer.ctx.channel().isWritable())
        {
            // Connected: the socket knows where to; Netty writes the buffer with send(2), no address converted.
            sink = peer;
            msg = datagram;
            increment(ShardCounters.PEER_DATAGRAMS_OUT);
        }
        else if (endpoint.ctx.channel().isWritable())
        {
            if (null != sendTo && endpoint.fd >= 0 && sendDirect(endpoint, datagram, recipient))
            {
                increment(ShardCounters.RESPONSES_SENT);
                return true; // sent, and released there
            }
            sink = endpoint;
            msg = new DatagramPacket(datagram, recipient);
        }
        else
        {
            datagram.release();
            increment(ShardCounters.SEND_FAILURES);
            return false;
        }
        // voidPromise: no promise per datagram; a failed write is fired into exceptionCaught, where it is counted.
        sink.ctx.write(msg, sink.ctx.voidPromise());
        if (!sink.dirty)
        {
            sink.dirty = true;
            if (dirtyCount == dirty.length)
            {
                dirty = java.util.Arrays.copyOf(dirty, 2 * dirtyCount);
            }
            dirty[dirtyCount++] = sink;
        }
        increment(ShardCounters.RESPONSES_SENT);
        return true;
    }

    /**
     * Sends {@code datagram} with {@code sendto} on the listening socket of {@code endpoint} (class javadoc, "Sends on
     * a listening socket"). Shard thread only: the endpoint's channel is on this loop, so its descriptor is open.
     *
     * @param datagram ownership passes here only when this returns true: it was sent and released here (release
     *                 rule: {@link UdpSendTo#send} only borrowed it). On false it is untouched and still the
     *                 caller's, for Netty's write.
     * @return true when sent.
     */
    private boolean sendDirect(final Endpoint endpoint, final ByteBuf datagram, final InetSocketAddress recipient)
    {
        final ChannelOutboundBuffer queued = endpoint.ctx.channel().unsafe().outboundBuffer();
        if (null == queued || 0 != queued.totalPendingWriteBytes())
        {
            return false; // Netty still holds datagrams for this socket: ours goes after them, through Netty
        }
        final int result;
        try
        {
            result = sendTo.send(endpoint.fd, endpoint.ipv6Socket, datagram, recipient);
        }
        catch (final RuntimeException e)
        {
            increment(ShardCounters.NATIVE_SEND_FALLBACKS);
            errors.record("udp shard " + index + " sendto", e);
            return false;
        }
        if (0 == result)
        {
            datagram.release(); // release rule: sent; the reference we were given
            increment(ShardCounters.NATIVE_SENDS);
            return true;
        }
        if (UdpSendTo.DECLINED != result)
        {
            increment(ShardCounters.NATIVE_SEND_FALLBACKS); // EAGAIN or an error: Netty's write queues or reports it
        }
        return false;
    }

    /**
     * The local address:port {@link #sendFrom} would use for these arguments: {@code local} when this shard has a
     * socket there, else the socket of the datagram being handled, else the first socket of the recipient's family;
     * null when there is none. The object is the channel's own: it may be kept (a client transaction keeps the one
     * its first send used, so that its retransmissions leave from the same socket). Shard thread only.
     */
    public InetSocketAddress localFor(final InetSocketAddress local, final InetSocketAddress recipient)
    {
        final Endpoint endpoint = endpointFor(local, recipient);
        return null == endpoint ? null : endpoint.local;
    }

    private Endpoint endpointFor(final InetSocketAddress local, final InetSocketAddress recipient)
    {
        final Endpoint endpoint = null == local ? null : byLocal.get(local);
        if (null != endpoint)
        {
            return endpoint;
        }
        if (null != currentEndpoint)
        {
            return currentEndpoint;
        }
        return null != recipient && recipient.getAddress() instanceof Inet6Address ? defaultV6 : defaultV4;
    }

    /**
     * Flushes every socket written by {@link #sendFrom} or {@link #send} since the last flush. Shard thread only.
     *
     * <p>Re-entrant: a flush that fails on a peer's connected channel with {@code ECONNREFUSED} reaches
     * {@code exceptionCaught} at once, inside this loop, and the report of the unreachable peer flushes again (its
     * transactions fail and their users may answer). That inner call returns at once: the loop running reads
     * {@link #dirtyCount} afresh each turn, so what the report wrote (sockets made dirty again, or new ones) is flushed
     * by it. Before, the inner call walked the list from its start, found the slot this loop had already cleared, and
     * threw (a NullPointerException per refused flush under overload, seen in a load run).
     */
    public void flush()
    {
        if (flushing)
        {
            return;
        }
        flushing = true;
        try
        {
            for (int i = 0; i < dirtyCount; i++)
            {
                final Sink sink = dirty[i];
                dirty[i] = null;
                sink.dirty = false;
                final ChannelHandlerContext ctx = sink.ctx;
                if (null != ctx)
                {
                    ctx.flush();
                }
            }
        }
        finally
        {
            // Also after a throw: the sockets not reached lose their mark with their slot, so that their next write
            // lists them again (still marked, in no list, they would never be flushed again).
            for (int i = 0; i < dirtyCount; i++)
            {
                if (null != dirty[i])
                {
                    dirty[i].dirty = false;
                    dirty[i] = null;
                }
            }
            dirtyCount = 0;
            flushing = false;
        }
    }

    /**
     * The local address:port of the datagram being handled (valid during {@link SipMessageHandler#onMessage}), or
     * null outside a read. The object is the listening channel's own and lives as long as it: it may be kept.
     */
    public InetSocketAddress currentLocal()
    {
        return null == currentEndpoint ? null : currentEndpoint.local;
    }

    /** The number of listening channels this shard has active; shard thread only. */
    public int endpointCount()
    {
        return byLocal.size();
    }

    /**
     * The number of listening sockets this shard reads with recvmsg; shard thread only (or after its loop ended).
     */
    int nativeReaders()
    {
        return nativeReaders;
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

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        // Runs on this shard's loop once per bound channel: index it for sends made outside a read.
        final InetSocketAddress local = ctx.channel().localAddress() instanceof InetSocketAddress address ?
            address : null; // not a socket (an EmbeddedChannel in tests): answers only, nothing to index
        final Endpoint endpoint = new Endpoint(ctx, local, null == local ? null : ctx.channel().eventLoop());
        if ((null != sendTo || null != recvFrom) && null != local
            && ctx.channel() instanceof EpollDatagramChannel epoll)
        {
            // The transport makes each listening socket of its address's family (UdpTransport.bind).
            endpoint.fd = epoll.fd().intValue();
            endpoint.ipv6Socket = local.getAddress() instanceof Inet6Address;
        }
        ctx.channel().attr(ENDPOINT).set(endpoint);
        if (null != recvFrom && endpoint.fd >= 0)
        {
            startReading(ctx, endpoint);
        }
        if (null != local)
        {
            byLocal.put(local, endpoint);
            if (local.getAddress() instanceof Inet6Address)
            {
                if (null == defaultV6)
                {
                    defaultV6 = endpoint;
                }
            }
            else if (null == defaultV4)
            {
                defaultV4 = endpoint;
            }
            loop = ctx.channel().eventLoop();
            if (null != peers && !sweepScheduled)
            {
                sweepScheduled = true;
                loop.scheduleAtFixedRate(this::sweepPeers, peerSweepNs, peerSweepNs,
                    java.util.concurrent.TimeUnit.NANOSECONDS);
            }
        }
        ctx.fireChannelActive();
    }

    private void sweepPeers()
    {
        if (peers.sweep(System.nanoTime()) > 0)
        {
            flush(); // nothing pending is lost: a closed channel's flush is skipped, the others go now
        }
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        final Endpoint endpoint = ctx.channel().attr(ENDPOINT).get();
        if (null != endpoint)
        {
            endpoint.fd = -1; // closed: its number may be reused by any new descriptor
            stopReading(endpoint);
        }
        if (null != endpoint && null != endpoint.local)
        {
            byLocal.remove(endpoint.local, endpoint);
            if (defaultV4 == endpoint)
            {
                defaultV4 = null;
            }
            if (defaultV6 == endpoint)
            {
                defaultV6 = null;
            }
        }
        ctx.fireChannelInactive();
    }

    /** A socket this shard writes on: a listening channel ({@link Endpoint}) or a peer's connected channel. */
    abstract static class Sink
    {
        /** The channel's context in this shard's pipeline; null while a peer's channel is not active. */
        ChannelHandlerContext ctx;
        boolean dirty;
    }

    /** One listening channel of this shard, with the peers counted on it. */
    static final class Endpoint extends Sink
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
        ListeningReader reader;

        Endpoint(final ChannelHandlerContext ctx, final InetSocketAddress local, final EventLoop loop)
        {
            this.ctx = ctx;
            this.local = local;
            this.loop = loop;
        }
    }

    /** A copy of the counters; any thread. */
    public ShardCounters snapshot()
    {
        final long[] copy = new long[ShardCounters.SLOTS];
        for (int i = 0; i < ShardCounters.SLOTS; i++)
        {
            copy[i] = (long)COUNTS.getOpaque(counts, PAD + i);
        }
        return new ShardCounters(index, copy);
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        try
        {
            if (msg instanceof DatagramPacket packet)
            {
                final Endpoint endpoint = ctx.channel().attr(ENDPOINT).get();
                if (null != peers && null != endpoint)
                {
                    peers.note(endpoint, packet.sender(), System.nanoTime());
                }
                onDatagram(endpoint, packet.content(), packet.sender(), 0L); // arrival: now
            }
            else
            {
                increment(ShardCounters.DROPPED);
            }
        }
        finally
        {
            // Release rule (class javadoc): the inbound datagram is released here, once, whatever happened above.
            ReferenceCountUtil.release(msg);
        }
    }

    /**
     * One datagram read on a listening socket or a peer's channel.
     *
     * @param content        borrowed: read here, never released or kept (its bytes are copied into the reused
     *                       message).
     * @param receivedAtNanos the kernel's receive time of the datagram ({@link RealtimeClock} time base), or 0 for
     *                       "read just now" (Netty's reads): the clock is then read here, once the datagram is SIP.
     */
    private void onDatagram(final Endpoint endpoint, final ByteBuf content, final InetSocketAddress sender,
        final long receivedAtNanos)
    {
        increment(ShardCounters.DATAGRAMS_IN);
        final int kind = DatagramKind.classify(content);
        if (DatagramKind.KEEP_ALIVE == kind)
        {
            // RFC 5626 §4.4.1: no CRLF pong over UDP (see DatagramKind); the NAT binding is refreshed by the ping.
            increment(ShardCounters.KEEP_ALIVES);
            return;
        }
        currentEndpoint = endpoint;
        try
        {
            if (DatagramKind.STUN == kind)
            {
                increment(ShardCounters.STUN);
                answerStun(content, sender);
                return;
            }

            // One copy into the message's own array (ByteBufCopy: no ByteBuffer view made, JDK 25), parsed there.
            final ParseResult result = SipMessageParser.parseDatagram(content, message);
            message.receivedAtNanos(0L != receivedAtNanos ? receivedAtNanos : RealtimeClock.nanos());
            if (ParseResult.OK == result)
            {
                increment(message.isRequest() ? ShardCounters.REQUESTS_IN : ShardCounters.RESPONSES_IN);
            }
            else
            {
                increment(ShardCounters.PARSE_ERRORS);
                increment(ShardCounters.BY_PARSE_RESULT + result.ordinal());
            }
            if (!handler.onMessage(this, message, sender))
            {
                increment(ShardCounters.DROPPED);
            }
        }
        finally
        {
            currentEndpoint = null;
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
            increment(ShardCounters.DROPPED);
            return;
        }
        send(answer, sender); // ownership passes to send
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        // One flush per read batch (up to maxMessagesPerRead datagrams): epoll sends the batch with sendmmsg.
        if (dirtyCount > 0)
        {
            flush();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        // Never close the channel and never rethrow: one bad datagram must not take the shard's socket down.
        increment(ShardCounters.ERRORS);
        errors.record("udp shard " + index, cause);
    }

    /**
     * Reads {@code endpoint}'s socket with recvmsg from now on (class javadoc, "Reads on a listening socket"): Netty's
     * auto-read off, a duplicate descriptor registered on this loop for reads. On any failure Netty keeps reading.
     * On this shard's loop, from {@link #channelActive}.
     */
    private void startReading(final ChannelHandlerContext ctx, final Endpoint endpoint)
    {
        final int copy = duplicate(ctx, endpoint.fd, "a listening socket");
        if (copy >= 0)
        {
            final ListeningReader reader = new ListeningReader(endpoint, copy);
            endpoint.reader = reader;
            nativeReaders++;
            register(ctx, reader);
        }
    }

    /**
     * Reads {@code peer}'s connected channel with recvmsg from now on (class javadoc, "Connected peers"), as
     * {@link #startReading} does a listening socket's. On this shard's loop, from the peer channel's activation.
     */
    private void startReading(final ChannelHandlerContext ctx, final UdpPeers.Peer peer)
    {
        if (!(ctx.channel() instanceof EpollDatagramChannel epoll) || !epoll.isOpen())
        {
            return;
        }
        final int copy = duplicate(ctx, epoll.fd().intValue(), "a peer channel");
        if (copy >= 0)
        {
            final PeerReader reader = new PeerReader(peer, ctx.channel(), copy);
            ctx.channel().attr(READER).set(reader);
            peerReaders++;
            register(ctx, reader);
        }
    }

    /**
     * The common part of both {@code startReading}: the loop can take the handle, the shard's receive buffer exists,
     * the descriptor is duplicated and its socket timestamps datagrams. A failed {@code setsockopt} only costs the
     * kernel's timestamps (the clock is read instead; counted as an error).
     *
     * @return the duplicate descriptor, for the caller's reader; -1 when Netty keeps reading.
     */
    private int duplicate(final ChannelHandlerContext ctx, final int fd, final String what)
    {
        if (null == recvFrom || !(ctx.channel().eventLoop() instanceof IoEventLoop loop)
            || !loop.isCompatible(NativeReader.class))
        {
            return -1;
        }
        if (null == receiveBuffer)
        {
            final ByteBuf buffer = allocator.directBuffer(UdpTransport.RECEIVE_BUFFER_BYTES,
                UdpTransport.RECEIVE_BUFFER_BYTES);
            if (!buffer.hasMemoryAddress())
            {
                buffer.release(); // the allocator's buffers cannot be read into in place: Netty keeps reading
                return -1;
            }
            receiveBuffer = buffer;
            final ByteBuf unwrapped = buffer.unwrap();
            receiveView = null == unwrapped ? buffer : unwrapped;
        }
        final int copy = recvFrom.dup(fd);
        if (copy < 0)
        {
            releaseReceiveBufferIfUnused();
            readerFailed(new java.io.IOException("dup of " + what + " failed, errno " + -copy));
            return -1;
        }
        final int timestamps = recvFrom.enableTimestamps(copy);
        if (timestamps < 0)
        {
            readerFailed(new java.io.IOException("SO_TIMESTAMPNS on " + what + " failed, errno " + -timestamps
                + ": its datagrams are timed by the shard's clock"));
        }
        return copy;
    }

    /**
     * Netty stops reading the channel of {@code ctx} and {@code reader} is registered on its loop for reads; if the
     * registration fails, Netty reads the channel again and the reader is stopped.
     */
    private void register(final ChannelHandlerContext ctx, final NativeReader reader)
    {
        final IoEventLoop loop = (IoEventLoop)ctx.channel().eventLoop();
        ctx.channel().config().setAutoRead(false); // Netty stops reading this socket; the reader does
        reader.pending = true;
        loop.register(reader).addListener(registered ->
        {
            reader.pending = false;
            if (registered.isSuccess())
            {
                reader.registration = (IoRegistration)registered.getNow();
            }
            if (registered.isSuccess() && !reader.stopped)
            {
                reader.registration.submit(EpollIoOps.EPOLLIN); // level-triggered: a batch left over comes again
                return;
            }
            if (!reader.stopped)
            {
                if (ctx.channel().isOpen())
                {
                    ctx.channel().config().setAutoRead(true); // Netty reads it again
                }
                reader.stopped = true;
                reader.stopped();
            }
            reader.release(); // stopped while the registration was under way: off epoll now, then closed
            if (!registered.isSuccess())
            {
                readerFailed(registered.cause());
            }
        });
    }

    /** Stops {@code endpoint}'s recvmsg reader, if it has one; on this shard's loop. */
    private void stopReading(final Endpoint endpoint)
    {
        final ListeningReader reader = endpoint.reader;
        if (null != reader)
        {
            endpoint.reader = null;
            reader.stop();
        }
    }

    /**
     * Stops the recvmsg reader of the peer channel {@code channel}, if it has one: off epoll, its duplicate descriptor
     * closed (else the duplicate would keep the connected socket, and the peer's datagrams with it, alive after the
     * channel's close). Idempotent; on this shard's loop. Called by {@link UdpPeers} before it closes a channel (so
     * that nothing is read from it once the shard has let it go), and when a peer channel goes inactive (any other
     * close).
     */
    void stopReading(final Channel channel)
    {
        final PeerReader reader = channel.attr(READER).getAndSet(null);
        if (null != reader)
        {
            reader.stop();
        }
    }

    private void releaseReceiveBufferIfUnused()
    {
        if (0 == nativeReaders && 0 == peerReaders && null != receiveBuffer)
        {
            receiveBuffer.release(); // release rule (class javadoc): the last reader is gone
            receiveBuffer = null;
            receiveView = null;
        }
    }

    private void readerFailed(final Throwable cause)
    {
        increment(ShardCounters.ERRORS);
        errors.record("udp shard " + index + " recvmsg reader", cause);
    }

    /** True, counted as read and dropped, when the datagram just read was longer than the buffer (its tail is lost). */
    private boolean droppedTruncated()
    {
        if (!recvFrom.truncated())
        {
            return false;
        }
        increment(ShardCounters.DATAGRAMS_IN);
        increment(ShardCounters.DROPPED);
        return true;
    }

    /**
     * The arrival time of the datagram {@link #recvFrom} just read: the kernel's ({@code SO_TIMESTAMPNS}) when it
     * came with one, else now.
     */
    private long arrivalOfLastRead()
    {
        final long kernel = recvFrom.receivedAtNanos();
        if (0 != kernel)
        {
            increment(ShardCounters.KERNEL_TIMESTAMPS);
            return kernel;
        }
        return RealtimeClock.nanos();
    }

    /** The socket of {@code reader} is readable: reads a batch (class javadoc, "Reads on a listening socket"). */
    private void onReadable(final ListeningReader reader)
    {
        final Endpoint endpoint = reader.endpoint;
        final ByteBuf buffer = receiveView;
        if (reader.stopped || endpoint.reader != reader || null == buffer)
        {
            return; // stopped meanwhile
        }
        for (int i = 0; i < READS_PER_WAKEUP && !reader.stopped; i++)
        {
            int n;
            try
            {
                n = recvFrom.receive(reader.fd.intValue(), buffer);
                if (n < 0 && 0 == i)
                {
                    // Readable, yet the first read failed: ask again, for the reason. A failure that ends a batch is
                    // taken for EAGAIN (nothing left); were it an error, the socket stays readable and the next
                    // wake-up's first read reports it here.
                    n = recvFrom.receiveOrErrno(reader.fd.intValue(), buffer);
                    if (n < 0 && -n != UdpRecvMsg.EAGAIN)
                    {
                        readerFailed(new java.io.IOException("recvmsg on a listening socket failed, errno " + -n));
                    }
                }
            }
            catch (final RuntimeException e)
            {
                readerFailed(e);
                break;
            }
            if (n < 0)
            {
                break;
            }
            increment(ShardCounters.NATIVE_DATAGRAMS_IN);
            try
            {
                if (droppedTruncated())
                {
                    continue;
                }
                final long arrival = arrivalOfLastRead();
                final InetSocketAddress sender = recvFrom.sender();
                if (null == sender)
                {
                    increment(ShardCounters.DROPPED); // neither IPv4 nor IPv6: nothing to answer
                    continue;
                }
                if (null != peers)
                {
                    peers.note(endpoint, sender, System.nanoTime());
                }
                onDatagram(endpoint, buffer, sender, arrival);
            }
            catch (final RuntimeException e)
            {
                // As exceptionCaught does for Netty's reads: counted, logged once, the shard keeps serving.
                increment(ShardCounters.ERRORS);
                errors.record("udp shard " + index, e);
            }
        }
        if (dirtyCount > 0)
        {
            flush(); // one flush per batch, as channelReadComplete does
        }
    }

    /**
     * The connected socket of {@code reader} is readable, or has an error pending (class javadoc, "Connected peers"):
     * reads a batch. Every read reports its errno: {@code ECONNREFUSED} (an ICMP port unreachable, RFC 3261 §18.4)
     * is taken where Netty's read reported it ({@link PeerHandler#exceptionCaught}), and the batch stops as soon as
     * the reader is stopped (the handler may close this very channel), so that its descriptor is never read again.
     */
    private void onReadable(final PeerReader reader)
    {
        final ByteBuf buffer = receiveView;
        final UdpPeers.Peer peer = reader.peer;
        for (int i = 0; i < READS_PER_WAKEUP && !reader.stopped && null != buffer; i++)
        {
            final int n;
            try
            {
                n = recvFrom.receiveConnected(reader.fd.intValue(), buffer);
            }
            catch (final RuntimeException e)
            {
                readerFailed(e);
                break;
            }
            if (n < 0)
            {
                if (-n == UdpRecvMsg.ECONNREFUSED)
                {
                    onPeerRefused(peer);
                }
                else if (-n != UdpRecvMsg.EAGAIN)
                {
                    increment(ShardCounters.ERRORS);
                    errors.record("udp shard " + index + " peer channel",
                        new java.io.IOException("recvmsg on a peer channel failed, errno " + -n));
                }
                break;
            }
            increment(ShardCounters.NATIVE_PEER_DATAGRAMS_IN);
            increment(ShardCounters.PEER_DATAGRAMS_IN);
            try
            {
                if (droppedTruncated())
                {
                    continue;
                }
                final long arrival = arrivalOfLastRead();
                peers.touch(peer, System.nanoTime());
                onDatagram(peer.endpoint, buffer, peer.address, arrival);
            }
            catch (final RuntimeException e)
            {
                increment(ShardCounters.ERRORS);
                errors.record("udp shard " + index, e);
            }
        }
        if (dirtyCount > 0)
        {
            flush(); // one flush per batch, as channelReadComplete does
        }
    }

    /**
     * The epoll handle of one socket read with recvmsg: a duplicate of its channel's descriptor, registered on the
     * shard's loop (Netty keys registrations by descriptor number, so it does not clash with the channel's). Owned by
     * the shard's loop. {@link #stop()} takes it off epoll and then closes the duplicate, once; a stopped reader never
     * reads again, so a descriptor number the kernel gives to a new socket is never read through it.
     */
    private abstract class NativeReader implements EpollIoHandle
    {
        final FileDescriptor fd;
        IoRegistration registration;
        /** True from {@link #stop()} on: never read again. */
        boolean stopped;
        /** True while the registration is under way: {@link #stop()} leaves the release to its listener. */
        boolean pending;

        NativeReader(final int fd)
        {
            this.fd = new FileDescriptor(fd);
        }

        @Override
        public final FileDescriptor fd()
        {
            return fd;
        }

        /** Never read again; off epoll and the duplicate closed (at once, or when the registration completes). */
        final void stop()
        {
            if (stopped)
            {
                return;
            }
            stopped = true;
            if (!pending)
            {
                release();
            }
            stopped();
        }

        /**
         * Off epoll, then the duplicate closed: in this order, because epoll keeps an interest in a descriptor that
         * is closed while another descriptor of the same socket (the channel's) is open, and would keep reporting it.
         */
        final void release()
        {
            if (null != registration)
            {
                registration.cancel(); // on this loop: removed from epoll at once
                registration = null;
            }
            closeDescriptor();
        }

        /** After {@link #stop()}: the shard's own bookkeeping. */
        abstract void stopped();

        /** Closes the duplicate descriptor (the socket stays open through the channel's); idempotent. */
        final void closeDescriptor()
        {
            try
            {
                fd.close();
            }
            catch (final java.io.IOException e)
            {
                readerFailed(e);
            }
        }

        @Override
        public final void close()
        {
            // The loop shuts down with the registration still there (it is being closed): let go of the duplicate,
            // and of the shard's count of readers, so that its receive buffer is released with the last one.
            registration = null;
            pending = false;
            if (stopped)
            {
                closeDescriptor();
            }
            else
            {
                stop();
            }
        }
    }

    /** The reader of one listening socket. */
    private final class ListeningReader extends NativeReader
    {
        final Endpoint endpoint;

        ListeningReader(final Endpoint endpoint, final int fd)
        {
            super(fd);
            this.endpoint = endpoint;
        }

        @Override
        public void handle(final IoRegistration registration, final IoEvent event)
        {
            onReadable(this);
        }

        @Override
        void stopped()
        {
            if (endpoint.reader == this)
            {
                endpoint.reader = null;
            }
            nativeReaders--;
            releaseReceiveBufferIfUnused();
        }
    }

    /** The reader of one connected peer channel. */
    private final class PeerReader extends NativeReader
    {
        final UdpPeers.Peer peer;
        final Channel channel;

        PeerReader(final UdpPeers.Peer peer, final Channel channel, final int fd)
        {
            super(fd);
            this.peer = peer;
            this.channel = channel;
        }

        @Override
        public void handle(final IoRegistration registration, final IoEvent event)
        {
            onReadable(this);
        }

        @Override
        void stopped()
        {
            channel.attr(READER).compareAndSet(this, null);
            peerReaders--;
            releaseReceiveBufferIfUnused();
        }
    }

    /**
     * Another shard (or this one) learnt that {@code peer} refuses datagrams sent from {@code local}: forget the
     * peer's channel here too, and tell the handler. On this shard's loop.
     */
    void onUnreachable(final InetSocketAddress local, final InetSocketAddress peer)
    {
        final Endpoint endpoint = byLocal.get(local);
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
            increment(ShardCounters.ERRORS);
            errors.record("udp shard " + index + " unreachable report", e);
        }
        flush();
    }

    /**
     * A connected peer channel reported an ICMP port unreachable ({@code ECONNREFUSED}, RFC 3261 §18.4), through
     * Netty's read or write or through the shard's own recvmsg: the peer is gone from that port. Its channel closes
     * (the listening socket is untouched); every shard forgets the peer and fails its transactions with it.
     */
    private void onPeerRefused(final UdpPeers.Peer peer)
    {
        increment(ShardCounters.PEERS_UNREACHABLE);
        final InetSocketAddress local = peer.endpoint.local;
        final InetSocketAddress address = peer.address;
        for (final UdpShardSockets shard : all)
        {
            if (shard == UdpShardSockets.this)
            {
                onUnreachable(local, address);
            }
            else
            {
                final EventLoop other = shard.loop;
                if (null != other)
                {
                    other.execute(() -> shard.onUnreachable(local, address)); // rare: one task per shard
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

    void countPeerOpened()
    {
        increment(ShardCounters.PEERS_OPENED);
    }

    void countPeerClosed()
    {
        increment(ShardCounters.PEERS_CLOSED);
    }

    void countPeerOpenFailure(final Throwable cause)
    {
        increment(ShardCounters.PEER_OPEN_FAILURES);
        errors.record("udp shard " + index + " connecting a peer channel", cause);
    }

    /** Single writer (this shard's thread): a plain read of its own last store, then an opaque store. */
    private void increment(final int slot)
    {
        final int i = PAD + slot;
        COUNTS.setOpaque(counts, i, counts[i] + 1);
    }

    /**
     * The handler of every connected peer channel of this shard: reads go through the same path as the listening
     * socket's (the peer's listening {@link Endpoint} is the current one), the release rule is the same, and errors
     * never close a listening socket. Owned by this shard's loop.
     */
    @ChannelHandler.Sharable
    private final class PeerHandler extends ChannelInboundHandlerAdapter
    {
        @Override
        public void channelActive(final ChannelHandlerContext ctx)
        {
            final UdpPeers.Peer peer = ctx.channel().attr(UdpPeers.PEER).get();
            if (null != peer && peer.channel == ctx.channel())
            {
                peer.ctx = ctx;
                startReading(ctx, peer);
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
                    increment(ShardCounters.PEER_DATAGRAMS_IN);
                    onDatagram(peer.endpoint, packet.content(), packet.sender(), 0L); // arrival: now
                }
                else
                {
                    increment(ShardCounters.DROPPED);
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
            UdpShardSockets.this.channelReadComplete(ctx); // the same flush of everything the batch wrote
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            final UdpPeers.Peer peer = ctx.channel().attr(UdpPeers.PEER).get();
            if (!isRefused(cause) || null == peer)
            {
                increment(ShardCounters.ERRORS);
                errors.record("udp shard " + index + " peer channel", cause);
                return;
            }
            onPeerRefused(peer);
        }
    }
}
