package io.sipline.container.dispatch;

import static io.sipline.container.dispatch.TcpRoutingDispatchTest.answer;
import static io.sipline.container.dispatch.TcpRoutingDispatchTest.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sipline.sip.transport.tcp.FlowTokens;
import org.junit.jupiter.api.Test;

/**
 * A record-routing proxy between a WebSocket client (RFC 7118) and a UDP callee: the Record-Route entries carry an
 * RFC 5626 flow token naming the client's connection (the user part, with {@code ob}), one entry per side (RFC 5658
 * §4: the UDP side's on top, the WS side's with {@code transport=ws}); the callee's requests in the dialog reach the
 * client on its connection by that token alone (its Contact names an address that reaches nothing), with our
 * {@code WS} Via; a forged token gets 403 and the token of a closed connection 430 Flow Failed (RFC 5626 §5.3). The
 * client is the JDK's WebSocket client, the callee a raw UDP {@link SipPeer}.
 */
class WebSocketRoutingDispatchTest
{
    private static final Pattern TOKEN = Pattern.compile("<sip:([A-Za-z0-9_-]+)@127\\.0\\.0\\.1:(\\d+)(;[^>]*)>");

    /** The client's Contact: an address that does not reach it, so that only the flow token can. */
    private static final String CLIENT_CONTACT = "sip:alice@192.0.2.7:5999;transport=ws";

    @Test
    void shouldRouteTheCalleesRequestsToTheWebSocketCallerByTheFlowTokenOfOurRecordRoute() throws Exception
    {
        try (ContainerServer server = TestApps.server(TestApps.config().wsPorts(0));
             SipPeer callee = new SipPeer(DispatchSippTest.address(server)))
        {
            final int udpPort = DispatchSippTest.address(server).getPort();
            final int wsPort = server.stack().wsAddresses().getFirst().getPort();
            try (WsPeer caller = new WsPeer(wsPort))
            {
                final List<String> rr = establish(server, caller, callee, "ws-rr-1");
                final Matcher udpSide = TOKEN.matcher(rr.get(0));
                final Matcher wsSide = TOKEN.matcher(rr.get(1));
                assertTrue(udpSide.matches() && wsSide.matches(), "flow tokens as user parts: " + rr);
                final String token = udpSide.group(1);
                assertEquals(FlowTokens.LENGTH, token.length(), token);
                assertEquals(token, wsSide.group(1), "both entries name the client's connection");
                assertEquals(Integer.toString(udpPort), udpSide.group(2), rr.get(0));
                assertTrue(udpSide.group(3).startsWith(";lr;ob;sipline-px="), rr.get(0));
                assertEquals(Integer.toString(wsPort), wsSide.group(2), rr.get(1));
                assertTrue(wsSide.group(3).startsWith(";transport=ws;lr;ob;sipline-px="), rr.get(1));

                // RFC 5626 §5.3: a token altered by anyone is refused with 403
                final String forged = token.substring(0, 5) + (token.charAt(5) == 'x' ? 'y' : 'x')
                    + token.substring(6);
                callee.send(fromCallee("INFO", "ws-rr-1", 2, "ws-rr-1-info", rr.get(0).replace(token, forged),
                    rr.get(1).replace(token, forged)));
                callee.await(SipPeer.response(403, "INFO"), "403 to a request with a forged flow token");

                callee.send(fromCallee("BYE", "ws-rr-1", 3, "ws-rr-1-bye", rr.get(0), rr.get(1)));
                final String bye = caller.await(m -> m.startsWith("BYE "), "the callee's BYE on the connection");
                assertTrue(bye.startsWith("BYE " + CLIENT_CONTACT + " SIP/2.0\r\n"), bye);
                assertNull(SipPeer.header(bye, "Route"), "both of our Routes popped: " + bye);
                final List<String> vias = values(bye, "Via");
                assertEquals(2, vias.size(), bye);
                assertTrue(vias.get(0).startsWith("SIP/2.0/WS 127.0.0.1:" + wsPort + ";"), "our WS Via: " + bye);
                caller.send(answer(bye, "200 OK"));
                callee.await(SipPeer.response(200, "BYE"), "the client's 200 to the BYE");
                assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call ends");
                assertEquals(0, server.counters().servletErrors.get());
            }
        }
    }

    @Test
    void shouldAnswer430FlowFailedWhenTheWebSocketCallersConnectionIsGone() throws Exception
    {
        try (ContainerServer server = TestApps.server(TestApps.config().wsPorts(0));
             SipPeer callee = new SipPeer(DispatchSippTest.address(server)))
        {
            final int wsPort = server.stack().wsAddresses().getFirst().getPort();
            final List<String> rr;
            try (WsPeer caller = new WsPeer(wsPort))
            {
                rr = establish(server, caller, callee, "ws-rr-2");
            }
            assertTrue(TestApps.await(() -> 0 == server.stack().webSocketConnections()), "the connection closed");
            callee.send(fromCallee("BYE", "ws-rr-2", 2, "ws-rr-2-bye", rr.get(0), rr.get(1)));
            final String failed = callee.await(SipPeer.response(430, "BYE"), "430 Flow Failed (RFC 5626 §5.3)");
            assertTrue(failed.startsWith("SIP/2.0 430 Flow Failed\r\n"), failed);
        }
    }

    /**
     * The caller's INVITE over WebSocket, proxied (record-routed) to the UDP callee, its 200 and the caller's ACK.
     *
     * @return the Record-Route entries the callee got.
     */
    private static List<String> establish(final ContainerServer server, final WsPeer caller, final SipPeer callee,
        final String callId) throws Exception
    {
        final String target = "sip:bob@127.0.0.1:" + callee.port();
        server.registry().onDeployed(TestApps.application("rr-proxy-" + callId,
            new ProxyRelayDispatchTest.RecordingProxy(), Map.of("target", target)));
        caller.send("INVITE " + target + " SIP/2.0\r\n"
            + "Via: SIP/2.0/WS df7jal23ls0d.invalid;branch=z9hG4bK-" + callId + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@example.com>;tag=a1\r\n"
            + "To: <sip:bob@example.com>\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: 1 INVITE\r\n"
            + "Contact: <" + CLIENT_CONTACT + ">\r\n"
            + "Content-Length: 0\r\n\r\n");
        final String invite = callee.await(m -> m.startsWith("INVITE "), "the INVITE at the callee");
        final List<String> rr = values(invite, "Record-Route");
        assertEquals(2, rr.size(), "RFC 5658: one entry per side: " + invite);
        final StringBuilder ok = TcpRoutingDispatchTest.withVias("200 OK", invite);
        for (final String r : rr)
        {
            ok.append("Record-Route: ").append(r).append("\r\n");
        }
        SipPeer.copyHeaders(invite, ok, "From", "Call-ID", "CSeq");
        ok.append("To: ").append(SipPeer.header(invite, "To")).append(";tag=b1\r\n");
        ok.append("Contact: <").append(target).append(">\r\nContent-Length: 0\r\n\r\n");
        callee.send(ok.toString());
        final String answered = caller.await(m -> m.startsWith("SIP/2.0 200 "), "the 200 on the connection");
        assertEquals(rr, values(answered, "Record-Route"), answered);
        caller.send("ACK " + target + " SIP/2.0\r\n"
            + "Via: SIP/2.0/WS df7jal23ls0d.invalid;branch=z9hG4bK-" + callId + "-ack\r\n"
            + "Max-Forwards: 70\r\n"
            + "Route: " + rr.get(1) + "\r\nRoute: " + rr.get(0) + "\r\n"
            + "From: <sip:alice@example.com>;tag=a1\r\n"
            + "To: " + SipPeer.header(answered, "To") + "\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: 1 ACK\r\n"
            + "Content-Length: 0\r\n\r\n");
        final String ack = callee.await(m -> m.startsWith("ACK "), "the caller's ACK at the callee");
        assertNull(SipPeer.header(ack, "Route"), "both of our Routes popped: " + ack);
        return rr;
    }

    /** A request of the callee in the dialog, to the client's Contact through our two Record-Route entries. */
    private static String fromCallee(final String method, final String callId, final int cseq, final String branch,
        final String route0, final String route1)
    {
        return method + " " + CLIENT_CONTACT + " SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:PORT;branch=z9hG4bK-" + branch + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "Route: " + route0 + "\r\nRoute: " + route1 + "\r\n"
            + "From: <sip:bob@example.com>;tag=b1\r\n"
            + "To: <sip:alice@example.com>;tag=a1\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: " + cseq + " " + method + "\r\n"
            + "Content-Length: 0\r\n\r\n";
    }
}
