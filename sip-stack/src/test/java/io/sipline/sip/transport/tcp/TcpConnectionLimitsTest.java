package io.sipline.sip.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * The limits of {@link TcpConnection} against abuse, on an {@link EmbeddedChannel} whose clock the test moves (frozen,
 * then advanced; no sleep): a 10 s message timeout against connections that send nothing, slowloris and headers that
 * never end; the maximum message size against headers that never end and a declared Content-Length of 10 MB. The
 * connection limits at the accept are tested over real sockets in {@code StackConnectionLimitsTest}.
 */
class TcpConnectionLimitsTest
{
    private static final long IDLE_MILLIS = 300_000;
    private static final long MESSAGE_TIMEOUT_MILLIS = 10_000;

    private final List<String> seen = new ArrayList<>();
    private final TcpCounters counters = new TcpCounters();
    private final EmbeddedChannel channel = new EmbeddedChannel(new TcpConnection((connection, message) ->
    {
        seen.add(message.callId() + " " + message.cseqNumber());
        return true;
    }, counters, TcpTransportConfig.DEFAULT_MAX_MESSAGE_BYTES, IDLE_MILLIS).limits(MESSAGE_TIMEOUT_MILLIS, null));

    TcpConnectionLimitsTest()
    {
        channel.freezeTime();
    }

    @AfterEach
    void finish()
    {
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldCloseAnAcceptedConnectionThatSendsNothingWithinTheMessageTimeout()
    {
        advanceMillis(9_900);
        assertTrue(channel.isActive(), "open 9.9 s after its accept");
        advanceMillis(101);
        assertFalse(channel.isActive(), "no first message 10 s after its accept: closed");
        assertEquals(1, counters.get(TcpCounters.MESSAGE_TIMEOUTS));
        assertEquals(0, counters.get(TcpCounters.IDLE_CLOSED));
    }

    @Test
    void shouldCloseSlowlorisSendingAHeaderByteASecond()
    {
        final String options = TcpTransportTestMessages.options("slow@x", 1, "");
        int sent = 0;
        while (channel.isActive() && sent < options.length())
        {
            channel.writeInbound(direct(options.substring(sent, sent + 1)));
            sent++;
            advanceMillis(1_000);
        }
        assertFalse(channel.isActive(), "closed while the headers were still coming");
        assertEquals(10, sent, "10 bytes in 10 s, then closed: " + sent);
        assertEquals(1, counters.get(TcpCounters.MESSAGE_TIMEOUTS));
        assertEquals(List.of(), seen);
    }

    @Test
    void shouldCloseHeadersThatNeverEndAfterTheMessageTimeout()
    {
        channel.writeInbound(direct("OPTIONS sip:bob@127.0.0.1 SIP/2.0\r\n"));
        for (int i = 0; i < 9; i++)
        {
            channel.writeInbound(direct("X-Pad-" + i + ": more\r\n"));
            advanceMillis(1_000);
        }
        assertTrue(channel.isActive(), "9 s of headers, within the timeout");
        channel.writeInbound(direct("X-Pad: still more\r\n"));
        advanceMillis(1_001);
        assertFalse(channel.isActive());
        assertEquals(1, counters.get(TcpCounters.MESSAGE_TIMEOUTS));
    }

    @Test
    void shouldCloseHeadersThatNeverEndAtTheMaximumMessageSize()
    {
        final StringBuilder headers = new StringBuilder("OPTIONS sip:bob@127.0.0.1 SIP/2.0\r\n");
        for (int i = 0; headers.length() <= TcpTransportConfig.DEFAULT_MAX_MESSAGE_BYTES; i++)
        {
            headers.append("X-Pad-").append(i).append(": ").append("a".repeat(1_000)).append("\r\n");
        }
        channel.writeInbound(direct(headers.toString()));
        assertFalse(channel.isActive(), "closed at once, without waiting for the timer");
        assertEquals(1, counters.get(TcpCounters.OVERSIZE), counters.toString());
        assertEquals(0, counters.get(TcpCounters.MESSAGE_TIMEOUTS));
    }

    @Test
    void shouldCloseAtTheHeadersOfAMessageDeclaringTenMegabytes()
    {
        final String huge = TcpTransportTestMessages.options("huge@x", 1, "")
            .replace("Content-Length: 0\r\n", "Content-Length: 10485760\r\n") + "body bytes";
        channel.writeInbound(direct(huge));
        assertFalse(channel.isActive(), "closed when its headers were read, before any of its body is kept");
        // The parser refuses a Content-Length beyond the largest message (400 Bad Content-Length for the handler)
        assertEquals(1, counters.get(TcpCounters.PARSE_ERRORS), counters.toString());
        assertEquals(1, counters.get(TcpCounters.FRAMING_ERRORS), counters.toString());
        assertEquals(0, counters.get(TcpCounters.MESSAGES_IN));
    }

    @Test
    void shouldCloseAtTheHeadersOfAMessageWhoseBodyWouldPassTheMaximum()
    {
        // A Content-Length the parser takes, but the headers before the body do not fit beside it
        final int declared = TcpTransportConfig.DEFAULT_MAX_MESSAGE_BYTES - 50;
        final String big = TcpTransportTestMessages.options("big@x", 1, "")
            .replace("Content-Length: 0\r\n", "Content-Length: " + declared + "\r\n") + "body bytes";
        channel.writeInbound(direct(big));
        assertFalse(channel.isActive(), "closed when its headers were read");
        assertEquals(1, counters.get(TcpCounters.TOO_LARGE), counters.toString());
        assertEquals(0, counters.get(TcpCounters.OVERSIZE));
        assertEquals(List.of(), seen);
    }

    @Test
    void shouldServeMessagesThatComeWholeWithinTheTimeoutAndLeaveIdleOnesToTheIdleTime()
    {
        advanceMillis(5_000);
        channel.writeInbound(direct(TcpTransportTestMessages.options("w@x", 1, "")));
        advanceMillis(20_000);
        assertTrue(channel.isActive(), "a connection with its first message in is governed by the idle time");
        final String two = TcpTransportTestMessages.options("w@x", 2, "abc");
        channel.writeInbound(direct(two.substring(0, 40)));
        advanceMillis(9_000);
        channel.writeInbound(direct(two.substring(40)));
        assertEquals(List.of("w@x 1", "w@x 2"), seen, "the second whole 9 s after its first byte");
        channel.writeInbound(direct(TcpTransportTestMessages.options("w@x", 3, "").substring(0, 30)));
        advanceMillis(9_000);
        assertTrue(channel.isActive(), "the timer starts at the third message's first byte, not the second's");
        advanceMillis(1_000);
        assertFalse(channel.isActive());
        assertEquals(1, counters.get(TcpCounters.MESSAGE_TIMEOUTS));
        assertEquals(List.of("w@x 1", "w@x 2"), seen);
    }

    @Test
    void shouldCloseAnIdleConnectionAtTheIdleTimeNotTheMessageTimeout()
    {
        channel.writeInbound(direct(TcpTransportTestMessages.options("i@x", 1, "")));
        advanceMillis(IDLE_MILLIS - 1_000);
        assertTrue(channel.isActive());
        advanceMillis(1_000);
        assertFalse(channel.isActive());
        assertEquals(1, counters.get(TcpCounters.IDLE_CLOSED));
        assertEquals(0, counters.get(TcpCounters.MESSAGE_TIMEOUTS));
    }

    @Test
    void shouldLetGoOfTheBufferALargeMessageGrewAtTheChecksAfterIt()
    {
        final int initial = channel.pipeline().get(TcpConnection.class).pendingCapacity();
        channel.writeInbound(direct(TcpTransportTestMessages.options("big@x", 1, "b".repeat(40_000))));
        final TcpConnection connection = channel.pipeline().get(TcpConnection.class);
        assertTrue(connection.pendingCapacity() >= 40_000, "grown: " + connection.pendingCapacity());
        // the first check after it sees the large message among the recent ones; the next lets the buffer go
        advanceMillis(MESSAGE_TIMEOUT_MILLIS + 1);
        assertTrue(connection.pendingCapacity() >= 40_000);
        advanceMillis(MESSAGE_TIMEOUT_MILLIS + 1);
        assertEquals(initial, connection.pendingCapacity());
        // and the connection goes on reading, growing again for the next large message
        channel.writeInbound(direct(TcpTransportTestMessages.options("big@x", 2, "c".repeat(30_000))));
        assertEquals(List.of("big@x 1", "big@x 2"), seen);
        assertTrue(channel.isActive());
    }

    @Test
    void shouldNeverLetGoOfTheBufferWhileAMessageIsPartlyIn()
    {
        final TcpConnection connection = channel.pipeline().get(TcpConnection.class);
        final int initial = connection.pendingCapacity();
        channel.writeInbound(direct(TcpTransportTestMessages.options("p@x", 1, "b".repeat(40_000))));
        advanceMillis(MESSAGE_TIMEOUT_MILLIS + 1); // the check at 10 s sees the large message: kept
        advanceMillis(2_000);
        final String small = TcpTransportTestMessages.options("p@x", 2, "");
        channel.writeInbound(direct(small.substring(0, 100)));
        advanceMillis(8_000); // the check at 20 s: nothing large since the last, but a message is partly in
        assertTrue(connection.pendingCapacity() >= 40_000, "kept while bytes are pending");
        channel.writeInbound(direct(small.substring(100)));
        assertEquals(List.of("p@x 1", "p@x 2"), seen, "the pending part was kept whole");
        advanceMillis(2_500); // the check at 22 s: the message is whole and handled
        assertEquals(initial, connection.pendingCapacity());
        assertTrue(channel.isActive());
    }

    @Test
    void shouldKeepTheBufferWhileLargeMessagesKeepComing()
    {
        final TcpConnection connection = channel.pipeline().get(TcpConnection.class);
        for (int i = 1; i <= 5; i++)
        {
            channel.writeInbound(direct(TcpTransportTestMessages.options("k@x", i, "k".repeat(40_000))));
            advanceMillis(MESSAGE_TIMEOUT_MILLIS + 1);
            assertTrue(connection.pendingCapacity() >= 40_000, "check " + i);
        }
        assertEquals(5, seen.size());
    }

    private void advanceMillis(final long millis)
    {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }

    private static ByteBuf direct(final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        return PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
    }
}
