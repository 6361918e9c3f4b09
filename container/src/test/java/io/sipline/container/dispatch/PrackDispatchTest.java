package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import javax.servlet.ServletException;
import javax.servlet.sip.Rel100Exception;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipErrorEvent;
import javax.servlet.sip.SipErrorListener;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;

import org.junit.jupiter.api.Test;

import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.sip.stack.SipStackConfig;

/**
 * Reliable provisional responses (RFC 3262; JSR 289 §5.7.1) in dispatch: a container with T1 = 25 ms on loopback and
 * a raw {@link SipPeer} playing the other user agent. As UAS: {@code sendReliably} (its Rel100Exception and
 * IllegalStateException rules), Require/RSeq, retransmission until the PRACK, the PRACK to {@code doPrack}, 481 for
 * a PRACK that matches nothing, the 64*T1 give-up (noPrackReceived, then 500), a final response ending the wait. As
 * UAC: each reliable provisional delivered once and in order, {@code createPrack} with its RAck.
 */
class PrackDispatchTest
{
    private static final long T1_NS = 25_000_000L;

    /** A UAS whose behaviour per call is chosen by the Call-ID's prefix; records what it saw. */
    public static final class Uas extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        final transient Queue<String> seen = new ConcurrentLinkedQueue<>();

        @Override
        protected void doInvite(final SipServletRequest req) throws ServletException, IOException
        {
            final String id = req.getCallId();
            if (id.startsWith("checks-"))
            {
                seen.add("183 " + reason(req.createResponse(183)));
                seen.add("100 " + reason(req.createResponse(100)));
                seen.add("200 " + reason(req.createResponse(200)));
                req.createResponse(486).send();
            }
            else if (id.startsWith("rel-"))
            {
                req.getSession().setAttribute("invite", req);
                final SipServletResponse progress = req.createResponse(183);
                progress.setContent("v=0\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                    "application/sdp");
                progress.sendReliably();
                seen.add("second " + reason(req.createResponse(180)));
                try
                {
                    req.createResponse(200).send();
                    seen.add("2xx before PRACK sent");
                }
                catch (final IllegalStateException e)
                {
                    seen.add("2xx before PRACK refused");
                }
            }
            else if (id.startsWith("timeout-"))
            {
                req.createResponse(183).sendReliably();
            }
            else if (id.startsWith("noack-"))
            {
                req.createResponse(200).send();
            }
            else if (id.startsWith("final-"))
            {
                req.createResponse(183).sendReliably();
                req.createResponse(486).send();
            }
        }

        @Override
        protected void doOptions(final SipServletRequest req) throws ServletException, IOException
        {
            seen.add("options 183 " + reason(req.createResponse(183)));
            req.createResponse(200).send();
        }

        @Override
        protected void doPrack(final SipServletRequest prack) throws ServletException, IOException
        {
            seen.add("PRACK " + prack.getHeader("RAck") + " " + prack.getSession().getState());
            prack.createResponse(200).send();
            final SipServletRequest invite = (SipServletRequest)prack.getSession().getAttribute("invite");
            if (seen.stream().filter(s -> s.startsWith("PRACK")).count() == 1)
            {
                invite.createResponse(180).sendReliably(); // the next one: RSeq one higher
            }
            else
            {
                invite.createResponse(200).send();
            }
        }

        @Override
        protected void doAck(final SipServletRequest ack)
        {
            seen.add("ACK");
        }

        /** What sendReliably does with this response: "sent", a Rel100Exception reason, or an exception's name. */
        private static String reason(final SipServletResponse response)
        {
            try
            {
                response.sendReliably();
                return "sent";
            }
            catch (final Rel100Exception e)
            {
                return "Rel100Exception " + e.getReason();
            }
            catch (final RuntimeException e)
            {
                return e.getClass().getSimpleName();
            }
        }
    }

    /**
     * Records the container's noAckReceived and noPrackReceived events and whether each came on a virtual thread; with
     * {@code answer}, noPrackReceived answers the INVITE 480 itself.
     */
    public static final class Errors implements SipErrorListener
    {
        final Queue<String> seen = new ConcurrentLinkedQueue<>();
        final Queue<Boolean> virtual = new ConcurrentLinkedQueue<>();
        volatile boolean answer;

        @Override
        public void noAckReceived(final SipErrorEvent ee)
        {
            virtual.add(Thread.currentThread().isVirtual());
            seen.add("noAck " + ee.getResponse().getStatus() + " " + ee.getRequest().getMethod());
        }

        @Override
        public void noPrackReceived(final SipErrorEvent ee)
        {
            virtual.add(Thread.currentThread().isVirtual());
            seen.add("noPrack " + ee.getResponse().getStatus() + " " + ee.getRequest().getMethod());
            if (answer)
            {
                try
                {
                    ee.getRequest().createResponse(480).send();
                }
                catch (final IOException e)
                {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }
    }

    /** JSR 289 §6.4.2: a 2xx never ACKed within 64*T1 is reported to noAckReceived, on the shard. */
    @Test
    void shouldTellTheApplicationOfAMissingAckOnTheShard() throws Exception
    {
        missingAck(Map.of(), false);
    }

    /** The same for an application on virtual threads: the listener runs on its virtual thread, like its servlets. */
    @Test
    void shouldTellAVirtualThreadApplicationOfAMissingAckOnAVirtualThread() throws Exception
    {
        missingAck(Map.of(RunningApplicationImpl.THREADING_PARAMETER, "virtual"), true);
    }

    private static void missingAck(final Map<String, String> params, final boolean virtual) throws Exception
    {
        final Uas uas = new Uas();
        final Errors errors = new Errors();
        try (ContainerServer server = server(); SipPeer peer = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, params, errors));
            peer.send(invite("noack-1", false));
            peer.await(SipPeer.response(200, "INVITE"), "the 2xx");
            assertTrue(TestApps.await(() -> !errors.seen.isEmpty()), "noAckReceived after 64*T1");
            assertEquals(List.of("noAck 200 INVITE"), List.copyOf(errors.seen));
            assertEquals(List.of(virtual), List.copyOf(errors.virtual));
        }
    }

    /**
     * For an application on virtual threads, noPrackReceived runs on its virtual thread, and the container's 500
     * comes only after it returned: here the listener answers the INVITE 480 itself, so no 500 follows.
     */
    @Test
    void shouldTellAVirtualThreadApplicationOfAMissingPrackOnAVirtualThreadBeforeRejectingTheInvite()
        throws Exception
    {
        final Uas uas = new Uas();
        final Errors errors = new Errors();
        errors.answer = true;
        try (ContainerServer server = server(); SipPeer peer = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas,
                Map.of(RunningApplicationImpl.THREADING_PARAMETER, "virtual"), errors));
            peer.send(invite("timeout-2", true));
            final String rejected = peer.await(SipPeer.response(480, "INVITE"), "the listener's 480 after 64*T1");
            peer.send(ack("timeout-2", SipPeer.header(rejected, "To"), ""));
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call's sessions end");
            assertEquals(List.of("noPrack 183 INVITE"), List.copyOf(errors.seen));
            assertEquals(List.of(true), List.copyOf(errors.virtual));
            assertEquals(0, peer.received().stream().filter(SipPeer.response(500, "INVITE")).count(),
                peer.firstLines().toString());
        }
    }

    @Test
    void shouldRefuseSendReliablyAsTheJavadocSays() throws Exception
    {
        final Uas uas = new Uas();
        try (ContainerServer server = server(); SipPeer peer = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, Map.of()));
            peer.send(invite("checks-1", false));
            peer.await(SipPeer.response(486, "INVITE"), "486");
            peer.send(TestApps.request("OPTIONS", "checks-2").replace("Contact:", "Supported: 100rel\r\nContact:"));
            peer.await(SipPeer.response(200, "OPTIONS"), "200 to OPTIONS");
            assertEquals(List.of("183 Rel100Exception " + Rel100Exception.NO_REQ_SUPPORT,
                "100 Rel100Exception " + Rel100Exception.NOT_1XX, "200 Rel100Exception " + Rel100Exception.NOT_1XX,
                "options 183 Rel100Exception " + Rel100Exception.NOT_INVITE), List.copyOf(uas.seen));
            @SuppressWarnings("deprecation") // deprecated in JSR 289, which still defines the attribute
            final String prackSupported = SipServlet.PRACK_SUPPORTED;
            assertEquals(Boolean.TRUE, server.registry().application("uas").servletContext()
                .getAttribute(prackSupported));
        }
    }

    @Test
    void shouldRetransmitTheReliableProvisionalUntilItsPrackAndGiveThePrackToTheServlet() throws Exception
    {
        final Uas uas = new Uas();
        try (ContainerServer server = server(); SipPeer peer = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, Map.of()));
            peer.send(invite("rel-1", true));
            final String first = peer.await(SipPeer.response(183, "INVITE"), "reliable 183");
            assertEquals("100rel", SipPeer.header(first, "Require"), first);
            final long rseq = Long.parseLong(SipPeer.header(first, "RSeq"));
            assertTrue(rseq >= 1 && rseq < (1L << 31), "RFC 3262 §3: the first RSeq is in 1..2^31-1: " + rseq);
            assertTrue(first.endsWith("v=0\r\n"), first);
            final String again = peer.await(SipPeer.response(183, "INVITE"), "a retransmission of the 183");
            assertEquals(Long.toString(rseq), SipPeer.header(again, "RSeq"));

            final String toTag = SipPeer.header(first, "To");
            peer.send(prack("rel-1", toTag, 2, (rseq + 1) + " 1 INVITE"));
            peer.await(SipPeer.response(481, "PRACK"), "481 to a PRACK for another RSeq");
            peer.send(prack("rel-1", toTag, 3, rseq + " 1 INVITE"));
            peer.await(SipPeer.response(200, "PRACK"), "200 to the PRACK, from the servlet");
            final String next = peer.await(SipPeer.response(180, "INVITE"), "the second reliable provisional");
            assertEquals(Long.toString(rseq + 1), SipPeer.header(next, "RSeq"), "RFC 3262 §3: one higher");
            peer.send(prack("rel-1", toTag, 4, (rseq + 1) + " 1 INVITE"));
            peer.await(SipPeer.response(200, "PRACK"), "200 to the second PRACK");
            final String ok = peer.await(SipPeer.response(200, "INVITE"), "200 to the INVITE");
            assertEquals(toTag, SipPeer.header(ok, "To"), "one dialog from the early one to the confirmed one");
            peer.send(ack("rel-1", toTag, "-ack"));
            assertTrue(TestApps.await(() -> uas.seen.contains("ACK")), uas.seen.toString());

            assertEquals(List.of("second IllegalStateException", "2xx before PRACK refused",
                "PRACK " + rseq + " 1 INVITE EARLY", "PRACK " + (rseq + 1) + " 1 INVITE EARLY", "ACK"),
                List.copyOf(uas.seen));
        }
    }

    @Test
    void shouldRejectTheInviteWith500WhenNoPrackComesWithin64T1() throws Exception
    {
        final Uas uas = new Uas();
        final Errors errors = new Errors();
        try (ContainerServer server = server(); SipPeer peer = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, Map.of(), errors));
            peer.send(invite("timeout-1", true));
            final String rejected = peer.await(SipPeer.response(500, "INVITE"), "500 after 64*T1");
            peer.send(ack("timeout-1", SipPeer.header(rejected, "To"), ""));
            assertTrue(rejected.contains("RFC 3262"), rejected);
            final List<String> reliable = peer.received().stream().filter(SipPeer.response(183, "INVITE")).toList();
            // sent at 0, then T1, 3, 7, 15, 31 and 63 T1 (interval doubling, no T2 cap); given up at 64*T1
            assertEquals(7, reliable.size(), peer.firstLines().toString());
            assertEquals(1, reliable.stream().map(m -> SipPeer.header(m, "RSeq")).distinct().count());
            assertEquals(List.of("noPrack 183 INVITE"), List.copyOf(errors.seen));
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call's sessions end");
        }
    }

    @Test
    void shouldStopWaitingForThePrackOnAFinalResponseAndAnswerALatePrack481() throws Exception
    {
        final Uas uas = new Uas();
        try (ContainerServer server = server(); SipPeer peer = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, Map.of()));
            peer.send(invite("final-1", true));
            final String reliable = peer.await(SipPeer.response(183, "INVITE"), "reliable 183");
            final String busy = peer.await(SipPeer.response(486, "INVITE"), "486");
            peer.send(ack("final-1", SipPeer.header(busy, "To"), ""));
            peer.send(prack("final-1", SipPeer.header(reliable, "To"), 2,
                SipPeer.header(reliable, "RSeq") + " 1 INVITE"));
            peer.await(SipPeer.response(481, "PRACK"), "481: nothing awaits a PRACK after the final response");
            final List<String> all = peer.received();
            int last183 = -1;
            for (int i = 0; i < all.size(); i++)
            {
                last183 = SipPeer.response(183, "INVITE").test(all.get(i)) ? i : last183;
            }
            assertTrue(last183 < all.indexOf(busy), "no retransmission of the 183 after the 486: " + peer.firstLines());
            assertTrue(uas.seen.isEmpty(), "the unmatched PRACK never reaches the servlet: " + uas.seen);
        }
    }

    /** The UAC side: records the provisional responses it sees and PRACKs the reliable ones. */
    public static final class Uac extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        final transient Queue<String> seen = new ConcurrentLinkedQueue<>();

        @Override
        protected void doProvisionalResponse(final SipServletResponse resp) throws ServletException, IOException
        {
            seen.add(resp.getStatus() + " RSeq=" + resp.getHeader("RSeq") + " " + resp.getSession().getState());
            try
            {
                resp.createPrack().send();
            }
            catch (final Rel100Exception e)
            {
                seen.add("createPrack Rel100Exception " + e.getReason());
                return;
            }
            try
            {
                resp.createPrack();
                seen.add("a second PRACK");
            }
            catch (final Rel100Exception | IllegalStateException e)
            {
                seen.add("second createPrack " + e.getClass().getSimpleName());
            }
        }

        @Override
        protected void doSuccessResponse(final SipServletResponse resp) throws ServletException, IOException
        {
            seen.add(resp.getStatus() + " " + resp.getMethod());
            if ("INVITE".equals(resp.getMethod()))
            {
                try
                {
                    resp.createPrack();
                }
                catch (final Rel100Exception e)
                {
                    seen.add("createPrack on the 200 Rel100Exception " + e.getReason());
                }
                resp.createAck().send();
            }
        }
    }

    @Test
    void shouldDeliverEachReliableProvisionalOnceAndInOrderAndPrackItWithItsRAck() throws Exception
    {
        final Uac uac = new Uac();
        try (ContainerServer server = server(); SipPeer peer = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uac", uac, Map.of()));
            final SipFactory factory = TestApps.factory(server, "uac");
            final SipApplicationSession app = factory.createApplicationSession();
            final SipServletRequest invite = factory.createRequest(app, "INVITE", "<sip:app@127.0.0.1>",
                "<sip:peer@127.0.0.1:" + peer.port() + ">");
            invite.addHeader("Supported", "100rel");
            invite.send();

            final String received = peer.await(m -> m.startsWith("INVITE "), "the INVITE");
            peer.send(answer(received, 180, null));
            assertTrue(TestApps.await(() -> uac.seen.size() >= 2), uac.seen.toString()); // 180, createPrack refused
            peer.send(answer(received, 183, "5"));
            final String prack = peer.await(m -> m.startsWith("PRACK "), "the PRACK");
            assertEquals("5 1 INVITE", SipPeer.header(prack, "RAck"), prack);
            assertEquals("2 PRACK", SipPeer.header(prack, "CSeq"), prack);
            assertTrue(SipPeer.header(prack, "To").endsWith(";tag=callee"), "in the early dialog: " + prack);
            assertTrue(prack.startsWith("PRACK sip:callee@127.0.0.1:" + peer.port() + " SIP/2.0"),
                "to the remote target (the 183's Contact): " + prack);
            peer.send(SipPeer.okTo(prack));
            assertTrue(TestApps.await(() -> uac.seen.contains("200 PRACK")), uac.seen.toString());

            peer.send(answer(received, 183, "5")); // a retransmission: absorbed
            peer.send(answer(received, 183, "7")); // out of order: discarded (RFC 3262 §4)
            peer.send(answer(received, 183, "6"));
            final String second = peer.await(m -> m.startsWith("PRACK ") && m.contains("RAck: 6 1 INVITE"),
                "the PRACK of RSeq 6");
            peer.send(SipPeer.okTo(second));
            peer.send(answer(received, 200, null));
            peer.await(m -> m.startsWith("ACK "), "the ACK of the 200");

            assertEquals(List.of("180 RSeq=null EARLY", "createPrack Rel100Exception " + Rel100Exception.NOT_100rel,
                "183 RSeq=5 EARLY", "second createPrack IllegalStateException", "200 PRACK",
                "183 RSeq=6 EARLY", "second createPrack IllegalStateException", "200 PRACK", "200 INVITE",
                "createPrack on the 200 Rel100Exception " + Rel100Exception.NOT_1XX), List.copyOf(uac.seen));
            assertTrue(peer.received().stream().noneMatch(m -> m.startsWith("PRACK ") && m.contains("RAck: 7 ")),
                "an out-of-order reliable provisional is never acknowledged");
        }
    }

    // ================================================================================================================
    // Messages
    // ================================================================================================================

    private static ContainerServer server() throws Exception
    {
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        return ContainerServer.start(new SipStackConfig().addresses(List.of(TestApps.LOOPBACK)).ports(0).shards(2)
            .t1Ns(T1_NS), router);
    }

    private static String invite(final String callId, final boolean supports100rel)
    {
        return TestApps.request("INVITE", callId).replace("Contact:",
            (supports100rel ? "Supported: 100rel\r\n" : "") + "Contact:");
    }

    /** An in-dialog request of the peer (From tag a1, the given To), to the container's Contact. */
    private static String inDialog(final String method, final String callId, final String to, final int cseq,
        final String extra)
    {
        return SipPeer.inDialog(method, callId, to, cseq, callId + "-" + method + cseq, extra);
    }

    private static String prack(final String callId, final String to, final int cseq, final String rack)
    {
        return inDialog("PRACK", callId, to, cseq, "RAck: " + rack + "\r\n");
    }

    /** An ACK; {@code branch} "" reuses the INVITE's branch (the ACK of a non-2xx), else it is appended to it. */
    private static String ack(final String callId, final String to, final String branch)
    {
        return inDialog("ACK", callId, to, 1, "").replace("-ACK1\r\n", branch + "\r\n");
    }

    /**
     * A response from the peer (To tag {@code callee}, its Contact) to the container's INVITE; a reliable provisional
     * one when {@code rseq} is given.
     */
    private static String answer(final String invite, final int status, final String rseq)
    {
        final StringBuilder b = new StringBuilder("SIP/2.0 ").append(status)
            .append(switch (status)
            {
                case 180 -> " Ringing\r\n";
                case 183 -> " Session Progress\r\n";
                default -> " OK\r\n";
            });
        SipPeer.copyHeaders(invite, b, "Via", "From", "Call-ID", "CSeq");
        b.append("To: ").append(SipPeer.header(invite, "To")).append(";tag=callee\r\n");
        b.append("Contact: <sip:callee@127.0.0.1:PORT>\r\n");
        if (null != rseq)
        {
            b.append("Require: 100rel\r\nRSeq: ").append(rseq).append("\r\n");
        }
        return b.append("Content-Length: 0\r\n\r\n").toString();
    }
}
