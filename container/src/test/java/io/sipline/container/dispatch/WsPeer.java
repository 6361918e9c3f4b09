package io.sipline.container.dispatch;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A raw SIP-over-WebSocket peer for the dispatch and end-to-end tests (RFC 7118): the JDK's WebSocket client on
 * loopback with the {@code sip} subprotocol, one SIP message per text message; waits, up to a deadline, for the first
 * message that matches.
 * <p>
 * Threading: the test's thread sends and waits; the client's thread queues what it reads.
 */
public final class WsPeer implements AutoCloseable
{
    private static final long WAIT_MS = 10_000;

    private final LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
    private final WebSocket socket;

    public WsPeer(final int port) throws Exception
    {
        socket = HttpClient.newHttpClient().newWebSocketBuilder().subprotocols("sip")
            .buildAsync(URI.create("ws://127.0.0.1:" + port + "/"), new Collector(received))
            .get(10, TimeUnit.SECONDS);
    }

    public void send(final String text) throws Exception
    {
        socket.sendText(text, true).get(5, TimeUnit.SECONDS);
    }

    /** The first message read from now on that matches; fails (AssertionError) after the deadline. */
    public String await(final Predicate<String> wanted, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        for (long left = WAIT_MS; left > 0; left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))
        {
            final String m = received.poll(left, TimeUnit.MILLISECONDS);
            if (null != m && wanted.test(m))
            {
                return m;
            }
        }
        throw new AssertionError("no " + what + " within " + WAIT_MS + " ms");
    }

    @Override
    public void close()
    {
        if (!socket.isOutputClosed())
        {
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye").orTimeout(5, TimeUnit.SECONDS).join();
        }
        socket.abort();
    }

    /** Joins text fragments into whole messages. */
    private static final class Collector implements WebSocket.Listener
    {
        private final LinkedBlockingQueue<String> received;
        private final StringBuilder partial = new StringBuilder();

        Collector(final LinkedBlockingQueue<String> received)
        {
            this.received = received;
        }

        @Override
        public CompletionStage<?> onText(final WebSocket webSocket, final CharSequence data, final boolean last)
        {
            partial.append(data);
            if (last)
            {
                received.add(partial.toString());
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }
    }
}
