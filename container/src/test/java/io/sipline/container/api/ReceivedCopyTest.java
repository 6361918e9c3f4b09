package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import org.junit.jupiter.api.Test;

class ReceivedCopyTest
{
    /** An SDP offer (RFC 4566) with a UTF-8 session name: bytes, not characters, are relayed. */
    private static final String SDP = "v=0\r\no=alice 2890844526 2890844526 IN IP4 192.0.2.9\r\ns=caf\u00e9\r\n"
        + "c=IN IP4 192.0.2.9\r\nt=0 0\r\nm=audio 49170 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n";
    private static final byte[] SDP_BYTES = SDP.getBytes(StandardCharsets.UTF_8);
    private static final String OK_HEAD = "SIP/2.0 200 OK\r\n"
        + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK1\r\n"
        + "Via: SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bK776asdhds\r\n"
        + "From: <sip:app@192.0.2.1>;tag=1\r\n"
        + "To: <sip:bob@biloxi.example>;tag=2\r\n"
        + "Call-ID: c1\r\n"
        + "CSeq: 1 INVITE\r\n"
        + "Content-Type: application/sdp\r\n";

    private final FakeHost host = new FakeHost();

    /** The INVITE of the message tests with {@code body} (and its Content-Length) in place of its own. */
    private static String inviteWith(final byte[] body)
    {
        final String head = TestMessages.INVITE.substring(0, TestMessages.INVITE.indexOf("Content-Length:"));
        return head + "Content-Length: " + body.length + "\r\n\r\n" + new String(body, StandardCharsets.UTF_8);
    }

    private static int headLength(final String text)
    {
        return text.indexOf("\r\n\r\n") + 4;
    }

    @Test
    void shouldCopyTheBodyIntoAnArrayOfItsOwnThatGetRawContentReturns() throws Exception
    {
        final String text = inviteWith(SDP_BYTES);
        final SipMessage m = TestMessages.parse(text);
        final SipServletRequestImpl r = TestMessages.received(host, text);
        final byte[] body = r.getRawContent();
        assertArrayEquals(SDP_BYTES, body);
        assertSame(body, r.getRawContent(), "the reference, not a copy (JSR 289 javadoc, as the reference container)");
        assertSame(body, r.getContent(), "a non-text type's content is the same bytes");
        assertSame(body, r.bodyBytes());
        assertEquals(SDP_BYTES.length, r.bodyBytes().length, "an exact array: its length is the Content-Length");
        assertEquals(SDP_BYTES.length, r.getContentLength());
        assertEquals(headLength(text), ReceivedCopy.headLength(m));
        assertEquals(headLength(text) + MessageHeaders.tailBytes(m.headerCount()), r.headers().bytes().length,
            "the head and its index: no room for the body");
        assertEquals(headLength(text), r.headers().baseLength());
        assertEquals("application/sdp", r.getContentType());
        assertEquals("lunch and more", r.getHeader("Subject"), "the index after the head reads the headers");
    }

    @Test
    void shouldGiveAMessageWithoutBodyNoBodyArray() throws Exception
    {
        final String text = inviteWith(new byte[0]);
        final SipMessage m = TestMessages.parse(text);
        assertNull(ReceivedCopy.body(m));
        assertEquals(text.length(), ReceivedCopy.headLength(m));
        final SipServletRequestImpl r = TestMessages.received(host, text);
        assertNull(r.bodyBytes(), "no array for an absent body");
        assertNull(r.getRawContent());
        assertNull(r.getContent());
        assertEquals(0, r.getContentLength());
        assertEquals(text.length(), r.headers().baseLength());
        assertTrue(written(r).endsWith("\r\nContent-Length: 0\r\n\r\n"));
    }

    /**
     * A body relayed as a B2BUA relays it ({@code setContent(getRawContent(), getContentType())}), by a proxy
     * (RFC 3261 §16.6) and in a response forwarded upstream (§16.7) arrives byte for byte, behind a Content-Length of
     * its byte count (§20.14).
     */
    @Test
    void shouldRelayTheBodyByteForByte() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, inviteWith(SDP_BYTES));
        final SipServletResponseImpl answer = (SipServletResponseImpl)invite.createResponse(200);
        answer.setContent(invite.getRawContent(), invite.getContentType());
        assertSame(invite.getRawContent(), answer.getRawContent(), "the relayed body is the same array");
        assertRelayed(writtenBytes(answer));

        final SipServletRequestImpl proxied = SipServletRequestImpl.forwardOf(invite, "sip:bob@192.0.2.7");
        assertSame(invite.getRawContent(), proxied.getRawContent());
        assertRelayed(writtenBytes(proxied));

        final SipServletResponseImpl received = SipServletResponseImpl.received(TestMessages.parse(OK_HEAD
            + "Content-Length: " + SDP_BYTES.length + "\r\n\r\n" + SDP), invite, TestMessages.PEER,
            TestMessages.LOCAL);
        assertArrayEquals(SDP_BYTES, received.getRawContent());
        final SipServletResponseImpl upstream = SipServletResponseImpl.forwardOf(invite, received, 200);
        assertSame(received.getRawContent(), upstream.getRawContent());
        assertRelayed(writtenBytes(upstream));
    }

    /** A datagram longer than its Content-Length (RFC 3261 §18.3: the rest is discarded): neither copy keeps it. */
    @Test
    void shouldCopyOnlyTheContentLengthBytesOfADatagram() throws Exception
    {
        final String text = OK_HEAD + "Content-Length: 4\r\n\r\nv=0\nTRAILING";
        final SipMessage m = TestMessages.parse(text);
        assertEquals(headLength(text), ReceivedCopy.headLength(m));
        assertArrayEquals("v=0\n".getBytes(StandardCharsets.US_ASCII), ReceivedCopy.body(m));
        assertEquals(headLength(text) + MessageHeaders.tailBytes(m.headerCount()), ReceivedCopy.head(m).length);

        final String unframed = OK_HEAD + "\r\n" + SDP;
        final SipMessage u = TestMessages.parse(unframed);
        assertArrayEquals(SDP_BYTES, ReceivedCopy.body(u), "no Content-Length on a datagram: the rest is the body");
        assertEquals(headLength(unframed), ReceivedCopy.headLength(u));
    }

    /** Messages back to back on a stream: each copy takes its own head and body from where it lies in the buffer. */
    @Test
    void shouldCopyAStreamMessageFromWhereItLiesInTheBuffer() throws Exception
    {
        final String first = inviteWith("v=0\n".getBytes(StandardCharsets.US_ASCII));
        final String second = inviteWith(SDP_BYTES).replace("314159", "314160");
        final byte[] stream = (first + second).getBytes(StandardCharsets.UTF_8);
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseStream(stream, 0, stream.length, m));
        final int next = m.frameLength();
        assertEquals(ParseResult.OK, SipMessageParser.parseStream(stream, next, stream.length - next, m));
        final SipServletRequestImpl r = SipServletRequestImpl.received(m, null, TestMessages.PEER,
            TestMessages.LOCAL);
        Arrays.fill(stream, (byte)0); // the transport's buffer is reused: the message keeps its own copies
        assertArrayEquals(SDP_BYTES, r.getRawContent());
        assertEquals("314160 INVITE", r.getHeader("CSeq"));
        assertEquals(second.getBytes(StandardCharsets.UTF_8).length - SDP_BYTES.length, r.headers().baseLength());
    }

    /** A header section past 64 KiB (TCP only): its late entries are text, the body its own array all the same. */
    @Test
    void shouldKeepTheBodyAfterAHeaderSectionOver64KiB() throws Exception
    {
        final String big = "x".repeat(65_600);
        final String text = inviteWith(SDP_BYTES).replace("Subject:", "X-Big: " + big + "\r\nX-Late: late\r\n"
            + "Subject:");
        final SipServletRequestImpl r = TestMessages.received(host, text);
        assertArrayEquals(SDP_BYTES, r.getRawContent());
        assertSame(r.getRawContent(), r.getRawContent());
        assertEquals("late", r.getHeader("X-Late"));
        assertEquals(big, r.getHeader("X-Big"));
        final byte[] out = writtenBytes(r);
        assertRelayed(out);
        assertTrue(new String(out, StandardCharsets.UTF_8).contains("\r\nX-Late: late\r\n"));
    }

    /** The message's bytes as written on the wire end with its Content-Length, the empty line and the SDP. */
    private static void assertRelayed(final byte[] written)
    {
        final String text = new String(written, StandardCharsets.UTF_8);
        final int empty = text.indexOf("\r\n\r\n") + 4;
        assertArrayEquals(SDP_BYTES, Arrays.copyOfRange(written, empty, written.length), text);
        assertTrue(text.contains("\r\nContent-Length: " + SDP_BYTES.length + "\r\n\r\n"), text);
        final SipMessage back = TestMessages.parse(text);
        assertEquals(SDP_BYTES.length, back.bodyLength());
    }

    private static byte[] writtenBytes(final SipServletMessageImpl m)
    {
        final ByteBuf out = Unpooled.buffer();
        try
        {
            if (m instanceof SipServletRequestImpl request)
            {
                MessageWriter.writeRequest(out, request, "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKp;rport");
            }
            else
            {
                MessageWriter.writeResponse(out, (SipServletResponseImpl)m);
            }
            return ByteBufUtil.getBytes(out);
        }
        finally
        {
            out.release();
        }
    }

    private static String written(final SipServletMessageImpl m)
    {
        return new String(writtenBytes(m), StandardCharsets.UTF_8);
    }
}
