package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Locale;

import javax.servlet.sip.Address;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipURI;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sipline.container.address.SipAddresses;
import io.sipline.sip.message.SipMessage;
import org.junit.jupiter.api.Test;

/**
 * Where the JSR 289 javadoc of {@code SipServletMessage}, {@code SipServletRequest} and {@code SipServletResponse}
 * leaves room, Sipline accepts what the reference container accepts; where it is explicit, it refuses. One test per
 * decision, named after the method (the table is in docs/developing-applications.md).
 */
class MessageLeniencyTest
{
    private static final String SDP = "v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\n";

    private final FakeHost host = new FakeHost();

    @Test
    void setContentLengthOnUnsentResponseIsAccepted() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        final byte[] body = SDP.getBytes(StandardCharsets.US_ASCII);
        assertDoesNotThrow(() -> ok.setContentLength(body.length), "a B2BUA copies Content-Length first");
        ok.setContent(body, "application/sdp");
        assertEquals(body.length, ok.getContentLength());
        assertEquals(body.length, written(ok).contentLength());
    }

    @Test
    void setContentLengthThatDisagreesWithTheContentIsNotWritten() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        ok.setContentLength(999);
        ok.setContent(SDP, "application/sdp");
        assertEquals(SDP.length(), ok.getContentLength(), "the content decides");
        assertEquals(SDP.length(), written(ok).contentLength(), "never a wrong Content-Length on the wire");

        final SipServletResponseImpl ringing = (SipServletResponseImpl)invite.createResponse(180);
        ringing.setContentLength(42);
        assertEquals(0, ringing.getContentLength(), "no content: nothing to announce");
        assertEquals(0, written(ringing).contentLength());
    }

    @Test
    void setContentLengthOnUnsentRequestIsAccepted() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        invite.createResponse(200).send();
        final SipServletRequest bye = invite.sessionImpl().createRequest("BYE");
        assertDoesNotThrow(() -> bye.setContentLength(0));
    }

    @Test
    void setContentLengthOnReceivedRequestIsRefused()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        assertThrows(IllegalStateException.class, () -> invite.setContentLength(4),
            "JSR 289: IllegalStateException if this is an incoming message");
    }

    @Test
    void setContentLengthOnSentResponseIsRefused() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        ok.send();
        assertThrows(IllegalStateException.class, () -> ok.setContentLength(0),
            "JSR 289: IllegalStateException if it has already been sent");
    }

    @Test
    void setContentLengthNegativeIsRefused()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        assertThrows(IllegalArgumentException.class, () -> ok.setContentLength(-1));
    }

    @Test
    void setAcceptLanguageNullRemovesTheHeader()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        ok.setAcceptLanguage(Locale.FRENCH);
        ok.addAcceptLanguage(Locale.GERMAN);
        ok.setAcceptLanguage(null);
        assertNull(ok.getHeader("Accept-Language"), "JSR 289: a null argument is valid and removes the headers");
    }

    @Test
    void getAcceptLanguageWithoutHeaderIsTheDefaultLocale()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        assertEquals(Locale.getDefault(), invite.getAcceptLanguage());
        final Iterator<Locale> all = invite.getAcceptLanguages();
        assertEquals(Locale.getDefault(), all.next());
        assertFalse(all.hasNext());
        final SipServletRequestImpl french = TestMessages.received(host,
            TestMessages.INVITE.replace("Subject:", "Accept-Language: fr, de;q=0.5\r\nSubject:"));
        assertEquals(Locale.FRENCH, french.getAcceptLanguage());
    }

    @Test
    void setContentLanguageNullRemovesTheHeader()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        ok.setContentLanguage(Locale.FRENCH);
        assertEquals(Locale.FRENCH, ok.getContentLanguage());
        ok.setContentLanguage(null);
        assertNull(ok.getHeader("Content-Language"));
    }

    @Test
    void setContentWithAnObjectWritesItsText() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        final Object sdp = new Object()
        {
            @Override
            public String toString()
            {
                return SDP;
            }
        };
        ok.setContent(sdp, "application/sdp");
        assertEquals(SDP, new String(ok.getRawContent(), StandardCharsets.US_ASCII), "toString, as the reference");
        assertEquals(SDP.length(), written(ok).contentLength());
    }

    @Test
    void getRawContentIsTheMessagesOwnArray() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final byte[] raw = invite.getRawContent();
        assertSame(raw, invite.getRawContent(), "JSR 289 javadoc: the reference is returned");
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        ok.setContent(raw, "application/sdp");
        raw[0] = 'V'; // a write into the array is the content of both messages, as in the reference container
        assertEquals("V=0\n", new String(invite.getRawContent(), StandardCharsets.US_ASCII));
        assertTrue(writtenText(ok).endsWith("\r\nContent-Length: 4\r\n\r\nV=0\n"));
    }

    @Test
    void setContentWithAnObjectAsMultipartIsRefused()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        assertThrows(IllegalArgumentException.class, () -> ok.setContent(new Object(), "multipart/mixed;boundary=x"),
            "an object's toString is not a MIME body; JSR 289 allows IllegalArgumentException");
    }

    @Test
    void setHeaderNullValueRemovesTheHeader()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        ok.setHeader("X-Custom", "one");
        ok.setHeader("X-Custom", null);
        assertNull(ok.getHeader("X-Custom"));
    }

    @Test
    void setHeaderOfSystemHeaderIsRefused()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        assertThrows(IllegalArgumentException.class, () -> ok.setHeader("Call-ID", "x"), "JSR 289 §5.4.2: explicit");
        assertThrows(IllegalArgumentException.class, () -> ok.setHeader("Content-Length", "0"),
            "the container writes Content-Length from the content");
    }

    @Test
    void pushRouteOfSipUriPushesALooseRoute() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipURI proxy = SipAddresses.sipUri(null, "192.0.2.7:5070");
        invite.pushRoute(proxy);
        assertEquals("<sip:192.0.2.7:5070;lr>", invite.getHeader("Route"), "lr added, as the reference container");
        assertFalse(proxy.getLrParam(), "the application's URI is not changed");
        invite.pushRoute(SipAddresses.parseAddress("<sip:192.0.2.8>"));
        assertFalse(invite.getHeader("Route").contains("lr"), "an Address is pushed as given");
    }

    @Test
    void getAddressHeaderEditsAreWrittenWhenSent() throws Exception
    {
        final SipServletRequestImpl register = TestMessages.received(host,
            TestMessages.INVITE.replace("INVITE", "REGISTER"));
        final SipServletResponseImpl ok = (SipServletResponseImpl)register.createResponse(200);
        ok.setHeader("Contact", "<sip:alice@192.0.2.9>");
        ok.addHeader("Contact", "<sip:alice@192.0.2.10>");
        ok.getAddressHeader("Contact").setExpires(3600);
        final Iterator<Address> all = ok.getAddressHeaders("Contact");
        assertEquals(3600, all.next().getExpires(), "the same object for the same value");
        all.next().setParameter("q", "0.5");
        ok.setHeader("X-Other", "x");
        final String text = writtenText(ok);
        assertTrue(text.matches("(?s).*Contact: <?sip:alice@192\\.0\\.2\\.9>?;expires=3600\r\n.*"), text);
        assertTrue(text.matches("(?s).*Contact: <?sip:alice@192\\.0\\.2\\.10>?;q=0\\.5\r\n.*"), text);
    }

    @Test
    void getAddressHeaderOfReceivedRequestEditsGoWithTheProxiedCopy() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host,
            TestMessages.INVITE.replace("Subject:", "P-Asserted-Identity: <sip:alice@atlanta.example>\r\nSubject:"));
        invite.getAddressHeader("P-Asserted-Identity").setDisplayName("Alice");
        invite.getParameterableHeader("Subject").setParameter("x", "1");
        assertEquals("Alice <sip:alice@atlanta.example>",
            invite.getAddressHeader("P-Asserted-Identity").toString(), "the same object for the same value");
        final SipServletRequestImpl branch = SipServletRequestImpl.forwardOf(invite, "sip:bob@192.0.2.4");
        assertEquals("Alice <sip:alice@atlanta.example>", branch.getHeader("P-Asserted-Identity"));
        assertTrue(branch.getHeader("Subject").endsWith(";x=1"), branch.getHeader("Subject"));
    }

    @Test
    void getAddressHeaderOfReceivedResponseEditsGoUpstream() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final String ringing = "SIP/2.0 180 Ringing\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKours\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bKtheirs\r\n"
            + "From: <sip:alice@atlanta.example>;tag=a1\r\nTo: <sip:bob@biloxi.example>;tag=b1\r\n"
            + "Call-ID: c1@192.0.2.9\r\nCSeq: 1 INVITE\r\n"
            + "P-Asserted-Identity: <sip:bob@biloxi.example>\r\nContent-Length: 0\r\n\r\n";
        final SipServletResponseImpl received = SipServletResponseImpl.received(TestMessages.parse(ringing), invite,
            TestMessages.PEER, TestMessages.LOCAL);
        assertThrows(IllegalStateException.class,
            () -> received.getAddressHeader("P-Asserted-Identity").setDisplayName("Bob"), "received: committed");
        received.openForUpstream(); // as a supervised proxy does before doResponse (JSR 289 §10.2.4)
        received.getAddressHeader("P-Asserted-Identity").setDisplayName("Bob");
        final SipServletResponseImpl upstream = SipServletResponseImpl.forwardOf(invite, received, 180);
        assertEquals("Bob <sip:bob@biloxi.example>", upstream.getHeader("P-Asserted-Identity"));
        final SipServletResponseImpl copied = SipServletResponseImpl.editableForwardOf(invite, received, 180);
        assertEquals("Bob <sip:bob@biloxi.example>", copied.getHeader("P-Asserted-Identity"));
    }

    @Test
    void getAddressHeaderThenSetHeaderTheSetValueWins() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        ok.setHeader("P-Asserted-Identity", "<sip:alice@atlanta.example>");
        final Address pai = ok.getAddressHeader("P-Asserted-Identity");
        pai.setDisplayName("Alice");
        ok.setHeader("P-Asserted-Identity", "<sip:bob@biloxi.example>");
        pai.setDisplayName("Mallory");
        final String text = writtenText(ok);
        assertTrue(text.contains("P-Asserted-Identity: <sip:bob@biloxi.example>\r\n"), text);
    }

    @Test
    void getParameterableHeaderEditsAreWrittenWhenSent() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        ok.setHeader("Event", "presence");
        ok.getParameterableHeader("Event").setParameter("id", "7");
        assertTrue(writtenText(ok).contains("Event: presence;id=7\r\n"));
    }

    @Test
    void getAddressHeaderOfSystemHeaderIsReadOnly() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        assertThrows(IllegalStateException.class, () -> ok.getAddressHeader("Record-Route").setParameter("x", "1"),
            "JSR 289 §5.4.2: a system header's Address cannot be modified");
    }

    @Test
    void getAddressHeaderOfTheContainersContactTakesUserPartAndParameters() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        final Address contact = ok.getAddressHeader("Contact");
        final SipURI uri = (SipURI)contact.getURI();
        uri.setUser("conference-7");
        uri.setParameter("app", "c2c");
        contact.setParameter("isfocus", "");
        final String text = writtenText(ok);
        assertTrue(text.contains("Contact: <sip:conference-7@192.0.2.1:5060;app=c2c>;isfocus\r\n"), text);
    }

    @Test
    void getAddressHeaderOfTheContainersContactRefusesWhereRequestsComeBack() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        final Address contact = ok.getAddressHeader("Contact");
        final SipURI uri = (SipURI)contact.getURI();
        assertThrows(IllegalStateException.class, () -> uri.setHost("192.0.2.66"), "JSR 289 §4.1.3");
        assertThrows(IllegalStateException.class, () -> uri.setPort(5070));
        assertThrows(IllegalStateException.class, () -> uri.setTransportParam("tcp"));
        assertThrows(IllegalStateException.class, () -> uri.setSecure(true));
        assertThrows(IllegalStateException.class, () -> contact.setURI(SipAddresses.sipUri("x", "192.0.2.66")));
        final String text = writtenText(ok);
        assertTrue(text.matches("(?s).*Contact: <?sip:192\\.0\\.2\\.1:5060>?\r\n.*"), "nothing changed: " + text);
        ok.send();
        assertThrows(IllegalStateException.class, () -> ((SipURI)ok.getAddressHeader("Contact").getURI())
            .setUser("late"), "a sent message is read-only");
    }

    @Test
    void pushRouteOnSubsequentRequestIsRefused() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        invite.createResponse(200).send();
        final SipServletRequest bye = invite.sessionImpl().createRequest("BYE");
        assertThrows(IllegalStateException.class, () -> bye.pushRoute(SipAddresses.sipUri(null, "192.0.2.7")),
            "JSR 289 §11.1.3: subsequent requests follow the route set");
    }

    @Test
    void createResponseAfterFinalResponseIsRefused() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        invite.createResponse(486).send();
        assertThrows(IllegalStateException.class, () -> invite.createResponse(200), "javadoc, explicit");
        assertThrows(IllegalArgumentException.class,
            () -> TestMessages.received(host, TestMessages.INVITE).createResponse(700), "javadoc, explicit");
    }

    @Test
    void sendOfSecondFinalResponseIsRefused() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final javax.servlet.sip.SipServletResponse busy = invite.createResponse(486);
        final javax.servlet.sip.SipServletResponse ok = invite.createResponse(200);
        busy.send();
        assertThrows(IllegalStateException.class, ok::send, "one final response per request");
    }

    @Test
    void setMaxForwardsOutOfRangeIsRefused() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        invite.createResponse(200).send();
        final SipServletRequest bye = invite.sessionImpl().createRequest("BYE");
        assertThrows(IllegalArgumentException.class, () -> bye.setMaxForwards(256), "javadoc, explicit");
        bye.setMaxForwards(0);
        assertEquals(0, bye.getMaxForwards());
    }

    @Test
    void getProxyAfterB2buaHelperIsRefused() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        invite.getB2buaHelper();
        assertThrows(IllegalStateException.class, invite::getProxy, "javadoc: a B2BUA does not proxy");
    }

    @Test
    void getAttributeAfterInvalidateIsRefused()
    {
        final SipApplicationSessionImpl app = TestMessages.received(host, TestMessages.INVITE).sessionImpl()
            .appSession();
        final String id = app.getId();
        app.invalidate();
        assertThrows(IllegalStateException.class, () -> app.getAttribute("x"), "javadoc, explicit");
        assertThrows(IllegalStateException.class, app::invalidate, "javadoc, explicit");
        assertEquals(id, app.getId(), "getId answers after invalidate");
        assertFalse(app.isValid());
    }

    private static String writtenText(final SipServletResponseImpl response)
    {
        final ByteBuf out = Unpooled.buffer();
        try
        {
            MessageWriter.writeResponse(out, response);
            return out.toString(StandardCharsets.UTF_8);
        }
        finally
        {
            out.release();
        }
    }

    /** The response as written on the wire, parsed back. */
    private static SipMessage written(final SipServletResponseImpl response)
    {
        final ByteBuf out = Unpooled.buffer();
        try
        {
            MessageWriter.writeResponse(out, response);
            return TestMessages.parse(out.toString(StandardCharsets.UTF_8));
        }
        finally
        {
            out.release();
        }
    }
}
