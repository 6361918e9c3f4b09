package io.sipline.bench.ws;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One client connection of {@code bin/sipline bench ws}: a blocking socket carrying SIP over plain TCP (messages
 * framed by their empty line and {@code Content-Length: 0}) or over WebSocket (RFC 6455: the HTTP upgrade with the
 * {@code sip} subprotocol of RFC 7118, then one masked text frame per request, one unmasked frame per response).
 * The two share everything else (the socket, the REGISTER bytes, the reads), so that the difference the bench sees
 * is the server's.
 * <p>
 * Threading: one thread at a time (the bench's load thread of this connection, or its main thread for idle ones).
 */
final class SipClientConnection implements AutoCloseable
{
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final boolean websocket;
    private final byte[] mask = new byte[4];
    private byte[] frame = new byte[1024];

    private SipClientConnection(final Socket socket, final boolean websocket, final int buffer) throws IOException
    {
        this.socket = socket;
        this.websocket = websocket;
        this.in = new BufferedInputStream(socket.getInputStream(), buffer);
        this.out = new BufferedOutputStream(socket.getOutputStream(), buffer);
    }

    /**
     * Connects to {@code port} on 127.0.0.1; over WebSocket, the upgrade is done before this returns.
     *
     * @param buffer the size of each of its read and write buffers (small for idle connections).
     */
    static SipClientConnection open(final int port, final boolean websocket, final int buffer) throws IOException
    {
        final Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        final SipClientConnection c = new SipClientConnection(s, websocket, buffer);
        if (websocket)
        {
            c.upgrade(port);
        }
        return c;
    }

    private void upgrade(final int port) throws IOException
    {
        final byte[] nonce = new byte[16];
        ThreadLocalRandom.current().nextBytes(nonce);
        final String request = "GET / HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: " + Base64.getEncoder().encodeToString(nonce) + "\r\n"
            + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: sip\r\n\r\n";
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        final String head = readHead();
        if (!head.startsWith("HTTP/1.1 101"))
        {
            throw new IOException("WebSocket upgrade refused: " + head);
        }
    }

    /** Writes one SIP message (a WebSocket text frame, masked as RFC 6455 §5.3 requires of a client); not flushed. */
    void write(final byte[] message) throws IOException
    {
        if (!websocket)
        {
            out.write(message);
            return;
        }
        out.write(0x81); // FIN, text
        if (message.length < 126)
        {
            out.write(0x80 | message.length);
        }
        else
        {
            out.write(0x80 | 126);
            out.write(message.length >>> 8);
            out.write(message.length & 0xff);
        }
        ThreadLocalRandom.current().nextBytes(mask);
        out.write(mask);
        if (frame.length < message.length)
        {
            frame = new byte[message.length * 2];
        }
        for (int i = 0; i < message.length; i++)
        {
            frame[i] = (byte)(message[i] ^ mask[i & 3]);
        }
        out.write(frame, 0, message.length);
    }

    void flush() throws IOException
    {
        out.flush();
    }

    /** Reads one SIP response (its start line returned); a WebSocket Ping is answered and skipped. */
    String readResponse() throws IOException
    {
        if (!websocket)
        {
            return readHead(); // the responder's 200s carry no body
        }
        while (true)
        {
            final int b0 = read();
            final int b1 = read();
            long length = b1 & 0x7f;
            if (126 == length)
            {
                length = (read() << 8) | read();
            }
            else if (127 == length)
            {
                length = 0;
                for (int i = 0; i < 8; i++)
                {
                    length = (length << 8) | read();
                }
            }
            if (frame.length < length)
            {
                frame = new byte[(int)length * 2];
            }
            readFully(frame, (int)length);
            final int opcode = b0 & 0x0f;
            if (0x9 == opcode)
            {
                continue; // a keep-alive Ping; the load keeps the connection busy anyway
            }
            if (0x8 == opcode)
            {
                throw new IOException("the server closed the WebSocket connection");
            }
            int end = 0;
            while (end < length && frame[end] != '\r')
            {
                end++;
            }
            return new String(frame, 0, end, StandardCharsets.US_ASCII);
        }
    }

    /** Reads up to and including an empty line; returns the first line. */
    private String readHead() throws IOException
    {
        final StringBuilder first = new StringBuilder(64);
        int state = 0;
        boolean inFirst = true;
        while (state < 4)
        {
            final int c = read();
            if (inFirst && c != '\r' && c != '\n')
            {
                first.append((char)c);
            }
            else
            {
                inFirst = false;
            }
            state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1
                : (c == '\r' ? 1 : 0);
        }
        return first.toString();
    }

    private int read() throws IOException
    {
        final int c = in.read();
        if (c < 0)
        {
            throw new IOException("connection closed by the server");
        }
        return c;
    }

    private void readFully(final byte[] into, final int length) throws IOException
    {
        int n = 0;
        while (n < length)
        {
            final int r = in.read(into, n, length - n);
            if (r < 0)
            {
                throw new IOException("connection closed by the server");
            }
            n += r;
        }
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}
