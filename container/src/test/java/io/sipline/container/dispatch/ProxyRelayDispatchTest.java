package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import javax.servlet.ServletException;
import javax.servlet.sip.Proxy;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;

import org.junit.jupiter.api.Test;

/**
 * A BYE in a dialog a record-routing proxy application set up, through the container with raw {@link SipPeer}s on
 * both sides: the container forwards the received BYE itself when the servlet does not ask for its proxy
 * ({@code ProxyRelay}), and through a {@code ProxyImpl} when it does. Either way the servlet sees the BYE
 * ({@code isInitial()} false) and its response, the callee gets the BYE with Max-Forwards decremented and our Via on
 * top, and the caller gets the callee's response without our Via.
 */
class ProxyRelayDispatchTest
{
    /**
     * Proxies initial requests to the {@code target} context parameter, record-routing. Records each BYE and each
     * response to a BYE; on a BYE calls {@code getProxy()} when {@link #proxyInBye} is set.
     */
    public static final class RecordingProxy extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        final transient Queue<String> seen = new ConcurrentLinkedQueue<>();
        final transient AtomicInteger byes = new AtomicInteger();
        volatile boolean proxyInBye;
        transient volatile SipServletRequest bye;

        @Override
        protected void doInvite(final SipServletRequest req) throws ServletException, IOException
        {
            final Proxy proxy = req.getProxy();
            proxy.setRecordRoute(true);
            proxy.setSupervised(true);
            final SipFactory factory = (SipFactory)getServletContext().getAttribute(SIP_FACTORY);
            proxy.proxyTo(factory.createURI(getServletContext().getInitParameter("target")));
        }

        @Override
        protected void doBye(final SipServletRequest req) throws ServletException, IOException
        {
            byes.incrementAndGet();
            bye = req;
            seen.add("BYE initial=" + req.isInitial());
            if (proxyInBye)
            {
                final Proxy proxy = req.getProxy();
                seen.add("proxy subsequent started=" + ((io.sipline.container.proxy.ProxyImpl)proxy).isStarted());
            }
        }

        @Override
        protected void doResponse(final SipServletResponse resp) throws ServletException, IOException
        {
            if (!"BYE".equals(resp.getMethod()))
            {
                return;
            }
            final Proxy proxy = resp.getProxy();
            seen.add(resp.getStatus() + " BYE proxy=" + (null != proxy) + " original="
                + (null != proxy && proxy.getOriginalRequest() == bye) + " branch=" + (null != resp.getProxyBranch())
                + " same=" + (resp.getRequest() == bye ? "bye" : "branch"));
        }
    }

    @Test
    void shouldRelayTheByeItselfAndItsTwoHundredWhenTheServletDoesNotAskForTheProxy() throws Exception
    {
        final RecordingProxy app = new RecordingProxy();
        final String ok = call(app, "relay-200", 200, () ->
        {
            // after the call, on the test's thread: the BYE's proxy, made on demand, describes what happened
            final SipServletRequest bye = app.bye;
            final Proxy proxy = bye.getProxy();
            assertTrue(((io.sipline.container.proxy.ProxyImpl)proxy).isStarted());
            assertEquals(1, proxy.getProxyBranches().size());
            assertEquals(200, proxy.getProxyBranches().get(0).getResponse().getStatus());
            assertThrows(IllegalStateException.class, () -> proxy.proxyTo(bye.getRequestURI()),
                "the container proxies a relayed BYE once");
            assertThrows(IllegalStateException.class, () -> bye.createResponse(200),
                "a proxied request is answered by the callee's response");
        });
        assertTrue(ok.startsWith("SIP/2.0 200 OK\r\n"), ok);
        assertEquals(List.of("BYE initial=false", "200 BYE proxy=true original=true branch=true same=bye"),
            List.copyOf(app.seen), "doBye, then doResponse with the proxy made on demand, its one branch the BYE");
    }

    @Test
    void shouldProxyTheByeWithAProxyObjectWhenTheServletAsksForIt() throws Exception
    {
        final RecordingProxy app = new RecordingProxy();
        app.proxyInBye = true;
        final String ok = call(app, "proxied-200", 200, () -> { });
        assertTrue(ok.startsWith("SIP/2.0 200 OK\r\n"), ok);
        assertEquals(List.of("BYE initial=false", "proxy subsequent started=false",
            "200 BYE proxy=true original=true branch=true same=branch"), List.copyOf(app.seen),
            "the full proxy path: the branch's copy of the BYE carries the response");
    }

    @Test
    void shouldRelayA481ToTheBye() throws Exception
    {
        final RecordingProxy app = new RecordingProxy();
        final String answer = call(app, "relay-481", 481, () -> { });
        assertTrue(answer.startsWith("SIP/2.0 481 Call/Transaction Does Not Exist\r\n"), answer);
        assertEquals(List.of("BYE initial=false", "481 BYE proxy=true original=true branch=true same=bye"),
            List.copyOf(app.seen));
    }

    @Test
    void shouldRelayARetransmittedByeOnceAndAnswerItsRetransmissionAfterTheFinalResponse() throws Exception
    {
        final RecordingProxy app = new RecordingProxy();
        try (ContainerServer server = TestApps.server();
            SipPeer caller = new SipPeer(DispatchSippTest.address(server));
            SipPeer callee = new SipPeer(DispatchSippTest.address(server)))
        {
            final String[] dialog = establish(server, app, caller, callee, "relay-again");
            final String bye = bye(dialog, "relay-again");
            caller.send(bye);
            final String first = callee.await(m -> m.startsWith("BYE "), "the BYE");
            caller.send(bye); // the caller's retransmission: the server transaction absorbs it
            caller.send(bye);
            callee.send(answer(first, "200 OK"));
            caller.await(SipPeer.response(200, "BYE"), "the 200 to the BYE");
            caller.send(bye); // after the final response: the server transaction sends the 200 again
            caller.await(SipPeer.response(200, "BYE"), "the 200 again for the BYE's retransmission");
            assertEquals(1, app.byes.get(), "the servlet sees the BYE once");
            for (final String m : callee.received())
            {
                if (m.startsWith("BYE "))
                {
                    assertEquals(SipPeer.header(first, "Via"), SipPeer.header(m, "Via"),
                        "every BYE the callee got is the one client transaction's");
                }
            }
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call ends: "
                + server.applicationSessions());
            assertEquals(0, server.counters().servletErrors.get());
        }
    }

    /** A call through the proxy, hung up by the caller; the callee answers the BYE with {@code status}. */
    private static String call(final RecordingProxy app, final String callId, final int status,
        final Checks afterwards) throws Exception
    {
        try (ContainerServer server = TestApps.server();
            SipPeer caller = new SipPeer(DispatchSippTest.address(server));
            SipPeer callee = new SipPeer(DispatchSippTest.address(server)))
        {
            final String[] dialog = establish(server, app, caller, callee, callId);
            caller.send(bye(dialog, callId));
            final String bye = callee.await(m -> m.startsWith("BYE "), "the BYE at the callee");
            assertTrue(bye.startsWith("BYE sip:bob@127.0.0.1:" + callee.port() + " SIP/2.0\r\n"), bye);
            assertEquals("69", SipPeer.header(bye, "Max-Forwards"), "RFC 3261 §16.6 step 3");
            assertNull(SipPeer.header(bye, "Route"), "our Route popped, no other");
            final String topVia = SipPeer.header(bye, "Via");
            assertTrue(topVia.contains(":" + DispatchSippTest.address(server).getPort() + ";"), topVia);
            assertTrue(bye.contains("branch=z9hG4bK-" + callId + "-bye"), "the caller's Via stays below ours");
            callee.send(answer(bye, 200 == status ? "200 OK" : status + " Call/Transaction Does Not Exist"));
            final String back = caller.await(SipPeer.response(status, "BYE"), "the response to the BYE");
            assertEquals("SIP/2.0/UDP 127.0.0.1:" + caller.port() + ";branch=z9hG4bK-" + callId + "-bye",
                SipPeer.header(back, "Via"), "our Via taken off (RFC 3261 §16.7 step 9)");
            assertEquals(1, back.split("\r\nVia:", -1).length - 1, "one Via: the caller's");
            if (200 == status)
            {
                assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call ends: "
                    + server.applicationSessions());
            }
            assertEquals(0, server.counters().servletErrors.get());
            assertFalse(app.seen.isEmpty());
            afterwards.run();
            return back;
        }
    }

    /** Assertions run while the server still runs. */
    @FunctionalInterface
    private interface Checks
    {
        void run() throws Exception;
    }

    /**
     * INVITE from the caller through the proxy to the callee, 200 back, ACK along the Record-Route.
     *
     * @return the dialog as the caller sees it: {To with tag, Route value, callee's Contact URI}.
     */
    private static String[] establish(final ContainerServer server, final RecordingProxy app, final SipPeer caller,
        final SipPeer callee, final String callId) throws Exception
    {
        server.registry().onDeployed(TestApps.application("rr-proxy", app,
            Map.of("target", "sip:bob@127.0.0.1:" + callee.port())));
        caller.send(TestApps.request("INVITE", callId));
        final String invite = callee.await(m -> m.startsWith("INVITE "), "the proxied INVITE");
        final String recordRoute = SipPeer.header(invite, "Record-Route");
        assertNotNull(recordRoute, invite);
        final StringBuilder ok = withVias("200 OK", invite);
        SipPeer.copyHeaders(invite, ok, "Record-Route", "From", "Call-ID", "CSeq");
        ok.append("To: ").append(SipPeer.header(invite, "To")).append(";tag=b1\r\n");
        ok.append("Contact: <sip:bob@127.0.0.1:").append(callee.port()).append(">\r\nContent-Length: 0\r\n\r\n");
        callee.send(ok.toString());
        final String answered = caller.await(SipPeer.response(200, "INVITE"), "the 200 to the INVITE");
        final String to = SipPeer.header(answered, "To");
        final String contact = "sip:bob@127.0.0.1:" + callee.port();
        caller.send(inDialog("ACK", callId, to, 1, callId + "-ack", recordRoute, contact));
        callee.await(m -> m.startsWith("ACK "), "the ACK");
        return new String[] {to, recordRoute, contact};
    }

    /** The callee's response {@code statusLine} to a request: every Via, From, To, Call-ID, CSeq. */
    private static String answer(final String request, final String statusLine)
    {
        final StringBuilder b = withVias(statusLine, request);
        SipPeer.copyHeaders(request, b, "From", "To", "Call-ID", "CSeq");
        return b.append("Content-Length: 0\r\n\r\n").toString();
    }

    /** A status line and every Via line of {@code request}, in order (RFC 3261 §8.2.6.2). */
    private static StringBuilder withVias(final String statusLine, final String request)
    {
        final StringBuilder b = new StringBuilder("SIP/2.0 ").append(statusLine).append("\r\n");
        for (final String line : request.split("\r\n"))
        {
            if (line.startsWith("Via:"))
            {
                b.append(line).append("\r\n");
            }
        }
        return b;
    }

    private static String bye(final String[] dialog, final String callId)
    {
        return inDialog("BYE", callId, dialog[0], 2, callId + "-bye", dialog[1], dialog[2]);
    }

    /** A request of the caller in the dialog, to the callee's Contact along the Route of our Record-Route. */
    private static String inDialog(final String method, final String callId, final String to, final int cseq,
        final String branch, final String route, final String target)
    {
        return SipPeer.inDialog(method, callId, to, cseq, branch, "Route: " + route + "\r\n")
            .replaceFirst("sip:service@127.0.0.1", target);
    }
}
