package io.sipline.sip.stack;

import static io.sipline.sip.stack.StackTcpTest.answer;
import static io.sipline.sip.stack.StackTcpTest.awaitTrue;
import static io.sipline.sip.stack.StackTcpTest.header;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.test.SelfSignedPem;
import io.sipline.sip.transport.tcp.TcpCounters;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RFC 5922 §7.3 through the whole stack: the stack opens a TLS connection for a request and the server's certificate
 * must name the request's SIP domain (the host of its top Route, else of its Request-URI). Four self-signed
 * certificates made by {@code keytool} in the test, all trusted through {@link SipStackConfig#tlsTrustedCertificates}
 * (so that the chain check passes and only the domain decides): one with a {@code sip:} URI and a DNS name, one with a
 * DNS name only, one with no subjectAltName (CN only), one with a DNS name and a different CN. A match carries the
 * request and its 200; a mismatch fails the handshake before any SIP byte, closes the connection, fails the
 * transaction with a transport error, and logs one line naming the domain and the certificate's names.
 */
class StackTlsDomainTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    @TempDir
    static Path directory;
    private static SelfSignedPem uriAndDns;
    private static SelfSignedPem dnsOnly;
    private static SelfSignedPem cnOnly;
    private static SelfSignedPem dnsAndCn;
    private static Path trusted;
    private static final ConcurrentLinkedQueue<String> LOGGED = new ConcurrentLinkedQueue<>();
    private static final Logger JUL = Logger.getLogger("io.sipline.sip.transport.tcp");
    private static final Handler CAPTURE = new Handler()
    {
        @Override
        public void publish(final LogRecord record)
        {
            LOGGED.add(record.getMessage());
        }

        @Override
        public void flush()
        {
        }

        @Override
        public void close()
        {
        }
    };

    @BeforeAll
    static void makeCertificates() throws Exception
    {
        uriAndDns = SelfSignedPem.generate(directory, "a-", "CN=cn.atlanta.example.com",
            "uri:sip:atlanta.example.com,dns:dns.atlanta.example.com");
        dnsOnly = SelfSignedPem.generate(directory, "b-", "CN=cn.biloxi.example.com", "dns:biloxi.example.com");
        cnOnly = SelfSignedPem.generate(directory, "c-", "CN=chicago.example.com", null);
        dnsAndCn = SelfSignedPem.generate(directory, "d-", "CN=denver.example.com", "dns:www.denver.example.com");
        trusted = directory.resolve("trusted.pem");
        final StringBuilder bundle = new StringBuilder();
        for (final SelfSignedPem pem : List.of(uriAndDns, dnsOnly, cnOnly, dnsAndCn))
        {
            bundle.append(Files.readString(pem.certificate(), StandardCharsets.US_ASCII));
        }
        Files.writeString(trusted, bundle, StandardCharsets.US_ASCII);
        JUL.addHandler(CAPTURE);
    }

    @AfterAll
    static void stopCapture()
    {
        JUL.removeHandler(CAPTURE);
    }

    @Test
    void shouldCarryTheRequestWhenTheCertificateNamesTheSipDomain() throws Exception
    {
        // §7.1: the sip: URI names the domain.
        accepted(uriAndDns, "sip:peer@atlanta.example.com;transport=tls", null, "by-uri");
        // No sip: URI: the DNS names count.
        accepted(dnsOnly, "sip:peer@BILOXI.example.com;transport=tls", null, "by-dns");
        // No subjectAltName at all: the CN counts.
        accepted(cnOnly, "sip:peer@chicago.example.com;transport=tls", null, "by-cn");
        // A top Route is where the request goes (RFC 3261 §8.1.2): its host is the domain, not the Request-URI's.
        accepted(uriAndDns, "sip:bob@biloxi.example.com", "<sip:atlanta.example.com;transport=tls;lr>", "by-route");
    }

    @Test
    void shouldCloseTheConnectionAndFailTheTransactionWhenTheDomainIsNotInTheCertificate() throws Exception
    {
        // With a sip: URI in the certificate its DNS names do not count (§7.1).
        refused(uriAndDns, "sip:peer@dns.atlanta.example.com;transport=tls", "dns.atlanta.example.com",
            "URI:sip:atlanta.example.com");
        // Never the CN when there are subjectAltNames.
        refused(dnsAndCn, "sip:peer@denver.example.com;transport=tls", "denver.example.com",
            "DNS:www.denver.example.com");
        // No suffix match (§7.2).
        refused(dnsOnly, "sip:peer@example.com;transport=tls", "example.com", "DNS:biloxi.example.com");
        // A certificate for another domain entirely.
        refused(cnOnly, "sip:peer@atlanta.example.com;transport=tls", "atlanta.example.com",
            "CN=chicago.example.com");
    }

    private static void accepted(final SelfSignedPem peerCertificate, final String requestUri, final String route,
        final String callId) throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (SSLServerSocket peer = (SSLServerSocket)peerCertificate.serverContext().getServerSocketFactory()
                .createServerSocket(0, 50, LOOPBACK);
            SipStack stack = SipStack.start(StackTcpTest.config(1).tlsTrustedCertificates(trusted),
                StreamTestListener.factory(record)))
        {
            peer.setSoTimeout(5_000);
            send(stack, callId, requestUri, route, new InetSocketAddress(LOOPBACK, peer.getLocalPort()));
            try (StreamClient connection = new StreamClient(peer.accept()))
            {
                final String request = connection.readMessage();
                assertEquals(callId, header(request, "Call-ID"));
                answer(connection, request);
                awaitTrue(() -> record.responses.contains("200 " + callId), "the 200 over the verified connection");
            }
            assertEquals(0, record.transportErrors.get());
            assertEquals(0, stack.streamCounters().get(TcpCounters.TLS_FAILURES));
        }
    }

    private static void refused(final SelfSignedPem peerCertificate, final String requestUri, final String domain,
        final String named) throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        LOGGED.clear();
        try (SSLServerSocket peer = (SSLServerSocket)peerCertificate.serverContext().getServerSocketFactory()
                .createServerSocket(0, 50, LOOPBACK);
            SipStack stack = SipStack.start(StackTcpTest.config(1).tlsTrustedCertificates(trusted),
                StreamTestListener.factory(record)))
        {
            peer.setSoTimeout(5_000);
            send(stack, "refused", requestUri, null, new InetSocketAddress(LOOPBACK, peer.getLocalPort()));
            try (SSLSocket accepted = (SSLSocket)peer.accept())
            {
                accepted.setSoTimeout(5_000);
                // The stack aborts the handshake: the peer never gets a SIP byte.
                assertThrows(IOException.class, () ->
                {
                    accepted.startHandshake();
                    accepted.getInputStream().read();
                }, "the stack refuses a certificate for another domain");
            }
            awaitTrue(() -> 1 == record.transportErrors.get(), "domain mismatch: transport error (RFC 3261 §17.1.4)");
            assertTrue(stack.streamCounters().get(TcpCounters.TLS_FAILURES) >= 1, stack.streamCounters().toString());
            assertTrue(record.responses.isEmpty());
            final String line = LOGGED.stream().filter(s -> s.contains("RFC 5922")).findFirst().orElse(null);
            assertTrue(null != line && line.contains("SIP domain " + domain + " ") && line.contains(named), "log: "
                + LOGGED);
        }
    }

    /** An OPTIONS over TLS from shard 0, statefully, to {@code destination}. */
    private static void send(final SipStack stack, final String callId, final String requestUri, final String route,
        final InetSocketAddress destination)
    {
        stack.execute(0, () ->
        {
            final StackShard shard = stack.shard(0);
            final String branch = shard.ids().appendBranch(new StringBuilder()).toString();
            final String text = "OPTIONS " + requestUri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/TLS 127.0.0.1:" + stack.localAddresses().get(0).getPort() + ";branch=" + branch
                + "\r\n" + (null == route ? "" : "Route: " + route + "\r\n")
                + "Max-Forwards: 70\r\nFrom: <sip:stack@127.0.0.1>;tag=s1\r\nTo: <sip:peer@example.com>\r\n"
                + "Call-ID: " + callId + "\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n";
            final ByteBuf out = shard.allocate(text.length());
            out.writeCharSequence(text, StandardCharsets.US_ASCII);
            shard.sendRequest(out, destination);
        });
    }
}
