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
 * {@link UdpShardSockets#READS_PER_WAKEUP} datagrams, with the kernel's receive timestamp, hands each to
 * {@link UdpShardSockets#onDatagram} in the order read, and flushes once per batch. The reads are batched with
 * {@link UdpRecvMmsg} (one downcall for the whole wake-up; one that returns fewer datagrams than asked for found the
 * queue empty, so no further call is made to hear {@code EAGAIN}), or, where {@code recvmmsg} is not available or
 * {@link UdpTransport#RECVMMSG_PROP_NAME} is false, made one at a time with {@link UdpRecvMsg}. Where a reader cannot
 * be set up, Netty keeps reading that socket (counted as an error).
 *
 * <p>Buffers: the receive buffers, one per batch slot (one without batching), are plain direct buffers, not pooled
 * ones (they live as long as the shard, and in a pooled chunk they would keep that chunk from going back after a
 * burst), made with the first reader and released when the last one stops; each is lent to the shard for one datagram
 * at a time and never handed on.
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
    /** This shard's recvmmsg; null when the reads are made one at a time with {@link #recvFrom}. */
    private final UdpRecvMmsg batch;
    /**
     * The buffers the reads go into, one per slot of {@link #batch} (else one), while at least one socket (listening or
     * peer) is read that way; null otherwise.
     */
    private ByteBuf[] receiveBuffers;
    /**
     * What is read and handed on of {@link #receiveBuffers}: each buffer under the leak detector's wrapper when it has
     * one. Made while the detector runs at {@code ADVANCED} or {@code PARANOID} (tests start so), the wrapper would
     * record a stack trace on every access for the shard's whole life; the wrapper itself is kept for the release, so
     * a missing release is still reported.
     */
    private ByteBuf[] receiveViews;
    private int nativeReaders;
    private int peerReaders;

    /** @param batch null: one recvmsg per datagram; else the batched reads, sharing {@code recvFrom}'s senders. */
    UdpShardReads(final UdpShardSockets shard, final UdpCounterSlots counters, final DistinctErrors errors,
        final UdpRecvMsg recvFrom, final UdpRecvMmsg batch)
    {
        this.shard = shard;
        this.counters = counters;
        this.errors = errors;
        this.recvFrom = recvFrom;
        this.batch = null == recvFrom ? null : batch;
    }

    /** True when the reads are batched with recvmmsg. */
    boolean batched()
    {
        return null != batch;
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
        if (null == receiveBuffers && !allocateReceiveBuffers())
        {
            return -1; // no address to read into in place: Netty keeps reading
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

    /** Makes the receive buffers, one per batch slot; false (none kept) when they have no memory address. */
    private boolean allocateReceiveBuffers()
    {
        final int n = null == batch ? 1 : batch.slots();
        final ByteBuf[] buffers = new ByteBuf[n];
        final ByteBuf[] views = new ByteBuf[n];
        for (int i = 0; i < n; i++)
        {
            final ByteBuf buffer = UnpooledByteBufAllocator.DEFAULT.directBuffer(UdpTransport.RECEIVE_BUFFER_BYTES,
                UdpTransport.RECEIVE_BUFFER_BYTES);
            buffers[i] = buffer;
            if (!buffer.hasMemoryAddress())
            {
                for (int j = 0; j <= i; j++)
                {
                    buffers[j].release();
                }
                return false;
            }
            final ByteBuf unwrapped = buffer.unwrap();
            views[i] = null == unwrapped ? buffer : unwrapped;
        }
        receiveBuffers = buffers;
        receiveViews = views;
        return true;
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
        if (0 == nativeReaders && 0 == peerReaders && null != receiveBuffers)
        {
            for (final ByteBuf buffer : receiveBuffers)
            {
                buffer.release(); // release rule (class javadoc): the last reader is gone
            }
            receiveBuffers = null;
            receiveViews = null;
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

    /**
     * One datagram read from a listening socket, in {@code buffer}, slot {@code slot} of the last batch (-1: the one
     * datagram {@link #recvFrom} read): counted, dropped when truncated or of a family other than IPv4 and IPv6, else
     * handed to the shard with its sender and arrival time.
     */
    private void deliver(final UdpEndpoint endpoint, final ByteBuf buffer, final int slot)
    {
        counters.increment(ShardCounters.NATIVE_DATAGRAMS_IN);
        try
        {
            if (droppedTruncated(slot))
            {
                return;
            }
            final long arrival = arrival(slot);
            final InetSocketAddress sender = slot < 0 ? recvFrom.sender() : batch.sender(slot);
            if (null == sender)
            {
                counters.increment(ShardCounters.DROPPED); // neither IPv4 nor IPv6: nothing to answer
                return;
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

    /** One datagram read from {@code peer}'s connected channel, as {@link #deliver}; its source is the peer. */
    private void deliver(final UdpPeers.Peer peer, final ByteBuf buffer, final int slot)
    {
        counters.increment(ShardCounters.NATIVE_PEER_DATAGRAMS_IN);
        counters.increment(ShardCounters.PEER_DATAGRAMS_IN);
        try
        {
            if (droppedTruncated(slot))
            {
                return;
            }
            final long arrival = arrival(slot);
            shard.peers.touch(peer, System.nanoTime());
            shard.onDatagram(peer.endpoint, buffer, peer.address, arrival);
        }
        catch (final RuntimeException e)
        {
            failed(e);
        }
    }

    /**
     * True, counted as read and dropped, when the datagram of {@code slot} (-1: the one {@link #recvFrom} read) was
     * longer than its buffer (its tail is lost).
     */
    private boolean droppedTruncated(final int slot)
    {
        if (slot < 0 ? !recvFrom.truncated() : !batch.truncated(slot))
        {
            return false;
        }
        counters.increment(ShardCounters.DATAGRAMS_IN);
        counters.increment(ShardCounters.DROPPED);
        return true;
    }

    /**
     * The rest of a batch, {@code count} datagrams already read, when the reader stopped under the shard's handling of
     * an earlier one (its buffers may be gone with it): counted as read and dropped, as the socket's close would have
     * dropped them had they still been queued.
     */
    private void droppedAfterStop(final int count, final boolean peer)
    {
        for (int i = 0; i < count; i++)
        {
            counters.increment(peer ? ShardCounters.NATIVE_PEER_DATAGRAMS_IN : ShardCounters.NATIVE_DATAGRAMS_IN);
            if (peer)
            {
                counters.increment(ShardCounters.PEER_DATAGRAMS_IN);
            }
            counters.increment(ShardCounters.DATAGRAMS_IN);
            counters.increment(ShardCounters.DROPPED);
        }
    }

    /**
     * The arrival time of the datagram of {@code slot} (-1: the one {@link #recvFrom} read): the kernel's
     * ({@code SO_TIMESTAMPNS}) when it came with one, else now.
     */
    private long arrival(final int slot)
    {
        final long kernel = slot < 0 ? recvFrom.receivedAtNanos() : batch.receivedAtNanos(slot);
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
        final ByteBuf[] buffers = receiveViews;
        if (reader.stopped || endpoint.reader != reader || null == buffers)
        {
            return; // stopped meanwhile
        }
        if (null != batch)
        {
            readBatches(reader, buffers);
        }
        else
        {
            for (int i = 0; i < UdpShardSockets.READS_PER_WAKEUP && !reader.stopped; i++)
            {
                if (receive(reader, buffers[0], 0 == i) < 0)
                {
                    break;
                }
                deliver(endpoint, buffers[0], -1);
            }
        }
        shard.endReadBatch();
    }

    /**
     * A wake-up's reads of a listening socket with recvmmsg: calls until {@link UdpShardSockets#READS_PER_WAKEUP}
     * datagrams are read or a call returns fewer than it asked for (the queue was found empty).
     */
    private void readBatches(final UdpNativeReader.Listening reader, final ByteBuf[] buffers)
    {
        int left = UdpShardSockets.READS_PER_WAKEUP;
        boolean first = true;
        while (left > 0 && !reader.stopped)
        {
            final int want = Math.min(left, buffers.length);
            final int n = receive(reader, buffers, want, first);
            first = false;
            for (int i = 0; i < n; i++)
            {
                if (reader.stopped)
                {
                    droppedAfterStop(n - i, false);
                    return;
                }
                deliver(reader.endpoint, buffers[i], i);
            }
            if (n < want)
            {
                return;
            }
            left -= n;
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
                listeningReadFailed(n);
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
     * One recvmmsg on a listening socket, as {@link #receive(UdpNativeReader.Listening, ByteBuf, boolean)}: how many
     * datagrams were read into the first of {@code buffers}, or negative when none.
     */
    private int receive(final UdpNativeReader.Listening reader, final ByteBuf[] buffers, final int want,
        final boolean first)
    {
        try
        {
            int n = batch.receive(reader.fd.intValue(), buffers, want);
            if (n < 0 && first)
            {
                n = batch.receiveOrErrno(reader.fd.intValue(), buffers, want, true); // as above: for the reason
                listeningReadFailed(n);
            }
            return n;
        }
        catch (final RuntimeException e)
        {
            readerFailed(e);
            return -1;
        }
    }

    /** Reports the failure of a listening socket's read asked for its errno ({@code n} negative), unless EAGAIN. */
    private void listeningReadFailed(final int n)
    {
        if (n < 0 && -n != UdpRecvMsg.EAGAIN)
        {
            readerFailed(new IOException("recvmsg on a listening socket failed, errno " + -n));
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
        final ByteBuf[] buffers = receiveViews;
        final int fd = reader.fd.intValue();
        int left = UdpShardSockets.READS_PER_WAKEUP;
        while (left > 0 && !reader.stopped && null != buffers)
        {
            final int want = null == batch ? 1 : Math.min(left, buffers.length);
            final int n;
            try
            {
                n = null == batch ? recvFrom.receiveConnected(fd, buffers[0])
                    : batch.receiveOrErrno(fd, buffers, want, false);
            }
            catch (final RuntimeException e)
            {
                readerFailed(e);
                break;
            }
            if (n < 0)
            {
                peerReadFailed(reader.peer, -n);
                break;
            }
            final int read = null == batch ? 1 : n;
            for (int i = 0; i < read; i++)
            {
                if (reader.stopped)
                {
                    droppedAfterStop(read - i, true);
                    left = 0;
                    break;
                }
                deliver(reader.peer, buffers[i], null == batch ? -1 : i);
            }
            if (null != batch && n < want)
            {
                break; // the queue was found empty
            }
            left -= read;
        }
        shard.endReadBatch();
    }

    /** A peer channel's read failed with {@code errno}: the peer reported unreachable, or the error recorded. */
    private void peerReadFailed(final UdpPeers.Peer peer, final int errno)
    {
        if (UdpRecvMsg.ECONNREFUSED == errno)
        {
            shard.peerChannels.onPeerRefused(peer);
        }
        else if (UdpRecvMsg.EAGAIN != errno)
        {
            counters.increment(ShardCounters.ERRORS);
            errors.record("udp shard " + shard.index() + " peer channel",
                new IOException("recvmsg on a peer channel failed, errno " + errno));
        }
    }
}
