package io.sipline.sip.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class TypedViewsTest
{
    private static final String MULTIPART =
        "INVITE sip:bob@example.com SIP/2.0\r\n" +
        "Via: SIP/2.0/UDP gw.example.com;branch=z9hG4bK-mp\r\n" +
        "From: <sip:alice@example.com>;tag=a\r\n" +
        "To: <sip:bob@example.com>\r\n" +
        "Call-ID: mp@gw\r\n" +
        "CSeq: 1 INVITE\r\n" +
        "Expires: 4294967297\r\n" +
        "Supported: timer, 100rel\r\n" +
        "k: replaces\r\n" +
        "Require: 100rel\r\n" +
        "Allow: INVITE, ACK, BYE\r\n" +
        "Content-Type: multipart/mixed; boundary=\"unique-boundary-1\"\r\n" +
        "\r\n" +
        "preamble\r\n" +
        "--unique-boundary-1\r\n" +
        "Content-Type: application/sdp\r\n" +
        "\r\n" +
        "v=0\r\n" +
        "--unique-boundary-1\r\n" +
        "Content-Type: application/isup\r\n" +
        "Content-Disposition: signal;handling=optional\r\n" +
        "\r\n" +
        "ISUP\r\n" +
        "--unique-boundary-1--\r\n";

    @Test
    void shouldReadListsExpiresAndMultipartBody()
    {
        final byte[] b = MULTIPART.getBytes(StandardCharsets.US_ASCII);
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(b, 0, b.length, m));
        assertEquals(0xFFFF_FFFFL, m.expires());
        assertTrue(m.containsToken(HeaderName.SUPPORTED, "100rel"));
        assertTrue(m.containsToken(HeaderName.SUPPORTED, "replaces"), "compact form k is Supported");
        assertTrue(m.containsTokenExactly(HeaderName.ALLOW, "BYE"));
        assertFalse(m.containsToken(HeaderName.REQUIRE, "timer"));
        assertEquals(2, m.headerCount(HeaderName.SUPPORTED), "token lists: one entry per line");
        assertEquals(3, m.valueCount(HeaderName.SUPPORTED));

        final MediaTypeFlyweight type = new MediaTypeFlyweight();
        assertTrue(m.contentType(type));
        assertTrue(type.is("Multipart", "MIXED"));
        final int boundary = type.paramIndex("boundary");
        assertEquals("unique-boundary-1", new String(b, type.paramContentStart(boundary),
            type.paramContentEnd(boundary) - type.paramContentStart(boundary), StandardCharsets.US_ASCII));

        final MultipartFlyweight parts = new MultipartFlyweight();
        assertTrue(parts.wrap(b, m.bodyStart(), m.bodyStart() + m.bodyLength(), type.paramContentStart(boundary),
            type.paramContentEnd(boundary)));
        assertTrue(parts.next());
        assertEquals("v=0", text(b, parts.partContentStart(), parts.partContentEnd()));
        assertEquals("Content-Type: application/sdp\r\n", text(b, parts.partHeadersStart(), parts.partHeadersEnd()));
        assertTrue(parts.next());
        assertEquals("ISUP", text(b, parts.partContentStart(), parts.partContentEnd()));
        assertFalse(parts.next());
    }

    @Test
    void shouldRejectMalformedContentType()
    {
        final MediaTypeFlyweight type = new MediaTypeFlyweight();
        final byte[] b = "application; x=1".getBytes(StandardCharsets.US_ASCII);
        assertFalse(type.wrap(b, 0, b.length));
        final byte[] q = "text/plain; charset=\"utf-8".getBytes(StandardCharsets.US_ASCII);
        assertFalse(type.wrap(q, 0, q.length));
    }

    @Test
    void shouldWrapAddressAndRequestUriViews()
    {
        final byte[] b = SipMessageParserTest.bytes(SipMessageParserTest.INVITE);
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(b, 0, b.length, m));
        final NameAddrFlyweight from = new NameAddrFlyweight();
        assertTrue(m.address(m.firstHeader(HeaderName.FROM), from));
        assertEquals("Alice, A.", from.displayName());
        assertEquals("1928301774", from.tag());
        assertEquals("atlanta.example.com", from.uri().host());
        final SipUriFlyweight uri = new SipUriFlyweight();
        assertTrue(m.requestUri(uri));
        assertEquals("bob", uri.user());
        assertEquals(-1, uri.port());
    }

    private static String text(final byte[] b, final int s, final int e)
    {
        return new String(b, s, e - s, StandardCharsets.US_ASCII);
    }
}
