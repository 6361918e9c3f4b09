package io.sipline.sip.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import javax.net.ssl.SSLHandshakeException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * The framing rules of {@link TcpConnection} on an {@link EmbeddedChannel}, fed pooled direct buffers as epoll would
 * (each one must be released by the handler, or the leak guard fails the class), and how it counts what it catches.
 */
class TcpConnectionTest
{
    private final List<String> seen = new ArrayList<>();
    private final TcpCounters counters = new TcpCounters();
    private final EmbeddedChannel channel = new EmbeddedChannel(new TcpConnection((connection, message) ->
    {
        seen.add(message.callId() + " " + message.cseqNumber());
        return true;
    }, counters, TcpTransportConfig.DEFAULT_MAX_MESSAGE_BYTES, 0));

    @AfterEach
    void finish()
    {
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldAnswerAPingSplitAcrossReadsOnceItIsWhole()
    {
        channel.writeInbound(direct("\r\n"));
        assertNull(channel.readOutbound(), "half a ping is not a ping yet");
        channel.writeInbound(direct("\r\n"));
        assertPong();
        assertNull(channel.readOutbound());
        assertEquals(1, counters.get(TcpCounters.PINGS));
    }

    @Test
    void shouldAnswerEachPingAndFrameTheMessageAfterThem()
    {
        channel.writeInbound(direct("\r\n\r\n\r\n\r\n" + TcpTransportTestMessages.options("p@x", 3, "")));
        assertPong();
        assertPong();
        assertNull(channel.readOutbound());
        assertEquals(List.of("p@x 3"), seen);
    }

    @Test
    void shouldSkipALoneCrlfBeforeAMessageWithoutAPong()
    {
        channel.writeInbound(direct("\r\n" + TcpTransportTestMessages.options("c@x", 4, "xy")));
        assertNull(channel.readOutbound());
        assertEquals(List.of("c@x 4"), seen);
        assertEquals(0, counters.get(TcpCounters.PINGS));
    }

    @Test
    void shouldKeepTheTailOfAMessageAcrossReads()
    {
        final String two = TcpTransportTestMessages.options("t1@x", 1, "abc")
            + TcpTransportTestMessages.options("t2@x", 2, "defg");
        final int cut = two.length() / 2 + 7;
        channel.writeInbound(direct(two.substring(0, cut)));
        assertEquals(List.of("t1@x 1"), seen);
        channel.writeInbound(direct(two.substring(cut)));
        assertEquals(List.of("t1@x 1", "t2@x 2"), seen);
        assertTrue(channel.isActive());
    }

    @Test
    void shouldCloseWithoutAnswerOnMissingContentLength()
    {
        channel.writeInbound(
            direct(TcpTransportTestMessages.options("n@x", 1, "").replace("Content-Length: 0\r\n", "")));
        assertFalse(channel.isActive());
        assertNull(channel.readOutbound());
        assertEquals(1, counters.get(TcpCounters.FRAMING_ERRORS));
        assertEquals(List.of(), seen);
    }

    @Test
    void shouldCountAnExceptionOfTheStackAndKeepTheFirst()
    {
        final IllegalStateException bug = new IllegalStateException("a bug");
        channel.pipeline().fireExceptionCaught(bug);
        final EmbeddedChannel other = new EmbeddedChannel(new TcpConnection((connection, message) -> true, counters,
            TcpTransportConfig.DEFAULT_MAX_MESSAGE_BYTES, 0));
        other.pipeline().fireExceptionCaught(new IndexOutOfBoundsException("another"));
        other.finishAndReleaseAll();
        assertFalse(channel.isActive());
        assertEquals(2, counters.get(TcpCounters.ERRORS));
        assertSame(bug, counters.firstError());
    }

    @Test
    void shouldCountAFailedTlsHandshakeAsAnExceptionAndATlsFailure()
    {
        channel.pipeline().fireExceptionCaught(new SSLHandshakeException("no cipher suites in common"));
        assertEquals(1, counters.get(TcpCounters.ERRORS));
        assertEquals(1, counters.get(TcpCounters.TLS_FAILURES));
    }

    private void assertPong()
    {
        final ByteBuf pong = channel.readOutbound();
        try
        {
            assertEquals("\r\n", pong.toString(StandardCharsets.US_ASCII));
        }
        finally
        {
            pong.release();
        }
    }

    private static ByteBuf direct(final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        return PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
    }
}
