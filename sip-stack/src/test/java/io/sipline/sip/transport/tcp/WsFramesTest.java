package io.sipline.sip.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;

/**
 * The SIP-over-WebSocket upgrade ({@link WsHandshake}) and framing ({@link WsFrames}) on an {@link EmbeddedChannel}:
 * the pipeline {@link TcpShards#bindWebSocket} builds, fed bytes as a browser would send them (every inbound buffer
 * is a pooled direct one that the handlers must release; the leak detector runs at paranoid level).
 */
class WsFramesTest
{
    /** RFC 6455 §1.3's example key and its accept value. */
    private static final String KEY = "dGhlIHNhbXBsZSBub25jZQ==";
    private static final String ACCEPT = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";
    private static final long MESSAGE_TIMEOUT_MILLIS = 10_000;
    /** No Ping, no idle close: only the message timeout runs after the upgrade. */
    private static final WsSettings NO_KEEP_ALIVE = new WsSettings(null, null, 65_536, 65_536, 0, 0, 0, 0, 10_000);

    private final List<String> seen = new ArrayList<>();
    private final WsCounters counters = new WsCounters();
    private final TcpCounters messages = new TcpCounters();
    private TcpConnection sip;
    private EmbeddedChannel channel;

    private EmbeddedChannel open(final WsSettings settings)
    {
        final WsFrames frames = new WsFrames(settings, counters, new ConnectionAdmission(0, 0,
            WsCounters.OVER_MAX_CONNECTIONS, WsCounters.OVER_MAX_PER_ADDRESS), MESSAGE_TIMEOUT_MILLIS);
        channel = new EmbeddedChannel(frames, new HttpServerCodec(4096, 8192, 8192), new HttpObjectAggregator(8192),
            new WsHandshake(frames, settings, counters, (connection, message) ->
            {
                sip = connection;
                seen.add(message.result() + " " + message.callId() + " " + message.cseqNumber());
                return true;
            }, messages, null, false));
        return channel;
    }

    @AfterEach
    void finish()
    {
        if (null != channel)
        {
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void shouldUpgradeWithTheSipSubprotocolAndNetty13Accept()
    {
        open(WsSettings.defaults());
        final String answer = upgrade("/", "sip", null);
        assertTrue(answer.startsWith("HTTP/1.1 101 Switching Protocols\r\n"), answer);
        assertTrue(answer.contains("sec-websocket-accept: " + ACCEPT + "\r\n"), answer);
        assertTrue(answer.contains("sec-websocket-protocol: sip\r\n"), answer);
        assertEquals(1, counters.get(WsCounters.UPGRADED));
        assertTrue(channel.isActive());
        assertNotNull(channel.pipeline().get(TcpConnection.class));
        assertNull(channel.pipeline().get(HttpServerCodec.class));
    }

    @Test
    void shouldPickSipAmongSeveralOfferedSubprotocols()
    {
        open(WsSettings.defaults());
        final String answer = upgrade("/", "chat, sip", null);
        assertTrue(answer.startsWith("HTTP/1.1 101 "), answer);
        assertTrue(answer.contains("sec-websocket-protocol: sip\r\n"), answer);
    }

    @Test
    void shouldRefuseAHandshakeWithoutTheSipSubprotocolWith400()
    {
        open(WsSettings.defaults());
        final String answer = upgrade("/", null, null);
        assertTrue(answer.startsWith("HTTP/1.1 400 Bad Request\r\n"), answer);
        assertTrue(answer.contains("RFC 7118"), answer);
        assertFalse(channel.isOpen());
        assertEquals(1, counters.get(WsCounters.NO_SIP_SUBPROTOCOL));
        assertEquals(0, counters.get(WsCounters.UPGRADED));
    }

    @Test
    void shouldRefuseAnotherSubprotocolWith400()
    {
        open(WsSettings.defaults());
        assertTrue(upgrade("/", "xmpp", null).startsWith("HTTP/1.1 400 "));
        assertEquals(1, counters.get(WsCounters.NO_SIP_SUBPROTOCOL));
    }

    @Test
    void shouldRefuseAnOriginNotOnTheListWith403AndAcceptOneOnIt()
    {
        final WsSettings listed = new WsSettings(null, Set.of("https://phone.example.com"), 65_536, 65_536, 0, 0,
            0, 0, 10_000);
        open(listed);
        assertTrue(upgrade("/", "sip", "https://evil.example.net").startsWith("HTTP/1.1 403 Forbidden\r\n"));
        assertEquals(1, counters.get(WsCounters.ORIGIN_REFUSED));
        channel.finishAndReleaseAll();
        open(listed);
        assertTrue(upgrade("/", "sip", "https://phone.example.com").startsWith("HTTP/1.1 101 "));
    }

    @Test
    void shouldServeOnlyTheConfiguredPath()
    {
        final WsSettings onPath = new WsSettings("/sip", null, 65_536, 65_536, 0, 0, 0, 0, 10_000);
        open(onPath);
        assertTrue(upgrade("/other", "sip", null).startsWith("HTTP/1.1 404 Not Found\r\n"));
        assertEquals(1, counters.get(WsCounters.PATH_REFUSED));
        channel.finishAndReleaseAll();
        open(onPath);
        assertTrue(upgrade("/sip?token=1", "sip", null).startsWith("HTTP/1.1 101 "));
    }

    @Test
    void shouldRefuseAPlainGetAndAnotherWebSocketVersion()
    {
        open(WsSettings.defaults());
        channel.writeInbound(direct("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
        assertTrue(readText().startsWith("HTTP/1.1 400 "));
        channel.finishAndReleaseAll();
        open(WsSettings.defaults());
        channel.writeInbound(direct(("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: " + KEY + "\r\nSec-WebSocket-Version: 8\r\nSec-WebSocket-Protocol: sip\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII)));
        final String answer = readText();
        assertTrue(answer.startsWith("HTTP/1.1 426 "), answer);
        assertTrue(answer.contains("sec-websocket-version: 13"), answer);
        assertEquals(2, counters.get(WsCounters.BAD_HANDSHAKE));
    }

    @Test
    void shouldCloseAConnectionThatDoesNotUpgradeInTime()
    {
        open(new WsSettings(null, null, 65_536, 65_536, 0, 0, 0, 0, 5_000));
        channel.advanceTimeBy(5, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertFalse(channel.isOpen());
        assertEquals(1, counters.get(WsCounters.HANDSHAKE_TIMEOUTS));
    }

    @Test
    void shouldHandOneSipMessagePerTextFrameWithoutContentLength()
    {
        upgraded();
        channel.writeInbound(direct(frame(0x81, options("a@x", 1, false))));
        channel.writeInbound(direct(frame(0x82, options("b@x", 2, true))));
        assertEquals(List.of("OK a@x 1", "OK b@x 2"), seen);
        assertEquals(2, messages.get(TcpCounters.MESSAGES_IN));
        assertEquals("WS", sip.flow() == null ? "WS" : sip.flow().transport());
        assertTrue(sip.isWebSocket());
    }

    @Test
    void shouldJoinFragmentsAcrossFramesAndReads()
    {
        upgraded();
        final byte[] whole = options("f@x", 7, false);
        final int cut = 40;
        final byte[] first = frame(0x01, java.util.Arrays.copyOfRange(whole, 0, cut));
        final byte[] ping = frame(0x89, "hi".getBytes(StandardCharsets.US_ASCII));
        final byte[] last = frame(0x80, java.util.Arrays.copyOfRange(whole, cut, whole.length));
        final byte[] all = concat(first, ping, last);
        // one byte per read: every header and payload boundary falls inside a read at some point
        for (int i = 0; i < all.length; i++)
        {
            channel.writeInbound(direct(new byte[] {all[i]}));
        }
        assertEquals(List.of("OK f@x 7"), seen);
        final byte[] pong = readBytes();
        assertEquals(0x8A, pong[0] & 0xFF, "a Ping in the middle of a fragmented message is answered");
        assertEquals("hi", new String(pong, 2, 2, StandardCharsets.US_ASCII));
        assertEquals(1, counters.get(WsCounters.PINGS_RECEIVED));
    }

    @Test
    void shouldFrameWhatTheConnectionSendsAsOneTextFrame()
    {
        upgraded();
        channel.writeInbound(direct(frame(0x81, options("s@x", 1, false))));
        final byte[] reply = "SIP/2.0 200 OK\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        final ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(reply.length);
        out.writeBytes(reply);
        assertTrue(sip.send(out));
        channel.flushOutbound();
        final byte[] header = readBytes();
        assertEquals(0x81, header[0] & 0xFF);
        assertEquals(reply.length, header[1]);
        assertEquals("SIP/2.0 200 OK\r\n\r\n", readText());
    }

    @Test
    void shouldCloseWith1009OnAFrameOverTheMaximum()
    {
        upgraded(new WsSettings(null, null, 1_000, 1_000, 0, 0, 0, 0, 10_000));
        channel.writeInbound(direct(frame(0x81, new byte[1_001])));
        assertCloseCode(1009);
        assertEquals(1, counters.get(WsCounters.TOO_BIG));
        assertTrue(seen.isEmpty());
    }

    @Test
    void shouldCloseWith1009WhenFragmentsGrowPastTheMaximumMessage()
    {
        upgraded(new WsSettings(null, null, 1_000, 800, 0, 0, 0, 0, 10_000));
        channel.writeInbound(direct(frame(0x01, new byte[600])));
        assertTrue(channel.isOpen());
        channel.writeInbound(direct(frame(0x80, new byte[600])));
        assertCloseCode(1009);
    }

    @Test
    void shouldCloseWith1002OnAnUnmaskedFrame()
    {
        upgraded();
        channel.writeInbound(direct(new byte[] {(byte)0x81, 0x02, 'h', 'i'}));
        assertCloseCode(1002);
        assertEquals(1, counters.get(WsCounters.PROTOCOL_ERRORS));
    }

    @Test
    void shouldCloseWith1002OnAContinuationWithoutAStart()
    {
        upgraded();
        channel.writeInbound(direct(frame(0x80, options("c@x", 1, false))));
        assertCloseCode(1002);
        assertTrue(seen.isEmpty());
    }

    @Test
    void shouldCloseWith1002OnAMessageThatIsNotSip()
    {
        upgraded();
        channel.writeInbound(direct(frame(0x81, "{\"hello\":\"json\"}".getBytes(StandardCharsets.US_ASCII))));
        assertCloseCode(1002);
        assertEquals(1, counters.get(WsCounters.NOT_SIP));
    }

    @Test
    void shouldAnswerACloseWithTheSameCode()
    {
        upgraded();
        channel.writeInbound(direct(frame(0x88, new byte[] {0x03, (byte)0xE9})));
        assertCloseCode(1001);
        assertEquals(1, counters.get(WsCounters.CLOSES_RECEIVED));
    }

    @Test
    void shouldPingASilentClientThenCloseItWhenIdle()
    {
        upgraded(new WsSettings(null, null, 65_536, 65_536, 0, 0, 1_000, 3_000, 10_000));
        channel.advanceTimeBy(1, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        final byte[] ping = readBytes();
        assertEquals(0x89, ping[0] & 0xFF);
        assertEquals(1, counters.get(WsCounters.PINGS_SENT));
        channel.advanceTimeBy(2, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        channel.advanceTimeBy(1, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertEquals(1, counters.get(WsCounters.IDLE_CLOSED));
        while (channel.outboundMessages().size() > 1)
        {
            readBytes(); // the later pings
        }
        assertCloseCode(1001);
    }

    @Test
    void shouldCloseWith1008AMessageTrickledPastTheMessageTimeout()
    {
        // idle close after 5 s of silence: never reached, as a byte comes every second
        upgraded(new WsSettings(null, null, 65_536, 65_536, 0, 0, 0, 5_000, 10_000));
        // a fragment, then a Ping inside the message, then the last fragment's payload a byte a second
        channel.writeInbound(direct(frame(0x01, options("t@x", 1, false))));
        channel.writeInbound(direct(frame(0x89, new byte[0])));
        readBytes(); // the Pong
        final byte[] last = frame(0x80, new byte[100]);
        channel.writeInbound(direct(java.util.Arrays.copyOfRange(last, 0, 6)));
        for (int second = 0; second < 9; second++)
        {
            channel.advanceTimeBy(1, TimeUnit.SECONDS);
            channel.runScheduledPendingTasks();
            channel.writeInbound(direct(new byte[] {last[6 + second]}));
            assertTrue(channel.isOpen(), "9 s into the message");
        }
        channel.advanceTimeBy(1, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertEquals(1, counters.get(WsCounters.MESSAGE_TIMEOUTS));
        assertEquals(0, counters.get(WsCounters.IDLE_CLOSED));
        assertCloseCode(1008);
        assertTrue(seen.isEmpty());
    }

    @Test
    void shouldKeepOpenAConnectionWhoseMessagesComeWholeHoweverLongItLives()
    {
        upgraded(NO_KEEP_ALIVE);
        for (int i = 1; i <= 10; i++)
        {
            final byte[] whole = frame(0x81, options("w@x", i, false));
            channel.writeInbound(direct(java.util.Arrays.copyOfRange(whole, 0, 20)));
            channel.advanceTimeBy(6, TimeUnit.SECONDS);
            channel.runScheduledPendingTasks();
            channel.writeInbound(direct(java.util.Arrays.copyOfRange(whole, 20, whole.length)));
            channel.advanceTimeBy(3, TimeUnit.SECONDS);
            channel.runScheduledPendingTasks();
        }
        assertTrue(channel.isOpen());
        assertEquals(10, seen.size());
        assertEquals(0, counters.get(WsCounters.MESSAGE_TIMEOUTS));
    }

    @Test
    void shouldGrowTheMessageBufferWithThePayloadReceivedNotTheLengthClaimed()
    {
        upgraded();
        final byte[] claim = frame(0x81, new byte[60_000]);
        channel.writeInbound(direct(java.util.Arrays.copyOfRange(claim, 0, 108)));
        assertTrue(channel.pipeline().get(WsFrames.class).messageCapacity() <= 2_048,
            "a 60,000-byte claim with 100 bytes received holds no more than the first 2 KiB");
        channel.finishAndReleaseAll();
        upgraded();
        final byte[] big = options("g@x", 3, false, 20_000);
        final byte[] whole = frame(0x81, big);
        for (int at = 0; at < whole.length; at += 3_000)
        {
            channel.writeInbound(direct(java.util.Arrays.copyOfRange(whole, at, Math.min(whole.length, at + 3_000))));
        }
        assertEquals(List.of("OK g@x 3"), seen, "a message grown past the first 2 KiB read by read");
    }

    @Test
    void shouldAnswerACrlfKeepAliveMessageWithCrlf()
    {
        upgraded();
        channel.writeInbound(direct(frame(0x81, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII))));
        final byte[] header = readBytes();
        assertEquals(0x81, header[0] & 0xFF);
        assertEquals("\r\n", readText());
        assertTrue(seen.isEmpty());
    }

    @Test
    void shouldLimitConnectionsInAllAndPerAddress() throws Exception
    {
        final ConnectionAdmission admission = new ConnectionAdmission(3, 2, WsCounters.OVER_MAX_CONNECTIONS,
            WsCounters.OVER_MAX_PER_ADDRESS);
        final InetAddress a = InetAddress.getByName("192.0.2.1");
        final InetAddress b = InetAddress.getByName("192.0.2.2");
        assertEquals(0, admission.admit(a));
        assertEquals(0, admission.admit(a));
        assertEquals(WsCounters.OVER_MAX_PER_ADDRESS, admission.admit(a));
        assertEquals(0, admission.admit(b));
        assertEquals(WsCounters.OVER_MAX_CONNECTIONS, admission.admit(b));
        admission.release(a);
        assertEquals(0, admission.admit(b));
        admission.release(a);
        assertEquals(WsCounters.OVER_MAX_PER_ADDRESS, admission.admit(b));
        assertEquals(2, admission.open());
        assertEquals(0, admission.admit(a), "an address's count went back to 0 and its entry left");
    }

    private void upgraded()
    {
        upgraded(WsSettings.defaults());
    }

    private void upgraded(final WsSettings settings)
    {
        open(settings);
        assertTrue(upgrade("/", "sip", null).startsWith("HTTP/1.1 101 "));
    }

    private String upgrade(final String path, final String protocols, final String origin)
    {
        final String request = "GET " + path + " HTTP/1.1\r\nHost: sip.example.com\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: " + KEY + "\r\nSec-WebSocket-Version: 13\r\n"
            + (null == protocols ? "" : "Sec-WebSocket-Protocol: " + protocols + "\r\n")
            + (null == origin ? "" : "Origin: " + origin + "\r\n") + "\r\n";
        channel.writeInbound(direct(request.getBytes(StandardCharsets.US_ASCII)));
        return readText();
    }

    private void assertCloseCode(final int code)
    {
        final byte[] close = readBytes();
        assertEquals(0x88, close[0] & 0xFF);
        assertEquals(2, close[1]);
        assertEquals(code, (close[2] & 0xFF) << 8 | (close[3] & 0xFF));
        channel.runPendingTasks();
        assertFalse(channel.isOpen(), "closed after the Close frame");
    }

    private String readText()
    {
        return new String(readBytes(), StandardCharsets.UTF_8);
    }

    private byte[] readBytes()
    {
        final ByteBuf out = channel.readOutbound();
        assertNotNull(out, "nothing written");
        try
        {
            final byte[] b = new byte[out.readableBytes()];
            out.readBytes(b);
            return b;
        }
        finally
        {
            out.release();
        }
    }

    /** A client frame (RFC 6455 §5.2): first byte as given, masked with a fixed key. */
    private static byte[] frame(final int first, final byte[] payload)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(first);
        if (payload.length < 126)
        {
            out.write(0x80 | payload.length);
        }
        else
        {
            out.write(0x80 | 126);
            out.write(payload.length >>> 8);
            out.write(payload.length & 0xFF);
        }
        final byte[] key = {0x37, (byte)0xFA, 0x21, 0x3D};
        out.writeBytes(key);
        for (int i = 0; i < payload.length; i++)
        {
            out.write(payload[i] ^ key[i & 3]);
        }
        return out.toByteArray();
    }

    private static byte[] options(final String callId, final int cseq, final boolean contentLength)
    {
        return options(callId, cseq, contentLength, 0);
    }

    /** An OPTIONS with an {@code X-Pad} header of {@code pad} bytes when {@code pad > 0}. */
    private static byte[] options(final String callId, final int cseq, final boolean contentLength, final int pad)
    {
        return ("OPTIONS sip:bob@example.com SIP/2.0\r\nVia: SIP/2.0/WS df7jal23ls0d.invalid;branch=z9hG4bK-" + cseq
            + "\r\nMax-Forwards: 70\r\nFrom: <sip:alice@example.com>;tag=1\r\nTo: <sip:bob@example.com>\r\n"
            + "Call-ID: " + callId + "\r\nCSeq: " + cseq + " OPTIONS\r\n"
            + (pad > 0 ? "X-Pad: " + "a".repeat(pad) + "\r\n" : "")
            + (contentLength ? "Content-Length: 0\r\n" : "") + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] concat(final byte[]... parts)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final byte[] p : parts)
        {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static ByteBuf direct(final byte[] bytes)
    {
        final ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length);
        b.writeBytes(bytes);
        return b;
    }
}
