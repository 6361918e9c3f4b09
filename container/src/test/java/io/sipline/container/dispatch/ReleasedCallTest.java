package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import javax.servlet.sip.SipSessionEvent;
import javax.servlet.sip.SipSessionListener;

import org.junit.jupiter.api.Test;

import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.sip.stack.SipStackConfig;
import io.sipline.test.Sipp;

/**
 * A B2BUA call that is over lets go of everything at once, although its transactions still wait out their RFC 3261
 * timers: with T1 = 500 ms the INVITE transactions stay 64*T1 = 32 s after the 2xx (RFC 6026 Timers L and M) and the
 * BYE's server transaction 32 s (Timer J), but the sessions, requests and responses of the call become garbage as
 * soon as the BYE is answered. At load this is what keeps the live heap small: a call's messages are not kept for
 * 32 s after it ended. A CANCEL that arrives late for the INVITE still finds the transaction and gets 200 with the
 * To tag of the INVITE's 2xx (RFC 3261 §9.2), not 481.
 * <p>
 * Two raw {@link SipPeer}s play the caller and the callee.
 */
class ReleasedCallTest
{
    /** Weak references to every session the application creates. */
    public static final class Sessions implements SipSessionListener
    {
        final Queue<WeakReference<Object>> created = new ConcurrentLinkedQueue<>();

        @Override
        public void sessionCreated(final SipSessionEvent e)
        {
            created.add(new WeakReference<>(e.getSession()));
        }

        @Override
        public void sessionDestroyed(final SipSessionEvent e)
        {
        }

        @Override
        public void sessionReadyToInvalidate(final SipSessionEvent e)
        {
        }
    }

    @Test
    void shouldLetGoOfTheCallWhenItsByeIsAnsweredAndStillAnswerALateCancel() throws Exception
    {
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        final SipStackConfig config = new SipStackConfig().addresses(List.of(TestApps.LOOPBACK)).ports(0).shards(2)
            .t1Ns(500_000_000L);
        final Sessions sessions = new Sessions();
        try (ContainerServer server = ContainerServer.start(config, router);
            SipPeer caller = new SipPeer(DispatchSippTest.address(server));
            SipPeer callee = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("b2bua", new DispatchSippTest.B2bua(),
                Map.of("target", "sip:callee@127.0.0.1:" + callee.port()), sessions));

            final String invite = TestApps.request("INVITE", "released-1");
            caller.send(invite);
            final String relayed = callee.await(m -> m.startsWith("INVITE "), "the INVITE on the callee's leg");
            callee.send(answer(relayed, "callee"));
            final String ok = caller.await(SipPeer.response(200, "INVITE"), "the 2xx relayed to the caller");
            final String callerTo = SipPeer.header(ok, "To");
            assertTrue(callerTo.contains(";tag="), ok);
            caller.send(inDialog("ACK", "released-1", callerTo, 1, "-ack"));
            callee.await(m -> m.startsWith("ACK "), "the ACK on the callee's leg");

            caller.send(inDialog("BYE", "released-1", callerTo, 2, "-bye"));
            final String bye = callee.await(m -> m.startsWith("BYE "), "the BYE on the callee's leg");
            callee.send(SipPeer.okTo(bye));
            caller.await(SipPeer.response(200, "BYE"), "the 200 to the caller's BYE");

            assertTrue(Sipp.await(() -> 0 == server.applicationSessions(), 5_000), "the call's sessions end");
            assertEquals(2, sessions.created.size());
            // the transactions of the call live 32 s more; the sessions must not be reachable from them
            assertTrue(Sipp.await(() ->
            {
                System.gc();
                return sessions.created.stream().allMatch(r -> null == r.get());
            }, 10_000), "a session of the call is still reachable after its BYE was answered");

            // RFC 3261 §9.2: the INVITE's transaction exists (Timer L); the CANCEL has no effect but a 200
            caller.send(cancel(invite));
            final String cancelled = caller.await(SipPeer.response(200, "CANCEL"), "200 to the late CANCEL");
            assertEquals(callerTo, SipPeer.header(cancelled, "To"), "the To tag of the INVITE's 2xx");
            caller.send(cancel(invite.replace("branch=z9hG4bK-released-1", "branch=z9hG4bK-unknown")));
            caller.await(SipPeer.response(481, "CANCEL"), "481 to a CANCEL that matches no INVITE");
            assertEquals(0, server.counters().servletErrors.get());
        }
    }

    /** The callee's 2xx to the container's INVITE, with its tag and Contact. */
    private static String answer(final String invite, final String tag)
    {
        final StringBuilder b = new StringBuilder("SIP/2.0 200 OK\r\n");
        SipPeer.copyHeaders(invite, b, "Via", "From", "Call-ID", "CSeq");
        b.append("To: ").append(SipPeer.header(invite, "To")).append(";tag=").append(tag).append("\r\n");
        b.append("Contact: <sip:callee@127.0.0.1:PORT>\r\n");
        return b.append("Content-Length: 0\r\n\r\n").toString();
    }

    /** An in-dialog request of the caller (From tag a1) on a new branch. */
    private static String inDialog(final String method, final String callId, final String to, final int cseq,
        final String branch)
    {
        return SipPeer.inDialog(method, callId, to, cseq, callId + branch, "");
    }

    /** The CANCEL of an INVITE (RFC 3261 §9.1): its Request-URI, Via, From, To, Call-ID and CSeq number. */
    private static String cancel(final String invite)
    {
        final StringBuilder b = new StringBuilder(invite.substring(0, invite.indexOf(' ')).replace("INVITE", "CANCEL"))
            .append(invite, invite.indexOf(' '), invite.indexOf("\r\n") + 2);
        SipPeer.copyHeaders(invite, b, "Via", "Max-Forwards", "From", "To", "Call-ID");
        b.append("CSeq: 1 CANCEL\r\n");
        return b.append("Content-Length: 0\r\n\r\n").toString();
    }
}
