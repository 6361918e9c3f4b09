package io.sipline.sip.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sipline.test.AllocationMeter;
import org.junit.jupiter.api.Test;

class SipMessageParserTest
{
    static final String INVITE =
        "INVITE sip:bob@biloxi.example.com SIP/2.0\r\n" +
        "Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bK776asdhds, " +
        "SIP/2.0/TCP p1.example.com;received=192.0.2.1\r\n" +
        "Via: SIP/2.0/UDP [2001:db8::9]:5070;branch=z9hG4bKxyz;rport\r\n" +
        "Max-Forwards: 70\r\n" +
        "To: Bob <sip:bob@biloxi.example.com>\r\n" +
        "From: \"Alice, A.\" <sip:alice@atlanta.example.com>;tag=1928301774\r\n" +
        "Call-ID: a84b4c76e66710@pc33.atlanta.example.com\r\n" +
        "CSeq: 314159 INVITE\r\n" +
        "Contact: <sip:alice@pc33.atlanta.example.com>\r\n" +
        "Subject: folded\r\n  over two lines\r\n" +
        "X-Custom: one, two\r\n" +
        "Content-Type: application/sdp\r\n" +
        "Content-Length: 4\r\n" +
        "\r\n" +
        "v=0\n";

    static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldIndexRequestLineAndHeaders()
    {
        final byte[] b = bytes(INVITE);
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(b, 0, b.length, m));
        assertTrue(m.isRequest());
        assertEquals(SipMethod.INVITE, m.method());
        assertEquals("sip:bob@biloxi.example.com", m.requestUri());
        assertEquals("a84b4c76e66710@pc33.atlanta.example.com", m.callId());
        assertEquals(314159, m.cseqNumber());
        assertEquals(SipMethod.INVITE, m.cseqMethod());
        assertEquals(70, m.maxForwards());
        assertEquals("1928301774", m.fromTag());
        assertNull(m.toTag());
        assertEquals("z9hG4bK776asdhds", m.topViaBranch());
        assertTrue(m.topViaHasMagicCookie());
        assertEquals(3, m.headerCount(HeaderName.VIA));
        assertEquals("folded over two lines", m.headerValue("Subject"));
        assertEquals("one, two", m.headerValue("x-custom"));
        assertEquals(4, m.bodyLength());
        assertEquals("v=0\n", new String(b, m.bodyStart(), m.bodyLength(), StandardCharsets.UTF_8));

        final int second = m.nextHeader(HeaderName.VIA, m.topVia());
        final ViaFlyweight via = m.via(second, new ViaFlyweight());
        assertEquals("TCP", via.transport());
        assertEquals("p1.example.com", via.host());
        assertTrue(via.receivedIndex() >= 0);
        final ViaFlyweight third = m.via(m.nextHeader(HeaderName.VIA, second), new ViaFlyweight());
        assertEquals("[2001:db8::9]", third.host());
        assertEquals(5070, third.port());
        assertTrue(third.rportIndex() >= 0);
        assertEquals(-1, third.paramValueStart(third.rportIndex()));
    }

    @Test
    void shouldAllocateNothingWhenParsingIntoReusedMessage()
    {
        final byte[] b = bytes(INVITE);
        final SipMessage m = new SipMessage();
        final long[] sink = {0};
        // 100,000 parses: anything per message would show as megabytes; allow a few KB of measurement noise
        // (the least of up to five attempts, so that a one-off deoptimisation is not charged to the parser).
        final long allocated = AllocationMeter.leastBytes(
            () -> parseTimes(b, m, 20_000, sink), () -> parseTimes(b, m, 100_000, sink), 5, 4095);
        assertTrue(sink[0] != 0);
        assertTrue(allocated < 4096, "allocated " + allocated + " bytes over 100,000 parses");
    }

    private static void parseTimes(final byte[] b, final SipMessage m, final int times, final long[] sink)
    {
        for (int i = 0; i < times; i++)
        {
            SipMessageParser.parseDatagram(b, 0, b.length, m);
            sink[0] += m.topViaBranchEnd() + m.callIdEnd() + m.cseqNumber() + m.toTagStart();
        }
    }

    @Test
    void shouldParseResponseWithoutReasonPhrase()
    {
        final byte[] b = bytes("SIP/2.0 180 \r\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\r\nTo: <sip:b@h>;tag=x\r\n" +
            "From: <sip:a@h>;tag=y\r\nCall-ID: c\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n");
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(b, 0, b.length, m));
        assertFalse(m.isRequest());
        assertEquals(180, m.statusCode());
        assertEquals("", m.reasonPhrase());
        assertEquals("x", m.toTag());
        assertEquals("y", m.fromTag());
    }

    @Test
    void shouldParseFromPooledDirectBufferAndAllowImmediateRelease()
    {
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(2048);
        buf.writeBytes(bytes(INVITE));
        final SipMessage m = new SipMessage();
        try
        {
            assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(buf, m));
        }
        finally
        {
            buf.release();
        }
        assertEquals("a84b4c76e66710@pc33.atlanta.example.com", m.callId());
    }

    @Test
    void shouldFrameStreamByContentLength()
    {
        final String two = INVITE + INVITE.replace("314159", "314160");
        final byte[] b = bytes(two);
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.INCOMPLETE, SipMessageParser.parseStream(b, 0, 100, m));
        assertEquals(ParseResult.INCOMPLETE, SipMessageParser.parseStream(b, 0, bytes(INVITE).length - 1, m));
        assertEquals(ParseResult.OK, SipMessageParser.parseStream(b, 0, b.length, m));
        final int first = m.frameLength();
        assertEquals(bytes(INVITE).length, first);
        assertEquals(ParseResult.OK, SipMessageParser.parseStream(b, first, b.length - first, m));
        assertEquals(314160, m.cseqNumber());
    }

    @Test
    void shouldRejectBodyShorterThanContentLength()
    {
        final byte[] b = bytes(INVITE.replace("Content-Length: 4", "Content-Length: 400"));
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.BODY_TOO_SHORT, SipMessageParser.parseDatagram(b, 0, b.length, m));
        assertEquals(400, m.result().statusCode());
    }

    @Test
    void shouldRejectMismatchedCSeqMethod()
    {
        final byte[] b = bytes(INVITE.replace("CSeq: 314159 INVITE", "CSeq: 314159 OPTIONS"));
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.CSEQ_METHOD_MISMATCH, SipMessageParser.parseDatagram(b, 0, b.length, m));
    }

    @Test
    void shouldReportUnsupportedVersionAfterFullParse()
    {
        final byte[] b = bytes(INVITE.replace("SIP/2.0\r\nVia", "SIP/7.0\r\nVia"));
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.UNSUPPORTED_VERSION, SipMessageParser.parseDatagram(b, 0, b.length, m));
        assertEquals(505, m.result().statusCode());
        assertEquals("a84b4c76e66710@pc33.atlanta.example.com", m.callId());
    }
}
