package io.sipline.bench.media;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A client of the ng control protocol (rtpengine's, and the Sipline relay server's of this package): each request
 * is one UDP datagram {@code <cookie> <bencoded dictionary>}, answered by a datagram with the same cookie and a
 * dictionary holding {@code result} ({@code ok}, or {@code error} with {@code error-reason}). A request without an
 * answer is resent with the same cookie (the server answers a repeat from its cache) up to three times.
 *
 * <p>Not threadsafe; one per harness thread.
 */
public final class NgClient implements AutoCloseable
{
    private static final int TIMEOUT_MS = 3000;
    private static final int ATTEMPTS = 3;

    private final DatagramSocket socket;
    private final InetSocketAddress server;
    private final byte[] receive = new byte[65536];
    private long next = System.nanoTime() & 0xFFFF_FFFFL;

    /**
     * @param server the ng control address.
     * @throws IOException when no local socket can be opened.
     */
    public NgClient(final InetSocketAddress server) throws IOException
    {
        this.server = server;
        this.socket = new DatagramSocket(new InetSocketAddress(server.getAddress(), 0));
    }

    /**
     * @param request the dictionary, with its {@code command}.
     * @return the answer's dictionary, whose {@code result} is {@code ok} (or {@code pong} to a ping).
     * @throws IOException when there is no answer after the retries, or the answer is an error.
     */
    public Map<String, Object> request(final Map<String, Object> request) throws IOException
    {
        final String cookie = Long.toHexString(next++);
        final byte[] frame = frame(cookie, request);
        for (int attempt = 0; attempt < ATTEMPTS; attempt++)
        {
            socket.send(new DatagramPacket(frame, frame.length, server));
            final long deadline = System.currentTimeMillis() + TIMEOUT_MS;
            while (true)
            {
                final long left = deadline - System.currentTimeMillis();
                if (left <= 0)
                {
                    break;
                }
                socket.setSoTimeout((int)left);
                final DatagramPacket p = new DatagramPacket(receive, receive.length);
                try
                {
                    socket.receive(p);
                }
                catch (final SocketTimeoutException e)
                {
                    break;
                }
                final Frame answer = parse(receive, p.getLength());
                if (cookie.equals(answer.cookie()))
                {
                    return checked(request, answer.body());
                }
            }
        }
        throw new IOException("ng " + request.get("command") + " to " + server + ": no answer after " + ATTEMPTS
            + " attempts");
    }

    private static Map<String, Object> checked(final Map<String, Object> request, final Map<String, Object> answer)
        throws IOException
    {
        final Object result = answer.get("result");
        if ("ok".equals(result) || "pong".equals(result))
        {
            return answer;
        }
        throw new IOException("ng " + request.get("command") + ": " + result + ": " + answer.get("error-reason"));
    }

    /**
     * @return a new mutable dictionary with its {@code command}.
     */
    public static Map<String, Object> command(final String command)
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("command", command);
        return m;
    }

    /** @return the datagram {@code <cookie> <bencoded body>}. */
    static byte[] frame(final String cookie, final Map<String, Object> body)
    {
        final byte[] c = (cookie + " ").getBytes(StandardCharsets.US_ASCII);
        final byte[] b = Bencode.encode(body);
        final byte[] out = Arrays.copyOf(c, c.length + b.length);
        System.arraycopy(b, 0, out, c.length, b.length);
        return out;
    }

    /**
     * @return the cookie and the dictionary of one datagram.
     * @throws IllegalArgumentException when it is not {@code <cookie> <bencoded dictionary>}.
     */
    @SuppressWarnings("unchecked")
    static Frame parse(final byte[] data, final int length)
    {
        int space = -1;
        for (int i = 0; i < length; i++)
        {
            if (' ' == data[i])
            {
                space = i;
                break;
            }
        }
        if (space <= 0)
        {
            throw new IllegalArgumentException("ng: no cookie");
        }
        final Object body = Bencode.decode(data, space + 1, length - space - 1);
        if (!(body instanceof Map<?, ?>))
        {
            throw new IllegalArgumentException("ng: the body is not a dictionary");
        }
        return new Frame(new String(data, 0, space, StandardCharsets.US_ASCII), (Map<String, Object>)body);
    }

    /** One ng datagram: its cookie and dictionary. */
    record Frame(String cookie, Map<String, Object> body)
    {
    }

    @Override
    public void close()
    {
        socket.close();
    }
}
