package io.sipline.media.ice;

import io.sipline.media.stun.StunTransport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * One non-blocking UDP socket (a JDK {@link DatagramChannel}) for the media plane: the loopback/host binding under an
 * ICE component or a TURN client. Sends copy the caller's bytes into a direct buffer; receives fill a heap buffer
 * whose array is handed to the {@link Receiver} for the duration of the call. Both buffers may be shared by every
 * endpoint of a media thread ({@link Buffers}), so a socket costs no packet buffer of its own (PJNATH gives each
 * STUN socket a 2,000-byte one). The JDK reuses the sender's {@link InetSocketAddress} while the peer stays the
 * same, so a steady flow allocates nothing here.
 *
 * <p>Send errors (for example ICMP port unreachable reported on a later call) are counted and never thrown: UDP
 * loses packets anyway, and ICE/STUN retransmit.
 *
 * <p>Not thread-safe; owned by one media thread, which calls {@link #send} and {@link #receive}.
 */
public final class UdpEndpoint implements StunTransport, AutoCloseable
{
    /** Largest datagram read or written. */
    public static final int MAX_DATAGRAM = 2048;

    /** Called for each datagram {@link #receive} reads, on the owning thread. */
    @FunctionalInterface
    public interface Receiver
    {
        /**
         * @param endpoint the socket it arrived on.
         * @param buf      bytes (valid during the call).
         * @param offset   first byte.
         * @param length   bytes.
         * @param from     the sender.
         */
        void onDatagram(UdpEndpoint endpoint, byte[] buf, int offset, int length, InetSocketAddress from);
    }

    /** The send and receive buffers, shareable by the endpoints of one media thread. Not thread-safe. */
    public static final class Buffers
    {
        final ByteBuffer out = ByteBuffer.allocateDirect(MAX_DATAGRAM);
        final byte[] inArray = new byte[MAX_DATAGRAM];
        final ByteBuffer in = ByteBuffer.wrap(inArray);
    }

    private final DatagramChannel channel;
    private final InetSocketAddress localAddress;
    private final ByteBuffer out;
    private final byte[] inArray;
    private final ByteBuffer in;
    private long sendErrors;

    /**
     * Binds a socket with buffers of its own.
     *
     * @param bind address and port (port 0 for any free port).
     * @throws IOException when the bind fails.
     */
    public UdpEndpoint(final InetSocketAddress bind) throws IOException
    {
        this(bind, new Buffers());
    }

    /**
     * Binds a socket using a thread's shared buffers.
     *
     * @param bind    address and port (port 0 for any free port).
     * @param buffers the owning thread's buffers.
     * @throws IOException when the bind fails.
     */
    public UdpEndpoint(final InetSocketAddress bind, final Buffers buffers) throws IOException
    {
        out = buffers.out;
        inArray = buffers.inArray;
        in = buffers.in;
        channel = DatagramChannel.open(bind.getAddress() instanceof java.net.Inet6Address
            ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
        try
        {
            channel.configureBlocking(false);
            channel.bind(bind);
            localAddress = (InetSocketAddress) channel.getLocalAddress();
        }
        catch (final IOException | RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
    }

    /**
     * @return the bound address, with the actual port.
     */
    public InetSocketAddress localAddress()
    {
        return localAddress;
    }

    /**
     * Registers the socket for reads with a selector (the owner's event loop).
     *
     * @param selector the selector.
     * @return the key, with this endpoint attached.
     */
    public SelectionKey register(final Selector selector)
    {
        try
        {
            return channel.register(selector, SelectionKey.OP_READ, this);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public void send(final byte[] buf, final int offset, final int length, final InetSocketAddress destination)
    {
        if (length > MAX_DATAGRAM)
        {
            sendErrors++;
            return;
        }
        out.clear();
        out.put(buf, offset, length).flip();
        try
        {
            channel.send(out, destination);
        }
        catch (final IOException ex)
        {
            sendErrors++;
        }
    }

    /**
     * Reads every datagram waiting (at most {@code limit}).
     *
     * @param receiver who gets them.
     * @param limit    most datagrams to read.
     * @return datagrams read.
     */
    public int receive(final Receiver receiver, final int limit)
    {
        int count = 0;
        while (count < limit)
        {
            in.clear();
            final SocketAddress from;
            try
            {
                from = channel.receive(in);
            }
            catch (final IOException ex)
            {
                sendErrors++; // an ICMP error for an earlier send surfaces here on some systems
                count++;
                continue;
            }
            if (null == from)
            {
                break;
            }
            count++;
            receiver.onDatagram(this, inArray, 0, in.position(), (InetSocketAddress) from);
        }
        return count;
    }

    /**
     * @return send (and ICMP-reported) errors so far.
     */
    public long sendErrors()
    {
        return sendErrors;
    }

    @Override
    public void close()
    {
        try
        {
            channel.close();
        }
        catch (final IOException ex)
        {
            sendErrors++;
        }
    }
}
