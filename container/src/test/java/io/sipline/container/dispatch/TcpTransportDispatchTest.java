package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;

import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.sip.stack.SipStackConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transport of the requests the container sends (RFC 3261 §18.1.1, RFC 3263 §4.1): a next hop with
 * {@code transport=tcp} is reached over TCP with a TCP Via on the container's TCP port and a {@code transport=tcp}
 * Contact, the ACK and BYE follow on the same connection; a request larger than 1300 bytes goes over TCP; a CANCEL
 * goes the way its INVITE went (§9.1); a {@code sips:} target is reached over TLS; without a TCP listener the
 * application gets a 503. The peer is a raw TCP (or TLS) socket in the test.
 */
class TcpTransportDispatchTest
{
    static final BlockingQueue<String> EVENTS = new ArrayBlockingQueue<>(32);

    /** A UAC: ACKs a 2xx and hangs up with BYE; cancels on 180; records every final response and its transport. */
    public static final class Caller extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doResponse(final SipServletResponse resp) throws IOException
        {
            final int status = resp.getStatus();
            if (180 == status)
            {
                resp.getRequest().createCancel().send();
                return;
            }
            if (status < 200)
            {
                return;
            }
            // the request went, and its response came, over the same transport (JSR 289 getTransport)
            EVENTS.add(status + " " + resp.getMethod() + " " + resp.getRequest().getTransport() + "/"
                + resp.getTransport());
            if (status < 300 && "INVITE".equals(resp.getMethod()))
            {
                resp.createAck().send();
                resp.getSession().createRequest("BYE").send();
            }
        }
    }

    @Test
    void shouldSendToATransportTcpTargetOverTcpAndKeepTheDialogOnThatConnection() throws Exception
    {
        EVENTS.clear();
        try (ContainerServer server = TestApps.server(); TcpPeer peer = new TcpPeer())
        {
            final int tcpPort = server.stack().tcpAddresses().getFirst().getPort();
            invite(server, "sip:bob@127.0.0.1:" + peer.port() + ";transport=tcp", "");

            final String invite = peer.read();
            assertTrue(invite.startsWith("INVITE sip:bob@127.0.0.1:" + peer.port() + ";transport=tcp SIP/2.0\r\n"),
                invite);
            assertTrue(SipPeer.header(invite, "Via").startsWith("SIP/2.0/TCP 127.0.0.1:" + tcpPort + ";branch="),
                invite);
            assertEquals("<sip:127.0.0.1:" + tcpPort + ";transport=tcp>", SipPeer.header(invite, "Contact"), invite);
            peer.send(answer(invite, 200, "<sip:bob@127.0.0.1:" + peer.port() + ";transport=tcp>"));

            final String ack = peer.read();
            assertTrue(ack.startsWith("ACK sip:bob@127.0.0.1:" + peer.port() + ";transport=tcp SIP/2.0\r\n"), ack);
            assertTrue(SipPeer.header(ack, "Via").startsWith("SIP/2.0/TCP 127.0.0.1:" + tcpPort + ";"), ack);
            final String bye = peer.read();
            assertTrue(bye.startsWith("BYE sip:bob@127.0.0.1:" + peer.port() + ";transport=tcp SIP/2.0\r\n"), bye);
            assertTrue(SipPeer.header(bye, "Via").startsWith("SIP/2.0/TCP 127.0.0.1:" + tcpPort + ";"), bye);
            peer.send(answer(bye, 200, null));

            assertEquals("200 INVITE TCP/TCP", EVENTS.poll(10, TimeUnit.SECONDS));
            assertEquals("200 BYE TCP/TCP", EVENTS.poll(10, TimeUnit.SECONDS));
            assertEquals(1, peer.accepted(), "the INVITE, ACK and BYE share one connection");
        }
    }

    @Test
    void shouldSendARequestLargerThan1300BytesOverTcpAndItsNon2xxAckOnTheSameConnection() throws Exception
    {
        EVENTS.clear();
        try (ContainerServer server = TestApps.server(); TcpPeer peer = new TcpPeer())
        {
            final int tcpPort = server.stack().tcpAddresses().getFirst().getPort();
            invite(server, "sip:bob@127.0.0.1:" + peer.port(), "v=0\r\n" + "a=x-padding:x\r\n".repeat(100));

            final String invite = peer.read();
            assertTrue(invite.length() > 1300, "the INVITE is large: " + invite.length());
            assertTrue(SipPeer.header(invite, "Via").startsWith("SIP/2.0/TCP 127.0.0.1:" + tcpPort + ";branch="),
                invite);
            assertTrue(SipPeer.header(invite, "Contact").endsWith(";transport=tcp>"), invite);
            peer.send(answer(invite, 486, null));

            final String ack = peer.read(); // RFC 3261 §17.1.1.3: the transaction's ACK, on its connection
            assertTrue(ack.startsWith("ACK "), ack);
            assertEquals(SipPeer.header(invite, "Via"), SipPeer.header(ack, "Via"), ack);
            assertEquals("486 INVITE TCP/TCP", EVENTS.poll(10, TimeUnit.SECONDS));
            assertEquals(1, peer.accepted());
        }
    }

    @Test
    void shouldSendTheCancelOfATcpInviteOverTcp() throws Exception
    {
        EVENTS.clear();
        try (ContainerServer server = TestApps.server(); TcpPeer peer = new TcpPeer())
        {
            invite(server, "sip:bob@127.0.0.1:" + peer.port() + ";transport=tcp", "");
            final String invite = peer.read();
            peer.send(answer(invite, 180, null));

            final String cancel = peer.read();
            assertTrue(cancel.startsWith("CANCEL sip:bob@127.0.0.1:" + peer.port() + ";transport=tcp SIP/2.0\r\n"),
                cancel);
            assertEquals(SipPeer.header(invite, "Via"), SipPeer.header(cancel, "Via"), "§9.1: the INVITE's Via");
            peer.send(answer(cancel, 200, null));
            peer.send(answer(invite, 487, null));
            final String ack = peer.read();
            assertTrue(ack.startsWith("ACK "), ack);
            assertEquals("487 INVITE TCP/TCP", EVENTS.poll(10, TimeUnit.SECONDS));
            assertEquals(1, peer.accepted());
        }
    }

    @Test
    void shouldAnswer503WhenATcpTargetIsAskedForWithoutATcpListener() throws Exception
    {
        EVENTS.clear();
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        try (ContainerServer server = ContainerServer.start(new SipStackConfig().addresses(List.of(TestApps.LOOPBACK))
            .ports(0).shards(2).tcp(false), router); TcpPeer peer = new TcpPeer())
        {
            assertTrue(server.stack().tcpAddresses().isEmpty());
            invite(server, "sip:bob@127.0.0.1:" + peer.port() + ";transport=tcp", "");
            final String event = EVENTS.poll(10, TimeUnit.SECONDS);
            assertNotNull(event);
            assertTrue(event.startsWith("503 INVITE"), event);
            // the shard keeps serving: an OPTIONS over UDP is still answered
            final String options = TestApps.exchange(server.localAddresses().getFirst(),
                TestApps.request("OPTIONS", "tcp-503-after"));
            assertTrue(options.startsWith("SIP/2.0 "), options);
        }
    }

    @Test
    void shouldSendToASipsTargetOverTlsWithATlsViaAndASipsContact(@TempDir final Path dir) throws Exception
    {
        EVENTS.clear();
        final TestCertificate pair = TestCertificate.generate(dir);
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        try (ContainerServer server = ContainerServer.start(new SipStackConfig().addresses(List.of(TestApps.LOOPBACK))
            .ports(0).shards(2).tlsCertificate(pair.certificate).tlsPrivateKey(pair.privateKey).tlsPorts(0)
            .tlsTrustedCertificates(pair.certificate), router);
             TcpPeer peer = new TcpPeer(pair.serverContext().getServerSocketFactory().createServerSocket()))
        {
            final int tlsPort = server.stack().tlsAddresses().getFirst().getPort();
            invite(server, "sips:bob@127.0.0.1:" + peer.port(), "");

            final String invite = peer.read();
            assertTrue(invite.startsWith("INVITE sips:bob@127.0.0.1:" + peer.port() + " SIP/2.0\r\n"), invite);
            assertTrue(SipPeer.header(invite, "Via").startsWith("SIP/2.0/TLS 127.0.0.1:" + tlsPort + ";branch="),
                invite);
            assertEquals("<sips:127.0.0.1:" + tlsPort + ">", SipPeer.header(invite, "Contact"), invite);
            peer.send(answer(invite, 200, "<sips:bob@127.0.0.1:" + peer.port() + ">"));

            final String ack = peer.read();
            assertTrue(ack.startsWith("ACK sips:bob@127.0.0.1:" + peer.port() + " SIP/2.0\r\n"), ack);
            assertTrue(SipPeer.header(ack, "Via").startsWith("SIP/2.0/TLS 127.0.0.1:" + tlsPort + ";"), ack);
            final String bye = peer.read();
            assertTrue(bye.startsWith("BYE sips:bob@127.0.0.1:" + peer.port() + " SIP/2.0\r\n"), bye);
            peer.send(answer(bye, 200, null));

            assertEquals("200 INVITE TLS/TLS", EVENTS.poll(10, TimeUnit.SECONDS));
            assertEquals("200 BYE TLS/TLS", EVENTS.poll(10, TimeUnit.SECONDS));
            assertEquals(1, peer.accepted(), "the INVITE, ACK and BYE share one TLS connection");
        }
    }

    /** A UAS: answers an INVITE 200 with the transport it came on in a header. */
    public static final class Callee extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doInvite(final SipServletRequest req) throws IOException
        {
            final SipServletResponse ok = req.createResponse(200);
            ok.setHeader("X-Transport", req.getTransport());
            ok.setHeader("X-Response-Transport", ok.getTransport());
            ok.send();
        }
    }

    @Test
    void shouldAnswerAnInviteReceivedOverTcpWithATcpContact() throws Exception
    {
        try (ContainerServer server = TestApps.server(); TcpPeer peer = new TcpPeer())
        {
            server.registry().onDeployed(TestApps.application("callee", new Callee(), Map.of()));
            final InetSocketAddress tcp = server.stack().tcpAddresses().getFirst();
            peer.connect(tcp);
            peer.send(TestApps.request("INVITE", "tcp-uas-1").replace("SIP/2.0/UDP", "SIP/2.0/TCP")
                .replace("PORT", "5060"));
            String ok = peer.read();
            while (ok.startsWith("SIP/2.0 100 "))
            {
                ok = peer.read();
            }
            assertTrue(ok.startsWith("SIP/2.0 200 "), ok);
            assertEquals("TCP", SipPeer.header(ok, "X-Transport"), ok);
            assertEquals("TCP", SipPeer.header(ok, "X-Response-Transport"), ok);
            assertEquals("<sip:127.0.0.1:" + tcp.getPort() + ";transport=tcp>", SipPeer.header(ok, "Contact"), ok);
        }
    }

    /** Deploys the caller and sends an INVITE from its application session to {@code target}. */
    private static void invite(final ContainerServer server, final String target, final String sdp) throws Exception
    {
        server.registry().onDeployed(TestApps.application("caller", new Caller(), Map.of()));
        final SipFactory factory = TestApps.factory(server, "caller");
        final SipApplicationSession app = factory.createApplicationSession();
        final SipServletRequest invite = factory.createRequest(app, "INVITE", "<sip:alice@127.0.0.1>",
            "<" + target + ">");
        if (!sdp.isEmpty())
        {
            invite.setContent(sdp.getBytes(java.nio.charset.StandardCharsets.US_ASCII), "application/sdp");
        }
        invite.send();
    }

    /** A response to a request of the container, with a To tag, and {@code contact} when not null. */
    private static String answer(final String request, final int status, final String contact)
    {
        final StringBuilder b = new StringBuilder("SIP/2.0 ").append(status).append(' ')
            .append(200 == status ? "OK" : "Other").append("\r\n");
        SipPeer.copyHeaders(request, b, "Via", "From", "Call-ID", "CSeq");
        final String to = SipPeer.header(request, "To");
        b.append("To: ").append(to.contains(";tag=") ? to : to + ";tag=bob1").append("\r\n");
        if (null != contact)
        {
            b.append("Contact: ").append(contact).append("\r\n");
        }
        return b.append("Content-Length: 0\r\n\r\n").toString();
    }
}
