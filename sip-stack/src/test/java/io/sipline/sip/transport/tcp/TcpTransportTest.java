package io.sipline.sip.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.sipline.sip.message.ParseResult;

/**
 * The TCP listener on loopback with plain {@link Socket} clients: framing across and within writes, the RFC 5626
 * ping, and the connection-closing errors. Waits are deadlines on counters or socket reads; nothing sleeps.
 */
class TcpTransportTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final int READ_TIMEOUT_MILLIS = 5_000;

    /** "Call-ID CSeq-number result" per message the handler saw, in order. */
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private TcpTransport transport;

    @BeforeEach
    void start() throws Exception
    {
        transport = TcpTransport.start(new TcpTransportConfig(new InetSocketAddress(LOOPBACK, 0), 1, 0,
            TcpTransportConfig.DEFAULT_MAX_MESSAGE_BYTES, true), (connection, message) ->
            {
                seen.add(message.callId() + " " + message.cseqNumber() + " " + message.result());
                return true;
            });
    }

    @AfterEach
    void stop()
    {
        transport.close();
    }

    @Test
    void shouldReadBackTheBoundPort()
    {
        assertTrue(transport.localAddress().getPort() > 0);
        assertEquals(LOOPBACK, transport.localAddress().getAddress());
    }

    @Test
    void shouldFrameTwoMessagesInOneWrite() throws Exception
    {
        try (Socket socket = connect())
        {
            final byte[] two = (options("a@x", 1, "") + options("b@x", 2, "hello")).getBytes(StandardCharsets.US_ASCII);
            socket.getOutputStream().write(two);
            socket.getOutputStream().flush();
            await(() -> seen.size() >= 2, "two messages");
            assertEquals(List.of("a@x 1 OK", "b@x 2 OK"), seen);
        }
    }

    @Test
    void shouldFrameOneMessageSplitByteByByte() throws Exception
    {
        try (Socket socket = connect())
        {
            final OutputStream out = socket.getOutputStream();
            final byte[] bytes = (options("split@x", 7, "body!") + options("next@x", 8, ""))
                .getBytes(StandardCharsets.US_ASCII);
            for (final byte b : bytes)
            {
                out.write(b);
                out.flush();
            }
            await(() -> seen.size() >= 2, "both messages");
            assertEquals(List.of("split@x 7 OK", "next@x 8 OK"), seen);
            assertEquals(2, transport.counters().get(TcpCounters.MESSAGES_IN));
        }
    }

    @Test
    void shouldAnswerAPingWithASingleCrlf() throws Exception
    {
        try (Socket socket = connect())
        {
            socket.getOutputStream().write("\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            final InputStream in = socket.getInputStream();
            assertEquals('\r', in.read());
            assertEquals('\n', in.read());
            // A message after the ping is still framed, and no second pong comes.
            socket.getOutputStream().write(options("after@x", 3, "").getBytes(StandardCharsets.US_ASCII));
            await(() -> seen.size() >= 1, "the message after the ping");
            assertEquals(List.of("after@x 3 OK"), seen);
            assertEquals(1, transport.counters().get(TcpCounters.PINGS));
            socket.setSoTimeout(200);
            try
            {
                final int extra = in.read();
                fail("unexpected byte after the pong: " + extra);
            }
            catch (final SocketTimeoutException expected)
            {
                // exactly "\r\n"
            }
        }
    }

    @Test
    void shouldCloseOnMissingContentLength() throws Exception
    {
        try (Socket socket = connect())
        {
            final String noLength = options("first@x", 1, "").replace("Content-Length: 0\r\n", "");
            socket.getOutputStream().write(
                (options("ok@x", 5, "") + noLength).getBytes(StandardCharsets.US_ASCII));
            assertClosedByServer(socket);
            assertEquals(List.of("ok@x 5 OK"), seen, "nothing passed on for the unframeable message");
            await(() -> transport.counters().get(TcpCounters.FRAMING_ERRORS) == 1, "framing error counted");
        }
    }

    @Test
    void shouldCloseAndCountAMessageOverTheMaximumSize() throws Exception
    {
        try (Socket socket = connect())
        {
            // 70 KB of headers: never a whole message within the 68 KiB limit.
            final StringBuilder big = new StringBuilder(options("big@x", 9, ""));
            final String pad = "X-Pad: " + "p".repeat(990) + "\r\n";
            final int at = big.indexOf("Content-Length");
            for (int i = 0; i < 70; i++)
            {
                big.insert(at, pad);
            }
            writeIgnoringReset(socket, big.toString().getBytes(StandardCharsets.US_ASCII));
            assertClosedByServer(socket);
            await(() -> transport.counters().get(TcpCounters.OVERSIZE) == 1, "oversize counted");
            assertEquals(List.of(), seen);
        }
    }

    @Test
    void shouldCloseAfterAContentLengthOverTheMaximumAndLetTheHandlerSeeIt() throws Exception
    {
        try (Socket socket = connect())
        {
            final String body = "b".repeat(70_000);
            writeIgnoringReset(socket, options("body@x", 4, body).getBytes(StandardCharsets.US_ASCII));
            assertClosedByServer(socket);
            await(() -> transport.counters().get(TcpCounters.FRAMING_ERRORS) == 1, "closed as unframeable");
            assertEquals(List.of("body@x 4 " + ParseResult.BAD_CONTENT_LENGTH), seen);
            assertEquals(1, transport.counters().get(TcpCounters.PARSE_ERRORS));
        }
    }

    @Test
    void shouldPassAFramedMalformedMessageAndKeepReading() throws Exception
    {
        try (Socket socket = connect())
        {
            final String badVersion = options("v@x", 1, "").replace("SIP/2.0\r\nVia", "SIP/3.0\r\nVia");
            socket.getOutputStream().write((badVersion + options("w@x", 2, "")).getBytes(StandardCharsets.US_ASCII));
            await(() -> seen.size() >= 2, "both messages");
            assertEquals(List.of("v@x 1 " + ParseResult.UNSUPPORTED_VERSION, "w@x 2 OK"), seen);
            assertTrue(!socket.isClosed());
        }
    }

    @Test
    void shouldCloseIdleConnections() throws Exception
    {
        transport.close();
        transport = TcpTransport.start(new TcpTransportConfig(new InetSocketAddress(LOOPBACK, 0), 1, 100,
            TcpTransportConfig.DEFAULT_MAX_MESSAGE_BYTES, true), (connection, message) -> true);
        try (Socket socket = connect())
        {
            assertClosedByServer(socket);
            assertEquals(1, transport.counters().get(TcpCounters.IDLE_CLOSED));
        }
    }

    @Test
    void shouldCloseOnlyTheConnectionWhoseHandlerThrows() throws Exception
    {
        transport.close();
        transport = TcpTransport.start(TcpTransportConfig.of(new InetSocketAddress(LOOPBACK, 0)),
            (connection, message) ->
            {
                if (message.callId().startsWith("boom"))
                {
                    throw new IllegalStateException("handler failure");
                }
                seen.add(message.callId());
                return true;
            });
        try (Socket bad = connect(); Socket good = connect())
        {
            bad.getOutputStream().write(options("boom@x", 1, "").getBytes(StandardCharsets.US_ASCII));
            assertClosedByServer(bad);
            good.getOutputStream().write(options("fine@x", 1, "").getBytes(StandardCharsets.US_ASCII));
            await(() -> seen.size() >= 1, "the other connection still served");
            assertEquals(List.of("fine@x"), seen);
            assertEquals(1, transport.counters().get(TcpCounters.ERRORS));
        }
    }

    private Socket connect() throws IOException
    {
        final Socket socket = new Socket();
        socket.connect(transport.localAddress(), READ_TIMEOUT_MILLIS);
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        socket.setTcpNoDelay(true);
        return socket;
    }

    private static String options(final String callId, final int cseq, final String body)
    {
        return TcpTransportTestMessages.options(callId, cseq, body);
    }

    /** The server may close before the whole write is in: a reset on write is the expected outcome then. */
    private static void writeIgnoringReset(final Socket socket, final byte[] bytes)
    {
        try
        {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        }
        catch (final IOException closedUnderUs)
        {
            // the server closed the connection: what the caller asserts next
        }
    }

    /** Reads until end of stream (or reset) within the read timeout; any byte read before is ignored. */
    private static void assertClosedByServer(final Socket socket)
    {
        final long deadline = System.nanoTime() + TIMEOUT_NANOS;
        try
        {
            final InputStream in = socket.getInputStream();
            final byte[] sink = new byte[4096];
            while (System.nanoTime() < deadline)
            {
                if (in.read(sink) < 0)
                {
                    return;
                }
            }
            fail("connection still open");
        }
        catch (final SocketTimeoutException e)
        {
            fail("connection still open after the read timeout");
        }
        catch (final IOException reset)
        {
            // connection reset: closed with unread data, as the oversize case does
        }
    }

    private static void await(final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out waiting for " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
