package io.sipline.container.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.TestMessages;
import io.sipline.container.api.FakeHost;
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
    void shouldPopBothEntriesOfADoubleRecordRouteAndNoOtherRoute()
    {
        final FakeHost host = new FakeHost();
        final String routes = "Route: <sip:192.0.2.1:5070;transport=tcp;lr;sipline-px=s01abc>\r\n"
            + "Route: <sip:192.0.2.1:5060;lr;sipline-px=s01abc>\r\n"
            + "Route: <sip:192.0.2.1:5060;lr;sipline-px=s01zzz>\r\n";
        final SipServletRequestImpl r = TestMessages.received(host, REQUEST.replace("Max-Forwards: 70\r\n",
            "Max-Forwards: 70\r\n" + routes));

        ProxyRoutes.popKeyedRoute(r); // RFC 5658: both entries carry our key; the third is another session's

        assertEquals(java.util.List.of("<sip:192.0.2.1:5060;lr;sipline-px=s01zzz>"), r.headers().getAll("Route"));
        assertEquals("tcp", ((javax.servlet.sip.SipURI)r.getPoppedRoute().getURI()).getTransportParam(),
            "the popped Route stays the first");

        final SipServletRequestImpl one = TestMessages.received(host, REQUEST.replace("Max-Forwards: 70\r\n",
            "Max-Forwards: 70\r\nRoute: <sip:192.0.2.1:5060;lr;sipline-px=s01abc>, <sip:next.example;lr>\r\n"));
        ProxyRoutes.popKeyedRoute(one);
        assertEquals(java.util.List.of("<sip:next.example;lr>"), one.headers().getAll("Route"), "one entry: one pop");
    }

    @Test
    void shouldPopOurRouteOnAnyOfOurPortsWithItsDoubleRecordRouteEntry()
    {
        final FakeHost host = new FakeHost();
        final int[] ports = {5060, 5070, 5071};
        final SipServletRequestImpl r = TestMessages.received(host, REQUEST.replace("Max-Forwards: 70\r\n",
            "Max-Forwards: 70\r\nRoute: <sips:192.0.2.1:5071;lr;sipline-px=k1>, <sip:192.0.2.1;lr;sipline-px=k1>, "
                + "<sip:192.0.2.1:5070;transport=tcp;lr>\r\n"));

        assertNotNull(ProxyRoutes.popOwnRoute(r, "192.0.2.1", ports));

        assertEquals(java.util.List.of("<sip:192.0.2.1:5070;transport=tcp;lr>"), r.headers().getAll("Route"),
            "the two entries with one key went; a route without it is popped only on its own");
        assertTrue(ProxyRoutes.isOurs("sip:192.0.2.1:5070;transport=tcp;lr", "192.0.2.1", ports));
        assertTrue(ProxyRoutes.isOurs("sips:192.0.2.1;lr", "192.0.2.1", new int[] {5060, -1, 5061}),
            "RFC 3263 §4.2: 5061 is the default port of sips");
        assertFalse(ProxyRoutes.isOurs("sip:192.0.2.1:5072;lr", "192.0.2.1", ports));
    }

    @Test
    void shouldWriteTheRecordRouteOfEachTransportWithTheApplicationsParameters() throws Exception
    {
        final FakeHost host = new FakeHost();
        final ProxyImpl proxy = (ProxyImpl)TestMessages.received(host, REQUEST).getProxy();
        final String udp = proxy.recordRouteValue();
        final String key = ProxyRoutes.key(udp);
        assertNotNull(key);
        assertEquals("<sip:192.0.2.1:5060;lr;sipline-px=" + key + ">", udp);
        assertEquals("<sip:192.0.2.1:5070;transport=tcp;lr;sipline-px=" + key + ">",
            proxy.recordRouteValue("TCP", 5070, null));
        assertEquals("<sips:192.0.2.1:5071;lr;sipline-px=" + key + ">", proxy.recordRouteValue("TLS", 5071, null));

        proxy.setRecordRoute(true);
        proxy.getRecordRouteURI().setParameter("app", "x");
        final String tcp = proxy.recordRouteValue("TCP", 5070, null);
        assertTrue(tcp.startsWith("<sip:192.0.2.1:5070;"), tcp);
        assertTrue(tcp.contains(";transport=tcp") && tcp.contains(";app=x") && tcp.contains(";lr"), tcp);
        assertEquals(key, ProxyRoutes.key(tcp));
        final String tls = proxy.recordRouteValue("TLS", 5071, null);
        assertTrue(tls.startsWith("<sips:192.0.2.1:5071;"), tls);
        assertTrue(tls.contains(";app=x"), tls);
    }

    /** RFC 7118 §5.2 and RFC 5626 §5.3: a WS side's entry says transport=ws; a flow token is the user part, with ob. */
    @Test
    void shouldWriteTheWebSocketRecordRouteAndTheFlowToken() throws Exception
    {
        final FakeHost host = new FakeHost();
        final ProxyImpl proxy = (ProxyImpl)TestMessages.received(host, REQUEST).getProxy();
        final String key = ProxyRoutes.key(proxy.recordRouteValue());
        assertEquals("<sip:192.0.2.1:5066;transport=ws;lr;sipline-px=" + key + ">",
            proxy.recordRouteValue("WS", 5066, null));
        assertEquals("<sip:T0k-en_@192.0.2.1:7443;transport=ws;lr;ob;sipline-px=" + key + ">",
            proxy.recordRouteValue("WSS", 7443, "T0k-en_"));
        assertEquals("<sip:T0k-en_@192.0.2.1:5060;lr;ob;sipline-px=" + key + ">",
            proxy.recordRouteValue("UDP", 5060, "T0k-en_"));
        assertEquals("<sip:T0k-en_@192.0.2.1:5060;lr;ob>", proxy.pathValue("UDP", 5060, "T0k-en_"));
        assertEquals("<sip:T0k-en_@192.0.2.1:5070;transport=tcp;lr;ob>", proxy.pathValue("TCP", 5070, "T0k-en_"));

        proxy.setRecordRoute(true);
        proxy.getRecordRouteURI().setParameter("app", "x");
        final String ws = proxy.recordRouteValue("WS", 5066, "T0k-en_");
        assertTrue(ws.startsWith("<sip:T0k-en_@192.0.2.1:5066;"), ws);
        assertTrue(ws.contains(";transport=ws") && ws.contains(";app=x") && ws.contains(";ob"), ws);
        assertEquals(key, ProxyRoutes.key(ws));
    }

    @Test
    void shouldFitTheBranchRecordRouteToTheTransportsAgainWhenTheOutgoingOneChanges() throws Exception
    {
        final FakeHost host = new FakeHost();
        final ProxyImpl proxy = (ProxyImpl)TestMessages.received(host, REQUEST).getProxy();
        proxy.setRecordRoute(true);
        proxy.proxyTo(io.sipline.container.address.SipAddresses.parseUri("sip:bob@192.0.2.44"));
        final ProxyBranchImpl branch = (ProxyBranchImpl)proxy.getProxyBranches().get(0);
        final SipServletRequestImpl out = (SipServletRequestImpl)branch.getRequest();
        final String udp = proxy.recordRouteValue();
        assertEquals(java.util.List.of(udp), out.headers().getAll("Record-Route"), "as start() wrote it");

        branch.fitRecordRoute("UDP", 5060, "UDP", 5060, null);
        assertEquals(java.util.List.of(udp), out.headers().getAll("Record-Route"), "UDP on both sides: unchanged");

        branch.fitRecordRoute("TCP", 5070, "UDP", 5060, null); // came over TCP, leaves over UDP
        final String tcp = proxy.recordRouteValue("TCP", 5070, null);
        assertEquals(java.util.List.of(udp, tcp), out.headers().getAll("Record-Route"),
            "RFC 5658: the outgoing side's entry on top, the incoming side's under it");

        // RFC 3261 §18.1.1: too large for UDP, it goes over TCP
        branch.fitRecordRoute("TCP", 5070, "TCP", 5070, null);
        assertEquals(java.util.List.of(tcp), out.headers().getAll("Record-Route"), "one transport: one entry");

        // a WebSocket client upstream: both entries name its flow, even with UDP on the other side
        branch.fitRecordRoute("WS", 5066, "UDP", 5060, "T0k-en_");
        assertEquals(java.util.List.of(proxy.recordRouteValue("UDP", 5060, "T0k-en_"),
            proxy.recordRouteValue("WS", 5066, "T0k-en_")), out.headers().getAll("Record-Route"));
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
