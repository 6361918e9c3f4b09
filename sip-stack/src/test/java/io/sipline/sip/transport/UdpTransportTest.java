package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

import io.netty.channel.epoll.Epoll;
import io.sipline.sip.message.ParseResult;

/**
 * The transport on real sockets: two shards on loopback, several ports, plain {@link DatagramSocket} clients. Replies
 * are awaited with a deadline and counters polled with one; nothing sleeps for a fixed time.
 */
class UdpTransportTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static int callCounter;

    @Test
    void shouldAnswerOnEveryPortAndSpreadPeersOverShards() throws Exception
    {
        try (UdpTransport transport = start(List.of(LOOPBACK), new int[] {0, 0}, 2, true))
        {
            final List<InetSocketAddress> endpoints = transport.localAddresses();
            assertEquals(2, endpoints.size());
            assertNotEquals(endpoints.get(0).getPort(), endpoints.get(1).getPort());
            if (Epoll.isAvailable())
            {
                assertEquals("epoll", transport.ioName());
                assertEquals(4, transport.channelCount(), "every port bound once per shard");
            }

            // Many peers (distinct source ports) on each port: the kernel's SO_REUSEPORT hash spreads them.
            int sent = 0;
            for (final InetSocketAddress endpoint : endpoints)
            {
                for (int i = 0; i < 24; i++)
                {
                    try (Client client = new Client(LOOPBACK))
                    {
                        final String callId = client.send(endpoint, "OPTIONS", "");
                        assertEquals("SIP/2.0 200 OK", client.replyTo(callId).statusLine);
                        sent++;
                    }
                }
            }
            final int requests = sent;
            final ShardCounters totals = awaitTotals(transport, t -> t.responsesSent() == requests);
            assertEquals(requests, totals.datagramsIn());
            assertEquals(requests, totals.requestsIn());
            if (transport.sharesPorts())
            {
                // 48 peers all on one of two shards: probability 2^-47.
                assertTrue(transport.counters(0).datagramsIn() > 0, "shard 0 served no peer");
                assertTrue(transport.counters(1).datagramsIn() > 0, "shard 1 served no peer");
            }
        }
    }

    @Test
    void shouldServeEveryPeerWhenSteeringByCpu() throws Exception
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(Epoll.isAvailable(), "SO_REUSEPORT groups need native epoll");
        try (UdpTransport transport = UdpTransport.start(new UdpTransportConfig(List.of(LOOPBACK), new int[] {0, 0},
            2, true, UdpPeerConfig.OFF, true), StatelessResponder.factory()))
        {
            assertTrue(transport.steersByCpu(), "the kernel took the SO_ATTACH_REUSEPORT_CBPF program");
            // The program returns cpu % 2, a listening socket of the group: every datagram reaches a shard.
            int sent = 0;
            for (final InetSocketAddress endpoint : transport.localAddresses())
            {
                for (int i = 0; i < 12; i++)
                {
                    try (Client client = new Client(LOOPBACK))
                    {
                        assertEquals("SIP/2.0 200 OK", client.replyTo(client.send(endpoint, "OPTIONS", "")).statusLine);
                        sent++;
                    }
                }
            }
            final int requests = sent;
            assertEquals(requests, awaitTotals(transport, t -> t.responsesSent() == requests).datagramsIn());
        }
    }

    @Test
    void shouldAnswerRequestsAndDropWhatCannotBeAnswered() throws Exception
    {
        try (UdpTransport transport = start(List.of(LOOPBACK), new int[] {0}, 2, true);
            Client client = new Client(LOOPBACK))
        {
            final InetSocketAddress server = transport.localAddresses().get(0);

            assertEquals("SIP/2.0 404 No Application Deployed",
                client.replyTo(client.send(server, "INVITE", "")).statusLine);

            // Garbage gets nothing: the next datagram back from this shard answers the OPTIONS sent after it.
            client.sendRaw(server, "this is not SIP".getBytes(StandardCharsets.US_ASCII));
            client.sendRaw(server, new byte[] {0, 1, 2, 3});
            client.sendRaw(server, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            client.sendRaw(server, stunBindingRequest());
            // RFC 5626 §4.4.2 / §8.4: the Binding request (the first datagram to get an answer) gets a Binding
            // success response (RFC 8489 §7.3.1) whose XOR-MAPPED-ADDRESS is the client's port and address.
            final String stun = client.receiveRaw();
            assertEquals(0x0101, stun.charAt(0) << 8 | stun.charAt(1), "Binding success response");
            assertEquals(client.port(), (stun.charAt(26) << 8 | stun.charAt(27)) ^ 0x2112);
            assertEquals("127.0.0.1", (stun.charAt(28) ^ 0x21) + "." + (stun.charAt(29) ^ 0x12) + "."
                + (stun.charAt(30) ^ 0xA4) + "." + (stun.charAt(31) ^ 0x42));
            assertEquals("SIP/2.0 200 OK", client.replyTo(client.send(server, "OPTIONS", "")).statusLine);

            // Truncated: a body shorter than Content-Length, and a header section cut in the middle of a line.
            final String callId = client.nextCallId();
            final String full = client.request("INVITE", callId, "");
            client.sendRaw(server, full.replace("Content-Length: 0", "Content-Length: 300")
                .getBytes(StandardCharsets.US_ASCII));
            final Reply tooShort = client.replyTo(callId);
            assertEquals("SIP/2.0 400 Content-Length Larger Than Body", tooShort.statusLine);
            final String cutId = client.nextCallId();
            final String cut = client.request("OPTIONS", cutId, "");
            client.sendRaw(server, cut.substring(0, cut.indexOf("Content-Length: ") + 16)
                .getBytes(StandardCharsets.US_ASCII));
            assertEquals("SIP/2.0 400 Header Section Not Terminated", client.replyTo(cutId).statusLine);

            // 64 KB: a whole OPTIONS in one near-maximal datagram is read in full and answered...
            final String bigId = client.nextCallId();
            final String big = client.request("OPTIONS", bigId, "x".repeat(65_000));
            assertTrue(big.length() > 65_000 && big.length() <= UdpShardSockets.MAX_UDP_PAYLOAD,
                "size " + big.length());
            client.sendRaw(server, big.getBytes(StandardCharsets.US_ASCII));
            assertEquals("SIP/2.0 200 OK", client.replyTo(bigId).statusLine);
            // ... and 64 KB of garbage is counted and dropped, and the shard goes on.
            client.sendRaw(server, "Z".repeat(UdpShardSockets.MAX_UDP_PAYLOAD).getBytes(StandardCharsets.US_ASCII));
            assertEquals("SIP/2.0 200 OK", client.replyTo(client.send(server, "OPTIONS", "")).statusLine);

            client.sendRaw(server, client.request("ACK", client.nextCallId(), "").getBytes(StandardCharsets.US_ASCII));
            assertEquals("SIP/2.0 481 Call/Transaction Does Not Exist",
                client.replyTo(client.send(server, "CANCEL", "")).statusLine);

            // 13 datagrams: INVITE, 3 ignored, STUN, OPTIONS, 2 truncated, big OPTIONS, big garbage, OPTIONS, ACK,
            // CANCEL.
            final ShardCounters t = awaitTotals(transport, c -> c.datagramsIn() == 13 && c.responsesSent() == 8);
            assertEquals(1, t.keepAlives());
            assertEquals(1, t.stun());
            assertEquals(6, t.requestsIn(), "INVITE, 3 OPTIONS, ACK, CANCEL");
            assertEquals(5, t.parseErrorsTotal());
            assertEquals(1, t.parseErrors(ParseResult.BODY_TOO_SHORT));
            assertEquals(4, t.parseErrors(ParseResult.HEADERS_NOT_TERMINATED),
                "the cut header section, and the three garbage datagrams without a line end");
            assertEquals(8, t.responsesSent(), "7 SIP answers and the STUN answer");
            assertEquals(3, t.dropped(), "2 garbage, 64 KB garbage");
            assertEquals(0, t.sendFailures());
            assertEquals(0, t.errors());
        }
    }

    @Test
    void shouldListenOnIpv6() throws Exception
    {
        final InetAddress v6 = io.sipline.sip.test.Loopback6.orAbort();
        try (UdpTransport transport = start(List.of(LOOPBACK, v6), new int[] {0}, 2, true);
            Client client = new Client(v6))
        {
            final InetSocketAddress server = transport.localAddresses().get(1);
            assertEquals(v6, server.getAddress());
            final Reply reply = client.replyTo(client.send(server, "OPTIONS", ""));
            assertEquals("SIP/2.0 200 OK", reply.statusLine);
            // RFC 3581 §4 over IPv6: rport filled in, received without brackets (RFC 3261 §25.1, RFC 5118).
            assertTrue(reply.text.contains(";rport=" + client.port() + ";received=::1\r\n"), reply.text);
        }
    }

    @Test
    void shouldFallBackToOneChannelPerPortOnNio() throws Exception
    {
        try (UdpTransport transport = start(List.of(LOOPBACK), new int[] {0, 0, 0}, 2, false);
            Client client = new Client(LOOPBACK))
        {
            assertEquals("nio", transport.ioName());
            assertEquals(3, transport.channelCount());
            for (final InetSocketAddress endpoint : transport.localAddresses())
            {
                assertEquals("SIP/2.0 200 OK", client.replyTo(client.send(endpoint, "OPTIONS", "")).statusLine);
            }
            // Ports 0 and 2 on shard 0, port 1 on shard 1.
            awaitTotals(transport, c -> c.responsesSent() == 3);
            assertEquals(2, transport.counters(0).requestsIn());
            assertEquals(1, transport.counters(1).requestsIn());
        }
    }

    @Test
    void shouldRefuseAPortInUseAndLeaveNothingRunning() throws Exception
    {
        try (DatagramSocket squatter = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            final int port = squatter.getLocalPort();
            final UdpBindException e = assertThrows(UdpBindException.class,
                () -> start(List.of(LOOPBACK), new int[] {0, port}, 2, true));
            assertEquals("cannot listen on udp 127.0.0.1:" + port + ": Address already in use", e.getMessage());
            assertEquals(port, e.endpoint().getPort());
        }
        final long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (shardThreadsAlive() > 0)
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("shard threads still alive after a failed start: " + shardThreadsAlive());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    @Test
    void shouldRefuseToShareAPortWithAnotherReusePortServer() throws Exception
    {
        try (UdpTransport first = start(List.of(LOOPBACK), new int[] {0}, 1, true))
        {
            final int port = first.localAddresses().get(0).getPort();
            final UdpBindException e = assertThrows(UdpBindException.class,
                () -> start(List.of(LOOPBACK), new int[] {port}, 2, true));
            assertTrue(e.getMessage().startsWith("cannot listen on udp 127.0.0.1:" + port + ": "), e.getMessage());
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    private static UdpTransport start(final List<InetAddress> addresses, final int[] ports, final int shards,
        final boolean nativeTransport) throws UdpBindException
    {
        return UdpTransport.start(new UdpTransportConfig(addresses, ports, shards, nativeTransport),
            StatelessResponder.factory());
    }

    private static int shardThreadsAlive()
    {
        int n = 0;
        for (final Thread t : Thread.getAllStackTraces().keySet())
        {
            if (t.getName().startsWith("sipline-shard-") && t.isAlive())
            {
                n++;
            }
        }
        return n;
    }

    static ShardCounters awaitTotals(final UdpTransport transport, final Predicate<ShardCounters> done)
    {
        final long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (true)
        {
            final ShardCounters totals = transport.totals();
            if (done.test(totals))
            {
                return totals;
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("counters never got there: " + totals);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static byte[] stunBindingRequest()
    {
        final byte[] b = new byte[20];
        b[1] = 0x01;
        b[4] = 0x21;
        b[5] = 0x12;
        b[6] = (byte)0xA4;
        b[7] = 0x42;
        for (int i = 8; i < 20; i++)
        {
            b[i] = (byte)i;
        }
        return b;
    }

    record Reply(String statusLine, String callId, String text)
    {
    }

    /** A SIP peer on a plain socket: sends requests whose Via points back at it (with rport), reads replies. */
    static final class Client implements AutoCloseable
    {
        private final DatagramSocket socket;
        private final byte[] buffer = new byte[65_536];

        Client(final InetAddress local) throws IOException
        {
            socket = new DatagramSocket(new InetSocketAddress(local, 0));
        }

        int port()
        {
            return socket.getLocalPort();
        }

        String nextCallId()
        {
            return "call-" + (++callCounter) + "@test.sipline";
        }

        String request(final String method, final String callId, final String body)
        {
            final InetAddress local = socket.getLocalAddress();
            final String host = local.getHostAddress().indexOf(':') >= 0 ? "[" + local.getHostAddress() + "]" :
                local.getHostAddress();
            final String hostPort = host + ":" + socket.getLocalPort();
            return method + " sip:service@" + hostPort + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + hostPort + ";branch=z9hG4bK" + callId.hashCode() + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:test@" + hostPort + ">;tag=t" + callCounter + "\r\n"
                + "To: <sip:service@" + hostPort + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 " + method + "\r\n"
                + (body.isEmpty() ? "" : "Content-Type: text/plain\r\n")
                + "Content-Length: " + body.length() + "\r\n\r\n"
                + body;
        }

        /** Sends a well-formed request; returns its Call-ID. */
        String send(final InetSocketAddress to, final String method, final String body) throws IOException
        {
            final String callId = nextCallId();
            sendRaw(to, request(method, callId, body).getBytes(StandardCharsets.US_ASCII));
            return callId;
        }

        void sendRaw(final InetSocketAddress to, final byte[] bytes) throws IOException
        {
            socket.send(new DatagramPacket(bytes, bytes.length, to));
        }

        /** The next datagram received, which must answer {@code callId}. */
        Reply replyTo(final String callId) throws IOException
        {
            final Reply reply = receive();
            assertNotNull(reply, "no reply for " + callId + " in time");
            assertEquals(callId, reply.callId, reply.text);
            return reply;
        }

        /** The next datagram's bytes as ISO-8859-1 text (one char per byte). */
        String receiveRaw() throws IOException
        {
            final DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            socket.setSoTimeout((int)TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NANOS));
            socket.receive(packet);
            return new String(packet.getData(), 0, packet.getLength(), StandardCharsets.ISO_8859_1);
        }

        Reply receive() throws IOException
        {
            final long deadline = System.nanoTime() + TIMEOUT_NANOS;
            final DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            final long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            socket.setSoTimeout((int)Math.max(1, left));
            try
            {
                socket.receive(packet);
            }
            catch (final SocketTimeoutException timeout)
            {
                return null;
            }
            final String text = new String(packet.getData(), 0, packet.getLength(), StandardCharsets.ISO_8859_1);
            final int callIdAt = text.indexOf("\r\nCall-ID: ");
            final String callId = callIdAt < 0 ? null :
                text.substring(callIdAt + 11, text.indexOf("\r\n", callIdAt + 11));
            return new Reply(text.substring(0, text.indexOf("\r\n")), callId, text);
        }

        @Override
        public void close()
        {
            socket.close();
        }
    }
}
