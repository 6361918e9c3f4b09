package io.sipline.media.relay;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One relayed media stream (one {@code m=} line of a call): two {@link RelayLeg}s on one {@link MediaThread}, each
 * relaying what it receives to the other. RTP and RTCP both go through, on the RTP port with {@code rtcp-mux}
 * (RFC 5761) or on the odd port; payloads are never looked at (PCMU, PCMA, Opus, telephone-event and video pass as
 * they are), SSRCs and sequence numbers are kept.
 *
 * <p>Threading: opened by {@link MediaRelay#open}, owned afterwards by its media thread; {@link #close()} may be
 * called from any thread, any number of times, before or after anything else: the thread closes the sockets, gives
 * the ports back and tells a DTLS side, once.
 */
public final class RelayStream
{
    final MediaThread thread;
    final RelayEvents events;
    final RelayLeg a;
    final RelayLeg b;
    boolean idleReported;
    private final AtomicBoolean closed = new AtomicBoolean();

    RelayStream(final MediaThread thread, final RelayEvents events, final java.nio.channels.DatagramChannel[] aChannels,
        final boolean aSecure, final DtlsPacketSink aDtls, final java.nio.channels.DatagramChannel[] bChannels,
        final boolean bSecure, final DtlsPacketSink bDtls)
    {
        this.thread = thread;
        this.events = events;
        this.a = new RelayLeg(thread, this, aChannels, port(aChannels), aSecure, aDtls);
        this.b = new RelayLeg(thread, this, bChannels, port(bChannels), bSecure, bDtls);
        a.peer = b;
        b.peer = a;
    }

    private static int port(final java.nio.channels.DatagramChannel[] channels)
    {
        try
        {
            return ((java.net.InetSocketAddress)channels[0].getLocalAddress()).getPort();
        }
        catch (final java.io.IOException e)
        {
            throw new IllegalStateException("a bound media socket has no local address", e);
        }
    }

    /** @return the leg that faces the offerer. */
    public RelayLeg legA()
    {
        return a;
    }

    /** @return the leg that faces the answerer. */
    public RelayLeg legB()
    {
        return b;
    }

    /** @return whether {@link #close()} was called. */
    public boolean isClosed()
    {
        return closed.get();
    }

    /**
     * Stops relaying, closes the four sockets and gives the ports back. Any thread; idempotent.
     */
    public void close()
    {
        if (closed.compareAndSet(false, true))
        {
            thread.execute(() -> thread.remove(this));
        }
    }
}
