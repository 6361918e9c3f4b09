package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.sipline.sip.transport.tcp.FlowTokens;
import io.sipline.sip.transport.tcp.TcpCounters;
import io.sipline.sip.transport.tcp.TcpFlow;
import io.sipline.sip.transport.tcp.WsCounters;
import org.junit.jupiter.api.Test;

/**
 * SIP over WebSocket (RFC 7118) through the whole stack on loopback with two shards, driven by the JDK's own
 * WebSocket client: the WS listener is bound once per shard, the upgrade needs the {@code sip} subprotocol, each
 * request is answered on its connection whichever shard owns its call (a message of the other shard is handed over),
 * the request's source is a flow with transport {@code WS}, and the counters see it all.
 */
class StackWebSocketTest
{
    @Test
    void shouldAnswerRequestsOverWebSocketOnTheirConnection() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (SipStack stack = SipStack.start(StackTcpTest.config(2).wsPorts(0), StreamTestListener.factory(record)))
        {
            assertEquals(1, stack.wsAddresses().size());
            final URI uri = URI.create("ws://127.0.0.1:" + stack.wsAddresses().get(0).getPort() + "/");
            final HttpClient http = HttpClient.newHttpClient();
            final LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
            final WebSocket ws = http.newWebSocketBuilder().subprotocols("sip").buildAsync(uri, new Collector(received))
                .get(10, TimeUnit.SECONDS);
            assertEquals("sip", ws.getSubprotocol());
            final int n = 20;
            for (int i = 0; i < n; i++)
            {
                // RFC 7118 §5.1: no Content-Length needed; every second message split over two frames.
                final String options = StackTcpTest.request("OPTIONS", "ws-" + i, 0, "WS")
                    .replace("Content-Length: 0\r\n", "");
                if (i % 2 == 0)
                {
                    ws.sendText(options, true).get(5, TimeUnit.SECONDS);
                }
                else
                {
                    ws.sendText(options.substring(0, 30), false).get(5, TimeUnit.SECONDS);
                    ws.sendText(options.substring(30), true).get(5, TimeUnit.SECONDS);
                }
            }
            final Set<String> answered = new HashSet<>();
            for (int i = 0; i < n; i++)
            {
                final String response = received.poll(10, TimeUnit.SECONDS);
                assertTrue(null != response && response.startsWith("SIP/2.0 200 OK\r\n"), response);
                answered.add(StackTcpTest.header(response, "Call-ID"));
            }
            assertEquals(n, answered.size(), "one WebSocket message per SIP response");
            assertTrue(stack.handoffs() > 0, "some calls belong to the other shard: handed over");
            for (final var source : record.sources)
            {
                assertTrue(source instanceof TcpFlow flow && "WS".equals(flow.transport()), "" + source);
            }
            assertEquals(n, stack.webSocketMessageCounters().get(TcpCounters.MESSAGES_IN));
            assertEquals(1, stack.webSocketCounters().get(WsCounters.UPGRADED));
            assertEquals(1, stack.webSocketConnections());
            // RFC 7118 §5: the .invalid Contact host of a request on the connection names that connection.
            ws.sendText(StackTcpTest.request("OPTIONS", "ws-contact", 0, "WS").replace("Content-Length: 0\r\n",
                "Contact: <sip:k4t9@Df7jal23ls0d.invalid;transport=ws>\r\n"), true).get(5, TimeUnit.SECONDS);
            assertTrue(received.poll(10, TimeUnit.SECONDS).startsWith("SIP/2.0 200 OK\r\n"));
            for (int k = 0; k < 2; k++)
            {
                final TcpFlow flow = flowOnShard(stack, k, "df7jal23ls0d.INVALID");
                assertTrue(null != flow && flow.isWebSocket() && flow.connection().isActive(), "shard " + k);
            }
            assertEquals(null, flowOnShard(stack, 0, "other.invalid"));
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
            StackTcpTest.awaitTrue(() -> stack.webSocketConnections() == 0, "the connection closed");
            StackTcpTest.awaitTrue(() -> null == flowOnShard(stack, 1, "df7jal23ls0d.invalid"),
                "the flow is forgotten with its connection");
            assertEquals(1, stack.webSocketCounters().get(WsCounters.CLOSES_RECEIVED));
        }
    }

    /**
     * RFC 5626 §5.2, §5.3: a WebSocket connection's flow token names it from any shard; an altered token is not
     * authentic (403), and the token of a closed connection is authentic but names no flow (430 Flow Failed).
     */
    @Test
    void shouldNameAWebSocketConnectionByAFlowToken() throws Exception
    {
        try (SipStack stack = SipStack.start(StackTcpTest.config(2).wsPorts(0),
            StreamTestListener.factory(new StreamTestListener.Record())))
        {
            final URI uri = URI.create("ws://127.0.0.1:" + stack.wsAddresses().get(0).getPort() + "/");
            final LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
            final WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder().subprotocols("sip")
                .buildAsync(uri, new Collector(received)).get(10, TimeUnit.SECONDS);
            ws.sendText(StackTcpTest.request("OPTIONS", "ws-token", 0, "WS").replace("Content-Length: 0\r\n",
                "Contact: <sip:tok@t0ken.invalid;transport=ws>\r\n"), true).get(5, TimeUnit.SECONDS);
            assertTrue(received.poll(10, TimeUnit.SECONDS).startsWith("SIP/2.0 200 OK\r\n"));
            final TcpFlow flow = flowOnShard(stack, 0, "t0ken.invalid");
            final FlowTokens tokens = stack.shard(0).flowTokens();
            assertSame(tokens, stack.shard(1).flowTokens(), "one table for the stack");
            final String token = tokens.tokenOf(flow);
            assertEquals(FlowTokens.LENGTH, token.length(), token);
            assertTrue(token.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '-' || c == '_'),
                "a URI user part as it is: " + token);
            assertSame(token, tokens.tokenOf(flow), "made once per connection");
            assertSame(flow.connection(), tokens.flowOf(token).connection());
            assertEquals(1, tokens.size());
            for (int i = 0; i < token.length(); i++)
            {
                final char[] forged = token.toCharArray();
                forged[i] = forged[i] == 'A' ? 'B' : 'A';
                final String f = new String(forged);
                assertNull(tokens.flowOf(f), f);
                assertFalse(tokens.isAuthentic(f), f);
            }
            // the two bits the last character carries beyond the token's 160 are zero, and another spelling is forged
            final String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            final int last = alphabet.indexOf(token.charAt(FlowTokens.LENGTH - 1));
            assertEquals(0, last & 3, token);
            for (int bits = 1; bits < 4; bits++)
            {
                final String other = token.substring(0, FlowTokens.LENGTH - 1) + alphabet.charAt(last | bits);
                assertFalse(tokens.isAuthentic(other), other);
            }
            assertNull(tokens.flowOf(token.substring(1)));
            assertNull(tokens.flowOf("not a token at all, but 27."));
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
            StackTcpTest.awaitTrue(() -> null == tokens.flowOf(token), "the token's flow is gone with its connection");
            assertTrue(tokens.isAuthentic(token), "still ours: 430 Flow Failed, not 403");
            // the connection turns inactive before its shard's loop drops it from the table: poll, with a deadline
            StackTcpTest.awaitTrue(() -> 0 == tokens.size(), "the closed connection leaves the token table");
        }
    }

    @Test
    void shouldRefuseAHandshakeWithoutTheSipSubprotocol() throws Exception
    {
        try (SipStack stack = SipStack.start(StackTcpTest.config(1).wsPorts(0),
            StreamTestListener.factory(new StreamTestListener.Record())))
        {
            final URI uri = URI.create("ws://127.0.0.1:" + stack.wsAddresses().get(0).getPort() + "/");
            final CompletableFuture<WebSocket> opening = HttpClient.newHttpClient().newWebSocketBuilder()
                .connectTimeout(Duration.ofSeconds(5)).buildAsync(uri, new Collector(new LinkedBlockingQueue<>()));
            try
            {
                opening.join();
                throw new AssertionError("upgraded without the sip subprotocol");
            }
            catch (final CompletionException e)
            {
                assertTrue(e.getCause() instanceof WebSocketHandshakeException h && h.getResponse().statusCode() == 400,
                    "" + e.getCause());
            }
            assertEquals(1, stack.webSocketCounters().get(WsCounters.NO_SIP_SUBPROTOCOL));
            assertEquals(List.of(), stack.tcpAddresses().stream().filter(a -> a.equals(stack.wsAddresses().get(0)))
                .toList(), "the WS port is its own");
        }
    }

    private static TcpFlow flowOnShard(final SipStack stack, final int k, final String host)
    {
        final CompletableFuture<TcpFlow> found = new CompletableFuture<>();
        stack.execute(k, () -> found.complete(stack.shard(k).webSocketFlow(host)));
        return found.orTimeout(5, TimeUnit.SECONDS).join();
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
