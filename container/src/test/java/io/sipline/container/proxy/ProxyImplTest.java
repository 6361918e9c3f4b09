package io.sipline.container.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import javax.servlet.sip.ProxyBranch;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.TooManyHopsException;
import javax.servlet.sip.URI;

import io.sipline.container.address.SipAddresses;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.api.TestMessages;
import io.sipline.container.api.FakeHost;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy's state machine on a fake shard (JSR 289 §10, RFC 3261 §16): what each branch sends, which response
 * goes upstream and when, CANCEL of the losing branches, sequential search by timeout, 3xx recursion, record-route.
 */
class ProxyImplTest
{
    private static final String INVITE = "INVITE sip:bob@biloxi.example SIP/2.0\r\n"
        + "Via: SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bK776asdhds\r\n"
        + "Max-Forwards: 70\r\n"
        + "From: <sip:alice@atlanta.example>;tag=1928301774\r\n"
        + "To: <sip:bob@biloxi.example>\r\n"
        + "Call-ID: a84b4c76e66710@pc33.atlanta.example\r\n"
        + "CSeq: 314159 INVITE\r\n"
        + "Contact: <sip:alice@192.0.2.9:5062>\r\n"
        + "Content-Length: 0\r\n\r\n";

    private FakeHost host;
    private SipServletRequestImpl invite;
    private ProxyImpl proxy;

    @BeforeEach
    void setUp() throws Exception
    {
        host = new FakeHost();
        invite = TestMessages.received(host, INVITE);
        proxy = (ProxyImpl)invite.getProxy();
    }

    private static URI uri(final String text) throws Exception
    {
        return SipAddresses.parseUri(text);
    }

    /** A response from downstream on the branch whose request is {@code request}, as the dispatch layer gives it. */
    private void respond(final SipServletRequestImpl request, final int status, final String... headers)
    {
        final StringBuilder sb = new StringBuilder("SIP/2.0 ").append(status).append(" Status\r\n")
            .append("Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKs00bx.00000000\r\n")
            .append("Via: SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bK776asdhds\r\n")
            .append("From: <sip:alice@atlanta.example>;tag=1928301774\r\n")
            .append("To: <sip:bob@biloxi.example>").append(status > 100 ? ";tag=callee" + status : "").append("\r\n")
            .append("Call-ID: a84b4c76e66710@pc33.atlanta.example\r\n")
            .append("CSeq: 314159 INVITE\r\n");
        for (final String h : headers)
        {
            sb.append(h).append("\r\n");
        }
        sb.append("Content-Length: 0\r\n\r\n");
        final SipServletResponseImpl r = SipServletResponseImpl.received(TestMessages.parse(sb.toString()), request,
            TestMessages.PEER, TestMessages.LOCAL);
        if (status < 200)
        {
            request.provisionalReceived(true);
        }
        else if (null == request.finalResponse())
        {
            request.finalResponse(r);
        }
        ((ProxyBranchImpl)request.proxyBranch()).onResponse(r);
    }

    /** The response as the container writes it on the wire. */
    private static String written(final SipServletResponseImpl response)
    {
        final io.netty.buffer.ByteBuf out = io.netty.buffer.Unpooled.buffer(1024);
        try
        {
            io.sipline.container.api.MessageWriter.writeResponse(out, response);
            return out.toString(java.nio.charset.StandardCharsets.UTF_8);
        }
        finally
        {
            out.release();
        }
    }

    private SipServletRequestImpl sent(final int i)
    {
        return host.requests.get(i);
    }

    private List<Integer> upstream()
    {
        return host.responses.stream().map(SipServletResponseImpl::getStatus).toList();
    }

    @Test
    void shouldSendOneRequestPerTargetWithMaxForwardsDecrementedAndTheLoopHash() throws Exception
    {
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20"), uri("sip:b@192.0.2.21")));

        assertEquals(2, host.requests.size());
        assertEquals("sip:a@192.0.2.20", sent(0).requestUriText());
        assertEquals("sip:b@192.0.2.21", sent(1).requestUriText());
        assertEquals(69, sent(0).getMaxForwards());
        assertEquals("." + LoopDetection.hash(invite), sent(0).branchSuffix());
        assertEquals(invite.getHeader("Call-ID"), sent(1).getHeader("Call-ID"));
        assertEquals(2, proxy.getProxyBranches().size());
        assertTrue(proxy.getProxyBranches().stream().allMatch(ProxyBranch::isStarted));
    }

    @Test
    void shouldForwardTheFirst2xxAtOnceAndCancelTheRingingBranch() throws Exception
    {
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20"), uri("sip:b@192.0.2.21")));
        final SipServletRequestImpl a = sent(0);
        final SipServletRequestImpl b = sent(1);
        respond(a, 180);
        assertEquals(List.of(180), upstream());

        respond(b, 200);

        assertEquals(List.of(180, 200), upstream());
        final String ok = written(host.responses.get(1));
        assertEquals(1, ok.split("\r\nVia: ", -1).length - 1, "our Via is removed:\n" + ok);
        assertTrue(ok.contains("\r\nVia: SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bK776asdhds\r\n"), ok);
        final SipServletRequestImpl cancel = sent(2);
        assertEquals("CANCEL", cancel.getMethod());
        assertSame(a, cancel.cancelled());
        assertTrue(cancel.getHeader("Reason").contains("cause=200"), cancel.getHeader("Reason"));
    }

    @Test
    void shouldForwardWhatTheApplicationEditedInDoResponse() throws Exception
    {
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20")));
        host.servlet = r ->
        {
            try
            {
                r.getAddressHeader("P-Asserted-Identity").setDisplayName("Bob");
                r.setHeader("X-Seen", String.valueOf(r.getStatus()));
                r.setContent("v=0\r\n", "application/sdp");
            }
            catch (final Exception e)
            {
                throw new AssertionError(e);
            }
        };
        respond(sent(0), 180, "P-Asserted-Identity: <sip:bob@biloxi.example>");
        respond(sent(0), 200, "P-Asserted-Identity: <sip:bob@biloxi.example>");

        assertEquals(List.of(180, 200), upstream());
        for (final SipServletResponseImpl up : host.responses)
        {
            final String text = written(up);
            assertTrue(text.contains("\r\nP-Asserted-Identity: Bob <sip:bob@biloxi.example>\r\n"), text);
            assertTrue(text.contains("\r\nX-Seen: " + up.getStatus() + "\r\n"), text);
            assertTrue(text.endsWith("Content-Length: 5\r\n\r\nv=0\r\n"), text);
        }
        final SipServletResponseImpl received = (SipServletResponseImpl)host.delivered.get(1)[2];
        assertThrows(IllegalStateException.class, () -> received.setHeader("X-Late", "1"),
            "committed once forwarded (JSR 289 §5.2)");
    }

    @Test
    void shouldForwardTheBestFinalResponseAsTheApplicationEditedIt() throws Exception
    {
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20")));
        host.servlet = r -> r.setHeader("X-Seen", "best");
        respond(sent(0), 486);

        assertEquals(List.of(486), upstream());
        assertTrue(written(host.responses.get(0)).contains("\r\nX-Seen: best\r\n"));
    }

    @Test
    void shouldHoldA486UntilTheOtherBranchAnswers() throws Exception
    {
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20"), uri("sip:b@192.0.2.21")));
        respond(sent(0), 486);
        assertEquals(List.of(), upstream(), "a branch's 486 waits for the other branch");
        final SipServletResponseImpl branchResponse = (SipServletResponseImpl)host.delivered.getLast()[2];
        assertTrue(branchResponse.isBranchResponse(), "supervised: doBranchResponse");

        respond(sent(1), 200);

        assertEquals(List.of(200), upstream());
        assertFalse(((SipServletResponseImpl)host.delivered.getLast()[2]).isBranchResponse());
    }

    @Test
    void shouldForwardTheBestFinalResponseWhenEveryBranchFailed() throws Exception
    {
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20"), uri("sip:b@192.0.2.21"), uri("sip:c@192.0.2.22")));
        respond(sent(0), 503);
        respond(sent(1), 486);
        assertEquals(List.of(), upstream());

        respond(sent(2), 404);

        assertEquals(List.of(486), upstream(), "the lowest class, the first of it (RFC 3261 §16.7 step 6)");
        assertNotNull(invite.finalResponse());
    }

    @Test
    void shouldSendA503UpstreamAs500() throws Exception
    {
        proxy.proxyTo(uri("sip:a@192.0.2.20"));
        respond(sent(0), 503);
        assertEquals(List.of(500), upstream());
    }

    @Test
    void shouldEndTheSearchOnA6xxAndCancelTheOthers() throws Exception
    {
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20"), uri("sip:b@192.0.2.21")));
        respond(sent(1), 180);
        respond(sent(0), 603);
        assertEquals("CANCEL", sent(2).getMethod());
        assertThrows(IllegalStateException.class, () -> proxy.proxyTo(uri("sip:c@192.0.2.22")));

        respond(sent(1), 487);

        assertEquals(List.of(180, 603), upstream());
    }

    @Test
    void shouldAggregateTheChallengesOfEvery401And407() throws Exception
    {
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20"), uri("sip:b@192.0.2.21")));
        respond(sent(0), 401, "WWW-Authenticate: Digest realm=\"a\", nonce=\"1\"");
        respond(sent(1), 407, "Proxy-Authenticate: Digest realm=\"b\", nonce=\"2\"");

        assertEquals(List.of(401), upstream());
        final String out = written(host.responses.getFirst());
        assertTrue(out.contains("WWW-Authenticate: Digest realm=\"a\""), out);
        assertTrue(out.contains("Proxy-Authenticate: Digest realm=\"b\""), "RFC 3261 §16.7 step 7:\n" + out);
        assertEquals(1, out.split("\r\nVia: ", -1).length - 1, out);
    }

    @Test
    void shouldTryTheNextTargetWhenABranchTimesOutInASequentialSearch() throws Exception
    {
        proxy.setParallel(false);
        proxy.setProxyTimeout(5);
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20"), uri("sip:b@192.0.2.21"), uri("sip:c@192.0.2.22")));
        assertEquals(1, host.requests.size(), "one branch at a time");
        respond(sent(0), 180);

        host.advance(5_000);

        assertEquals("CANCEL", sent(1).getMethod(), "the ringing branch is cancelled at its timeout");
        assertEquals("sip:b@192.0.2.21", sent(2).requestUriText(), "and the next target tried at once");
        respond(sent(0), 487);
        host.advance(5_000); // b never answers anything: no CANCEL possible, the branch just ends
        assertEquals("sip:c@192.0.2.22", sent(3).requestUriText());

        respond(sent(3), 200);

        assertEquals(List.of(180, 200), upstream());
    }

    @Test
    void shouldAnswer408WhenNoBranchAnswersAnything() throws Exception
    {
        proxy.setProxyTimeout(3);
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20"), uri("sip:b@192.0.2.21")));
        host.advance(3_000);
        assertEquals(List.of(408), upstream());
    }

    @Test
    void shouldRecurseOnTheContactsOfA3xx() throws Exception
    {
        proxy.proxyTo(uri("sip:a@192.0.2.20"));
        respond(sent(0), 302, "Contact: <sip:moved@192.0.2.30>");

        assertEquals("sip:moved@192.0.2.30", sent(1).requestUriText());
        final ProxyBranch first = proxy.getProxyBranches().getFirst();
        assertEquals(1, first.getRecursedProxyBranches().size());
        assertEquals(List.of(), upstream(), "the 3xx whose contacts were all tried is not kept");

        respond(sent(1), 200);

        assertEquals(List.of(200), upstream());
    }

    @Test
    void shouldForwardThe3xxWhenRecursionIsOff() throws Exception
    {
        proxy.setRecurse(false);
        proxy.proxyTo(uri("sip:a@192.0.2.20"));
        respond(sent(0), 302, "Contact: <sip:moved@192.0.2.30>");
        assertEquals(1, host.requests.size());
        assertEquals(List.of(302), upstream());
        assertTrue(host.responses.getFirst().getHeader("Contact").contains("moved"));
    }

    @Test
    void shouldRecordRouteWithAKeyThatFindsTheSession() throws Exception
    {
        proxy.setRecordRoute(true);
        final SipURI rr = proxy.getRecordRouteURI();
        rr.setParameter("app", "x");
        proxy.proxyTo(uri("sip:a@192.0.2.20"));

        final String recordRoute = sent(0).headers().get("Record-Route");
        assertTrue(recordRoute.startsWith("<sip:192.0.2.1:5060;lr"), recordRoute);
        assertTrue(recordRoute.contains("app=x"), recordRoute);
        final String key = ProxyRoutes.key(recordRoute);
        assertNotNull(key, recordRoute);
        assertSame(invite.sessionImpl(), host.table.dialog(invite.getCallId(), key));
        assertThrows(IllegalStateException.class, () -> proxy.setRecordRoute(false), "decided before the start");
    }

    @Test
    void shouldCancelEveryBranchOnAnUpstreamCancelAndForwardThe487() throws Exception
    {
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20"), uri("sip:b@192.0.2.21")));
        respond(sent(0), 180);
        respond(sent(1), 183);

        proxy.cancelFromUpstream();

        assertEquals("CANCEL", sent(2).getMethod());
        assertEquals("CANCEL", sent(3).getMethod());
        respond(sent(0), 487);
        respond(sent(1), 487);
        assertEquals(List.of(180, 183, 487), upstream());
    }

    @Test
    void shouldForwardEvery2xxOfAForkedInvite() throws Exception
    {
        proxy.setNoCancel(true);
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20"), uri("sip:b@192.0.2.21")));
        respond(sent(0), 180);
        respond(sent(1), 200);
        assertEquals(2, host.requests.size(), "noCancel: the ringing branch is not cancelled");

        respond(sent(0), 200);

        assertEquals(List.of(180, 200, 200), upstream(), "RFC 3261 §16.7 step 5: every 2xx goes upstream");
    }

    @Test
    void shouldCancelThePendingBranchesWhenTheApplicationCancels() throws Exception
    {
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20"), uri("sip:b@192.0.2.21")));
        respond(sent(0), 180);
        respond(sent(1), 180);

        proxy.cancel(new String[] {"SIP"}, new int[] {480}, new String[] {"Gone"});

        assertEquals("CANCEL", sent(2).getMethod());
        assertEquals("SIP;cause=480;text=\"Gone\"", sent(2).getHeader("Reason"));
        assertEquals("CANCEL", sent(3).getMethod());
        assertThrows(IllegalStateException.class, () -> proxy.proxyTo(uri("sip:c@192.0.2.22")));
        respond(sent(0), 487);
        respond(sent(1), 487);
        assertEquals(List.of(180, 180, 487), upstream());
    }

    @Test
    void shouldPushPathOnARegisterWhenAskedTo() throws Exception
    {
        final SipServletRequestImpl register = TestMessages.received(host, INVITE.replace("INVITE", "REGISTER")
            .replace("CSeq: 314159 REGISTER", "CSeq: 1 REGISTER"));
        final ProxyImpl registrar = (ProxyImpl)register.getProxy();
        registrar.setAddToPath(true);
        registrar.getPathURI().setParameter("ob", "");
        registrar.proxyTo(uri("sip:registrar@192.0.2.40"));

        final String path = sent(0).headers().get("Path");
        assertTrue(path.startsWith("<sip:192.0.2.1:5060;lr"), path);
        assertTrue(path.contains("ob"), path);
        assertNull(sent(0).headers().get("Record-Route"), "no record-route asked for");
    }

    @Test
    void shouldRefuseToProxyARequestWithoutHopsLeft() throws Exception
    {
        final SipServletRequestImpl tired = TestMessages.received(host, INVITE.replace("Max-Forwards: 70",
            "Max-Forwards: 0"));
        assertThrows(TooManyHopsException.class, tired::getProxy);
    }

    @Test
    void shouldRefuseNonSipTargetsAndIgnoreDuplicates() throws Exception
    {
        assertThrows(IllegalArgumentException.class, () -> proxy.proxyTo(uri("tel:+15551234")));
        proxy.proxyTo(List.of(uri("sip:a@192.0.2.20"), uri("sip:a@192.0.2.20")));
        assertEquals(1, host.requests.size());
        assertNull(proxy.getProxyBranch(uri("sip:z@192.0.2.99")));
    }
}
