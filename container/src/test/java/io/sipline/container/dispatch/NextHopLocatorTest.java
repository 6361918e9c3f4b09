package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletResponse;

import org.junit.jupiter.api.Test;

import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.sip.stack.SipStackConfig;

/**
 * The container's next hop through the shard's SipLocator (RFC 3263) against a {@link LoopbackDns}: a host name is
 * located by NAPTR, then SRV, then A/AAAA, asynchronously on the shard, and the answer is cached for its TTL; a numeric
 * host, or a name of the hosts file ({@code localhost}), needs no DNS; a name nothing locates fails the
 * application's request with a 503 from the container.
 */
class NextHopLocatorTest
{
    /** Records the responses to what the application sent, as "STATUS METHOD reason". */
    public static final class Recorder extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        final transient BlockingQueue<String> responses = new ArrayBlockingQueue<>(16);

        @Override
        protected void doResponse(final SipServletResponse resp)
        {
            responses.add(resp.getStatus() + " " + resp.getMethod() + " " + resp.getReasonPhrase());
        }
    }

    @Test
    void shouldLocateAHostNameBySrvThenAAndCacheTheAnswer() throws Exception
    {
        final Recorder app = new Recorder();
        try (LoopbackDns dns = new LoopbackDns(); ContainerServer server = server(dns);
            SipPeer peer = new SipPeer(DispatchSippTest.address(server)))
        {
            dns.srv("_sip._udp.peer.test", 10, 1, peer.port(), "box.peer.test").a("box.peer.test", "127.0.0.1");
            final SipApplicationSession session = deploy(server, app);
            session.setInvalidateWhenReady(false); // both requests from one application session: one shard's cache
            options(server, session, "sip:bob@peer.test");
            answer(peer, "bob");
            assertEquals("200 OPTIONS OK", app.responses.poll(10, TimeUnit.SECONDS));
            final List<String> asked = dns.questions();
            assertTrue(asked.containsAll(List.of("NAPTR peer.test", "SRV _sip._udp.peer.test", "A box.peer.test")),
                "RFC 3263 §4.1: NAPTR, then SRV of each transport, then the target's addresses: " + asked);

            options(server, session, "sip:carol@peer.test");
            answer(peer, "carol");
            assertEquals("200 OPTIONS OK", app.responses.poll(10, TimeUnit.SECONDS));
            assertEquals(asked, dns.questions(), "the second request is located from the TTL cache");
        }
    }

    @Test
    void shouldSendToANumericHostOrAHostsFileNameWithoutAskingDns() throws Exception
    {
        final Recorder app = new Recorder();
        try (LoopbackDns dns = new LoopbackDns(); ContainerServer server = server(dns);
            SipPeer peer = new SipPeer(DispatchSippTest.address(server)))
        {
            options(server, deploy(server, app), "sip:bob@127.0.0.1:" + peer.port());
            answer(peer, "bob");
            assertEquals("200 OPTIONS OK", app.responses.poll(10, TimeUnit.SECONDS));
            options(server, factory(server).createApplicationSession(), "sip:carol@localhost:" + peer.port());
            answer(peer, "carol");
            assertEquals("200 OPTIONS OK", app.responses.poll(10, TimeUnit.SECONDS));
            assertEquals(List.of(), dns.questions());
        }
    }

    @Test
    void shouldFailTheRequestWith503WhenNothingLocatesTheHost() throws Exception
    {
        final Recorder app = new Recorder();
        try (LoopbackDns dns = new LoopbackDns(); ContainerServer server = server(dns))
        {
            options(server, deploy(server, app), "sip:bob@nowhere.test");
            final String failed = app.responses.poll(10, TimeUnit.SECONDS);
            assertTrue(null != failed && failed.startsWith("503 OPTIONS Service Unavailable (RFC 3263: no DNS record "
                + "locates nowhere.test)"), String.valueOf(failed));
            assertTrue(dns.questions().contains("A nowhere.test"), dns.questions().toString());
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()), "the failed request ends its session");
        }
    }

    private static ContainerServer server(final LoopbackDns dns) throws Exception
    {
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        return ContainerServer.start(new SipStackConfig().addresses(List.of(TestApps.LOOPBACK)).ports(0).shards(2)
            .dnsServers(List.of(dns.address())).dnsTimeoutMillis(2_000), router);
    }

    private static SipApplicationSession deploy(final ContainerServer server, final Recorder app) throws Exception
    {
        server.registry().onDeployed(TestApps.application("uac", app, Map.of()));
        return factory(server).createApplicationSession();
    }

    private static SipFactory factory(final ContainerServer server)
    {
        return TestApps.factory(server, "uac");
    }

    private static void options(final ContainerServer server, final SipApplicationSession session, final String to)
        throws Exception
    {
        factory(server).createRequest(session, "OPTIONS", "<sip:app@127.0.0.1>", "<" + to + ">").send();
    }

    /** The peer answers the next OPTIONS to {@code user} it gets with 200. */
    private static void answer(final SipPeer peer, final String user) throws Exception
    {
        final String request = peer.await(m -> m.startsWith("OPTIONS sip:" + user + "@"), "the OPTIONS to " + user);
        final StringBuilder ok = new StringBuilder("SIP/2.0 200 OK\r\n");
        for (final String name : new String[] {"Via", "From", "To", "Call-ID", "CSeq"})
        {
            ok.append(name).append(": ").append(SipPeer.header(request, name))
                .append("To".equals(name) ? ";tag=peer" : "").append("\r\n");
        }
        peer.send(ok.append("Content-Length: 0\r\n\r\n").toString());
    }
}
