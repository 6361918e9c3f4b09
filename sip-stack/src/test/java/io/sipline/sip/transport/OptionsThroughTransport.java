package io.sipline.sip.transport;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Test helper: one OPTIONS from a loopback client through a one-shard UDP transport (stateless 200 OK, RFC 3261
 * §11.2) started with a system property set, the property put back afterwards. Sockets bind port 0.
 */
final class OptionsThroughTransport
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final int TIMEOUT_MS = (int)TimeUnit.SECONDS.toMillis(10);

    /**
     * What came back.
     *
     * @param ok     the answer was a 200 OK.
     * @param totals the transport's counters after the answer.
     * @param probe  what the probe read on the shard's event loop.
     */
    record Answer<T>(boolean ok, ShardCounters totals, T probe)
    {
    }

    private OptionsThroughTransport()
    {
    }

    /**
     * @param property the system property set while the transport starts and runs.
     * @param value    its value; null: unset.
     * @param callId   the OPTIONS' Call-ID and branch suffix.
     * @param probe    run on shard 0's event loop after the answer.
     */
    static <T> Answer<T> send(final String property, final String value, final String callId,
        final Function<UdpTransport, T> probe) throws Exception
    {
        final String before = System.getProperty(property);
        set(property, value);
        try (UdpTransport transport = UdpTransport.start(new UdpTransportConfig(List.of(LOOPBACK), new int[] {0}, 1,
            true, UdpPeerConfig.OFF, false), StatelessResponder.factory());
            DatagramSocket client = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            client.setSoTimeout(TIMEOUT_MS);
            final byte[] request = ("OPTIONS sip:ping@example.com SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:"
                + client.getLocalPort() + ";branch=z9hG4bK" + callId + ";rport\r\nMax-Forwards: 70\r\n"
                + "From: <sip:t@example.com>;tag=t1\r\nTo: <sip:ping@example.com>\r\nCall-ID: " + callId + "\r\n"
                + "CSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            client.send(new DatagramPacket(request, request.length, transport.localAddresses().get(0)));
            final DatagramPacket reply = new DatagramPacket(new byte[4096], 4096);
            client.receive(reply);
            final boolean ok = new String(reply.getData(), 0, reply.getLength(), StandardCharsets.US_ASCII)
                .startsWith("SIP/2.0 200 OK\r\n");
            return new Answer<>(ok, transport.totals(), transport.eventLoop(0).submit(() -> probe.apply(transport))
                .get());
        }
        finally
        {
            set(property, before);
        }
    }

    private static void set(final String property, final String value)
    {
        if (null == value)
        {
            System.clearProperty(property);
        }
        else
        {
            System.setProperty(property, value);
        }
    }
}
