package io.sipline.media.relay;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Hands out RTP/RTCP port pairs from the configured range: an even port for RTP and the odd one above for RTCP
 * (RFC 3550 §11), both bound before they are given out. A pair in use by another process is skipped. Claims start
 * after the last one handed out, so that a freed pair is not reused at once (a late packet of the old call would
 * reach the new one).
 *
 * <p>Thread-safe without a lock: a pair is claimed by a compare-and-set on its slot, from any thread that anchors a
 * call, and released by the media thread that closed its sockets.
 */
final class PortAllocator
{
    private final InetAddress bind;
    private final int firstEven;
    private final int pairs;
    private final AtomicIntegerArray used;
    private final AtomicInteger cursor = new AtomicInteger();
    private final AtomicInteger inUse = new AtomicInteger();

    /**
     * @param settings the range and the bind address.
     */
    PortAllocator(final MediaRelaySettings settings)
    {
        this.bind = settings.bind();
        this.firstEven = (settings.portMin() + 1) & ~1;
        this.pairs = (settings.portMax() - firstEven + 1) / 2;
        if (pairs < 1)
        {
            throw new IllegalArgumentException("media ports " + settings.portMin() + "-" + settings.portMax() +
                " hold no even/odd pair");
        }
        this.used = new AtomicIntegerArray(pairs);
    }

    /**
     * Claims a free pair and binds both sockets (non-blocking).
     *
     * @return the two channels, RTP first; owned by the caller, who gives the pair back with {@link #release(int)}.
     * @throws IOException when every pair of the range is taken or cannot be bound.
     */
    DatagramChannel[] open() throws IOException
    {
        final int start = Math.floorMod(cursor.getAndIncrement(), pairs);
        for (int i = 0; i < pairs; i++)
        {
            final int slot = (start + i) % pairs;
            if (0 != used.get(slot) || !used.compareAndSet(slot, 0, 1))
            {
                continue;
            }
            final int port = firstEven + 2 * slot;
            final DatagramChannel rtp = bindOrNull(port);
            final DatagramChannel rtcp = null == rtp ? null : bindOrNull(port + 1);
            if (null != rtcp)
            {
                cursor.set(slot + 1);
                inUse.incrementAndGet();
                return new DatagramChannel[] {rtp, rtcp};
            }
            closeQuietly(rtp);
            used.set(slot, 0);
        }
        throw new IOException("no free media port pair in " + firstEven + "-" + (firstEven + 2 * pairs - 1) + " on " +
            bind.getHostAddress() + " (" + inUse.get() + " pairs in use by calls)");
    }

    /**
     * @param rtpPort the even port of a pair from {@link #open()}, whose sockets are closed.
     */
    void release(final int rtpPort)
    {
        final int slot = (rtpPort - firstEven) / 2;
        if (slot >= 0 && slot < pairs && used.compareAndSet(slot, 1, 0))
        {
            inUse.decrementAndGet();
        }
    }

    /** @return pairs handed out and not yet released. */
    int inUse()
    {
        return inUse.get();
    }

    private DatagramChannel bindOrNull(final int port)
    {
        DatagramChannel channel = null;
        try
        {
            channel = DatagramChannel.open(bind instanceof java.net.Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
            channel.bind(new InetSocketAddress(bind, port));
            channel.configureBlocking(false);
            return channel;
        }
        catch (final IOException e)
        {
            closeQuietly(channel);
            return null;
        }
    }

    static void closeQuietly(final DatagramChannel channel)
    {
        if (null != channel)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignored)
            {
                // Closing a datagram socket has nothing to flush; the descriptor is gone either way.
            }
        }
    }
}
