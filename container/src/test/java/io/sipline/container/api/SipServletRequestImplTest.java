package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import javax.servlet.sip.Address;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipSession;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sipline.container.security.SipPrincipal;
import org.junit.jupiter.api.Test;

class SipServletRequestImplTest
{
    private final FakeHost host = new FakeHost();

    @Test
    void shouldProtectSystemHeaders()
    {
        final SipServletRequestImpl r = TestMessages.received(host, TestMessages.INVITE);
        for (final String name : new String[] {"From", "To", "Call-ID", "CSeq", "Via", "Record-Route", "Route",
            "Contact", "Content-Length", "i", "RSeq"})
        {
            assertThrows(IllegalArgumentException.class, () -> r.setHeader(name, "x"), name);
            assertThrows(IllegalArgumentException.class, () -> r.addHeader(name, "x"), name);
            assertThrows(IllegalArgumentException.class, () -> r.removeHeader(name), name);
        }
        r.setHeader("X-Custom", "replaced");
        assertEquals("replaced", r.getHeader("X-Custom"));
        assertThrows(IllegalStateException.class, () -> r.getFrom().setDisplayName("Mallory"),
            "a received request's From is read-only");
    }

    @Test
    void shouldKeepTheFromAndToObjectsWithoutExtrasAndAcrossTheirMaking()
    {
        final SipServletRequestImpl r = TestMessages.received(host, TestMessages.INVITE);
        final Address from = r.getFrom();
        final Address to = r.getTo();
        assertNull(r.extrasIfAny(), "reading From and To makes no extras");
        assertSame(from, r.getFrom());
        r.setAttribute("a", "b");
        assertNotNull(r.extrasIfAny());
        assertSame(from, r.getFrom(), "the extras take over the objects already handed out");
        assertSame(to, r.getTo());
        assertEquals("b", r.getAttribute("a"));
        assertNull(r.getCharacterEncoding());
    }

    @Test
    void shouldKeepTheAuthenticatedUserWithTheFewFieldsMostMessagesLack()
    {
        final SipServletRequestImpl anonymous = TestMessages.received(host, TestMessages.INVITE);
        anonymous.principal(null);
        assertNull(anonymous.extrasIfAny(), "no user: nothing made for it");
        assertNull(anonymous.getUserPrincipal());
        assertNull(anonymous.getRemoteUser());
        assertFalse(anonymous.isUserInRole("admin"));

        final SipServletRequestImpl r = TestMessages.received(host, TestMessages.INVITE);
        final SipPrincipal alice = new SipPrincipal("alice", "example.com", Set.of("admin"));
        r.principal(alice);
        assertSame(alice, r.getUserPrincipal());
        assertEquals("alice", r.getRemoteUser());
        assertTrue(r.isUserInRole("admin"));
        assertFalse(r.isUserInRole("guest"));
        r.principal(null);
        assertNull(r.getUserPrincipal(), "cleared");
    }

    @Test
    void shouldLetRegisterCarryAnApplicationContact()
    {
        final SipServletRequestImpl r = TestMessages.received(host,
            TestMessages.INVITE.replace("INVITE", "REGISTER"));
        r.setHeader("Contact", "<sip:alice@192.0.2.9>;expires=60");
        assertEquals("<sip:alice@192.0.2.9>;expires=60", r.getHeader("Contact"));
    }

    @Test
    void shouldCreateResponsesAsAUas() throws Exception
    {
        final SipServletRequestImpl r = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponse ringing = r.createResponse(180);
        assertEquals("Ringing", ringing.getReasonPhrase());
        assertEquals(2, count(ringing, "Via"));
        final String tag = ringing.getTo().getParameter("tag");
        assertNotNull(tag, "a To tag above 100");
        assertEquals("<sip:p1.example;lr>", ringing.getHeader("Record-Route"), "copied in a dialog-creating 18x");
        assertEquals("<sip:192.0.2.1:5060>", ringing.getHeader("Contact"));
        ringing.send();
        assertEquals(SipSession.State.EARLY, r.getSession().getState());
        final SipServletResponse ok = r.createResponse(200);
        assertEquals(tag, ok.getTo().getParameter("tag"), "one local tag per session");
        ok.send();
        assertEquals(SipSession.State.CONFIRMED, r.getSession().getState());
        assertTrue(r.isCommitted(), "committed after a final response");
        assertThrows(IllegalStateException.class, () -> r.createResponse(486), "a second final response");
    }

    @Test
    void shouldKeepTheToTagOfAnInDialogRequestInItsResponses() throws Exception
    {
        final String to = "To: Bob <sip:bob@biloxi.example>";
        final SipServletRequestImpl r = TestMessages.received(host, TestMessages.INVITE.replace(to, to + ";tag=b0b"));
        final SipServletResponse ok = r.createResponse(200);
        assertEquals("b0b", ok.getTo().getParameter("tag"), "the request's tag, not a new one");
        assertEquals("Bob <sip:bob@biloxi.example>;tag=b0b", ok.getHeader("To"));
    }

    @Test
    void shouldReadAReceivedResponsesToTag()
    {
        final SipServletRequestImpl r = TestMessages.received(host, TestMessages.INVITE);
        final String text = "SIP/2.0 180 Ringing\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bK776asdhds\r\n"
            + "From: \"Alice\" <sip:alice@atlanta.example>;tag=1928301774\r\n"
            + "To: Bob <sip:bob@biloxi.example>;x=1;TAG=a6c85cf;y\r\n"
            + "Call-ID: a84b4c76e66710@pc33.atlanta.example\r\n"
            + "CSeq: 314159 INVITE\r\n"
            + "Content-Length: 0\r\n\r\n";
        final SipServletResponseImpl ringing = SipServletResponseImpl.received(TestMessages.parse(text), r,
            TestMessages.PEER, TestMessages.LOCAL);
        assertEquals("a6c85cf", ringing.toTag());
        assertEquals("a6c85cf", ringing.toTag(), "read again");
        final SipServletResponseImpl trying = SipServletResponseImpl.received(TestMessages.parse(
            text.replace(";x=1;TAG=a6c85cf;y", "").replace("180 Ringing", "100 Trying")), r, TestMessages.PEER,
            TestMessages.LOCAL);
        assertEquals(null, trying.toTag(), "no tag");
    }

    @Test
    void shouldWriteAResponseThatParsesBack()
    {
        final SipServletRequestImpl r = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl resp = (SipServletResponseImpl)r.createResponse(486, "Busy Here Now");
        final ByteBuf out = Unpooled.buffer();
        try
        {
            MessageWriter.writeResponse(out, resp);
            final String text = out.toString(StandardCharsets.UTF_8);
            assertTrue(text.startsWith("SIP/2.0 486 Busy Here Now\r\n"), text);
            final io.sipline.sip.message.SipMessage back = TestMessages.parse(text);
            assertEquals("a84b4c76e66710@pc33.atlanta.example", back.callId());
            assertEquals(314159, back.cseqNumber());
            assertNotNull(back.toTag());
            assertEquals("1928301774", back.fromTag());
            assertEquals(0, back.contentLength());
        }
        finally
        {
            out.release();
        }
    }

    @Test
    void shouldWriteTheRequestUriTheApplicationSet() throws Exception
    {
        final SipServletRequestImpl r = TestMessages.received(host, TestMessages.INVITE);
        r.createResponse(200).send();
        final SipServletRequestImpl bye = (SipServletRequestImpl)r.getSession().createRequest("BYE");
        final javax.servlet.sip.SipURI target = (javax.servlet.sip.SipURI)io.sipline.container.address.SipAddresses
            .parseUri("sip:carol@192.0.2.7:5070;transport=udp");
        bye.setRequestURI(target);
        target.setUser("dave"); // changed after it was set: written as it is when sent
        final ByteBuf out = Unpooled.buffer();
        try
        {
            MessageWriter.writeRequest(out, bye, "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKw1");
            final String text = out.toString(StandardCharsets.UTF_8);
            assertTrue(text.startsWith("BYE sip:dave@192.0.2.7:5070;transport=udp SIP/2.0\r\n"), text);
            assertEquals("sip:dave@192.0.2.7:5070;transport=udp", TestMessages.parse(text).requestUri());
        }
        finally
        {
            out.release();
        }
    }

    @Test
    void shouldKeepTheReceivedRequestUriOfACopyOverItsBytesUntilRead() throws Exception
    {
        final SipServletRequestImpl r = TestMessages.received(host, TestMessages.INVITE);
        final MessageHeaders h = MessageHeaders.over(r.headers(), 2, 1);
        h.insert(0, "Max-Forwards", "69");
        final SipServletRequestImpl copy = SipServletRequestImpl.outgoingWithUriOf("INVITE", r, h);
        final int span = copy.requestUriAsciiSpan();
        assertEquals("sip:bob@192.0.2.1", new String(copy.headers().bytes(), span >>> 16,
            (span & 0xFFFF) - (span >>> 16), StandardCharsets.US_ASCII), "the received bytes while unread");
        final SipSessionImpl callee = SipSessionImpl.forCopy(r.sessionImpl().appSession(), null,
            "<sip:app@192.0.2.1>", "<sip:bob@192.0.2.1>", copy, "m");
        assertTrue(copy.requestUriAsciiSpan() >= 0, "the dialog read the bytes, made no text of them");
        final ByteBuf out = Unpooled.buffer();
        try
        {
            MessageWriter.writeRequest(out, copy, "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKc1");
            assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("INVITE sip:bob@192.0.2.1 SIP/2.0\r\n"));
        }
        finally
        {
            out.release();
        }
        assertEquals("sip:bob@192.0.2.1", copy.requestUriText(), "made into text when read");
        assertEquals(-1, copy.requestUriAsciiSpan(), "read: no span any more");
        final SipSessionImpl read = SipSessionImpl.forCopy(r.sessionImpl().appSession(), null,
            "<sip:app@192.0.2.1>", "<sip:bob@192.0.2.1>", copy, "m");
        assertEquals("sip:bob@192.0.2.1", read.createRequest("INFO").getRequestURI().toString(),
            "a copy of a URI read as text takes the text");
        assertEquals("sip:bob@192.0.2.1", callee.createRequest("INFO").getRequestURI().toString(),
            "the new dialog's remote target, read from its record");
        final SipServletRequestImpl other = SipServletRequestImpl.outgoingWithUriOf("INVITE", r,
            MessageHeaders.empty(1));
        assertEquals("sip:bob@192.0.2.1", other.requestUriText(), "over other bytes: the text");
    }

    @Test
    void shouldRefuseResponsesToAck()
    {
        final SipServletRequestImpl ack = TestMessages.received(host, TestMessages.INVITE.replace("INVITE", "ACK"));
        assertThrows(IllegalStateException.class, () -> ack.createResponse(200));
        assertThrows(IllegalArgumentException.class, () -> TestMessages.received(host, TestMessages.INVITE)
            .createResponse(99));
    }

    /**
     * A received message's head copy holds its header index after the empty line (MessageHeaders#of), and its body
     * (RFC 3261 §20.14, Content-Length bytes after the empty line) is an array of its own: the message written from
     * them ends where the received message ended, and what the copy's length sizes counts the head alone.
     */
    @Test
    void shouldEndTheBodyAndTheWrittenMessageWhereTheReceivedMessageEnded() throws Exception
    {
        final SipServletRequestImpl r = TestMessages.received(host, TestMessages.INVITE);
        final int head = TestMessages.INVITE.getBytes(StandardCharsets.UTF_8).length - 4;
        assertTrue(r.headers().bytes().length > head, "the index after the head");
        assertEquals(head, r.headers().baseLength());
        assertEquals("v=0\n", new String(r.getRawContent(), StandardCharsets.US_ASCII));
        assertEquals(4, r.getContentLength());
        assertEquals(256 + head + 4, MessageWriter.estimate(r));
        final SipServletResponseImpl ok = (SipServletResponseImpl)r.createResponse(200);
        assertEquals(head, ok.headers().baseLength(), "a response made over the request's bytes");
        final ByteBuf out = Unpooled.buffer();
        try
        {
            MessageWriter.writeRequest(out, r, null);
            final String written = out.toString(StandardCharsets.UTF_8);
            assertTrue(written.endsWith("\r\nContent-Length: 4\r\n\r\nv=0\n"), written);
        }
        finally
        {
            out.release();
        }
    }

    @Test
    void shouldDecodeContentByType() throws Exception
    {
        final SipServletRequestImpl r = TestMessages.received(host, TestMessages.INVITE);
        assertTrue(r.getContent() instanceof byte[], "application/sdp is bytes");
        assertEquals("v=0\n", new String((byte[])r.getContent(), StandardCharsets.US_ASCII));
        final SipServletResponseImpl resp = (SipServletResponseImpl)r.createResponse(200);
        resp.setContent("héllo", "text/plain;charset=UTF-8");
        assertEquals("héllo", resp.getContent());
        assertEquals(6, resp.getContentLength());
    }

    @Test
    void shouldMakeSubsequentRequestsInTheDialog() throws Exception
    {
        final SipServletRequestImpl r = TestMessages.received(host, TestMessages.INVITE);
        r.createResponse(200).send();
        final SipSessionImpl session = r.sessionImpl();
        final SipServletRequest bye = session.createRequest("BYE");
        assertEquals("sip:alice@192.0.2.9:5062", bye.getRequestURI().toString(), "the remote target");
        assertEquals("<sip:p1.example;lr>", bye.getHeader("Route"), "the route set");
        assertEquals("1928301774", bye.getTo().getParameter("tag"));
        assertEquals(session.localTag(), bye.getFrom().getParameter("tag"));
        assertEquals("1 BYE", bye.getHeader("CSeq"));
        assertThrows(IllegalArgumentException.class, () -> session.createRequest("ACK"));
    }

    private static int count(final SipServletResponse r, final String name)
    {
        int n = 0;
        for (var it = r.getHeaders(name); it.hasNext(); it.next())
        {
            n++;
        }
        return n;
    }
}
