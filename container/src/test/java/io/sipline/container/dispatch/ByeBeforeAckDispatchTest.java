package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * A caller's BYE that overtakes its own ACK. A caller sends the ACK of the 2xx and, ending the call at once, the BYE
 * back to back; UDP keeps no order between two datagrams, and the server's sockets read by different shards can
 * swap them (seen at the start of a load run: 2-4 of the first 30 calls). RFC 3261 §15.1.2: the BYE ends the
 * dialog; the late ACK finds none. What must not follow: the UAS's 2xx retransmitted to the gone caller until
 * 64*T1 (§13.3.1.4), and, in a B2BUA that relays the caller's ACK to the callee, a callee whose 2xx is never ACKed
 * (§13.2.2.4). T1 is 20 ms; a retransmission that must not come is waited for over 8*T1 (the 2xx's would come at
 * T1, 3*T1 and 7*T1 after the first).
 */
class ByeBeforeAckDispatchTest
{
    private static final long T1_NS = 20_000_000L;
    private static final long EIGHT_T1_MS = 8 * T1_NS / 1_000_000L;

    @Test
    void shouldStopRetransmittingThe2xxOnceTheByeEndedItsDialog() throws Exception
    {
        final RecordingUas uas = new RecordingUas();
        try (ContainerServer server = TestApps.server(T1_NS);
            SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, Map.of()));
            caller.send(TestApps.request("INVITE", "bye-first-uas"));
            final String ok = caller.await(SipPeer.response(200, "INVITE"), "the 2xx");
            final String to = SipPeer.header(ok, "To");

            caller.send(SipPeer.inDialog("BYE", "bye-first-uas", to, 2, "bye-first-uas-bye", ""));
            caller.await(SipPeer.response(200, "BYE"), "200 to the BYE");
            caller.send(SipPeer.inDialog("ACK", "bye-first-uas", to, 1, "bye-first-uas-ack", ""));

            assertNull(caller.within(SipPeer.response(200, "INVITE"), EIGHT_T1_MS),
                "no 2xx retransmitted after the BYE: " + caller.firstLines());
            assertEquals(List.of("INVITE", "BYE"), List.copyOf(uas.seen), "the late ACK reaches no servlet");
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call's sessions end: "
                + server.applicationSessions());
            assertEquals(0, server.counters().servletErrors.get());
        }
    }

    @Test
    void shouldAckTheCalleesTwoHundredBeforeRelayingACallersByeThatOvertookItsAck() throws Exception
    {
        try (ContainerServer server = TestApps.server(T1_NS);
            SipPeer caller = new SipPeer(DispatchSippTest.address(server));
            SipPeer callee = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("b2bua", new DispatchSippTest.B2bua(),
                Map.of("target", "sip:callee@127.0.0.1:" + callee.port())));
            caller.send(TestApps.request("INVITE", "bye-first-b2bua"));
            final String invite = callee.await(m -> m.startsWith("INVITE "), "the INVITE on the callee's leg");
            callee.send(SipPeer.answer(invite, "callee", callee.port()));
            final String ok = caller.await(SipPeer.response(200, "INVITE"), "the 2xx relayed");
            final String to = SipPeer.header(ok, "To");

            // the caller's BYE is read before its ACK
            caller.send(SipPeer.inDialog("BYE", "bye-first-b2bua", to, 2, "bye-first-b2bua-bye", ""));
            final String ack = callee.await(m -> m.startsWith("ACK ") || m.startsWith("BYE "),
                "the callee's next request");
            assertTrue(ack.startsWith("ACK "), "RFC 3261 §13.2.2.4: the 2xx is ACKed before the BYE: "
                + callee.firstLines());
            assertEquals("1 ACK", SipPeer.header(ack, "CSeq"));
            assertTrue(SipPeer.header(ack, "To").endsWith(";tag=callee"), ack);
            final String bye = callee.await(m -> m.startsWith("BYE "), "the BYE relayed");
            callee.send(SipPeer.okTo(bye));
            caller.await(SipPeer.response(200, "BYE"), "200 to the caller's BYE");

            caller.send(SipPeer.inDialog("ACK", "bye-first-b2bua", to, 1, "bye-first-b2bua-ack", ""));
            assertNull(caller.within(SipPeer.response(200, "INVITE"), EIGHT_T1_MS),
                "no 2xx retransmitted to the caller after its BYE: " + caller.firstLines());
            // anything relayed of the late ACK was sent before the caller's wait ended: it is queued on the socket
            assertNull(callee.within(m -> m.startsWith("ACK "), 2 * T1_NS / 1_000_000L), "one ACK for the callee: "
                + callee.firstLines());
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call's sessions end: "
                + server.applicationSessions());
            assertEquals(0, server.counters().servletErrors.get());
        }
    }
}
