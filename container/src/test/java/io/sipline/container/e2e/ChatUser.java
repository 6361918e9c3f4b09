package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.UUID;

/**
 * A SIP MESSAGE user (RFC 3428) on a UDP socket of its own, for the chat room of the compatibility suite: it sends a
 * line as a MESSAGE and waits for the final response, and it answers each MESSAGE it receives with 200 and keeps its
 * text. Messages that come while it waits for a response are kept in order.
 * <p>
 * Threading: used by one test thread.
 */
final class ChatUser implements AutoCloseable
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final int TIMEOUT_MS = 5_000;

    private final String name;
    private final DatagramSocket socket;
    private final InetSocketAddress server;
    private final Deque<String> received = new ArrayDeque<>();
    private final String callId = UUID.randomUUID().toString();
    private int cseq;

    ChatUser(final String name, final int serverPort) throws IOException
    {
        this.name = name;
        this.socket = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
        this.socket.setSoTimeout(TIMEOUT_MS);
        this.server = new InetSocketAddress(LOOPBACK, serverPort);
    }

    /** This user's address of record, as the chat room sees it in From. */
    String uri()
    {
        return "sip:" + name + "@127.0.0.1:" + socket.getLocalPort();
    }

    /** Sends {@code line} to the room; returns the status of the final response. */
    int say(final String line) throws IOException
    {
        final String branch = "z9hG4bK-" + name + "-" + ++cseq;
        final byte[] body = line.getBytes(StandardCharsets.UTF_8);
        send("MESSAGE sip:chatroom@127.0.0.1:" + server.getPort() + " SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + socket.getLocalPort() + ";branch=" + branch + "\r\n"
            + "Max-Forwards: 70\r\nFrom: <" + uri() + ">;tag=" + name + "\r\n"
            + "To: <sip:chatroom@127.0.0.1>\r\nCall-ID: " + callId + "\r\nCSeq: " + cseq + " MESSAGE\r\n"
            + "Content-Type: text/plain;charset=UTF-8\r\nContent-Length: " + body.length + "\r\n\r\n" + line);
        final long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000L;
        while (System.nanoTime() < deadline)
        {
            final String m = receive();
            if (m.startsWith("SIP/2.0 ") && m.contains(branch))
            {
                final int status = Integer.parseInt(m.substring(8, 11));
                if (status >= 200)
                {
                    return status;
                }
            }
        }
        return fail(name + ": no final response to '" + line + "'");
    }

    /** The text of the next MESSAGE the room sent to this user (answered with 200). */
    String nextMessage() throws IOException
    {
        final long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000L;
        while (received.isEmpty() && System.nanoTime() < deadline)
        {
            receive();
        }
        if (received.isEmpty())
        {
            fail(name + ": no MESSAGE from the room");
        }
        return received.removeFirst();
    }

    /** One datagram; a MESSAGE request is answered and its body kept. */
    private String receive() throws IOException
    {
        final DatagramPacket p = new DatagramPacket(new byte[65_535], 65_535);
        try
        {
            socket.receive(p);
        }
        catch (final SocketTimeoutException e)
        {
            return fail(name + ": nothing received in " + TIMEOUT_MS + " ms");
        }
        final String m = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
        if (m.startsWith("MESSAGE "))
        {
            final String ok = answer(m, 200, name);
            socket.send(new DatagramPacket(ok.getBytes(StandardCharsets.UTF_8), ok.length(),
                p.getSocketAddress()));
            received.addLast(m.substring(m.indexOf("\r\n\r\n") + 4));
        }
        return m;
    }

    /**
     * The answer to a received request (RFC 3261 §8.2.6.2): the status, its Via, From, Call-ID and CSeq copied, To
     * tagged with {@code tag}, no body.
     */
    static String answer(final String request, final int status, final String tag)
    {
        final StringBuilder out = new StringBuilder("SIP/2.0 ").append(status).append(" OK\r\n");
        for (final String line : request.substring(0, request.indexOf("\r\n\r\n")).split("\r\n"))
        {
            final String lower = line.toLowerCase(java.util.Locale.ROOT);
            if (lower.startsWith("via:") || lower.startsWith("from:") || lower.startsWith("call-id:")
                || lower.startsWith("cseq:"))
            {
                out.append(line).append("\r\n");
            }
            else if (lower.startsWith("to:"))
            {
                out.append(line).append(";tag=").append(tag).append("\r\n");
            }
        }
        return out.append("Content-Length: 0\r\n\r\n").toString();
    }

    private void send(final String text) throws IOException
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        socket.send(new DatagramPacket(bytes, bytes.length, server));
    }

    @Override
    public void close()
    {
        socket.close();
    }
}
