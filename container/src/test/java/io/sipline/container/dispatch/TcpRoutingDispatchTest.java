package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServletRequest;

import io.sipline.container.router.DarConfiguration;
import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.sip.stack.SipStackConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transports of what the container relays rather than sends as a UA: a record-routing proxy whose request
 * arrives over UDP and leaves over TCP (or TLS) writes two Record-Route entries (RFC 5658 §4 double record-routing:
 * the outgoing side's on top, with its transport and port, the incoming side's under it), and the in-dialog requests
 * of either side, which come back through both, have both popped and go on over the transport the other side needs;
 * the same transport on both sides gives one entry with that transport's URI. The application router's external
 * {@code ;transport=tcp} route is reached over TCP, and a 2xx that comes over TCP after its call ended is ACKed and
 * ended with BYE on its connection. The TCP/TLS peers are raw sockets on loopback (port 0), the UDP ones
 * {@link SipPeer}s.
 */
class TcpRoutingDispatchTest
{
    @Test
    void shouldDoubleRecordRouteAUdpInviteProxiedToATcpCalleeAndRelayTheCalleesByeOverUdp() throws Exception
    {
        try (ContainerServer server = TestApps.server(); TcpPeer callee = new TcpPeer();
             SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
        {
            final int udpPort = DispatchSippTest.address(server).getPort();
            final int tcpPort = server.stack().tcpAddresses().getFirst().getPort();
            final Dialog d = establish(server, new ProxyRelayDispatchTest.RecordingProxy(), caller, callee,
                "sip:bob@127.0.0.1:" + callee.port() + ";transport=tcp", "dbl-rr-1");

            final List<String> rr = values(d.invite, "Record-Route");
            assertEquals(2, rr.size(), "RFC 5658: one entry per side: " + d.invite);
            assertTrue(rr.get(0).startsWith("<sip:127.0.0.1:" + tcpPort + ";transport=tcp;lr;sipline-px="), rr.get(0));
            assertTrue(rr.get(1).startsWith("<sip:127.0.0.1:" + udpPort + ";lr;sipline-px="), rr.get(1));
            assertEquals(key(rr.get(0)), key(rr.get(1)), "both entries name the one proxy session");
            assertTrue(values(d.invite, "Via").get(0).startsWith("SIP/2.0/TCP 127.0.0.1:" + tcpPort + ";"), d.invite);
            assertEquals(rr, values(d.ok, "Record-Route"), "the caller gets both, as the callee echoed them");

            // the callee hangs up over its connection, along its route set (the Record-Route in order, §12.1.1)
            callee.send("BYE " + d.callerContact + " SIP/2.0\r\n"
                + "Via: SIP/2.0/TCP 127.0.0.1:" + callee.port() + ";branch=z9hG4bK-dbl-rr-1-callee-bye\r\n"
                + "Max-Forwards: 70\r\n"
                + "Route: " + rr.get(0) + "\r\nRoute: " + rr.get(1) + "\r\n"
                + "From: " + SipPeer.header(d.ok, "To") + "\r\n"
                + "To: " + SipPeer.header(d.ok, "From") + "\r\n"
                + "Call-ID: dbl-rr-1\r\n"
                + "CSeq: 1 BYE\r\n"
                + "Content-Length: 0\r\n\r\n");
            final String bye = caller.await(m -> m.startsWith("BYE "), "the callee's BYE at the caller, over UDP");
            assertTrue(bye.startsWith("BYE " + d.callerContact + " SIP/2.0\r\n"), bye);
            assertNull(SipPeer.header(bye, "Route"), "both of our Routes popped: " + bye);
            final List<String> vias = values(bye, "Via");
            assertEquals(2, vias.size(), bye);
            assertTrue(vias.get(0).startsWith("SIP/2.0/UDP 127.0.0.1:" + udpPort + ";"), "our UDP Via: " + bye);
            assertTrue(vias.get(1).contains("branch=z9hG4bK-dbl-rr-1-callee-bye"), bye);
            caller.send(answer(bye, "200 OK"));

            final String ok = callee.read();
            assertTrue(ok.startsWith("SIP/2.0 200 OK\r\n"), "the 200 back on the callee's connection: " + ok);
            assertEquals(List.of(vias.get(1)), values(ok, "Via"), "our Via taken off");
            assertEquals(1, callee.accepted(), "INVITE, ACK, BYE and its 200 share the one connection");
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call ends: "
                + server.applicationSessions());
            assertEquals(0, server.counters().servletErrors.get());
        }
    }

    @Test
    void shouldRelayTheCallersUdpByeToTheTcpCalleeOverTcp() throws Exception
    {
        callerHangsUp(false, "dbl-rr-2");
    }

    /** The servlet asks for the BYE's proxy: the full proxy path (a ProxyImpl branch) takes it, over TCP too. */
    @Test
    void shouldProxyTheCallersUdpByeToTheTcpCalleeOverTcpWhenTheServletAsksForItsProxy() throws Exception
    {
        callerHangsUp(true, "dbl-rr-3");
    }

    private static void callerHangsUp(final boolean proxyInBye, final String callId) throws Exception
    {
        final ProxyRelayDispatchTest.RecordingProxy app = new ProxyRelayDispatchTest.RecordingProxy();
        app.proxyInBye = proxyInBye;
        try (ContainerServer server = TestApps.server(); TcpPeer callee = new TcpPeer();
             SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
        {
            final int tcpPort = server.stack().tcpAddresses().getFirst().getPort();
            final Dialog d = establish(server, app, caller, callee, "sip:bob@127.0.0.1:" + callee.port()
                + ";transport=tcp", callId);
            final List<String> rr = values(d.ok, "Record-Route");

            // the caller's route set is the Record-Route reversed (§12.1.2): our UDP entry first
            caller.send(SipPeer.inDialog("BYE", callId, SipPeer.header(d.ok, "To"), 2, callId + "-bye",
                "Route: " + rr.get(1) + "\r\nRoute: " + rr.get(0) + "\r\n")
                .replaceFirst("sip:service@127.0.0.1", d.calleeContact));
            final String bye = callee.read();
            assertTrue(bye.startsWith("BYE " + d.calleeContact + " SIP/2.0\r\n"), bye);
            assertNull(SipPeer.header(bye, "Route"), "both of our Routes popped: " + bye);
            assertTrue(values(bye, "Via").get(0).startsWith("SIP/2.0/TCP 127.0.0.1:" + tcpPort + ";"), bye);
            assertEquals("69", SipPeer.header(bye, "Max-Forwards"), bye);
            callee.send(answer(bye, "200 OK"));

            final String ok = caller.await(SipPeer.response(200, "BYE"), "the 200 to the BYE, over UDP");
            assertEquals(1, values(ok, "Via").size(), ok);
            assertEquals(1, callee.accepted());
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call ends: "
                + server.applicationSessions());
            assertEquals(List.of("BYE initial=false"), List.copyOf(app.seen).subList(0, 1));
            assertEquals(0, server.counters().servletErrors.get());
        }
    }

    @Test
    void shouldRecordRouteOnceWithTheTransportOfBothSidesWhenTheyAreTheSame() throws Exception
    {
        try (ContainerServer server = TestApps.server(); TcpPeer callee = new TcpPeer();
             TcpPeer caller = new TcpPeer())
        {
            final int tcpPort = server.stack().tcpAddresses().getFirst().getPort();
            server.registry().onDeployed(TestApps.application("rr-proxy", new ProxyRelayDispatchTest.RecordingProxy(),
                Map.of("target", "sip:bob@127.0.0.1:" + callee.port() + ";transport=tcp")));
            caller.connect(server.stack().tcpAddresses().getFirst());
            caller.send(TestApps.request("INVITE", "one-rr").replace("SIP/2.0/UDP", "SIP/2.0/TCP")
                .replace("PORT", Integer.toString(caller.port())));
            final String invite = callee.read();
            assertEquals(List.of(), values(invite, "Record-Route").stream()
                .filter(v -> !v.startsWith("<sip:127.0.0.1:" + tcpPort + ";transport=tcp;lr;sipline-px=")).toList(),
                invite);
            assertEquals(1, values(invite, "Record-Route").size(), "TCP in, TCP out: one entry: " + invite);
            callee.send(answer(invite, "486 Busy Here"));
            String busy = caller.read();
            while (busy.startsWith("SIP/2.0 100 "))
            {
                busy = caller.read();
            }
            assertTrue(busy.startsWith("SIP/2.0 486 "), busy);
        }
    }

    /**
     * RFC 3261 §16.3 step 4 over TLS (whose port is not the UDP one): a request the proxy sends to itself over TLS
     * with the same Request-URI comes back with our TLS Via (our TLS port as sent-by) and the same hash: a loop,
     * answered 482, not proxied round again until Max-Forwards runs out (483).
     */
    @Test
    void shouldDetectALoopThroughOurOwnTlsPort(@TempDir final Path dir) throws Exception
    {
        final TestCertificate pair = TestCertificate.generate(dir);
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        try (ContainerServer server = ContainerServer.start(new SipStackConfig().addresses(List.of(TestApps.LOOPBACK))
            .ports(0).shards(2).tlsCertificate(pair.certificate).tlsPrivateKey(pair.privateKey).tlsPorts(0)
            .tlsTrustedCertificates(pair.certificate), router);
             SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
        {
            final int tlsPort = server.stack().tlsAddresses().getFirst().getPort();
            assertTrue(tlsPort != DispatchSippTest.address(server).getPort(), "the TLS port is its own");
            final String self = "sips:service@127.0.0.1:" + tlsPort;
            server.registry().onDeployed(TestApps.application("rr-proxy", new ProxyRelayDispatchTest.RecordingProxy(),
                Map.of("target", self)));
            caller.send(TestApps.request("INVITE", "tls-loop").replace("INVITE sip:service@127.0.0.1 ",
                "INVITE " + self + " "));
            final String answer = caller.await(m -> m.startsWith("SIP/2.0 4"), "the final response");
            assertTrue(answer.startsWith("SIP/2.0 482 "), answer);
            assertEquals(0, server.counters().servletErrors.get());
        }
    }

    @Test
    void shouldDoubleRecordRouteWithASipsEntryForATlsCallee(@TempDir final Path dir) throws Exception
    {
        final TestCertificate pair = TestCertificate.generate(dir);
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        try (ContainerServer server = ContainerServer.start(new SipStackConfig().addresses(List.of(TestApps.LOOPBACK))
            .ports(0).shards(2).tlsCertificate(pair.certificate).tlsPrivateKey(pair.privateKey).tlsPorts(0)
            .tlsTrustedCertificates(pair.certificate), router);
             TcpPeer callee = new TcpPeer(pair.serverContext().getServerSocketFactory().createServerSocket());
             SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
        {
            final int udpPort = DispatchSippTest.address(server).getPort();
            final int tlsPort = server.stack().tlsAddresses().getFirst().getPort();
            server.registry().onDeployed(TestApps.application("rr-proxy", new ProxyRelayDispatchTest.RecordingProxy(),
                Map.of("target", "sips:bob@127.0.0.1:" + callee.port())));
            caller.send(TestApps.request("INVITE", "dbl-rr-tls"));
            final String invite = callee.read();
            final List<String> rr = values(invite, "Record-Route");
            assertEquals(2, rr.size(), invite);
            assertTrue(rr.get(0).startsWith("<sips:127.0.0.1:" + tlsPort + ";lr;sipline-px="), rr.get(0));
            assertTrue(rr.get(1).startsWith("<sip:127.0.0.1:" + udpPort + ";lr;sipline-px="), rr.get(1));
            assertTrue(values(invite, "Via").get(0).startsWith("SIP/2.0/TLS 127.0.0.1:" + tlsPort + ";"), invite);
            callee.send(answer(invite, "486 Busy Here"));
            caller.await(SipPeer.response(486, "INVITE"), "the 486 relayed over UDP");
        }
    }

    @Test
    void shouldSendARoutedOutRequestToATransportTcpExternalRouteOverTcp() throws Exception
    {
        try (TcpPeer hop = new TcpPeer())
        {
            final String route = "sip:127.0.0.1:" + hop.port() + ";transport=tcp;lr";
            try (ContainerServer server = routedServer("(\"absent\", \"DAR:From\", \"ORIGINATING\", \"" + route
                + "\", \"ROUTE\", \"0\")");
                 SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
            {
                final int tcpPort = server.stack().tcpAddresses().getFirst().getPort();
                server.registry().onDeployed(TestApps.application("app", new RouterRouteDispatchTest.Busy(),
                    Map.of())); // an application deployed: the router is asked (it names none of them)
                caller.send(TestApps.request("INVITE", "routed-tcp"));
                final String invite = hop.read();
                assertTrue(invite.startsWith("INVITE sip:service@127.0.0.1 SIP/2.0\r\n"), invite);
                assertEquals("<" + route + ">", SipPeer.header(invite, "Route"), invite);
                final List<String> vias = values(invite, "Via");
                assertEquals(2, vias.size(), invite);
                assertTrue(vias.get(0).startsWith("SIP/2.0/TCP 127.0.0.1:" + tcpPort + ";branch="), invite);

                hop.send(answer(invite, "180 Ringing"));
                caller.await(SipPeer.response(180, "INVITE"), "the 180 relayed");
                caller.send(TestApps.request("CANCEL", "routed-tcp"));
                caller.await(SipPeer.response(200, "CANCEL"), "RFC 3261 §16.10: 200 to the CANCEL");
                final String cancel = hop.read();
                assertTrue(cancel.startsWith("CANCEL "), cancel);
                assertEquals(vias.get(0), values(cancel, "Via").get(0), "RFC 3261 §9.1: the INVITE's Via, TCP");
                hop.send(answer(cancel, "200 OK"));
                hop.send(answer(invite, "487 Request Terminated"));
                final String ack = hop.read();
                assertTrue(ack.startsWith("ACK "), "the ACK of the 487, on the connection: " + ack);
                final String terminated = caller.await(SipPeer.response(487, "INVITE"), "the 487 relayed over UDP");
                assertEquals(1, values(terminated, "Via").size(), terminated);
                assertEquals(1, hop.accepted());
                assertEquals(1, server.counters().routedOut.get());
            }
        }
    }

    /**
     * JSR 289 §15.4.1 {@code ROUTE_BACK} to an external {@code ;transport=tcp} route: the route back to us names TCP
     * and our TCP port (the hop returns the request the way it came), and the request that comes back over TCP
     * continues application selection.
     */
    @Test
    void shouldRouteBackOverTcpWhenTheExternalRouteIsReachedOverTcp() throws Exception
    {
        try (TcpPeer hop = new TcpPeer())
        {
            final String route = "sip:127.0.0.1:" + hop.port() + ";transport=tcp;lr";
            try (ContainerServer server = routedServer("(\"screening\", \"DAR:From\", \"ORIGINATING\", \"" + route
                + "\", \"ROUTE_BACK\", \"0\"), (\"app\", \"DAR:To\", \"TERMINATING\", \"\", \"NO_ROUTE\", \"1\")");
                 SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
            {
                final java.net.InetSocketAddress tcp = server.stack().tcpAddresses().getFirst();
                final RouterRouteDispatchTest.Busy app = new RouterRouteDispatchTest.Busy();
                server.registry().onDeployed(TestApps.application("app", app, Map.of()));
                caller.send(TestApps.request("INVITE", "routed-back-tcp"));
                final String invite = hop.read();
                final List<String> routes = values(invite, "Route");
                assertEquals(2, routes.size(), invite);
                assertEquals("<" + route + ">", routes.get(0), "the external route on top");
                final String back = routes.get(1);
                assertTrue(back.startsWith("<sip:127.0.0.1:" + tcp.getPort() + ";transport=tcp;lr;"
                    + ApplicationComposition.COMPOSITION_PARAMETER + "="),
                    "the route back names TCP and our TCP port: " + back);
                assertTrue(values(invite, "Via").get(0).startsWith("SIP/2.0/TCP "), invite);

                // the hop proxies it on along the Route set, over TCP to the route back
                final StringBuilder proxied = new StringBuilder();
                boolean popped = false;
                for (final String line : invite.substring(0, invite.indexOf("\r\n\r\n")).split("\r\n"))
                {
                    if (!popped && line.startsWith("Route:") && line.contains(";transport=tcp;lr>"))
                    {
                        popped = true; // its own entry (the container writes one Route line per value)
                        continue;
                    }
                    if (line.startsWith("INVITE "))
                    {
                        proxied.append(line).append("\r\n")
                            .append("Via: SIP/2.0/TCP 127.0.0.1:").append(hop.port())
                            .append(";branch=z9hG4bK-external-hop-tcp\r\n");
                        continue;
                    }
                    proxied.append(line).append("\r\n");
                }
                hop.connect(tcp);
                hop.send(proxied.append("\r\n").toString());
                String busy = hop.read();
                while (busy.startsWith("SIP/2.0 100 "))
                {
                    busy = hop.read(); // our 100 Trying first (RFC 3261 §17.2.1)
                }
                assertTrue(busy.startsWith("SIP/2.0 486 "), busy);
                assertEquals(3, values(busy, "Via").size(), "the hop's, ours, the caller's: " + busy);
                final String uri = back.substring(1, back.length() - 1);
                assertEquals(List.of("INVITE TERMINATING sip:service@127.0.0.1 popped=" + uri), List.copyOf(app.seen),
                    "selection continued after the ROUTE_BACK tuple, from our TCP route");
            }
        }
    }

    @Test
    void shouldAckAndByeALateTwoHundredOnTheTcpConnectionItCameOn() throws Exception
    {
        TcpTransportDispatchTest.EVENTS.clear();
        try (ContainerServer server = TestApps.server(); TcpPeer peer = new TcpPeer())
        {
            final int tcpPort = server.stack().tcpAddresses().getFirst().getPort();
            server.registry().onDeployed(TestApps.application("caller", new TcpTransportDispatchTest.Caller(),
                Map.of()));
            final SipFactory factory = TestApps.factory(server, "caller");
            final SipApplicationSession app = factory.createApplicationSession();
            final SipServletRequest request = factory.createRequest(app, "INVITE", "<sip:alice@127.0.0.1>",
                "<sip:bob@127.0.0.1:" + peer.port() + ";transport=tcp>");
            request.send();
            final String invite = peer.read();
            peer.send(ok(invite, "callee1", "<sip:bob@127.0.0.1:" + peer.port() + ";transport=tcp>"));
            assertTrue(peer.read().startsWith("ACK "));
            final String hangUp = peer.read();
            assertTrue(hangUp.startsWith("BYE "), hangUp);
            peer.send(answer(hangUp, "200 OK"));
            assertEquals("200 INVITE TCP/TCP", TcpTransportDispatchTest.EVENTS.poll(10, TimeUnit.SECONDS));
            assertEquals("200 BYE TCP/TCP", TcpTransportDispatchTest.EVENTS.poll(10, TimeUnit.SECONDS));
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the call ends: "
                + server.applicationSessions());

            // a forked 2xx after the call ended; its Contact names no transport: it is reached on the connection
            peer.send(ok(invite, "callee2", "<sip:callee2@127.0.0.1:" + peer.port() + ">"));
            final String ack = peer.read();
            assertTrue(ack.startsWith("ACK sip:callee2@127.0.0.1:" + peer.port() + " SIP/2.0\r\n"), ack);
            assertTrue(SipPeer.header(ack, "To").endsWith(";tag=callee2"), ack);
            assertTrue(values(ack, "Via").get(0).startsWith("SIP/2.0/TCP 127.0.0.1:" + tcpPort + ";branch="), ack);
            final String bye = peer.read();
            assertTrue(bye.startsWith("BYE sip:callee2@127.0.0.1:" + peer.port() + " SIP/2.0\r\n"), bye);
            assertTrue(values(bye, "Via").get(0).startsWith("SIP/2.0/TCP 127.0.0.1:" + tcpPort + ";branch="), bye);
            assertEquals("2 BYE", SipPeer.header(bye, "CSeq"), bye);
            peer.send(answer(bye, "200 OK"));
            assertEquals(1, server.counters().stray2xx.get());
            assertEquals(1, peer.accepted(), "everything on the one connection");
        }
    }

    /** A dialog through the record-routing proxy: the INVITE as the callee got it, the 200 as the caller got it. */
    private record Dialog(String invite, String ok, String callerContact, String calleeContact)
    {
    }

    /**
     * A UDP caller's INVITE through the record-routing proxy to a TCP callee at {@code target}, its 200 (with the
     * Record-Route echoed and a {@code transport=tcp} Contact) and the caller's ACK along the Route, at the callee.
     */
    private static Dialog establish(final ContainerServer server, final ProxyRelayDispatchTest.RecordingProxy app,
        final SipPeer caller, final TcpPeer callee, final String target, final String callId) throws Exception
    {
        server.registry().onDeployed(TestApps.application("rr-proxy", app, Map.of("target", target)));
        caller.send(TestApps.request("INVITE", callId));
        final String invite = callee.read();
        assertTrue(invite.startsWith("INVITE " + target + " SIP/2.0\r\n"), invite);
        final String calleeContact = "sip:bob@127.0.0.1:" + callee.port() + ";transport=tcp";
        final StringBuilder ok = withVias("200 OK", invite);
        for (final String rr : values(invite, "Record-Route"))
        {
            ok.append("Record-Route: ").append(rr).append("\r\n");
        }
        SipPeer.copyHeaders(invite, ok, "From", "Call-ID", "CSeq");
        ok.append("To: ").append(SipPeer.header(invite, "To")).append(";tag=b1\r\n");
        ok.append("Contact: <").append(calleeContact).append(">\r\nContent-Length: 0\r\n\r\n");
        callee.send(ok.toString());
        final String answered = caller.await(SipPeer.response(200, "INVITE"), "the 200 to the INVITE");
        final List<String> rr = values(answered, "Record-Route");
        assertNotNull(SipPeer.header(answered, "Record-Route"), answered);
        final StringBuilder route = new StringBuilder();
        for (int i = rr.size() - 1; i >= 0; i--)
        {
            route.append("Route: ").append(rr.get(i)).append("\r\n");
        }
        caller.send(SipPeer.inDialog("ACK", callId, SipPeer.header(answered, "To"), 1, callId + "-ack",
            route.toString()).replaceFirst("sip:service@127.0.0.1", calleeContact));
        final String ack = callee.read();
        assertTrue(ack.startsWith("ACK " + calleeContact + " SIP/2.0\r\n"), "the ACK over TCP: " + ack);
        assertNull(SipPeer.header(ack, "Route"), "both of our Routes popped: " + ack);
        return new Dialog(invite, answered, "sip:alice@127.0.0.1:" + caller.port(), calleeContact);
    }

    /** A 200 to the container's INVITE, To-tagged {@code tag}, with {@code contact}. */
    private static String ok(final String invite, final String tag, final String contact)
    {
        final StringBuilder b = withVias("200 OK", invite);
        SipPeer.copyHeaders(invite, b, "From", "Call-ID", "CSeq");
        b.append("To: ").append(SipPeer.header(invite, "To")).append(";tag=").append(tag).append("\r\n");
        return b.append("Contact: ").append(contact).append("\r\nContent-Length: 0\r\n\r\n").toString();
    }

    /** A server (two shards, loopback, port 0) whose default application router has these DAR tuples for INVITE. */
    private static ContainerServer routedServer(final String inviteTuples) throws Exception
    {
        final java.util.Properties dar = new java.util.Properties();
        dar.setProperty("INVITE", inviteTuples);
        final DefaultApplicationRouter router = new DefaultApplicationRouter(DarConfiguration.fromProperties(dar,
            "test"));
        router.init();
        return ContainerServer.start(new SipStackConfig().addresses(List.of(TestApps.LOOPBACK)).ports(0).shards(2),
            router);
    }

    /** A response {@code statusLine} to a request: every Via, From, To (tagged b1 when it has none), Call-ID, CSeq. */
    static String answer(final String request, final String statusLine)
    {
        final StringBuilder b = withVias(statusLine, request);
        SipPeer.copyHeaders(request, b, "From", "Call-ID", "CSeq");
        final String to = SipPeer.header(request, "To");
        b.append("To: ").append(to.contains(";tag=") ? to : to + ";tag=b1").append("\r\n");
        return b.append("Content-Length: 0\r\n\r\n").toString();
    }

    /** A status line and every Via line of {@code request}, in order (RFC 3261 §8.2.6.2). */
    static StringBuilder withVias(final String statusLine, final String request)
    {
        final StringBuilder b = new StringBuilder("SIP/2.0 ").append(statusLine).append("\r\n");
        for (final String via : values(request, "Via"))
        {
            b.append("Via: ").append(via).append("\r\n");
        }
        return b;
    }

    /** Every value of a header, one per line as the container writes them, comma-separated lists split. */
    static List<String> values(final String message, final String name)
    {
        final String prefix = name.toLowerCase(Locale.ROOT) + ":";
        final List<String> all = new ArrayList<>();
        for (final String line : message.split("\r\n"))
        {
            if (line.isEmpty())
            {
                break;
            }
            if (line.toLowerCase(Locale.ROOT).startsWith(prefix))
            {
                for (final String v : line.substring(prefix.length()).split(",(?=\\s*[<A-Za-z])"))
                {
                    all.add(v.strip());
                }
            }
        }
        return all;
    }

    /** The proxy session key of a Record-Route entry of ours. */
    private static String key(final String entry)
    {
        final int at = entry.indexOf("sipline-px=");
        final int end = entry.indexOf('>', at);
        return entry.substring(at + "sipline-px=".length(), end);
    }
}
