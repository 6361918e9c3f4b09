package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLSocket;

import io.sipline.sip.capture.HepConfig;
import io.sipline.sip.test.SelfSignedPem;
import io.sipline.test.HepPacket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HEPv3 capture through the whole stack, a {@link DatagramSocket} on loopback playing the collector: an OPTIONS and
 * its 200 over UDP, TCP, TLS and WebSocket each come to the collector as two captures whose payloads are the bytes
 * on the wire, from and to the addresses and ports of the wire, with the transport's IP protocol (UDP 17, TCP 6, TLS
 * 22, WebSocket 6), the configured capture id and a time between the send and the answer; keep-alives are not
 * captured.
 */
class StackCaptureTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    @TempDir
    static Path directory;

    @Test
    void shouldMirrorEachMessageOfEveryTransportWithItsAddresses() throws Exception
    {
        final SelfSignedPem pem = SelfSignedPem.generate(directory);
        try (DatagramSocket collector = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
            SipStack stack = SipStack.start(StackTcpTest.config(2).tlsCertificate(pem.certificate())
                    .tlsPrivateKey(pem.privateKey()).tlsPorts(0).wsPorts(0)
                    .hep(new HepConfig((InetSocketAddress)collector.getLocalSocketAddress(), 77, null)),
                StreamTestListener.factory(new StreamTestListener.Record())))
        {
            collector.setSoTimeout(5_000);
            udp(stack, collector);
            tcp(stack, collector);
            tls(stack, collector, pem);
            webSocket(stack, collector);
            assertEquals(8, stack.capture().sent());
            assertEquals(0, stack.capture().dropped());
        }
    }

    private static void udp(final SipStack stack, final DatagramSocket collector) throws Exception
    {
        final InetSocketAddress server = stack.localAddresses().get(0);
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            client.setSoTimeout(5_000);
            final byte[] request = StackTcpTest.request("OPTIONS", "hep-udp", client.getLocalPort(), "UDP")
                .getBytes(StandardCharsets.US_ASCII);
            final long before = System.currentTimeMillis();
            client.send(new DatagramPacket(request, request.length, server));
            final DatagramPacket answer = new DatagramPacket(new byte[65_536], 65_536);
            client.receive(answer);
            final byte[] response = java.util.Arrays.copyOf(answer.getData(), answer.getLength());
            final List<HepPacket> captures = receive(collector, 2);
            final InetSocketAddress me = (InetSocketAddress)client.getLocalSocketAddress();
            check(captures.get(0), 17, me, server, request, before);
            check(captures.get(1), 17, server, me, response, before);
        }
    }

    private static void tcp(final SipStack stack, final DatagramSocket collector) throws Exception
    {
        final InetSocketAddress server = stack.tcpAddresses().get(0);
        try (StreamClient client = StreamClient.connect(server))
        {
            final long before = System.currentTimeMillis();
            client.write("\r\n\r\n"); // a keep-alive and its pong: not SIP, not captured
            assertEquals("\r\n", new String(client.readBytes(2), StandardCharsets.US_ASCII));
            final String request = StackTcpTest.request("OPTIONS", "hep-tcp", client.localPort(), "TCP");
            client.write(request);
            final String response = client.readMessage();
            final InetSocketAddress me = (InetSocketAddress)client.socket().getLocalSocketAddress();
            final List<HepPacket> captures = receive(collector, 2);
            check(captures.get(0), 6, me, server, ascii(request), before);
            check(captures.get(1), 6, server, me, ascii(response), before);
        }
    }

    private static void tls(final SipStack stack, final DatagramSocket collector, final SelfSignedPem pem)
        throws Exception
    {
        final InetSocketAddress server = stack.tlsAddresses().get(0);
        final SSLSocket socket = (SSLSocket)pem.clientContext().getSocketFactory().createSocket();
        socket.connect(server, 5_000);
        try (StreamClient client = new StreamClient(socket))
        {
            socket.startHandshake();
            final long before = System.currentTimeMillis();
            final String request = StackTcpTest.request("OPTIONS", "hep-tls", client.localPort(), "TLS");
            client.write(request);
            final String response = client.readMessage();
            final InetSocketAddress me = (InetSocketAddress)socket.getLocalSocketAddress();
            final List<HepPacket> captures = receive(collector, 2);
            check(captures.get(0), 22, me, server, ascii(request), before);
            check(captures.get(1), 22, server, me, ascii(response), before);
        }
    }

    private static void webSocket(final SipStack stack, final DatagramSocket collector) throws Exception
    {
        final InetSocketAddress server = stack.wsAddresses().get(0);
        final LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
        final WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder().subprotocols("sip")
            .buildAsync(URI.create("ws://127.0.0.1:" + server.getPort() + "/"), new WebSocket.Listener()
            {
                @Override
                public CompletionStage<?> onText(final WebSocket socket, final CharSequence data, final boolean last)
                {
                    received.add(data.toString()); // the stack sends each message as one frame
                    socket.request(1);
                    return null;
                }
            }).get(10, TimeUnit.SECONDS);
        try
        {
            final long before = System.currentTimeMillis();
            final String request = StackTcpTest.request("OPTIONS", "hep-ws", 0, "WS");
            ws.sendText(request, true).get(5, TimeUnit.SECONDS);
            final String response = received.poll(10, TimeUnit.SECONDS);
            assertTrue(null != response && response.startsWith("SIP/2.0 200 OK\r\n"), response);
            final List<HepPacket> captures = receive(collector, 2);
            final InetSocketAddress client = captures.get(0).source();
            assertEquals(LOOPBACK, client.getAddress());
            check(captures.get(0), 6, client, server, ascii(request), before);
            check(captures.get(1), 6, server, client, ascii(response), before);
        }
        finally
        {
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
        }
    }

    private static void check(final HepPacket capture, final int protocol, final InetSocketAddress source,
        final InetSocketAddress destination, final byte[] payload, final long notBeforeMillis)
    {
        assertEquals(protocol, capture.protocol());
        assertEquals(2, capture.family());
        assertEquals(source, capture.source());
        assertEquals(destination, capture.destination());
        assertEquals(1, capture.protocolType(), "SIP");
        assertEquals(77L, capture.captureId());
        assertArrayEquals(payload, capture.payload(), new String(capture.payload(), StandardCharsets.US_ASCII));
        final long millis = capture.nanos() / 1_000_000L;
        assertTrue(millis >= notBeforeMillis - 5 && millis <= System.currentTimeMillis() + 5,
            "captured at " + millis + ", sent at " + notBeforeMillis);
    }

    /** The next {@code n} captures; then nothing more within 200 ms (no capture of anything else). */
    private static List<HepPacket> receive(final DatagramSocket collector, final int n) throws Exception
    {
        final List<HepPacket> captures = new ArrayList<>();
        final DatagramPacket packet = new DatagramPacket(new byte[65_536], 65_536);
        for (int i = 0; i < n; i++)
        {
            collector.receive(packet);
            captures.add(HepPacket.decode(packet.getData(), packet.getLength()));
        }
        collector.setSoTimeout(200);
        try
        {
            collector.receive(packet);
            throw new AssertionError("an extra capture: "
                + new String(HepPacket.decode(packet.getData(), packet.getLength()).payload(),
                    StandardCharsets.US_ASCII));
        }
        catch (final SocketTimeoutException expected)
        {
            return captures;
        }
        finally
        {
            collector.setSoTimeout(5_000);
        }
    }

    private static byte[] ascii(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
