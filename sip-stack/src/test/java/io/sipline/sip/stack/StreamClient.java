package io.sipline.sip.stack;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The far end of a SIP stream in tests: writes text, reads whole messages framed by Content-Length (RFC 3261 §18.3)
 * or raw bytes, off a blocking socket (plain TCP, or an {@code SSLSocket}) with a read timeout as its deadline.
 * Owned by the test thread; closed by the test.
 */
final class StreamClient implements AutoCloseable
{
    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?im)^(?:Content-Length|l)\\s*:\\s*(\\d+)\\s*$");

    private final Socket socket;
    private final InputStream in;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();

    StreamClient(final Socket socket) throws IOException
    {
        this.socket = socket;
        this.socket.setSoTimeout(5_000);
        this.in = socket.getInputStream();
    }

    static StreamClient connect(final InetSocketAddress server) throws IOException
    {
        final Socket s = new Socket();
        s.connect(server, 5_000);
        return new StreamClient(s);
    }

    Socket socket()
    {
        return socket;
    }

    int localPort()
    {
        return socket.getLocalPort();
    }

    void write(final String text) throws IOException
    {
        write(text.getBytes(StandardCharsets.US_ASCII));
    }

    void write(final byte[] bytes) throws IOException
    {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }

    /** The next whole SIP message (leading CRLFs skipped), or throws SocketTimeoutException. */
    String readMessage() throws IOException
    {
        while (true)
        {
            String text = pending.toString(StandardCharsets.ISO_8859_1);
            int skip = 0;
            while (skip < text.length() && (text.charAt(skip) == '\r' || text.charAt(skip) == '\n'))
            {
                skip++;
            }
            text = text.substring(skip);
            final int headersEnd = text.indexOf("\r\n\r\n");
            if (headersEnd >= 0)
            {
                final Matcher m = CONTENT_LENGTH.matcher(text.substring(0, headersEnd + 2));
                final int body = m.find() ? Integer.parseInt(m.group(1)) : 0;
                final int total = headersEnd + 4 + body;
                if (text.length() >= total)
                {
                    final byte[] all = pending.toByteArray();
                    pending.reset();
                    pending.write(all, skip + total, all.length - skip - total);
                    return text.substring(0, total);
                }
            }
            fill();
        }
    }

    /** Exactly n bytes. */
    byte[] readBytes(final int n) throws IOException
    {
        while (pending.size() < n)
        {
            fill();
        }
        final byte[] all = pending.toByteArray();
        pending.reset();
        pending.write(all, n, all.length - n);
        return java.util.Arrays.copyOf(all, n);
    }

    /** True when the peer closed the stream (end of stream seen), false on timeout. */
    boolean awaitEndOfStream(final int timeoutMillis) throws IOException
    {
        socket.setSoTimeout(timeoutMillis);
        try
        {
            final byte[] b = new byte[4096];
            while (true)
            {
                final int n = in.read(b);
                if (n < 0)
                {
                    return true;
                }
                pending.write(b, 0, n);
            }
        }
        catch (final SocketTimeoutException e)
        {
            return false;
        }
    }

    private void fill() throws IOException
    {
        final byte[] b = new byte[4096];
        final int n = in.read(b);
        if (n < 0)
        {
            throw new IOException("end of stream; pending: " + pending.toString(StandardCharsets.ISO_8859_1));
        }
        pending.write(b, 0, n);
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}
