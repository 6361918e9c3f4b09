package io.sipline.bench.fuzz;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Sends {@link SipMutator} messages to a server at a paced rate over UDP (one socket, answers read and thrown away),
 * TCP or TLS (a few connections, each drained by its own reader thread; a connection the server closes, as it must
 * after a framing error, is opened again and counted). Counts what it sent by {@link SipMutator.Kind}.
 * <p>
 * Not threadsafe: one flood per thread. Every socket and reader thread it opens is closed before {@link #run}
 * returns.
 */
public final class WireFlood
{
    /** Largest UDP payload over IPv4 (65,535 less the IP and UDP headers): longer mutants are cut to it. */
    public static final int MAX_DATAGRAM = 65_507;

    /** The transport to flood over. */
    public enum Transport
    {
        UDP, TCP, TLS
    }

    /**
     * What a flood did.
     *
     * @param transport   the transport.
     * @param sent        messages sent.
     * @param byKind      messages sent by kind of damage.
     * @param bytes       bytes sent.
     * @param reconnects  connections the server closed that were opened again (streams only).
     * @param sendErrors  messages that could not be sent (the socket failed; streams: the connection was closed).
     * @param received    bytes read back from the server.
     * @param seconds     how long the flood took.
     */
    public record Result(Transport transport, long sent, Map<SipMutator.Kind, Long> byKind, long bytes,
        long reconnects, long sendErrors, long received, double seconds)
    {
    }

    private final SipMutator mutator;
    private final InetSocketAddress server;
    private final Transport transport;
    private final int connections;

    /**
     * @param mutator     the message source (owned by this flood from now on).
     * @param server      where to send.
     * @param transport   how.
     * @param connections stream connections kept open at once (ignored for UDP).
     */
    public WireFlood(final SipMutator mutator, final InetSocketAddress server, final Transport transport,
        final int connections)
    {
        this.mutator = mutator;
        this.server = server;
        this.transport = transport;
        this.connections = Math.max(1, connections);
    }

    /**
     * Sends {@code count} messages at {@code rate} per second (0: as fast as the socket takes them).
     */
    public Result run(final long count, final int rate) throws IOException, InterruptedException
    {
        return Transport.UDP == transport ? udp(count, rate) : stream(count, rate);
    }

    private Result udp(final long count, final int rate) throws IOException
    {
        final Map<SipMutator.Kind, Long> byKind = new EnumMap<>(SipMutator.Kind.class);
        long bytes = 0;
        long errors = 0;
        long received = 0;
        final long t0 = System.nanoTime();
        try (DatagramChannel channel = DatagramChannel.open())
        {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, 1 << 20);
            channel.connect(server);
            channel.configureBlocking(false);
            final ByteBuffer in = ByteBuffer.allocate(MAX_DATAGRAM);
            for (long n = 0; n < count; n++)
            {
                pace(t0, n, rate);
                final SipMutator.Kind kind = mutator.nextKind();
                final byte[] message = mutator.next(kind);
                final int length = Math.min(message.length, MAX_DATAGRAM);
                try
                {
                    bytes += channel.write(ByteBuffer.wrap(message, 0, length));
                }
                catch (final IOException ex)
                {
                    // ICMP port unreachable from an earlier datagram (the server is down) or a full buffer.
                    errors++;
                }
                byKind.merge(kind, 1L, Long::sum);
                received += drain(channel, in);
            }
        }
        return new Result(Transport.UDP, count, byKind, bytes, 0, errors, received, (System.nanoTime() - t0) / 1e9);
    }

    private static long drain(final DatagramChannel channel, final ByteBuffer in)
    {
        long received = 0;
        try
        {
            for (int i = 0; i < 64; i++)
            {
                in.clear();
                if (null == channel.receive(in))
                {
                    break;
                }
                received += in.position();
            }
        }
        catch (final IOException ex)
        {
            // An ICMP error queued on the socket: reported by the next send, if it persists.
        }
        return received;
    }

    private Result stream(final long count, final int rate) throws IOException, InterruptedException
    {
        final Map<SipMutator.Kind, Long> byKind = new EnumMap<>(SipMutator.Kind.class);
        final Connection[] open = new Connection[connections];
        long bytes = 0;
        long errors = 0;
        long reconnects = 0;
        long received = 0;
        final long t0 = System.nanoTime();
        try
        {
            for (long n = 0; n < count; n++)
            {
                pace(t0, n, rate);
                final SipMutator.Kind kind = mutator.nextKind();
                final byte[] message = mutator.next(kind);
                byKind.merge(kind, 1L, Long::sum);
                final int k = (int)(n % connections);
                if (null == open[k] || open[k].closed())
                {
                    if (null != open[k])
                    {
                        received += open[k].close();
                        reconnects++;
                    }
                    open[k] = connect();
                }
                try
                {
                    open[k].out.write(message);
                    bytes += message.length;
                }
                catch (final IOException ex)
                {
                    errors++;
                    received += open[k].close();
                    open[k] = null;
                    reconnects++;
                }
            }
        }
        finally
        {
            for (final Connection c : open)
            {
                if (null != c)
                {
                    received += c.close();
                }
            }
        }
        return new Result(transport, count, byKind, bytes, reconnects, errors, received,
            (System.nanoTime() - t0) / 1e9);
    }

    private Connection connect() throws IOException
    {
        final Socket socket;
        if (Transport.TLS == transport)
        {
            final SSLSocket tls = (SSLSocket)trustAll().getSocketFactory().createSocket();
            tls.connect(server, 5_000);
            tls.setSoTimeout(10_000);
            tls.startHandshake();
            socket = tls;
        }
        else
        {
            socket = new Socket();
            socket.connect(server, 5_000);
        }
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(0);
        return new Connection(socket);
    }

    /** A client context that accepts the server's self-signed certificate (the flood tests the server, not PKI). */
    private static SSLContext trustAll() throws IOException
    {
        try
        {
            final SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new X509TrustManager()
            {
                @Override
                public void checkClientTrusted(final X509Certificate[] chain, final String authType)
                {
                }

                @Override
                public void checkServerTrusted(final X509Certificate[] chain, final String authType)
                {
                }

                @Override
                public X509Certificate[] getAcceptedIssuers()
                {
                    return new X509Certificate[0];
                }
            }}, new SecureRandom());
            return context;
        }
        catch (final java.security.GeneralSecurityException ex)
        {
            throw new IOException("no TLS client context", ex);
        }
    }

    /** Sleeps until message {@code n} is due at {@code rate} per second from {@code t0}. */
    private static void pace(final long t0, final long n, final int rate)
    {
        if (rate <= 0)
        {
            return;
        }
        final long due = t0 + n * 1_000_000_000L / rate;
        long wait;
        while ((wait = due - System.nanoTime()) > 50_000)
        {
            LockSupport.parkNanos(wait);
        }
    }

    /** One stream connection and the thread that reads (and discards) what the server writes on it. */
    private static final class Connection
    {
        private final Socket socket;
        private final OutputStream out;
        private final Thread reader;
        private volatile boolean eof;
        private volatile long received;

        Connection(final Socket socket) throws IOException
        {
            this.socket = socket;
            this.out = socket.getOutputStream();
            final InputStream in = socket.getInputStream();
            this.reader = Thread.ofPlatform().daemon().name("fuzz-reader").start(() -> read(in));
        }

        private void read(final InputStream in)
        {
            final byte[] buf = new byte[16_384];
            try
            {
                int n;
                while ((n = in.read(buf)) >= 0)
                {
                    received += n;
                }
            }
            catch (final IOException ex)
            {
                // Reset by the server, or closed by close(): the connection is over either way.
            }
            eof = true;
        }

        boolean closed()
        {
            return eof || socket.isClosed();
        }

        /** Closes the socket, waits for its reader, and returns the bytes it read. */
        long close()
        {
            try
            {
                socket.close();
                reader.join(TimeUnit.SECONDS.toMillis(5));
            }
            catch (final IOException ex)
            {
                // Closing is all that is wanted.
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            return received;
        }
    }
}
