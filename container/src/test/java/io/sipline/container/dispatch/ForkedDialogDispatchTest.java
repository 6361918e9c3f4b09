package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import javax.servlet.ServletException;
import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipSession;

import org.junit.jupiter.api.Test;


/**
 * Derived sessions (JSR 289 §6.2.3.2) for a forked INVITE: the container's INVITE is answered by two 2xx of different
 * To tags (a forking proxy downstream, played by one raw {@link SipPeer} sending both, the second 2xx's Contact naming
 * a second peer). RFC 3261 §13.2.2.4: the UAC core ACKs every 2xx, each to its own dialog's remote target, and ends
 * with BYE a dialog it does not want. T1 is 25 ms.
 */
class ForkedDialogDispatchTest
{
    private static final long T1_NS = 25_000_000L;

    /**
     * A UAC application: records each 2xx (method, the session's remote tag, whether it is the session of the
     * INVITE), ACKs the 2xx of the first dialog always, of another dialog unless told not to ({@code ackForks}), and
     * answers BYE 200 recording its session.
     */
    public static final class Uac extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        final transient Queue<String> seen = new ConcurrentLinkedQueue<>();
        final transient Queue<SipSession> sessions = new ConcurrentLinkedQueue<>();
        volatile boolean ackForks = true;
        transient volatile SipSession first;

        @Override
        protected void doSuccessResponse(final SipServletResponse resp) throws ServletException, IOException
        {
            final SipSession session = resp.getSession();
            seen.add(resp.getStatus() + " " + resp.getMethod() + " " + session.getRemoteParty().getParameter("tag")
                + " " + (session == first ? "first" : "other") + " " + session.getState());
            sessions.add(session);
            if ("INVITE".equals(resp.getMethod()) && (session == first || ackForks))
            {
                resp.createAck().send();
            }
        }

        @Override
        protected void doProvisionalResponse(final SipServletResponse resp)
        {
            final SipSession session = resp.getSession();
            seen.add(resp.getStatus() + " " + session.getRemoteParty().getParameter("tag") + " "
                + (session == first ? "first" : "other") + " " + session.getState());
        }

        @Override
        protected void doBye(final SipServletRequest req) throws ServletException, IOException
        {
            seen.add("BYE " + req.getSession().getRemoteParty().getParameter("tag") + " "
                + (req.getSession() == first ? "first" : "other"));
            req.createResponse(200).send();
        }
    }

    @Test
    void shouldDeliverASecondDialogsTwoHundredInADerivedSessionThatAcksAndEndsItsOwnDialog() throws Exception
    {
        final Uac uac = new Uac();
        try (ContainerServer server = TestApps.server(T1_NS);
            SipPeer fork = new SipPeer(DispatchSippTest.address(server));
            SipPeer second = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uac", uac, Map.of()));
            final String invite = sendInvite(server, uac, fork);

            fork.send(SipPeer.answer(invite, "callee1", fork.port()));
            final String ack1 = fork.await(m -> m.startsWith("ACK "), "the ACK of the first 2xx");
            assertTrue(SipPeer.header(ack1, "To").endsWith(";tag=callee1"), ack1);
            fork.send(SipPeer.answer(invite, "callee2", second.port()));
            final String ack2 = second.await(m -> m.startsWith("ACK "), "the ACK of the second 2xx, at its Contact");
            assertTrue(ack2.startsWith("ACK sip:callee2@127.0.0.1:" + second.port() + " SIP/2.0"), ack2);
            assertTrue(SipPeer.header(ack2, "To").endsWith(";tag=callee2"), ack2);
            assertEquals(SipPeer.header(ack1, "From"), SipPeer.header(ack2, "From"), "the same local tag");
            assertEquals("1 ACK", SipPeer.header(ack2, "CSeq"), "RFC 3261 §13.2.2.4: the INVITE's CSeq number");

            // RFC 3261 §13.2.2.4: a retransmitted 2xx of the derived dialog gets its ACK again
            fork.send(SipPeer.answer(invite, "callee2", second.port()));
            final String again = second.await(m -> m.startsWith("ACK "), "the ACK again");
            assertEquals(SipPeer.header(ack2, "Via"), SipPeer.header(again, "Via"), "the same ACK");
            fork.send(SipPeer.answer(invite, "callee1", fork.port()));
            fork.await(m -> m.startsWith("ACK "), "the first dialog's ACK again");

            assertEquals(List.of("200 INVITE callee1 first CONFIRMED", "200 INVITE callee2 other CONFIRMED"),
                List.copyOf(uac.seen));
            final List<SipSession> both = List.copyOf(uac.sessions);
            final SipSession derived = both.get(1);
            assertNotEquals(both.get(0).getId(), derived.getId());
            assertEquals(both.get(0).getCallId(), derived.getCallId());
            assertEquals(both.get(0).getApplicationSession(), derived.getApplicationSession());
            assertEquals(both.get(0).getLocalParty(), derived.getLocalParty());
            assertEquals(2, count(derived.getApplicationSession()));

            // each callee ends its own dialog: the BYE finds the session of its dialog
            second.send(bye(ack2, "callee2", 1));
            second.await(SipPeer.response(200, "BYE"), "200 to the second callee's BYE");
            fork.send(bye(ack1, "callee1", 1));
            fork.await(SipPeer.response(200, "BYE"), "200 to the first callee's BYE");
            assertEquals(List.of("BYE callee2 other", "BYE callee1 first"), List.copyOf(uac.seen).subList(2, 4));
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call's sessions end: "
                + server.applicationSessions());
            assertFalse(derived.isValid());
            assertEquals(0, server.counters().servletErrors.get());
        }
    }

    @Test
    void shouldAckAndByeASecondDialogTheApplicationLeftAlone() throws Exception
    {
        ackAndByeASecondDialogTheApplicationLeftAlone(Map.of());
    }

    /** The same when the application runs on virtual threads: the container decides once the servlet's call ended. */
    @Test
    void shouldAckAndByeASecondDialogAVirtualThreadApplicationLeftAlone() throws Exception
    {
        ackAndByeASecondDialogTheApplicationLeftAlone(Map.of(RunningApplicationImpl.THREADING_PARAMETER, "virtual"));
    }

    private static void ackAndByeASecondDialogTheApplicationLeftAlone(final Map<String, String> params)
        throws Exception
    {
        final Uac uac = new Uac();
        uac.ackForks = false;
        try (ContainerServer server = TestApps.server(T1_NS);
            SipPeer fork = new SipPeer(DispatchSippTest.address(server));
            SipPeer second = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uac", uac, params));
            final String invite = sendInvite(server, uac, fork);
            fork.send(SipPeer.answer(invite, "callee1", fork.port()));
            final String ack1 = fork.await(m -> m.startsWith("ACK "), "the ACK of the first 2xx");
            fork.send(SipPeer.answer(invite, "callee2", second.port()));

            // RFC 3261 §13.2.2.4: the container ACKs the 2xx the application did not, then hangs the dialog up
            final String ack2 = second.await(m -> m.startsWith("ACK "), "the container's ACK of the second 2xx");
            assertTrue(SipPeer.header(ack2, "To").endsWith(";tag=callee2"), ack2);
            final String bye = second.await(m -> m.startsWith("BYE "), "the container's BYE of the second dialog");
            assertTrue(bye.startsWith("BYE sip:callee2@127.0.0.1:" + second.port() + " SIP/2.0"), bye);
            assertTrue(SipPeer.header(bye, "To").endsWith(";tag=callee2"), bye);
            assertEquals("2 BYE", SipPeer.header(bye, "CSeq"), bye);
            assertEquals(SipPeer.header(ack1, "From"), SipPeer.header(bye, "From"));
            second.send(SipPeer.okTo(bye));

            fork.send(bye(ack1, "callee1", 1));
            fork.await(SipPeer.response(200, "BYE"), "200 to the first callee's BYE");
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call's sessions end: "
                + server.applicationSessions());
            // the 2xx was the application's to see; the container's BYE and its 200 were not
            assertEquals(List.of("200 INVITE callee1 first CONFIRMED", "200 INVITE callee2 other CONFIRMED",
                "BYE callee1 first"), List.copyOf(uac.seen));
            assertEquals(1, second.received().stream().filter(m -> m.startsWith("BYE ")).count());
            assertEquals(0, server.counters().servletErrors.get());
        }
    }

    /**
     * RFC 3261 §13.2.2.4: a forked 2xx that arrives after the call's only dialog ended (the callee hung up, so no
     * session of the call is left) is ACKed and its dialog ended with a BYE by the container, once: a retransmission
     * of it gets the ACK again and no second BYE. The application sees none of it; it is counted.
     */
    @Test
    void shouldAckAndByeASecondDialogsTwoHundredThatArrivesAfterTheCallEnded() throws Exception
    {
        final Uac uac = new Uac();
        try (ContainerServer server = TestApps.server(T1_NS);
            SipPeer fork = new SipPeer(DispatchSippTest.address(server));
            SipPeer second = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uac", uac, Map.of()));
            final String invite = sendInvite(server, uac, fork);
            fork.send(SipPeer.answer(invite, "callee1", fork.port()));
            final String ack1 = fork.await(m -> m.startsWith("ACK "), "the ACK of the first 2xx");
            fork.send(bye(ack1, "callee1", 1));
            fork.await(SipPeer.response(200, "BYE"), "200 to the callee's BYE");
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call's sessions end: "
                + server.applicationSessions());

            fork.send(SipPeer.answer(invite, "callee2", second.port()).replace("Contact:",
                "Record-Route: <sip:192.0.2.9;lr;rr=far>, <sip:127.0.0.1:" + second.port()
                    + ";lr;rr=near>\r\nContact:"));
            final String ack2 = second.await(m -> m.startsWith("ACK "), "the container's ACK of the late 2xx");
            assertTrue(ack2.startsWith("ACK sip:callee2@127.0.0.1:" + second.port() + " SIP/2.0"), ack2);
            assertTrue(SipPeer.header(ack2, "To").endsWith(";tag=callee2"), ack2);
            assertEquals(SipPeer.header(invite, "From"), SipPeer.header(ack2, "From"));
            assertEquals(SipPeer.header(invite, "Call-ID"), SipPeer.header(ack2, "Call-ID"));
            assertEquals("1 ACK", SipPeer.header(ack2, "CSeq"), "RFC 3261 §13.2.2.4: the INVITE's CSeq number");
            assertEquals("<sip:127.0.0.1:" + second.port() + ";lr;rr=near>", SipPeer.header(ack2, "Route"),
                "RFC 3261 §12.1.2: the Record-Route reversed, the proxy nearest to us first");
            final String bye = second.await(m -> m.startsWith("BYE "), "the container's BYE of the late dialog");
            assertTrue(bye.startsWith("BYE sip:callee2@127.0.0.1:" + second.port() + " SIP/2.0"), bye);
            assertTrue(SipPeer.header(bye, "To").endsWith(";tag=callee2"), bye);
            assertEquals("2 BYE", SipPeer.header(bye, "CSeq"), bye);
            second.send(SipPeer.okTo(bye));

            fork.send(SipPeer.answer(invite, "callee2", second.port()));
            second.await(m -> m.startsWith("ACK "), "the ACK again, for the retransmitted 2xx");
            assertEquals(2, second.received().stream().filter(m -> m.startsWith("ACK ")).count());
            assertEquals(1, second.received().stream().filter(m -> m.startsWith("BYE ")).count());
            assertEquals(1, server.counters().stray2xx.get());
            assertEquals(List.of("200 INVITE callee1 first CONFIRMED", "BYE callee1 first"), List.copyOf(uac.seen));
            assertEquals(0, server.counters().servletErrors.get());
        }
    }

    /**
     * Two early dialogs (tagged 180s), the first one answered: the second early dialog's 180 is in a derived session,
     * which ends when the INVITE transaction does (RFC 3261 §13.2.2.4: 64*T1 after the 2xx, early dialogs that were
     * not confirmed are terminated), so the call's sessions end with the BYE of the answered dialog.
     */
    @Test
    void shouldGiveAnotherEarlyDialogItsOwnSessionAndEndItWhenTheInviteTransactionEnds() throws Exception
    {
        final Uac uac = new Uac();
        try (ContainerServer server = TestApps.server(T1_NS);
            SipPeer fork = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uac", uac, Map.of()));
            final String invite = sendInvite(server, uac, fork);
            fork.send(ringing(invite, "callee1", fork.port()));
            assertTrue(TestApps.await(() -> 1 == uac.seen.size()), uac.seen.toString());
            fork.send(ringing(invite, "callee2", fork.port()));
            assertTrue(TestApps.await(() -> 2 == uac.seen.size()), uac.seen.toString());
            fork.send(SipPeer.answer(invite, "callee1", fork.port()));
            final String ack = fork.await(m -> m.startsWith("ACK "), "the ACK of the 2xx");
            fork.send(bye(ack, "callee1", 1));
            fork.await(SipPeer.response(200, "BYE"), "200 to the BYE");
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call's sessions end: "
                + server.applicationSessions());
            assertEquals(List.of("180 callee1 first EARLY", "180 callee2 other EARLY",
                "200 INVITE callee1 first CONFIRMED", "BYE callee1 first"), List.copyOf(uac.seen));
            assertEquals(0, server.counters().servletErrors.get());
        }
    }

    /**
     * A B2BUA that relays the forked 2xx with the caller's original session and links the UAS session it gets with
     * the derived one itself (as some applications do).
     */
    public static final class OriginalSessionB2bua extends DispatchSippTest.B2bua
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected SipServletResponse forkedResponse(final B2buaHelper helper, final SipServletResponse resp,
            final SipServletRequest other)
        {
            final SipServletResponse relayed = helper.createResponseToOriginalRequest(other.getSession(),
                resp.getStatus(), resp.getReasonPhrase());
            if (relayed.getSession() == other.getSession() || null != helper.getLinkedSession(relayed.getSession()))
            {
                throw new IllegalStateException("expected a new, unlinked UAS session");
            }
            helper.linkSipSessions(relayed.getSession(), resp.getSession());
            return relayed;
        }
    }

    @Test
    void shouldRelayASecondDialogThroughAB2buaToTheCallerAsItsOwnDialog() throws Exception
    {
        relayASecondDialogThroughAB2bua(new DispatchSippTest.B2bua());
    }

    @Test
    void shouldRelayASecondDialogGivenTheOriginalSessionInADerivedUasSessionTheApplicationLinks() throws Exception
    {
        relayASecondDialogThroughAB2bua(new OriginalSessionB2bua());
    }

    private static void relayASecondDialogThroughAB2bua(final SipServlet b2bua) throws Exception
    {
        try (ContainerServer server = TestApps.server(T1_NS);
            SipPeer caller = new SipPeer(DispatchSippTest.address(server));
            SipPeer fork = new SipPeer(DispatchSippTest.address(server));
            SipPeer second = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("b2bua", b2bua,
                Map.of("target", "sip:callee@127.0.0.1:" + fork.port())));
            caller.send(TestApps.request("INVITE", "forked-b2bua"));
            final String invite = fork.await(m -> m.startsWith("INVITE "), "the INVITE on the callee's leg");

            fork.send(SipPeer.answer(invite, "callee1", fork.port()));
            final String ok1 = caller.await(SipPeer.response(200, "INVITE"), "the first 2xx relayed");
            fork.send(SipPeer.answer(invite, "callee2", second.port()));
            final String ok2 = caller.await(SipPeer.response(200, "INVITE"), "the second 2xx relayed");
            final String to1 = SipPeer.header(ok1, "To");
            final String to2 = SipPeer.header(ok2, "To");
            assertNotEquals(to1, to2, "JSR 289 B2buaHelper.createResponseToOriginalRequest: another To tag");

            // the caller ACKs each dialog: each ACK goes to its own callee dialog
            caller.send(inDialog("ACK", to1, 1, "-ack1"));
            final String ack1 = fork.await(m -> m.startsWith("ACK "), "the ACK of the first dialog");
            assertTrue(SipPeer.header(ack1, "To").endsWith(";tag=callee1"), ack1);
            caller.send(inDialog("ACK", to2, 1, "-ack2"));
            final String ack2 = second.await(m -> m.startsWith("ACK "), "the ACK of the second dialog");
            assertTrue(SipPeer.header(ack2, "To").endsWith(";tag=callee2"), ack2);
            fork.send(SipPeer.answer(invite, "callee2", second.port()));
            second.await(m -> m.startsWith("ACK "), "the second dialog's ACK again for its retransmitted 2xx");

            // the caller hangs up both dialogs
            caller.send(inDialog("BYE", to2, 2, "-bye2"));
            final String bye2 = second.await(m -> m.startsWith("BYE "), "the BYE of the second dialog");
            assertTrue(SipPeer.header(bye2, "To").endsWith(";tag=callee2"), bye2);
            second.send(SipPeer.okTo(bye2));
            caller.await(m -> SipPeer.response(200, "BYE").test(m) && to2.equals(SipPeer.header(m, "To")),
                "200 to the BYE of the second dialog");
            caller.send(inDialog("BYE", to1, 2, "-bye1"));
            final String bye1 = fork.await(m -> m.startsWith("BYE "), "the BYE of the first dialog");
            fork.send(SipPeer.okTo(bye1));
            caller.await(m -> SipPeer.response(200, "BYE").test(m) && to1.equals(SipPeer.header(m, "To")),
                "200 to the BYE of the first dialog");
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call's sessions end: "
                + server.applicationSessions());
            assertEquals(0, server.counters().servletErrors.get());
        }
    }

    // ================================================================================================================
    // Messages
    // ================================================================================================================


    /** The application sends an INVITE to {@code peer}; returns it as the peer read it. */
    private static String sendInvite(final ContainerServer server, final Uac uac, final SipPeer peer)
        throws Exception
    {
        final SipFactory factory = TestApps.factory(server, "uac");
        final SipApplicationSession app = factory.createApplicationSession();
        final SipServletRequest invite = factory.createRequest(app, "INVITE", "<sip:app@127.0.0.1>",
            "<sip:peer@127.0.0.1:" + peer.port() + ">");
        uac.first = invite.getSession();
        invite.send();
        return peer.await(m -> m.startsWith("INVITE "), "the INVITE");
    }

    private static int count(final SipApplicationSession app)
    {
        int n = 0;
        for (final var i = app.getSessions("SIP"); i.hasNext(); i.next())
        {
            n++;
        }
        return n;
    }

    /** A 180 to the container's INVITE with To tag {@code tag}. */
    private static String ringing(final String invite, final String tag, final int port)
    {
        return SipPeer.answer(invite, tag, port).replace("SIP/2.0 200 OK", "SIP/2.0 180 Ringing");
    }

    /** A BYE of a callee in the dialog an ACK of the container names (its From is our party, its To the callee). */
    private static String bye(final String ack, final String tag, final int cseq)
    {
        return "BYE sip:app@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:PORT;branch=z9hG4bK-bye-" + tag + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: " + SipPeer.header(ack, "To") + "\r\n"
            + "To: " + SipPeer.header(ack, "From") + "\r\n"
            + "Call-ID: " + SipPeer.header(ack, "Call-ID") + "\r\n"
            + "CSeq: " + cseq + " BYE\r\n"
            + "Content-Length: 0\r\n\r\n";
    }

    /** A request of the caller (From tag a1) in the dialog of {@code to}, on its own branch. */
    private static String inDialog(final String method, final String to, final int cseq, final String branch)
    {
        return SipPeer.inDialog(method, "forked-b2bua", to, cseq, "forked-b2bua" + branch, "");
    }
}
