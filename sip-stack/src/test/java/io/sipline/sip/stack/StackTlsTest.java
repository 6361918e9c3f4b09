package io.sipline.sip.stack;

import static io.sipline.sip.stack.StackTcpTest.awaitTrue;
import static io.sipline.sip.stack.StackTcpTest.header;
import static io.sipline.sip.stack.StackTcpTest.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

import io.sipline.sip.test.SelfSignedPem;
import io.sipline.sip.transport.tcp.TcpCounters;
import io.sipline.sip.transport.tcp.TcpFlow;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIP over TLS through the whole stack (RFC 3261 §26.2), with a self-signed EC certificate made by {@code keytool}
 * for the test: a JDK {@link SSLSocket} client gets its OPTIONS answered over TLS, with messages split across and
 * packed into TLS records; the stack connects out over TLS to a JDK TLS server it trusts; an untrusted certificate
 * fails the handshake and the transaction (transport error); unreadable PEM files are refused at start, named.
 */
class StackTlsTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    @TempDir
    static Path directory;
    private static SelfSignedPem pem;

    @BeforeAll
    static void makeCertificate() throws Exception
    {
        pem = SelfSignedPem.generate(directory);
    }

    private static SipStackConfig tlsConfig(final int shards)
    {
        return StackTcpTest.config(shards).tlsCertificate(pem.certificate()).tlsPrivateKey(pem.privateKey())
            .tlsPorts(0);
    }

    @Test
    void shouldAnswerOptionsOverTlsWhateverTheRecordBoundaries() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (SipStack stack = SipStack.start(tlsConfig(2), StreamTestListener.factory(record)))
        {
            assertEquals(1, stack.tlsAddresses().size());
            final InetSocketAddress server = stack.tlsAddresses().get(0);
            final SSLSocket socket = (SSLSocket)pem.clientContext().getSocketFactory().createSocket();
            socket.connect(server, 5_000);
            try (StreamClient client = new StreamClient(socket))
            {
                socket.startHandshake();
                final int port = client.localPort();
                // Two messages in one record, then one split over three records, then five one by one.
                client.write(request("OPTIONS", "tls-0", port, "TLS") + request("OPTIONS", "tls-1", port, "TLS"));
                final byte[] split = request("OPTIONS", "tls-2", port, "TLS").getBytes(StandardCharsets.US_ASCII);
                client.write(java.util.Arrays.copyOfRange(split, 0, 7));
                client.write(java.util.Arrays.copyOfRange(split, 7, split.length - 3));
                client.write(java.util.Arrays.copyOfRange(split, split.length - 3, split.length));
                for (int i = 3; i < 8; i++)
                {
                    client.write(request("OPTIONS", "tls-" + i, port, "TLS"));
                }
                final Set<String> answered = new HashSet<>();
                for (int i = 0; i < 8; i++)
                {
                    final String response = client.readMessage();
                    assertTrue(response.startsWith("SIP/2.0 200 OK\r\n"), response);
                    answered.add(header(response, "Call-ID"));
                }
                assertEquals(8, answered.size());
                for (final InetSocketAddress source : record.sources)
                {
                    assertTrue(source instanceof TcpFlow flow && flow.isTls() && "TLS".equals(flow.transport()));
                }
                client.write("\r\n\r\n");
                assertEquals("\r\n", new String(client.readBytes(2), StandardCharsets.US_ASCII), "pong over TLS");
            }
        }
    }

    @Test
    void shouldSendRequestsOverTlsToAPeerItTrusts() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (SSLServerSocket peer = (SSLServerSocket)pem.serverContext().getServerSocketFactory()
                .createServerSocket(0, 50, LOOPBACK);
            SipStack stack = SipStack.start(StackTcpTest.config(1).tlsTrustedCertificates(pem.certificate()),
                StreamTestListener.factory(record)))
        {
            peer.setSoTimeout(5_000);
            StackTcpTest.sendFromShard(stack, 0, "out-tls", new InetSocketAddress(LOOPBACK, peer.getLocalPort()),
                "TLS");
            try (StreamClient connection = new StreamClient(peer.accept()))
            {
                final String options = connection.readMessage();
                assertTrue(header(options, "Via").startsWith("SIP/2.0/TLS "), options);
                StackTcpTest.answer(connection, options);
                awaitTrue(() -> record.responses.contains("200 out-tls"), "the 200 came back over TLS");
            }
        }
    }

    @Test
    void shouldFailTheTransactionWhenThePeersCertificateIsNotTrusted() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        // The JDK's default trust store does not know the test's self-signed certificate.
        try (SSLServerSocket peer = (SSLServerSocket)pem.serverContext().getServerSocketFactory()
                .createServerSocket(0, 50, LOOPBACK);
            SipStack stack = SipStack.start(StackTcpTest.config(1), StreamTestListener.factory(record)))
        {
            peer.setSoTimeout(5_000);
            StackTcpTest.sendFromShard(stack, 0, "untrusted", new InetSocketAddress(LOOPBACK, peer.getLocalPort()),
                "TLS");
            try (SSLSocket accepted = (SSLSocket)peer.accept())
            {
                accepted.setSoTimeout(5_000);
                assertThrows(IOException.class, accepted::startHandshake, "the stack refuses the certificate");
            }
            awaitTrue(() -> 1 == record.transportErrors.get(), "handshake failure: transport error (§17.1.4)");
            assertTrue(stack.streamCounters().get(TcpCounters.TLS_FAILURES) >= 1, stack.streamCounters().toString());
            assertTrue(record.responses.isEmpty());
        }
    }

    @Test
    void shouldRefuseUnreadableCertificateFilesByName()
    {
        final Path missing = directory.resolve("missing.pem");
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SipStack.start(
            StackTcpTest.config(1).tlsCertificate(missing).tlsPrivateKey(pem.privateKey()),
            StreamTestListener.factory(new StreamTestListener.Record())));
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
        final IllegalArgumentException half = assertThrows(IllegalArgumentException.class, () -> SipStack.start(
            StackTcpTest.config(1).tlsCertificate(pem.certificate()),
            StreamTestListener.factory(new StreamTestListener.Record())));
        assertTrue(half.getMessage().contains("--tls-key"), half.getMessage());
    }
}
