package io.sipline.sip.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.util.HashMap;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.AttributeKey;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;

/**
 * One shard of the UDP transport: the inbound handler of every datagram channel the shard owns (one per listening
 * address:port, each bound with {@code SO_REUSEPORT} so the kernel spreads datagrams over the shards), with the
 * shard's reused {@link SipMessage}, its {@link SipMessageHandler} and its counters.
 *
 * <p>Per datagram: count it, demultiplex on the first bytes ({@link DatagramKind}: keep-alive, STUN, SIP), parse SIP
 * into the reused message (one copy out of the receive buffer into the message's own array), hand the message to
 * the handler, and let the handler answer through {@link #send}. Nothing on that path allocates but the
 * {@code DatagramPacket} of an answer.
 *
 * <p><b>Buffer ownership rules</b> (STYLE.md; DESIGN.md, Memory rule 4):
 * <ul>
 *   <li>Inbound: the {@link DatagramPacket} (and its pooled direct content) is owned by {@link #channelRead} from the
 *       moment Netty passes it in, and released there exactly once, in {@code finally}, whatever happens: keep-alive,
 *       STUN, parse error, handler exception. Nothing downstream sees the buffer: its bytes are copied once into the
 *       reused message's own array and parsed there, so the message outlives the release, until the next
 *       datagram reuses it.</li>
 *   <li>Outbound: {@link #send} takes ownership of the buffer it is given. It either passes it to Netty inside a
 *       {@code DatagramPacket} (Netty releases it once written or failed) or releases it itself when it cannot send.
 *       The caller never releases a buffer it has passed to {@code send}.</li>
 * </ul>
 *
 * <p><b>Errors.</b> An exception from the parser or the handler reaches {@link #exceptionCaught}, which counts it and
 * logs each distinct error once; the channel stays open and the shard keeps serving. Nothing is logged per packet.
 *
 * <p><b>Counters.</b> Plain {@code long} slots written only by this shard's thread, with opaque stores so that
 * {@link #snapshot()} can read them from another thread without a lock: opaque access makes each 64-bit value atomic
 * and eventually visible, and metrics need no ordering between counters. The array is padded at both ends so that
 * another shard's counters never share a cache line with these.
 *
 * <p>Not thread-safe; owned by shard k's event loop (every channel it handles is registered on that loop, which is why
 * one instance may sit in several pipelines). Only {@link #snapshot()} and {@link #index()} may be called from other
 * threads.
 */
@ChannelHandler.Sharable
public final class UdpShard extends ChannelInboundHandlerAdapter
{
    /**
     * Largest UDP payload an IPv4 datagram can carry: 65,535 minus the 8-byte UDP header minus the 20-byte IP header
     * (RFC 768, RFC 791). Answers above it are not sent.
     */
    public static final int MAX_UDP_PAYLOAD = 65_507;

    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Eight longs: one cache line on each side of the counters. */
    private static final int PAD = 8;

    private final int index;
    private final SipMessageHandler handler;
    private final ByteBufAllocator allocator;
    private final DistinctErrors errors;
    private final SipMessage message = new SipMessage();
    private final long[] counts = new long[PAD + ShardCounters.SLOTS + PAD];

    private static final AttributeKey<Endpoint> ENDPOINT = AttributeKey.valueOf(UdpShard.class, "endpoint");

    /** The context of the datagram being handled; set only for the duration of the handler call. */
    private ChannelHandlerContext current;
    private Endpoint currentEndpoint;
    private boolean flushPending;

    /** This shard's channels by local address, for sends outside a read (timers, hand-overs); shard thread only. */
    private final HashMap<InetSocketAddress, Endpoint> byLocal = new HashMap<>();
    private Endpoint defaultV4;
    private Endpoint defaultV6;
    /** Channels written since their last flush (each at most once: {@link Endpoint#dirty}). */
    private Endpoint[] dirty = new Endpoint[8];
    private int dirtyCount;

    UdpShard(final int index, final SipMessageHandler handler, final ByteBufAllocator allocator,
        final DistinctErrors errors)
    {
        this.index = index;
        this.handler = handler;
        this.allocator = allocator;
        this.errors = errors;
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
        final ChannelHandlerContext ctx = current;
        if (null == ctx || null == recipient || datagram.readableBytes() > MAX_UDP_PAYLOAD
            || !ctx.channel().isWritable())
        {
            // UDP has no back-pressure to offer: an answer that cannot go now is dropped; the peer retransmits.
            datagram.release();
            increment(ShardCounters.SEND_FAILURES);
            return false;
        }
        // voidPromise: no promise per datagram; a failed write is fired into exceptionCaught, where it is counted.
        ctx.write(new DatagramPacket(datagram, recipient), ctx.voidPromise());
        flushPending = true;
        increment(ShardCounters.RESPONSES_SENT);
        return true;
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
        final Endpoint endpoint = endpointFor(local, recipient);
        if (null == endpoint || null == recipient || datagram.readableBytes() > MAX_UDP_PAYLOAD
            || !endpoint.ctx.channel().isWritable())
        {
            datagram.release(); // refused: the reference we were given
            increment(ShardCounters.SEND_FAILURES);
            return false;
        }
        final ChannelHandlerContext ctx = endpoint.ctx;
        ctx.write(new DatagramPacket(datagram, recipient), ctx.voidPromise());
        if (!endpoint.dirty)
        {
            endpoint.dirty = true;
            if (dirtyCount == dirty.length)
            {
                dirty = java.util.Arrays.copyOf(dirty, 2 * dirtyCount);
            }
            dirty[dirtyCount++] = endpoint;
        }
        increment(ShardCounters.RESPONSES_SENT);
        return true;
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

    /** Flushes every channel written by {@link #sendFrom} since the last flush. Shard thread only. */
    public void flush()
    {
        for (int i = 0; i < dirtyCount; i++)
        {
            final Endpoint endpoint = dirty[i];
            dirty[i] = null;
            endpoint.dirty = false;
            endpoint.ctx.flush();
        }
        dirtyCount = 0;
    }

    /**
     * The local address:port of the datagram being handled (valid during {@link SipMessageHandler#onMessage}), or
     * null outside a read. The object is the channel's own and lives as long as it: it may be kept.
     */
    public InetSocketAddress currentLocal()
    {
        return null == currentEndpoint ? null : currentEndpoint.local;
    }

    /** The number of channels this shard has active; shard thread only. */
    public int endpointCount()
    {
        return byLocal.size();
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        // Runs on this shard's loop once per bound channel: index it for sends made outside a read.
        if (!(ctx.channel().localAddress() instanceof InetSocketAddress local))
        {
            ctx.fireChannelActive(); // not a socket (an EmbeddedChannel in tests): nothing to send from
            return;
        }
        final Endpoint endpoint = new Endpoint(ctx, local);
        ctx.channel().attr(ENDPOINT).set(endpoint);
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
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        final Endpoint endpoint = ctx.channel().attr(ENDPOINT).get();
        if (null != endpoint)
        {
            byLocal.remove(endpoint.local);
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

    /** One bound channel of this shard. */
    private static final class Endpoint
    {
        final ChannelHandlerContext ctx;
        final InetSocketAddress local;
        boolean dirty;

        Endpoint(final ChannelHandlerContext ctx, final InetSocketAddress local)
        {
            this.ctx = ctx;
            this.local = local;
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
                onDatagram(ctx, packet);
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

    private void onDatagram(final ChannelHandlerContext ctx, final DatagramPacket packet)
    {
        increment(ShardCounters.DATAGRAMS_IN);
        final ByteBuf content = packet.content();
        final int kind = DatagramKind.classify(content);
        if (DatagramKind.KEEP_ALIVE == kind)
        {
            // RFC 5626 §4.4.1: no CRLF pong over UDP (see DatagramKind); the NAT binding is refreshed by the ping.
            increment(ShardCounters.KEEP_ALIVES);
            return;
        }
        if (DatagramKind.STUN == kind)
        {
            increment(ShardCounters.STUN);
            answerStun(ctx, packet);
            return;
        }

        // One copy into the message's own array (ByteBufCopy: no ByteBuffer view made, JDK 25), parsed there.
        final ParseResult result = SipMessageParser.parseDatagram(content, message);
        if (ParseResult.OK == result)
        {
            increment(message.isRequest() ? ShardCounters.REQUESTS_IN : ShardCounters.RESPONSES_IN);
        }
        else
        {
            increment(ShardCounters.PARSE_ERRORS);
            increment(ShardCounters.BY_PARSE_RESULT + result.ordinal());
        }

        current = ctx;
        currentEndpoint = ctx.channel().attr(ENDPOINT).get();
        try
        {
            if (!handler.onMessage(this, message, packet.sender()))
            {
                increment(ShardCounters.DROPPED);
            }
        }
        finally
        {
            current = null;
            currentEndpoint = null;
        }
    }

    /**
     * RFC 5626 §4.4.2, §8.4: a STUN Binding request on a SIP port is a keep-alive that wants the sender's reflexive
     * address back ({@link StunKeepAlive}); any other STUN message is dropped and counted.
     */
    private void answerStun(final ChannelHandlerContext ctx, final DatagramPacket packet)
    {
        final ByteBuf content = packet.content();
        final int at = content.readerIndex();
        final ByteBuf answer = StunKeepAlive.answer(allocator, content.getUnsignedShort(at), content.getInt(at + 8),
            content.getInt(at + 12), content.getInt(at + 16), packet.sender());
        if (null == answer)
        {
            increment(ShardCounters.DROPPED);
            return;
        }
        current = ctx;
        try
        {
            send(answer, packet.sender()); // ownership passes to send
        }
        finally
        {
            current = null;
        }
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        // One flush per read batch (up to maxMessagesPerRead datagrams): epoll sends the batch with sendmmsg.
        if (flushPending)
        {
            flushPending = false;
            ctx.flush();
        }
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

    /** Single writer (this shard's thread): a plain read of its own last store, then an opaque store. */
    private void increment(final int slot)
    {
        final int i = PAD + slot;
        COUNTS.setOpaque(counts, i, counts[i] + 1);
    }
}
