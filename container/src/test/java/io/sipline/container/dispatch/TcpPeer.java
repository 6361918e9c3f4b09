package io.sipline.container.dispatch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A raw SIP peer over TCP (or TLS) for the dispatch tests: a listening socket on loopback (port 0) that accepts the
 * container's connections and reads whole messages from them, framed by Content-Length (RFC 3261 §18.3). It counts
 * the connections it accepted, so a test can check that later requests came on the same one.
 * <p>
 * Threading: the test's thread only.
 */
final class TcpPeer implements AutoCloseable
{
    private static final long WAIT_MS = 10_000;

    private final ServerSocket listener;
    private Socket connection;
    private InputStream in;
    private int accepted;

    TcpPeer() throws IOException
    {
        this(new ServerSocket());
    }

    /** A peer on an unbound server socket of the caller's (a TLS one: {@code SSLServerSocket}). */
    TcpPeer(final ServerSocket unbound) throws IOException
    {
        listener = unbound;
        listener.bind(new InetSocketAddress(TestApps.LOOPBACK, 0));
        listener.setSoTimeout((int)WAIT_MS);
    }

    int port()
    {
        return listener.getLocalPort();
    }

    /** Opens a connection to {@code server} as the current connection (the peer as a client). */
    void connect(final InetSocketAddress server) throws IOException
    {
        connection = new Socket(server.getAddress(), server.getPort());
        connection.setSoTimeout((int)WAIT_MS);
        in = connection.getInputStream();
    }

    /** Connections accepted so far. */
    int accepted()
    {
        return accepted;
    }

    /** The next message on the current connection (accepting the first one when there is none yet). */
    String read() throws IOException
    {
        if (null == connection)
        {
            connection = listener.accept();
            accepted++;
            connection.setSoTimeout((int)WAIT_MS);
            in = connection.getInputStream();
        }
        final ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        try
        {
            while (matched < 4)
            {
                final int b = in.read();
                if (b < 0)
                {
                    throw new AssertionError("the container closed the connection; read: " + head);
                }
                if (0 == head.size() && ('\r' == b || '\n' == b))
                {
                    continue; // keep-alive CRLFs between messages (RFC 5626 §3.5.1)
                }
                head.write(b);
                matched = (b == (0 == matched % 2 ? '\r' : '\n')) ? matched + 1 : ('\r' == b ? 1 : 0);
            }
        }
        catch (final SocketTimeoutException e)
        {
            throw new AssertionError("no message within " + WAIT_MS + " ms; read: " + head, e);
        }
        final String text = head.toString(StandardCharsets.US_ASCII);
        final String length = SipPeer.header(text, "Content-Length");
        final int bodyLength = null == length ? 0 : Integer.parseInt(length);
        return text + new String(in.readNBytes(bodyLength), StandardCharsets.US_ASCII);
    }

    /** Sends a message text on the current connection. */
    void send(final String text) throws IOException
    {
        connection.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
        connection.getOutputStream().flush();
    }

    @Override
    public void close() throws IOException
    {
        if (null != connection)
        {
            connection.close();
        }
        listener.close();
    }
}
