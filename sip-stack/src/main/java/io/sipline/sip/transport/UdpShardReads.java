package io.sipline.sip.transport;

import java.io.IOException;
import java.net.InetSocketAddress;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.util.AttributeKey;

/**
 * The recvmsg side of one UDP shard: where the shard reads its epoll sockets itself, listening ones and connected peer
 * channels alike, instead of Netty (whose datagram path allocates per datagram). Each such socket gets a
 * {@link UdpNativeReader} on a duplicate of its descriptor, with Netty's auto-read off; every wake-up reads up to
 * {@link UdpShardSockets#READS_PER_WAKEUP} datagrams with {@link UdpRecvMsg} into the shard's one receive buffer, with
 * the kernel's receive timestamp, hands each to {@link UdpShardSockets#onDatagram}, and flushes once per batch. Where
 * a reader cannot be set up, Netty keeps reading that socket (counted as an error).
 *
 * <p>Buffers: the receive buffer is a plain direct buffer, not a pooled one (it lives as long as the shard, and in a
 * pooled chunk it would keep that chunk from going back after a burst), made with the first reader and released when
 * the last one stops; it is lent to the shard for each datagram and never handed on.
 *
 * <p>Not thread-safe; owned by the shard's event loop (made once per shard by {@link UdpShardSockets}).
 */
final class UdpShardReads
{
    /** The recvmsg reader of a connected peer channel, while it has one. */
    static final AttributeKey<UdpNativeReader.Peer> READER =
        AttributeKey.valueOf(UdpShardReads.class, "reader");

    private final UdpShardSockets shard;
    private final UdpCounterSlots counters;
    private final DistinctErrors errors;
    /** This shard's recvmsg on its sockets; null when Netty reads everything (NIO, not Linux, off). */
    private final UdpRecvMsg recvFrom;
    /** The buffer {@link #recvFrom} reads into, while at least one socket (listening or peer) is read that way. */
    private ByteBuf receiveBuffer;
    /**
     * What is read and handed on of {@link #receiveBuffer}: the buffer under the leak detector's wrapper when it has
     * one. Made while the detector runs at {@code ADVANCED} or {@code PARANOID} (tests start so), the wrapper would
     * record a stack trace on every access for the shard's whole life; the wrapper itself is kept for the release, so
     * a missing release is still reported.
     */
    private ByteBuf receiveView;
    private int nativeReaders;
    private int peerReaders;

    UdpShardReads(final UdpShardSockets shard, final UdpCounterSlots counters, final DistinctErrors errors,
        final UdpRecvMsg recvFrom)
    {
        this.shard = shard;
        this.counters = counters;
        this.errors = errors;
        this.recvFrom = recvFrom;
    }

    /** True when this shard reads its epoll sockets with recvmsg (else Netty reads them). */
    boolean enabled()
    {
        return null != recvFrom;
    }

    /** The number of listening sockets read with recvmsg. */
    int nativeReaders()
    {
        return nativeReaders;
    }

    /**
     * Reads {@code endpoint}'s socket with recvmsg from now on: Netty's auto-read off, a duplicate descriptor
     * registered on this loop for reads. On any failure Netty keeps reading. From the channel's activation.
     */
    void startReading(final ChannelHandlerContext ctx, final UdpEndpoint endpoint)
    {
        final int copy = duplicate(ctx, endpoint.fd, "a listening socket");
        if (copy >= 0)
        {
            final UdpNativeReader.Listening reader = new UdpNativeReader.Listening(this, endpoint, copy);
            endpoint.reader = reader;
            nativeReaders++;
            register(ctx, reader);
        }
    }

    /**
     * Reads {@code peer}'s connected channel with recvmsg from now on, as a listening socket's; from its activation.
     */
    void startReading(final ChannelHandlerContext ctx, final UdpPeers.Peer peer)
    {
        if (!(ctx.channel() instanceof EpollDatagramChannel epoll) || !epoll.isOpen())
        {
            return;
        }
        final int copy = duplicate(ctx, epoll.fd().intValue(), "a peer channel");
        if (copy >= 0)
        {
            final UdpNativeReader.Peer reader = new UdpNativeReader.Peer(this, peer, ctx.channel(), copy);
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
            || !loop.isCompatible(UdpNativeReader.class))
        {
            return -1;
        }
        if (null == receiveBuffer)
        {
            final ByteBuf buffer = UnpooledByteBufAllocator.DEFAULT.directBuffer(UdpTransport.RECEIVE_BUFFER_BYTES,
                UdpTransport.RECEIVE_BUFFER_BYTES);
            if (!buffer.hasMemoryAddress())
            {
                buffer.release(); // no address to read into in place: Netty keeps reading
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
            readerFailed(new IOException("dup of " + what + " failed, errno " + -copy));
            return -1;
        }
        final int timestamps = recvFrom.enableTimestamps(copy);
        if (timestamps < 0)
        {
            readerFailed(new IOException("SO_TIMESTAMPNS on " + what + " failed, errno " + -timestamps
                + ": its datagrams are timed by the shard's clock"));
        }
        return copy;
    }

    /**
     * Netty stops reading the channel of {@code ctx} and {@code reader} is registered on its loop for reads; if the
     * registration fails, Netty reads the channel again and the reader is stopped.
     */
    private void register(final ChannelHandlerContext ctx, final UdpNativeReader reader)
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

    /** Stops {@code endpoint}'s recvmsg reader, if it has one. */
    void stopReading(final UdpEndpoint endpoint)
    {
        final UdpNativeReader.Listening reader = endpoint.reader;
        if (null != reader)
        {
            endpoint.reader = null;
            reader.stop();
        }
    }

    /**
     * Stops the recvmsg reader of the peer channel {@code channel}, if it has one: off epoll, its duplicate descriptor
     * closed (else the duplicate would keep the connected socket, and the peer's datagrams with it, alive after the
     * channel's close). Idempotent. Called by {@link UdpPeers} before it closes a channel (so that nothing is read
     * from it once the shard has let it go), and when a peer channel goes inactive (any other close).
     */
    void stopReading(final Channel channel)
    {
        final UdpNativeReader.Peer reader = channel.attr(READER).getAndSet(null);
        if (null != reader)
        {
            reader.stop();
        }
    }

    /** A listening socket's reader stopped. */
    void listeningStopped()
    {
        nativeReaders--;
        releaseReceiveBufferIfUnused();
    }

    /** A peer channel's reader stopped. */
    void peerStopped()
    {
        peerReaders--;
        releaseReceiveBufferIfUnused();
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

    void readerFailed(final Throwable cause)
    {
        counters.increment(ShardCounters.ERRORS);
        errors.record("udp shard " + shard.index() + " recvmsg reader", cause);
    }

    private void failed(final RuntimeException e)
    {
        // As exceptionCaught does for Netty's reads: counted, logged once, the shard keeps serving.
        counters.increment(ShardCounters.ERRORS);
        errors.record("udp shard " + shard.index(), e);
    }

    /** True, counted as read and dropped, when the datagram just read was longer than the buffer (its tail is lost). */
    private boolean droppedTruncated()
    {
        if (!recvFrom.truncated())
        {
            return false;
        }
        counters.increment(ShardCounters.DATAGRAMS_IN);
        counters.increment(ShardCounters.DROPPED);
        return true;
    }

    /**
     * The arrival time of the datagram {@link #recvFrom} just read: the kernel's ({@code SO_TIMESTAMPNS}) when it came
     * with one, else now.
     */
    private long arrivalOfLastRead()
    {
        final long kernel = recvFrom.receivedAtNanos();
        if (0 != kernel)
        {
            counters.increment(ShardCounters.KERNEL_TIMESTAMPS);
            return kernel;
        }
        return RealtimeClock.nanos();
    }

    /** The listening socket of {@code reader} is readable: reads a batch. */
    void onReadable(final UdpNativeReader.Listening reader)
    {
        final UdpEndpoint endpoint = reader.endpoint;
        final ByteBuf buffer = receiveView;
        if (reader.stopped || endpoint.reader != reader || null == buffer)
        {
            return; // stopped meanwhile
        }
        for (int i = 0; i < UdpShardSockets.READS_PER_WAKEUP && !reader.stopped; i++)
        {
            final int n = receive(reader, buffer, 0 == i);
            if (n < 0)
            {
                break;
            }
            counters.increment(ShardCounters.NATIVE_DATAGRAMS_IN);
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
                    counters.increment(ShardCounters.DROPPED); // neither IPv4 nor IPv6: nothing to answer
                    continue;
                }
                if (null != shard.peers)
                {
                    shard.peers.note(endpoint, sender, System.nanoTime());
                }
                shard.onDatagram(endpoint, buffer, sender, arrival);
            }
            catch (final RuntimeException e)
            {
                failed(e);
            }
        }
        if (shard.output.pending())
        {
            shard.output.flush(); // one flush per batch, as channelReadComplete does
        }
    }

    /**
     * One recvmsg on a listening socket: the datagram's length, or negative when nothing was read (the batch ends).
     *
     * @param first true for the first read of a wake-up: a failure there is asked again for its errno.
     */
    private int receive(final UdpNativeReader.Listening reader, final ByteBuf buffer, final boolean first)
    {
        try
        {
            int n = recvFrom.receive(reader.fd.intValue(), buffer);
            if (n < 0 && first)
            {
                // Readable, yet the first read failed: ask again, for the reason. A failure that ends a batch is
                // taken for EAGAIN (nothing left); were it an error, the socket stays readable and the next
                // wake-up's first read reports it here.
                n = recvFrom.receiveOrErrno(reader.fd.intValue(), buffer);
                if (n < 0 && -n != UdpRecvMsg.EAGAIN)
                {
                    readerFailed(new IOException("recvmsg on a listening socket failed, errno " + -n));
                }
            }
            return n;
        }
        catch (final RuntimeException e)
        {
            readerFailed(e);
            return -1;
        }
    }

    /**
     * The connected socket of {@code reader} is readable, or has an error pending: reads a batch. Every read reports
     * its errno: {@code ECONNREFUSED} (an ICMP port unreachable, RFC 3261 §18.4) is taken where Netty's read reported
     * it ({@link UdpPeerChannels#exceptionCaught}), and the batch stops as soon as the reader is stopped (the handler
     * may close this very channel), so that its descriptor is never read again.
     */
    void onReadable(final UdpNativeReader.Peer reader)
    {
        final ByteBuf buffer = receiveView;
        final UdpPeers.Peer peer = reader.peer;
        for (int i = 0; i < UdpShardSockets.READS_PER_WAKEUP && !reader.stopped && null != buffer; i++)
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
                    shard.peerChannels.onPeerRefused(peer);
                }
                else if (-n != UdpRecvMsg.EAGAIN)
                {
                    counters.increment(ShardCounters.ERRORS);
                    errors.record("udp shard " + shard.index() + " peer channel",
                        new IOException("recvmsg on a peer channel failed, errno " + -n));
                }
                break;
            }
            counters.increment(ShardCounters.NATIVE_PEER_DATAGRAMS_IN);
            counters.increment(ShardCounters.PEER_DATAGRAMS_IN);
            try
            {
                if (droppedTruncated())
                {
                    continue;
                }
                final long arrival = arrivalOfLastRead();
                shard.peers.touch(peer, System.nanoTime());
                shard.onDatagram(peer.endpoint, buffer, peer.address, arrival);
            }
            catch (final RuntimeException e)
            {
                failed(e);
            }
        }
        if (shard.output.pending())
        {
            shard.output.flush(); // one flush per batch, as channelReadComplete does
        }
    }
}
