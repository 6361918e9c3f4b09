package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * A node with a cluster front ({@code --cluster-front}) sends the B2BUA's outbound INVITE to the front with a Route
 * to it and the callee's URI as Request-URI (RFC 3261 §8.1.2); the front's Record-Route becomes the callee leg's
 * route set, so the ACK and BYE of that leg go through the front too (§12.2.1.1). Without a front the INVITE goes
 * to the callee with no Route.
 */
class ClusterFrontRouteTest
{
    @Test
    void shouldSendTheOutboundLegThroughTheFrontWhichRecordRoutesIt() throws Exception
    {
        try (ContainerServer server = TestApps.server(TestApps.config().node(1));
            SipPeer caller = new SipPeer(DispatchSippTest.address(server));
            SipPeer front = new SipPeer(DispatchSippTest.address(server)))
        {
            final String frontUri = "sip:127.0.0.1:" + front.port() + ";lr";
            server.registry().clusterFront(frontUri);
            server.registry().onDeployed(TestApps.application("b2bua", new DispatchSippTest.B2bua(),
                Map.of("target", "sip:bob@127.0.0.1:9"), false));

            caller.send(TestApps.request("INVITE", "front-1"));
            final String out = front.await(m -> m.startsWith("INVITE "), "the outbound INVITE at the front");
            assertTrue(out.startsWith("INVITE sip:bob@127.0.0.1:9 SIP/2.0"), "the callee's URI: " + out);
            assertEquals("<" + frontUri + ">", SipPeer.header(out, "Route"), out);

            front.send(SipPeer.answer(out, "bob1", front.port()).replace("Content-Length:",
                "Record-Route: <" + frontUri + ">\r\nContent-Length:"));
            final String ok = caller.await(SipPeer.response(200, "INVITE"), "the 2xx relayed to the caller");
            final String to = SipPeer.header(ok, "To");
            caller.send(SipPeer.inDialog("ACK", "front-1", to, 1, "ack-1", ""));
            final String ack = front.await(m -> m.startsWith("ACK "), "the callee leg's ACK through the front");
            assertTrue(ack.startsWith("ACK sip:bob1@127.0.0.1:" + front.port() + " "), "to the callee's Contact");
            assertEquals("<" + frontUri + ">", SipPeer.header(ack, "Route"), "the route set: the front");

            caller.send(SipPeer.inDialog("BYE", "front-1", to, 2, "bye-1", ""));
            final String bye = front.await(m -> m.startsWith("BYE "), "the callee leg's BYE through the front");
            assertEquals("<" + frontUri + ">", SipPeer.header(bye, "Route"), bye);
            front.send(SipPeer.okTo(bye));
            caller.await(SipPeer.response(200, "BYE"), "the caller's BYE answered");
        }
    }

    @Test
    void shouldSendTheOutboundLegStraightToTheCalleeWithoutAFront() throws Exception
    {
        try (ContainerServer server = TestApps.server(TestApps.config().node(1));
            SipPeer caller = new SipPeer(DispatchSippTest.address(server));
            SipPeer callee = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("b2bua", new DispatchSippTest.B2bua(),
                Map.of("target", "sip:bob@127.0.0.1:" + callee.port()), false));
            caller.send(TestApps.request("INVITE", "front-2"));
            final String out = callee.await(m -> m.startsWith("INVITE "), "the outbound INVITE at the callee");
            assertNull(SipPeer.header(out, "Route"), out);
        }
    }
}
