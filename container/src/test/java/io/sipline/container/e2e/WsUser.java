package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.fail;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A SIP user agent over WebSocket (RFC 7118, subprotocol {@code sip}) on the JDK's client, for applications that
 * JsSIP cannot drive: it registers a {@code .invalid} Contact with {@code transport=ws} (§5), sends requests, answers
 * the ones it receives, and keeps every message received in order. Each text frame is one SIP message (§4).
 * <p>
 * Threading: used by one test thread; the JDK's listener thread only queues what arrives.
 */
final class WsUser implements AutoCloseable
{
    private static final long WAIT_MS = 10_000;

    final String host;
    private final String name;
    private final WebSocket socket;
    private final BlockingQueue<String> received = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();
    private int cseq;

    WsUser(final String name, final int wsPort) throws Exception
    {
        this.name = name;
        this.host = name + "-ua.invalid";
        this.socket = HttpClient.newHttpClient().newWebSocketBuilder().subprotocols("sip")
            .buildAsync(URI.create("ws://127.0.0.1:" + wsPort + "/"), new WebSocket.Listener()
            {
                private final StringBuilder frame = new StringBuilder();

                @Override
                public CompletionStage<?> onText(final WebSocket ws, final CharSequence data, final boolean last)
                {
                    frame.append(data);
                    if (last)
                    {
                        received.add(frame.toString());
                        frame.setLength(0);
                    }
                    ws.request(1);
                    return null;
                }
            }).get(WAIT_MS, TimeUnit.MILLISECONDS);
    }

    /** REGISTERs this user's Contact; returns the final response. */
    String register() throws Exception
    {
        send("REGISTER sip:127.0.0.1 SIP/2.0", null);
        return next(m -> m.startsWith("SIP/2.0 ") && !m.startsWith("SIP/2.0 1") && m.contains(" REGISTER\r\n"));
    }

    /** Sends a request with this start line (To is its Request-URI) and {@code body} as text/plain, or none. */
    void send(final String startLine, final String body) throws Exception
    {
        final String target = startLine.split(" ")[1];
        final String text = startLine + "\r\nVia: SIP/2.0/WS " + host + ";branch=z9hG4bK-" + name + "-" + ++cseq
            + "\r\nMax-Forwards: 70\r\nFrom: <sip:" + name + "@127.0.0.1>;tag=" + name + "\r\nTo: <"
            + ("REGISTER".equals(startLine.split(" ")[0]) ? "sip:" + name + "@127.0.0.1" : target)
            + ">\r\nCall-ID: " + name + "-" + cseq + "\r\nCSeq: " + cseq + " " + startLine.split(" ")[0]
            + "\r\nContact: <sip:" + name + "@" + host + ";transport=ws>\r\n"
            + (null == body ? "Content-Length: 0\r\n\r\n"
                : "Content-Type: text/plain\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
        socket.sendText(text, true).get(WAIT_MS, TimeUnit.MILLISECONDS);
    }

    /** Answers a received request with {@code status}, its Via, From, To (tagged), Call-ID and CSeq copied. */
    void answer(final String request, final int status) throws Exception
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
                out.append(line).append(";tag=").append(name).append("\r\n");
            }
        }
        socket.sendText(out.append("Content-Length: 0\r\n\r\n"), true).get(WAIT_MS, TimeUnit.MILLISECONDS);
    }

    /** The next message received that matches, waiting at most 10 s; the others are skipped. */
    String next(final Predicate<String> wanted) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (System.nanoTime() < deadline)
        {
            final String m = received.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (null != m)
            {
                seen.add(m);
                if (wanted.test(m))
                {
                    return m;
                }
            }
        }
        return fail(name + ": nothing expected received in " + WAIT_MS + " ms; received:\n" + seen);
    }

    @Override
    public void close()
    {
        socket.abort();
    }
}
