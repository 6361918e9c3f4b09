package io.sipline.sip.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SipMessageWriterTest
{
    /** A 2xx whose route set is p1, p2, p3 (§12.1.2: its Record-Route values in reverse order). */
    private static final String OK_WITH_ROUTES = """
        SIP/2.0 200 OK\r
        Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK1;received=192.0.2.1\r
        Record-Route: <sip:p3.example.com;lr>, <sip:p2.example.com;lr;transport=tcp>\r
        Record-Route: <sip:p1.example.com;lr>;x=y\r
        From: "Alice" <sip:alice@example.com>;tag=a1\r
        To: <sip:bob@example.com>;tag=b2\r
        Call-ID: c3@192.0.2.1\r
        CSeq: 1 INVITE\r
        Contact: "Bob" <sip:bob@192.0.2.4:5062;transport=udp>;expires=60\r
        Content-Length: 0\r
        \r
        """;

    private final SipMessage request = new SipMessage();
    private final SipMessage result = new SipMessage();
    private ByteBuf out;

    @BeforeEach
    void setUp()
    {
        final byte[] b = SipMessageParserTest.bytes(SipMessageParserTest.INVITE.replace(
            "Contact:", "Route: <sip:p1.example.com;lr>, <sip:p2.example.com;lr>\r\nContact:"));
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(b, 0, b.length, request));
        out = PooledByteBufAllocator.DEFAULT.directBuffer(4096);
    }

    @AfterEach
    void tearDown()
    {
        out.release();
    }

    private String reparse()
    {
        final byte[] bytes = new byte[out.readableBytes()];
        out.getBytes(out.readerIndex(), bytes);
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(bytes, 0, bytes.length, result),
            () -> new String(bytes, StandardCharsets.UTF_8));
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void shouldCopyUnchangedMessageByteForByte()
    {
        new SipMessageEditor().wrap(request).writeTo(out);
        assertEquals(SipMessageParserTest.INVITE.replace(
            "Contact:", "Route: <sip:p1.example.com;lr>, <sip:p2.example.com;lr>\r\nContact:"), reparse());
    }

    @Test
    void shouldApplyProxyEdits()
    {
        new SipMessageEditor().wrap(request)
            .requestUri("sip:bob@192.0.2.4")
            .pushVia("SIP/2.0/UDP proxy.example.com;branch=z9hG4bKnew")
            .addRecordRoute("<sip:proxy.example.com;lr>")
            .removeTopRoute()
            .maxForwards(request.maxForwards() - 1)
            .writeTo(out);
        final String text = reparse();
        assertEquals("sip:bob@192.0.2.4", result.requestUri());
        assertEquals("z9hG4bKnew", result.topViaBranch());
        assertEquals(4, result.headerCount(HeaderName.VIA));
        assertEquals(69, result.maxForwards());
        assertEquals(1, result.headerCount(HeaderName.ROUTE));
        assertEquals("<sip:p2.example.com;lr>", result.headerValue("Route"));
        assertEquals("<sip:proxy.example.com;lr>", result.headerValue("Record-Route"));
        assertEquals(4, result.bodyLength());
        assertTrue(text.contains("Subject: folded\r\n  over two lines\r\n"), "untouched folded line copied raw");
    }

    @Test
    void shouldPopTopViaOfResponseAndReplaceBody()
    {
        final byte[] body = "v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\n".getBytes(StandardCharsets.US_ASCII);
        new SipMessageEditor().wrap(request)
            .removeTopVia()
            .setHeader("X-Custom", "three")
            .addHeader("X-New", "added")
            .body("application/sdp", body, 0, body.length)
            .writeTo(out);
        reparse();
        assertEquals(2, result.headerCount(HeaderName.VIA));
        assertEquals(null, result.topViaBranch());
        assertEquals("three", result.headerValue("x-custom"));
        assertEquals("added", result.headerValue("X-New"));
        assertEquals(body.length, result.contentLength());
        assertEquals(1, result.headerCount(HeaderName.CONTENT_TYPE));
    }

    @Test
    void shouldBuildResponseFromRequestPerRfc3261Section8262()
    {
        new SipMessageBuilder().startResponse(out, request, 180, "Ringing", "as83kd9bs").end(null, 0, 0);
        reparse();
        assertEquals(180, result.statusCode());
        assertEquals("Ringing", result.reasonPhrase());
        assertEquals(3, result.headerCount(HeaderName.VIA));
        assertEquals("z9hG4bK776asdhds", result.topViaBranch());
        assertEquals("as83kd9bs", result.toTag());
        assertEquals("1928301774", result.fromTag());
        assertEquals(request.callId(), result.callId());
        assertEquals(314159, result.cseqNumber());
        assertEquals(0, result.contentLength());
    }

    @Test
    void shouldBuildRequestWithHexBranch()
    {
        new SipMessageBuilder().startRequest(out, "OPTIONS", "sip:bob@example.com")
            .via("UDP", "192.0.2.1", 5060, 0x4d2L, true)
            .header(HeaderName.MAX_FORWARDS, 70)
            .header(HeaderName.FROM, "<sip:alice@example.com>;tag=1")
            .header(HeaderName.TO, "<sip:bob@example.com>")
            .header(HeaderName.CALL_ID, "abc@192.0.2.1")
            .header("CSeq", "1 OPTIONS")
            .end(null, 0, 0);
        reparse();
        assertEquals(SipMethod.OPTIONS, result.method());
        assertEquals("z9hG4bK00000000000004d2", result.topViaBranch());
        assertEquals(70, result.maxForwards());
    }
    @Test
    void shouldBuildRequestInDialogOfA2xxPerRfc3261Section12211()
    {
        final byte[] ok = SipMessageParserTest.bytes(OK_WITH_ROUTES);
        final SipMessage answer = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(ok, 0, ok.length, answer));

        final int written = new SipMessageBuilder()
            .startRequestInDialog(out, answer, "BYE", 2, "SIP/2.0/UDP 192.0.2.1:5060;rport;branch=z9hG4bK2")
            .end(null, 0, 0);

        final String expected = """
            BYE sip:bob@192.0.2.4:5062;transport=udp SIP/2.0\r
            Via: SIP/2.0/UDP 192.0.2.1:5060;rport;branch=z9hG4bK2\r
            Route: <sip:p1.example.com;lr>;x=y, <sip:p2.example.com;lr;transport=tcp>, <sip:p3.example.com;lr>\r
            Max-Forwards: 70\r
            From: "Alice" <sip:alice@example.com>;tag=a1\r
            To: <sip:bob@example.com>;tag=b2\r
            Call-ID: c3@192.0.2.1\r
            CSeq: 2 BYE\r
            Content-Length: 0\r
            \r
            """;
        assertEquals(expected, reparse());
        assertEquals(expected.length(), written);
    }

    @Test
    void shouldTakeTheToUriWhenA2xxHasNoContactNorRecordRoute()
    {
        final byte[] ok = SipMessageParserTest.bytes("""
            SIP/2.0 200 OK\r
            Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK1\r
            From: <sip:alice@example.com>;tag=a1\r
            To: "Bob" <sip:bob@example.com:5080>;tag=b2\r
            Call-ID: c3\r
            CSeq: 7 INVITE\r
            Content-Length: 0\r
            \r
            """);
        final SipMessage answer = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(ok, 0, ok.length, answer));

        new SipMessageBuilder().startRequestInDialog(out, answer, "ACK", 7, "SIP/2.0/UDP h;branch=z9hG4bK3")
            .end(null, 0, 0);

        assertEquals("""
            ACK sip:bob@example.com:5080 SIP/2.0\r
            Via: SIP/2.0/UDP h;branch=z9hG4bK3\r
            Max-Forwards: 70\r
            From: <sip:alice@example.com>;tag=a1\r
            To: "Bob" <sip:bob@example.com:5080>;tag=b2\r
            Call-ID: c3\r
            CSeq: 7 ACK\r
            Content-Length: 0\r
            \r
            """, reparse());
    }

    @Test
    void shouldBuildRequestInDialogWithoutAllocating()
    {
        final byte[] ok = SipMessageParserTest.bytes(OK_WITH_ROUTES);
        final SipMessage answer = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(ok, 0, ok.length, answer));
        final SipMessageBuilder builder = new SipMessageBuilder();
        final ByteBuf heap = Unpooled.wrappedBuffer(new byte[4096]); // not leak-tracked: the tracker allocates
        final StringBuilder via = new StringBuilder("SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK4");
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 20_000; i++)
        {
            heap.clear();
            builder.startRequestInDialog(heap, answer, "BYE", 2, via).end(null, 0, 0);
        }
        // the least of a few windows: a compilation finishing inside one allocates once, not per request
        long least = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 5 && least > 0; attempt++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 1_000; i++)
            {
                heap.clear();
                builder.startRequestInDialog(heap, answer, "BYE", 2, via).end(null, 0, 0);
            }
            least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
        }
        assertEquals(0, least);
    }
}
