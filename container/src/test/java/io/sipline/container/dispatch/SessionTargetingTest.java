package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import javax.servlet.ServletException;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.SipSessionsUtil;
import javax.servlet.sip.SipURI;

import org.junit.jupiter.api.Test;

import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.sip.shard.ShardIds;
import io.sipline.sip.stack.SipStackConfig;

/**
 * Session targeting (JSR 289 §15.11.3): an initial request that carries Replaces (RFC 3891) or Join (RFC 3911) for a
 * dialog of ours goes to the application session that owns the dialog, and {@code SipSessionsUtil
 * .getCorrespondingSipSession} gives the application that dialog's session; a request to an encoded URI (§15.11.1,
 * {@code SipApplicationSession.encodeURI}) joins the application session it names. Each request's Call-ID is chosen to
 * hash to another shard than the one that holds the targeted session, so the stack must hand it over (four shards).
 */
class SessionTargetingTest
{
    private static final int SHARDS = 4;

    /** Answers INVITE and MESSAGE 200; records, per request, its application session and the corresponding session. */
    public static final class Uas extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        final transient Queue<SipServletRequest> requests = new ConcurrentLinkedQueue<>();
        final transient Queue<String> corresponding = new ConcurrentLinkedQueue<>();

        @Override
        protected void doRequest(final SipServletRequest req) throws ServletException, IOException
        {
            if ("ACK".equals(req.getMethod()) || "BYE".equals(req.getMethod()))
            {
                if ("BYE".equals(req.getMethod()))
                {
                    req.createResponse(200).send();
                }
                return;
            }
            requests.add(req);
            final SipSessionsUtil util = (SipSessionsUtil)getServletContext().getAttribute(SIP_SESSIONS_UTIL);
            for (final String header : new String[] {"Replaces", "Join"})
            {
                if (null != req.getHeader(header))
                {
                    final SipSession dialog = util.getCorrespondingSipSession(req.getSession(), header);
                    corresponding.add(header + " " + (null == dialog ? "null" : dialog.getId()));
                }
            }
            if (null != req.getHeader("X-Ring-Only"))
            {
                req.createResponse(180).send(); // left ringing, for the caller to cancel
                return;
            }
            req.createResponse(200).send();
        }
    }

    @Test
    void shouldTargetTheApplicationSessionOfTheDialogThatReplacesNamesOnAnotherShard() throws Exception
    {
        targetByDialogHeader("Replaces");
    }

    @Test
    void shouldTargetTheApplicationSessionOfTheDialogThatJoinNamesOnAnotherShard() throws Exception
    {
        targetByDialogHeader("Join");
    }

    private static void targetByDialogHeader(final String header) throws Exception
    {
        final Uas uas = new Uas();
        try (ContainerServer server = server(); SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, Map.of()));
            caller.send(TestApps.request("INVITE", "target-dialog"));
            final String ok = caller.await(SipPeer.response(200, "INVITE"), "the 200 of the first call");
            final String to = SipPeer.header(ok, "To");
            final String localTag = to.substring(to.indexOf(";tag=") + 5);
            caller.send(SipPeer.inDialog("ACK", "target-dialog", to, 1, "target-dialog-ack", ""));
            assertTrue(TestApps.await(() -> 1 == uas.requests.size()));
            final SipServletRequest first = uas.requests.peek();

            final String callId = callIdOnAnotherShard(localTag, "replacer");
            caller.send(TestApps.request("INVITE", callId).replace("Content-Length:", header
                + ": target-dialog;to-tag=" + localTag + ";from-tag=a1\r\nContent-Length:"));
            caller.await(m -> SipPeer.response(200, "INVITE").test(m) && callId.equals(SipPeer.header(m, "Call-ID")),
                "the 200 of the request with " + header);
            assertTrue(TestApps.await(() -> 2 == uas.requests.size()));
            final SipServletRequest second = List.copyOf(uas.requests).get(1);
            assertEquals(first.getApplicationSession().getId(), second.getApplicationSession().getId(),
                "JSR 289 §15.11.3: the targeted application session");
            assertNotEquals(first.getSession().getId(), second.getSession().getId(), "a new SIP session");
            assertEquals(List.of(header + " " + first.getSession().getId()), List.copyOf(uas.corresponding));
            assertEquals(1, server.applicationSessions());
            assertEquals(0, server.counters().servletErrors.get());
        }
    }

    @Test
    void shouldCancelAReplacesInviteThatWentToAnotherShardThanItsCallIds() throws Exception
    {
        // RFC 3261 §9.1/§9.2: the CANCEL carries no Replaces; it must still reach the shard the INVITE went to, or it
        // gets 481 and the INVITE rings on.
        final Uas uas = new Uas();
        try (ContainerServer server = server(); SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, Map.of()));
            caller.send(TestApps.request("INVITE", "cancel-target"));
            final String ok = caller.await(SipPeer.response(200, "INVITE"), "the 200 of the first call");
            final String to = SipPeer.header(ok, "To");
            final String localTag = to.substring(to.indexOf(";tag=") + 5);
            caller.send(SipPeer.inDialog("ACK", "cancel-target", to, 1, "cancel-target-ack", ""));

            final String callId = callIdOnAnotherShard(localTag, "cancelled-replacer");
            caller.send(TestApps.request("INVITE", callId).replace("Content-Length:", "Replaces: cancel-target;to-tag="
                + localTag + ";from-tag=a1\r\nX-Ring-Only: yes\r\nContent-Length:"));
            caller.await(m -> SipPeer.response(180, "INVITE").test(m) && callId.equals(SipPeer.header(m, "Call-ID")),
                "the 180 of the INVITE with Replaces");
            caller.send(TestApps.request("CANCEL", callId));
            caller.await(m -> SipPeer.response(200, "CANCEL").test(m) && callId.equals(SipPeer.header(m, "Call-ID")),
                "the 200 of the CANCEL (481 when it followed its Call-ID to another shard)");
            caller.await(m -> SipPeer.response(487, "INVITE").test(m) && callId.equals(SipPeer.header(m, "Call-ID")),
                "the 487 of the cancelled INVITE");
            assertEquals(0, server.counters().servletErrors.get());
        }
    }

    @Test
    void shouldRouteARequestWhoseReplacesNamesNoDialogOfOursAsAnyInitialRequest() throws Exception
    {
        final Uas uas = new Uas();
        try (ContainerServer server = server(); SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, Map.of()));
            caller.send(TestApps.request("INVITE", "first-call"));
            caller.await(SipPeer.response(200, "INVITE"), "the 200 of the first call");
            caller.send(TestApps.request("INVITE", "unknown-replaces").replace("Content-Length:",
                "Replaces: no-such-call;to-tag=s0012345678abcdef;from-tag=a1\r\nContent-Length:"));
            caller.await(m -> SipPeer.response(200, "INVITE").test(m)
                && "unknown-replaces".equals(SipPeer.header(m, "Call-ID")), "the 200 of the second request");
            final List<SipServletRequest> both = List.copyOf(uas.requests);
            assertEquals(2, both.size());
            assertNotEquals(both.get(0).getApplicationSession().getId(), both.get(1).getApplicationSession().getId());
            assertEquals(List.of("Replaces null"), List.copyOf(uas.corresponding));
        }
    }

    @Test
    @SuppressWarnings("deprecation") // encodeURI: deprecated in JSR 289, which still defines it; tested here
    void shouldTargetTheApplicationSessionAnEncodedUriNamesOnAnotherShard() throws Exception
    {
        final Uas uas = new Uas();
        try (ContainerServer server = server(); SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, Map.of()));
            final SipFactory factory = TestApps.factory(server, "uas");
            final SipApplicationSession app = factory.createApplicationSession();
            final SipURI uri = factory.createSipURI("conference", "127.0.0.1");
            app.encodeURI(uri);
            final String encoded = uri.toString();
            assertTrue(encoded.contains(";sipline-appsession=" + app.getId()), encoded);

            final String callId = callIdOnAnotherShard(app.getId(), "encoded");
            caller.send(TestApps.request("MESSAGE", callId).replace("MESSAGE sip:service@127.0.0.1 ",
                "MESSAGE " + encoded + " "));
            caller.await(SipPeer.response(200, "MESSAGE"), "the 200 of the MESSAGE");
            assertTrue(TestApps.await(() -> 1 == uas.requests.size()));
            assertEquals(app.getId(), uas.requests.peek().getApplicationSession().getId(),
                "JSR 289 §15.11.1: the encoded application session");
        }
    }

    // ================================================================================================================

    private static ContainerServer server() throws Exception
    {
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        return ContainerServer.start(new SipStackConfig().addresses(List.of(TestApps.LOOPBACK)).ports(0)
            .shards(SHARDS), router);
    }

    /** A Call-ID {@code prefix-N} that hashes to another shard than the one the id {@code ours} names. */
    private static String callIdOnAnotherShard(final String ours, final String prefix)
    {
        final byte[] id = ours.getBytes(StandardCharsets.US_ASCII);
        final int owner = ShardIds.shardOf(id, 0, id.length);
        assertTrue(owner >= 0 && owner < SHARDS, "an id of ours: " + ours);
        for (int i = 0; ; i++)
        {
            final byte[] callId = (prefix + "-" + i).getBytes(StandardCharsets.US_ASCII);
            if (ShardIds.shardForCallId(callId, 0, callId.length, SHARDS) != owner)
            {
                return prefix + "-" + i;
            }
        }
    }
}
