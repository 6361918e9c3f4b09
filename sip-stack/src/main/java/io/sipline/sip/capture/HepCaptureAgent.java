package io.sipline.sip.capture;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;

import io.netty.buffer.ByteBuf;

/**
 * One shard's HEPv3 mirror: every SIP message the shard's transports read or write is encoded by its
 * {@link HepEncoder} and sent at once, with one non-blocking {@code send} on the shard's own UDP socket, to the
 * collector. Capture never holds SIP up: a send the socket buffer cannot take now ({@code EAGAIN}), a failed one, or
 * a message too long for one HEP packet is dropped and counted ({@link #dropped()}); the SIP message goes on
 * regardless. The socket is not connected, so a collector that is down costs no ICMP error per capture.
 *
 * <p>What the transports pass: the addresses and ports of the wire (for UDP the listening socket's local address,
 * which is the wildcard address when the server listens on one), the IP protocol ({@link HepEncoder#PROTOCOL_UDP},
 * ...), and the time: the kernel's receive timestamp ({@code SO_TIMESTAMPNS}) for UDP datagrams the shard reads with
 * {@code recvmsg}; for TCP, TLS and WebSocket reads (Netty's epoll transport gives no per-read kernel timestamp
 * cheaply), and for Netty's UDP reads, the time the shard read the bytes; for sends, the time of the write.
 *
 * <p>Buffers: the capture methods borrow the payload for the call. Nothing is allocated per message. Not thread-safe;
 * owned by the shard's event loop (the UDP and stream transports of a shard share one). {@link #sent()} and
 * {@link #dropped()} may be read by any thread.
 */
public final class HepCaptureAgent implements AutoCloseable
{
    private static final Logger LOG = System.getLogger("io.sipline.sip.capture");
    private static final VarHandle SENT;
    private static final VarHandle DROPPED;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            SENT = lookup.findVarHandle(HepCaptureAgent.class, "sent", long.class);
            DROPPED = lookup.findVarHandle(HepCaptureAgent.class, "dropped", long.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int index;
    private final InetSocketAddress collector;
    private final HepEncoder encoder;
    private final DatagramChannel channel;
    /** Written by the shard only (opaque stores), read by any thread (opaque loads). */
    @SuppressWarnings("unused")
    private long sent;
    @SuppressWarnings("unused")
    private long dropped;
    /** True once a failed send was logged: one line per shard, the rest counted only. */
    private boolean failureLogged;

    /**
     * Opens shard {@code index}'s socket (non-blocking, unconnected, of the collector's family).
     *
     * @throws IOException when no UDP socket can be opened.
     */
    public HepCaptureAgent(final int index, final HepConfig config) throws IOException
    {
        this.index = index;
        this.collector = config.collector();
        this.encoder = new HepEncoder(config.captureId(), config.passwordBytes());
        this.channel = DatagramChannel.open();
        boolean opened = false;
        try
        {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, 1024 * 1024); // bursts of captures; the kernel caps it
            opened = true;
        }
        finally
        {
            if (!opened)
            {
                channel.close();
            }
        }
    }

    /**
     * True when {@code first}, the first byte of a message, can start SIP: a letter (a method or {@code SIP/2.0}), not
     * a CR/LF keep-alive or a STUN message (RFC 7983 §7: 0-3), which share the port and are not captured.
     */
    public static boolean startsSip(final int first)
    {
        return (first & 0xC0) != 0;
    }

    /**
     * Mirrors one SIP message given as {@code length} bytes of {@code message} from {@code index}.
     *
     * @param message borrowed; indexes untouched.
     */
    public void capture(final int protocol, final ByteBuf message, final int index, final int length,
        final InetSocketAddress source, final InetSocketAddress destination, final long atNanos)
    {
        send(encoder.encode(protocol, source, destination, atNanos, message, index, length));
    }

    /**
     * Mirrors one SIP message given as {@code message[offset, offset + length)}.
     *
     * @param message borrowed.
     */
    public void capture(final int protocol, final byte[] message, final int offset, final int length,
        final InetSocketAddress source, final InetSocketAddress destination, final long atNanos)
    {
        send(encoder.encode(protocol, source, destination, atNanos, message, offset, length));
    }

    private void send(final int length)
    {
        if (length < 0)
        {
            DROPPED.setOpaque(this, (long)DROPPED.getOpaque(this) + 1); // larger than one HEP packet
            return;
        }
        try
        {
            if (0 == channel.send(encoder.buffer(), collector))
            {
                DROPPED.setOpaque(this, (long)DROPPED.getOpaque(this) + 1); // socket buffer full: never wait
                return;
            }
            SENT.setOpaque(this, (long)SENT.getOpaque(this) + 1);
        }
        catch (final IOException | RuntimeException e)
        {
            DROPPED.setOpaque(this, (long)DROPPED.getOpaque(this) + 1);
            if (!failureLogged)
            {
                failureLogged = true;
                LOG.log(Level.WARNING, "hep: shard " + index + " cannot send captures to "
                    + collector.getHostString() + ":" + collector.getPort() + " (" + e
                    + "); they are dropped and counted, SIP goes on");
            }
        }
    }

    /** Captures sent to the collector so far; any thread. */
    public long sent()
    {
        return (long)SENT.getOpaque(this);
    }

    /** Captures dropped so far (socket buffer full, send failed, too long); any thread. */
    public long dropped()
    {
        return (long)DROPPED.getOpaque(this);
    }

    /** Closes the socket; captures after this are dropped. Any thread, once the shard has stopped. */
    @Override
    public void close()
    {
        try
        {
            channel.close();
        }
        catch (final IOException e)
        {
            LOG.log(Level.DEBUG, "hep: closing shard " + index + "'s socket: " + e);
        }
    }
}
