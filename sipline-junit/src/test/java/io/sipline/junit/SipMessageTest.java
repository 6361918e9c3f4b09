package io.sipline.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

class SipMessageTest
{
    private static final String INVITE = "INVITE sip:bob@127.0.0.1:5070 SIP/2.0\r\n"
        + "v: SIP/2.0/UDP 127.0.0.1:5080;branch=z9hG4bK1, SIP/2.0/UDP 10.0.0.1;branch=z9hG4bK2\r\n"
        + "Via: SIP/2.0/UDP 10.0.0.2;branch=z9hG4bK3\r\n"
        + "f: \"Alice, A.\" <sip:alice@127.0.0.1;lr>;tag=a1\r\n"
        + "t: <sip:bob@127.0.0.1>\r\n"
        + "i: c1@127.0.0.1\r\n"
        + "CSeq: 7 INVITE\r\n"
        + "Record-Route: <sip:p1;lr>,<sip:p2;lr>\r\n"
        + "Subject: folded\r\n line\r\n"
        + "l: 5\r\n\r\nhello";

    @Test
    void readsCompactFoldedAndListHeaders()
    {
        final SipMessage m = SipMessage.parse(INVITE);
        assertTrue(m.isRequest());
        assertEquals("INVITE", m.method());
        assertEquals("sip:bob@127.0.0.1:5070", m.requestUri());
        assertEquals(3, m.headers("Via").size());
        assertEquals("z9hG4bK1", m.branch());
        assertEquals("a1", m.fromTag());
        assertNull(m.toTag());
        assertEquals("c1@127.0.0.1", m.callId());
        assertEquals(7, m.cseq());
        assertEquals(List.of("<sip:p1;lr>", "<sip:p2;lr>"), m.headers("record-route"));
        assertEquals("folded line", m.header("Subject"));
        assertEquals("hello", m.body());
        assertEquals("sip:alice@127.0.0.1;lr", SipMessage.uri(m.header("From")));
    }

    @Test
    void writesContentLengthFromTheBody()
    {
        final SipMessage m = SipMessage.response(200, "OK").add("CSeq", "1 OPTIONS").add("Content-Length", "99")
            .body("text/plain", "h\u00e9");
        final String text = m.toString();
        assertTrue(text.contains("Content-Length: 3\r\n"), text);
        assertFalse(text.contains("99"), text);
        assertEquals(200, SipMessage.parse(text).status());
        assertEquals("OPTIONS", SipMessage.parse(text).method());
    }

    @Test
    void refusesWhatIsNotSip()
    {
        assertThrows(IllegalArgumentException.class, () -> SipMessage.parse("HTTP/1.1 200 OK\r\n\r\n"));
        assertThrows(IllegalArgumentException.class, () -> SipMessage.parse("OPTIONS sip:a SIP/2.0\r\nVia x\r\n"));
    }

    @Test
    void findsHostAndPortOfUris()
    {
        assertEquals(new InetSocketAddress("127.0.0.1", 5070), SipUris.hostPort("sip:bob@127.0.0.1:5070;lr"));
        assertEquals(new InetSocketAddress("127.0.0.1", 5060), SipUris.hostPort("sip:127.0.0.1;transport=udp"));
        assertEquals(new InetSocketAddress("::1", 5061), SipUris.hostPort("sips:[::1]"));
        assertThrows(IllegalArgumentException.class, () -> SipUris.hostPort("tel:+4412345"));
    }
}
