package io.sipline.container.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sipline.container.message.SipServletRequestImpl;
import io.sipline.container.message.TestMessages;
import io.sipline.container.session.FakeHost;
import org.junit.jupiter.api.Test;

/** The proxy's pure rules: best response (RFC 3261 §16.7), loop detection (§16.3, §16.6 step 8), Routes (§16.4). */
class ProxyRulesTest
{
    private static final String REQUEST = "INVITE sip:bob@biloxi.example SIP/2.0\r\n"
        + "Via: SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bK776asdhds\r\n"
        + "Max-Forwards: 70\r\n"
        + "From: <sip:alice@atlanta.example>;tag=1928301774\r\n"
        + "To: <sip:bob@biloxi.example>\r\n"
        + "Call-ID: a84b4c76e66710@pc33.atlanta.example\r\n"
        + "CSeq: 314159 INVITE\r\n"
        + "Content-Length: 0\r\n\r\n";

    @Test
    void shouldPrefer6xxThenTheLowestClassThenResubmittable4xx()
    {
        assertTrue(ResponseContext.better(603, 404));
        assertFalse(ResponseContext.better(404, 600));
        assertTrue(ResponseContext.better(302, 404));
        assertTrue(ResponseContext.better(404, 500));
        assertTrue(ResponseContext.better(401, 486), "401 lets the caller resubmit");
        assertFalse(ResponseContext.better(486, 404), "ties keep the earlier response");
        assertEquals(500, ResponseContext.upstreamStatus(503));
        assertEquals(486, ResponseContext.upstreamStatus(486));
    }

    @Test
    void shouldDetectALoopOnlyWhenOurViaCarriesTheSameRequestsHash()
    {
        final FakeHost host = new FakeHost();
        final SipServletRequestImpl first = TestMessages.received(host, REQUEST);
        final String hash = LoopDetection.hash(first);
        assertEquals(8, hash.length());
        final String back = REQUEST.replace("Via: SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bK776asdhds\r\n",
            "Via: SIP/2.0/UDP 192.0.2.7;branch=z9hG4bKother\r\n"
                + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKs00abc." + hash + ";rport\r\n"
                + "Via: SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bK776asdhds\r\n")
            .replace("Max-Forwards: 70", "Max-Forwards: 68");

        assertTrue(LoopDetection.looped(TestMessages.received(host, back), "192.0.2.1", 5060));
        assertFalse(LoopDetection.looped(TestMessages.received(host, back), "192.0.2.1", 5070), "not our port");
        final String spiral = back.replace("INVITE sip:bob@biloxi.example", "INVITE sip:bob@192.0.2.44");
        assertFalse(LoopDetection.looped(TestMessages.received(host, spiral), "192.0.2.1", 5060),
            "a changed Request-URI spirals");
        assertFalse(LoopDetection.looped(first, "192.0.2.1", 5060));
    }

    @Test
    void shouldHashTheRequestUriTheSameFromTheReceivedBytesAndAsText()
    {
        final FakeHost host = new FakeHost();
        final SipServletRequestImpl inPlace = TestMessages.received(host, REQUEST);
        final String hash = LoopDetection.hash(inPlace); // read from the received bytes: no Request-URI String
        assertEquals("." + hash, LoopDetection.branchSuffix(inPlace));
        final SipServletRequestImpl asText = TestMessages.received(host, REQUEST);
        asText.replaceRequestUri(asText.requestUriText());
        assertEquals(hash, LoopDetection.hash(asText), "the same characters hash the same, bytes or text");
        final SipServletRequestImpl other = TestMessages.received(host, REQUEST);
        other.replaceRequestUri("sip:bob@192.0.2.44");
        assertNotEquals(hash, LoopDetection.hash(other));
    }

    @Test
    void shouldReadTheSentByOfAVia()
    {
        assertTrue(LoopDetection.sentBy("SIP/2.0/UDP 192.0.2.1:5060;branch=x", "192.0.2.1", 5060));
        assertTrue(LoopDetection.sentBy("SIP/2.0/TCP 192.0.2.1;branch=x", "192.0.2.1", 5060));
        assertTrue(LoopDetection.sentBy("SIP/2.0/UDP [::1]:5070;branch=x", "[::1]", 5070));
        assertFalse(LoopDetection.sentBy("SIP/2.0/UDP [::1];branch=x", "[::1]", 5070));
        assertFalse(LoopDetection.sentBy("garbage", "192.0.2.1", 5060));
    }

    @Test
    void shouldFindOurKeyAndOurAddressInRoutes()
    {
        assertEquals("s01abc", ProxyRoutes.key("<sip:192.0.2.1:5060;lr;sipline-px=s01abc>"));
        assertEquals("s01abc", ProxyRoutes.key("<sip:192.0.2.1:5060;sipline-px=s01abc;lr>;x=y"));
        assertNull(ProxyRoutes.key("<sip:192.0.2.1:5060;lr>"));
        assertNull(ProxyRoutes.key("<sip:sipline-px@192.0.2.1;lr>"), "the user part is not a parameter");
        assertTrue(ProxyRoutes.isOurs("sip:192.0.2.1:5060;lr", "192.0.2.1", 5060));
        assertTrue(ProxyRoutes.isOurs("sip:192.0.2.1;lr", "192.0.2.1", 5060));
        assertTrue(ProxyRoutes.isOurs("sip:p@[::1]:5070;lr", "[::1]", 5070));
        assertFalse(ProxyRoutes.isOurs("sip:192.0.2.1:5061;lr", "192.0.2.1", 5060));
    }

    @Test
    void shouldPopOurRouteAndKeepItAsThePoppedRoute()
    {
        final FakeHost host = new FakeHost();
        final SipServletRequestImpl r = TestMessages.received(host, REQUEST.replace("Max-Forwards: 70\r\n",
            "Max-Forwards: 70\r\nRoute: <sip:192.0.2.1:5060;lr;x=1>, <sip:next.example;lr>\r\n"));

        ProxyRoutes.popOwnRoute(r, "192.0.2.1", 5060);

        assertEquals("<sip:next.example;lr>", r.headers().get("Route"));
        assertEquals("1", r.getPoppedRoute().getURI().getParameter("x"));
        assertNull(ProxyRoutes.popOwnRoute(r, "192.0.2.1", 5060), "the next Route is not ours");
    }

    @Test
    void shouldRestoreTheRequestUriAStrictRouterReplaced()
    {
        final FakeHost host = new FakeHost();
        final SipServletRequestImpl r = TestMessages.received(host, REQUEST
            .replace("INVITE sip:bob@biloxi.example", "INVITE sip:192.0.2.1:5060;lr;sipline-px=s00abc")
            .replace("Max-Forwards: 70\r\n", "Max-Forwards: 70\r\nRoute: <sip:bob@192.0.2.50>\r\n"));

        assertTrue(ProxyRoutes.restoreRequestUri(r));

        assertEquals("sip:bob@192.0.2.50", r.requestUriText());
        assertNull(r.headers().get("Route"));
    }

    @Test
    void shouldRewriteForAStrictNextHop()
    {
        final FakeHost host = new FakeHost();
        final SipServletRequestImpl r = TestMessages.received(host, REQUEST.replace("Max-Forwards: 70\r\n",
            "Max-Forwards: 70\r\nRoute: <sip:strict.example>, <sip:loose.example;lr>\r\n"));
        final SipServletRequestImpl out = SipServletRequestImpl.forwardOf(r, r.requestUriText());

        ProxyRoutes.forStrictNextHop(out);

        assertEquals("sip:strict.example", out.requestUriText());
        assertEquals("sip:strict.example", out.nextHopUri());
        assertEquals(java.util.List.of("<sip:loose.example;lr>", "<sip:bob@biloxi.example>"),
            out.headers().getAll("Route"));
        assertEquals(69, out.getMaxForwards());
    }
}
