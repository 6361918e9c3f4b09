package io.sipline.sip.transport;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.HashMap;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.socket.DatagramPacket;
import io.sipline.sip.capture.HepCaptureAgent;
import io.sipline.sip.capture.HepEncoder;

/**
 * The send side of one UDP shard: which of its sockets a datagram leaves from (the peer's connected channel, the
 * listening socket of the datagram being handled, the one a caller names, or the first of the recipient's family),
 * the write ({@code sendto} through {@link UdpSendTo} on an idle listening socket, else Netty's), and the batched
 * flush of every socket written since the last one.
 *
 * <p>Buffers: {@link #write} takes ownership of its datagram: handed to Netty (which releases it once written), sent
 * with {@code sendto} and released, or released when it cannot be sent.
 *
 * <p>Not thread-safe; owned by the shard's event loop (made once per shard by {@link UdpShardSockets}).
 */
final class UdpShardOutput
{
    private final int index;
    private final UdpCounterSlots counters;
    private final DistinctErrors errors;
    /** Connected peer channels; null when off. */
    private final UdpPeers peers;
    /** This shard's sendto on its listening sockets; null when Netty writes everything (NIO, not Linux, off). */
    private final UdpSendTo sendTo;

    /** This shard's channels by local address, for sends outside a read (timers, hand-overs). */
    private final HashMap<InetSocketAddress, UdpEndpoint> byLocal = new HashMap<>();
    private UdpEndpoint defaultV4;
    private UdpEndpoint defaultV6;
    /** The listening socket of the datagram being handled; set only for the duration of the handler call. */
    UdpEndpoint current;
    /** Sockets written since their last flush (each at most once: {@link UdpSink#dirty}). */
    private UdpSink[] dirty = new UdpSink[8];
    private int dirtyCount;
    /** The shard's HEP mirror; null when off. */
    private HepCaptureAgent capture;
    /** True while {@link #flush} runs (it may be re-entered from a failed write's exceptionCaught). */
    private boolean flushing;

    UdpShardOutput(final int index, final UdpCounterSlots counters, final DistinctErrors errors,
        final UdpPeers peers, final UdpSendTo sendTo)
    {
        this.index = index;
        this.counters = counters;
        this.errors = errors;
        this.peers = peers;
        this.sendTo = sendTo;
    }

    /** Before any bind: mirror every SIP datagram sent to {@code agent} (null: none). */
    void capture(final HepCaptureAgent agent)
    {
        capture = agent;
    }

    /** A listening channel became active: indexed by its local address for sends made outside a read. */
    void add(final UdpEndpoint endpoint)
    {
        final InetSocketAddress local = endpoint.local;
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
    }

    /** A listening channel went inactive. */
    void remove(final UdpEndpoint endpoint)
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

    /** The listening channel bound to {@code local}, or null. */
    UdpEndpoint byLocal(final InetSocketAddress local)
    {
        return byLocal.get(local);
    }

    /** The number of listening channels active. */
    int endpointCount()
    {
        return byLocal.size();
    }

    /** True when a socket was written since the last flush. */
    boolean pending()
    {
        return dirtyCount > 0;
    }

    /**
     * The socket to send from: {@code local} when this shard has a socket there, else the socket of the datagram
     * being handled, else the first socket of the recipient's family; null when there is none.
     */
    UdpEndpoint endpointFor(final InetSocketAddress local, final InetSocketAddress recipient)
    {
        final UdpEndpoint endpoint = null == local ? null : byLocal.get(local);
        if (null != endpoint)
        {
            return endpoint;
        }
        if (null != current)
        {
            return current;
        }
        return null != recipient && recipient.getAddress() instanceof Inet6Address ? defaultV6 : defaultV4;
    }

    /**
     * Writes on the peer's connected channel when it has an active one, else on the listening socket with the
     * recipient's address; flushed by {@link #flush}.
     *
     * @param datagram takes ownership, sent or not.
     * @return true when the datagram was handed to the socket, false when it was released unsent (counted).
     */
    boolean write(final UdpEndpoint endpoint, final ByteBuf datagram, final InetSocketAddress recipient)
    {
        if (null == endpoint || null == recipient || datagram.readableBytes() > UdpShardSockets.MAX_UDP_PAYLOAD)
        {
            // UDP has no back-pressure to offer: an answer that cannot go now is dropped; the peer retransmits.
            datagram.release(); // refused: the reference we were given
            counters.increment(ShardCounters.SEND_FAILURES);
            return false;
        }
        final UdpPeers.Peer peer = null == peers ? null : peers.note(endpoint, recipient, System.nanoTime());
        final UdpSink sink;
        final Object msg;
        if (null != peer && null != peer.ctx && peer.ctx.channel().isWritable())
        {
            capture(endpoint, datagram, recipient);
            // Connected: the socket knows where to; Netty writes the buffer with send(2), no address converted.
            sink = peer;
            msg = datagram;
            counters.increment(ShardCounters.PEER_DATAGRAMS_OUT);
        }
        else if (endpoint.ctx.channel().isWritable())
        {
            capture(endpoint, datagram, recipient); // before sendDirect, which releases the datagram once sent
            if (null != sendTo && endpoint.fd >= 0 && sendDirect(endpoint, datagram, recipient))
            {
                counters.increment(ShardCounters.RESPONSES_SENT);
                return true; // sent, and released there
            }
            sink = endpoint;
            msg = new DatagramPacket(datagram, recipient);
        }
        else
        {
            datagram.release();
            counters.increment(ShardCounters.SEND_FAILURES);
            return false;
        }
        // voidPromise: no promise per datagram; a failed write is fired into exceptionCaught, where it is counted.
        sink.ctx.write(msg, sink.ctx.voidPromise());
        if (!sink.dirty)
        {
            sink.dirty = true;
            if (dirtyCount == dirty.length)
            {
                dirty = Arrays.copyOf(dirty, 2 * dirtyCount);
            }
            dirty[dirtyCount++] = sink;
        }
        counters.increment(ShardCounters.RESPONSES_SENT);
        return true;
    }

    /** Mirrors a SIP datagram about to be sent (not a STUN answer) to the HEP collector, when capture is on. */
    private void capture(final UdpEndpoint endpoint, final ByteBuf datagram, final InetSocketAddress recipient)
    {
        if (null != capture && null != endpoint.local && datagram.isReadable()
            && HepCaptureAgent.startsSip(datagram.getByte(datagram.readerIndex())))
        {
            capture.capture(HepEncoder.PROTOCOL_UDP, datagram, datagram.readerIndex(), datagram.readableBytes(),
                endpoint.local, recipient, RealtimeClock.nanos());
        }
    }

    /**
     * Sends {@code datagram} with {@code sendto} on the listening socket of {@code endpoint}, unless Netty still
     * queues datagrams for it. The endpoint's channel is on this loop, so its descriptor is open.
     *
     * @param datagram ownership passes here only when this returns true: it was sent and released here
     *                 ({@link UdpSendTo#send} only borrowed it). On false it is untouched and still the caller's,
     *                 for Netty's write.
     * @return true when sent.
     */
    private boolean sendDirect(final UdpEndpoint endpoint, final ByteBuf datagram, final InetSocketAddress recipient)
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
            counters.increment(ShardCounters.NATIVE_SEND_FALLBACKS);
            errors.record("udp shard " + index + " sendto", e);
            return false;
        }
        if (0 == result)
        {
            datagram.release(); // release rule: sent; the reference we were given
            counters.increment(ShardCounters.NATIVE_SENDS);
            return true;
        }
        if (UdpSendTo.DECLINED != result)
        {
            // EAGAIN or an error: Netty's write queues or reports it
            counters.increment(ShardCounters.NATIVE_SEND_FALLBACKS);
        }
        return false;
    }

    /**
     * Flushes every socket written since the last flush.
     *
     * <p>Re-entrant: a flush that fails on a peer's connected channel with {@code ECONNREFUSED} reaches
     * {@code exceptionCaught} at once, inside this loop, and the report of the unreachable peer flushes again (its
     * transactions fail and their users may answer). That inner call returns at once: the running loop reads
     * {@link #dirtyCount} afresh each turn, so what the report wrote (sockets made dirty again, or new ones) is
     * flushed by it.
     */
    void flush()
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
                final UdpSink sink = dirty[i];
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
}
