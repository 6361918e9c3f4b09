package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.transport.dns.SipTarget;
import io.sipline.sip.transport.dns.TinyDnsServer;
import io.sipline.sip.transport.tcp.TcpCounters;
import io.sipline.sip.transport.tcp.TcpFlow;
import org.junit.jupiter.api.Test;

/**
 * SIP over TCP through the whole stack (RFC 3261 §18), on loopback with two shards: TCP listens on the UDP port; a
 * connection belongs to the shard that accepted it, a message for a call of the other shard is handed over and its
 * answer comes back on the same connection (§18.2.2); CRLF pings get pongs and STUN Binding requests answers (RFC 5626
 * §4.4); no retransmission over a reliable transport (§17.2.1, Timer G); outbound requests with a TCP Via reuse one
 * connection per destination, which closes when idle; a failed connect is a transport error (§17.1.4).
 */
class StackTcpTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final long DEADLINE_NS = 10_000_000_000L;

    @Test
    void shouldAnswerEachRequestOnItsConnectionFromWhicheverShardOwnsTheCall() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (SipStack stack = SipStack.start(config(2), StreamTestListener.factory(record)))
        {
            final InetSocketAddress udp = stack.localAddresses().get(0);
            assertEquals(List.of(udp), stack.tcpAddresses(), "TCP on the UDP address:port (RFC 3261 §18)");
            try (StreamClient client = StreamClient.connect(udp))
            {
                final int n = 40;
                final StringBuilder batch = new StringBuilder();
                for (int i = 0; i < n; i++)
                {
                    // Half in one write (several messages per read), half one by one.
                    final String options = request("OPTIONS", "call-" + i, client.localPort(), "TCP");
                    if (i < n / 2)
                    {
                        batch.append(options);
                    }
                    else
                    {
                        client.write(options);
                    }
                    if (i == n / 2 - 1)
                    {
                        client.write(batch.toString());
                    }
                }
                final Set<String> answered = new HashSet<>();
                for (int i = 0; i < n; i++)
                {
                    final String response = client.readMessage();
                    assertTrue(response.startsWith("SIP/2.0 200 OK\r\n"), response);
                    answered.add(header(response, "Call-ID"));
                }
                assertEquals(n, answered.size(), "every request answered once, on its connection");
                assertTrue(stack.handoffs() > 0, "some calls belong to the other shard: handed over");
                assertEquals(n, record.reliableRequests.get(), "server transactions over TCP are reliable");
                for (final InetSocketAddress source : record.sources)
                {
                    assertTrue(source instanceof TcpFlow flow && flow.getPort() == client.localPort(), "" + source);
                }

                // RFC 5626 §4.4.1: a CRLFCRLF ping gets a CRLF pong.
                client.write("\r\n\r\n");
                assertEquals("\r\n", new String(client.readBytes(2), StandardCharsets.US_ASCII));

                // RFC 5626 §4.4.2 / RFC 8489: a STUN Binding request on the SIP stream gets our view of its address.
                client.write(bindingRequest());
                final ByteBuffer answer = ByteBuffer.wrap(client.readBytes(32));
                assertEquals(0x0101, answer.getShort(0) & 0xFFFF, "Binding success response");
                assertEquals(0x2112A442, answer.getInt(4));
                assertEquals(0x01020304, answer.getInt(8), "transaction id echoed");
                assertEquals(0x0020, answer.getShort(20) & 0xFFFF, "XOR-MAPPED-ADDRESS");
                assertEquals(client.localPort(), (answer.getShort(26) & 0xFFFF) ^ 0x2112);
                assertEquals(0x7F000001, answer.getInt(28) ^ 0x2112A442);
                assertEquals(1, stack.streamCounters().get(TcpCounters.STUN));
                assertEquals(1, stack.streamCounters().get(TcpCounters.PINGS));
            }
        }
    }

    @Test
    void shouldServeTcpOnNioToo() throws Exception
    {
        // Without epoll there is no SO_REUSEPORT: one listener per address:port, on one shard (see TcpShards).
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (SipStack stack = SipStack.start(config(2).nativeTransport(false), StreamTestListener.factory(record));
            StreamClient client = StreamClient.connect(stack.tcpAddresses().get(0)))
        {
            assertEquals(stack.localAddresses(), stack.tcpAddresses());
            for (int i = 0; i < 10; i++)
            {
                client.write(request("OPTIONS", "nio-" + i, client.localPort(), "TCP"));
            }
            final Set<String> answered = new HashSet<>();
            for (int i = 0; i < 10; i++)
            {
                answered.add(header(client.readMessage(), "Call-ID"));
            }
            assertEquals(10, answered.size());
        }
    }

    @Test
    void shouldSendAFinalResponseOnceOverTcpWhereUdpRetransmitsIt() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        // T1 = 1 ms: over UDP Timer G re-sends the 486 at 1, 2, 4, ... ms until Timer H (64 ms) ends the transaction.
        try (SipStack stack = SipStack.start(config(1).t1Ns(1_000_000L).t2Ns(4_000_000L),
            StreamTestListener.factory(record)))
        {
            final InetSocketAddress server = stack.localAddresses().get(0);
            try (StreamClient client = StreamClient.connect(server))
            {
                client.write(request("INVITE", "tcp-invite", client.localPort(), "TCP"));
                awaitTrue(() -> record.timeouts.contains('H'), "Timer H ends the INVITE server transaction");
                assertTrue(client.readMessage().startsWith("SIP/2.0 100 Trying\r\n"));
                assertTrue(client.readMessage().startsWith("SIP/2.0 486 Busy Here\r\n"));
                client.socket().setSoTimeout(300);
                boolean more = true;
                try
                {
                    client.readMessage();
                }
                catch (final SocketTimeoutException expected)
                {
                    more = false;
                }
                assertFalse(more, "no retransmission of the 486 over TCP (RFC 3261 §17.2.1: Timer G is UDP only)");
            }

            record.timeouts.clear();
            try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
            {
                udp.setSoTimeout(5_000);
                final byte[] invite = request("INVITE", "udp-invite", udp.getLocalPort(), "UDP")
                    .getBytes(StandardCharsets.US_ASCII);
                udp.send(new DatagramPacket(invite, invite.length, server));
                awaitTrue(() -> record.timeouts.contains('H'), "Timer H over UDP");
                int finals = 0;
                udp.setSoTimeout(300);
                try
                {
                    while (true)
                    {
                        final DatagramPacket p = new DatagramPacket(new byte[4096], 4096);
                        udp.receive(p);
                        if (new String(p.getData(), 0, p.getLength(), StandardCharsets.US_ASCII)
                            .startsWith("SIP/2.0 486"))
                        {
                            finals++;
                        }
                    }
                }
                catch (final SocketTimeoutException end)
                {
                    // all read
                }
                assertTrue(finals > 1, "the baseline: over UDP the 486 is retransmitted (" + finals + ")");
            }
        }
    }

    @Test
    void shouldReuseOneConnectionPerDestinationAndCloseItWhenIdle() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (ServerSocket peer = new ServerSocket(0, 50, LOOPBACK);
            SipStack stack = SipStack.start(config(2).connectionIdleMillis(300), StreamTestListener.factory(record)))
        {
            peer.setSoTimeout(5_000);
            final InetSocketAddress destination = new InetSocketAddress(LOOPBACK, peer.getLocalPort());
            sendFromShard(stack, 0, "out-1", destination);
            try (StreamClient connection = new StreamClient(peer.accept()))
            {
                answer(connection, connection.readMessage());
                awaitTrue(() -> record.responses.contains("200 out-1"), "the 200 reaches the client transaction");

                sendFromShard(stack, 0, "out-2", destination);
                final String second = connection.readMessage(); // on the same connection: reused
                assertEquals("out-2", header(second, "Call-ID"));
                assertTrue(header(second, "Via").startsWith("SIP/2.0/TCP "), second);
                answer(connection, second);
                awaitTrue(() -> record.responses.contains("200 out-2"), "the second 200");
                peer.setSoTimeout(200);
                assertThrows(peer::accept, "one connection per destination");

                assertTrue(connection.awaitEndOfStream(5_000), "the idle connection is closed by the stack");
                assertEquals(1, stack.streamCounters().get(TcpCounters.IDLE_CLOSED));
                assertEquals(1, stack.streamCounters().get(TcpCounters.CONNECTED));
            }
            // Closed and out of the shard's table: the next request opens a new connection.
            peer.setSoTimeout(5_000);
            sendFromShard(stack, 0, "out-3", destination);
            try (StreamClient again = new StreamClient(accept(peer, stack, record)))
            {
                answer(again, again.readMessage());
                awaitTrue(() -> record.responses.contains("200 out-3"), "the 200 on the new connection");
                assertEquals(2, stack.streamCounters().get(TcpCounters.CONNECTED));
            }
        }
    }

    @Test
    void shouldAnswerOnANewConnectionToTheSentByPortWhenTheRequestsConnectionHasClosed() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (ServerSocket sentBy = new ServerSocket(0, 50, LOOPBACK);
            SipStack stack = SipStack.start(config(2), StreamTestListener.factory(record)))
        {
            sentBy.setSoTimeout(5_000);
            try (StreamClient client = StreamClient.connect(stack.tcpAddresses().get(0)))
            {
                // The listener answers a MESSAGE only after its connection is gone.
                client.write(request("MESSAGE", "gone", client.localPort(), "TCP")
                    .replace("127.0.0.1:" + client.localPort() + ";", "127.0.0.1:" + sentBy.getLocalPort() + ";"));
                awaitTrue(() -> record.requests.contains("gone"), "the MESSAGE reached the listener");
            }
            // RFC 3261 §18.2.2: "the server SHOULD open a connection to the IP address in the received parameter,
            // using the port in the sent-by value".
            try (StreamClient reopened = new StreamClient(sentBy.accept()))
            {
                final String response = reopened.readMessage();
                assertTrue(response.startsWith("SIP/2.0 200 OK\r\n"), response);
                assertEquals("gone", header(response, "Call-ID"));
            }
        }
    }

    @Test
    void shouldReportATransportErrorWhenTheConnectFails() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        final int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, LOOPBACK))
        {
            closedPort = probe.getLocalPort();
        }
        try (SipStack stack = SipStack.start(config(1), StreamTestListener.factory(record)))
        {
            sendFromShard(stack, 0, "refused", new InetSocketAddress(LOOPBACK, closedPort));
            awaitTrue(() -> 1 == record.transportErrors.get(), "connection refused: RFC 3261 §17.1.4 transport error");
            assertEquals(1, stack.streamCounters().get(TcpCounters.CONNECT_FAILURES));
            assertTrue(record.responses.isEmpty());
        }
    }

    @Test
    void shouldLocateTheNextHopThroughDnsAndSendThere() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (TinyDnsServer dns = new TinyDnsServer();
            ServerSocket peer = new ServerSocket(0, 50, LOOPBACK);
            SipStack stack = SipStack.start(config(2).dnsServers(List.of(dns.address())),
                StreamTestListener.factory(record)))
        {
            peer.setSoTimeout(5_000);
            // RFC 3263 §4.1: NAPTR says TCP, its SRV names host and port, A names the address.
            dns.naptr("peer.test", 300, 10, 10, "SIP+D2T", "_sip._tcp.peer.test");
            dns.srv("_sip._tcp.peer.test", 300, 10, 0, peer.getLocalPort(), "host.peer.test");
            dns.a("host.peer.test", 300, "127.0.0.1");
            final java.util.concurrent.CompletableFuture<List<SipTarget>> located =
                new java.util.concurrent.CompletableFuture<>();
            stack.execute(1, () -> stack.shard(1).locator().locate("peer.test", -1, null, false, located::complete));
            final List<SipTarget> targets = located.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(List.of(new SipTarget("TCP", new InetSocketAddress(LOOPBACK, peer.getLocalPort()))), targets);

            sendFromShard(stack, 1, "located", targets.get(0).address(), targets.get(0).transport());
            try (StreamClient connection = new StreamClient(peer.accept()))
            {
                final String options = connection.readMessage();
                assertEquals("located", header(options, "Call-ID"));
                answer(connection, options);
                awaitTrue(() -> record.responses.contains("200 located"), "the 200 from the located peer");
            }
        }
    }

    static SipStackConfig config(final int shards)
    {
        return new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(shards);
    }

    /** Builds an OPTIONS with a TCP Via and a branch of shard k, and sends it statefully from shard k. */
    static void sendFromShard(final SipStack stack, final int k, final String callId,
        final InetSocketAddress destination)
    {
        sendFromShard(stack, k, callId, destination, "TCP");
    }

    /** The same with the given Via transport ("TCP", "TLS"). */
    static void sendFromShard(final SipStack stack, final int k, final String callId,
        final InetSocketAddress destination, final String transport)
    {
        stack.execute(k, () ->
        {
            final StackShard shard = stack.shard(k);
            final String branch = shard.ids().appendBranch(new StringBuilder()).toString();
            final String text = "OPTIONS sip:peer@" + destination.getAddress().getHostAddress() + ":"
                + destination.getPort() + ";transport=" + transport.toLowerCase(Locale.ROOT)
                + " SIP/2.0\r\n"
                + "Via: SIP/2.0/" + transport + " 127.0.0.1:" + stack.localAddresses().get(0).getPort()
                + ";branch=" + branch
                + "\r\nMax-Forwards: 70\r\nFrom: <sip:stack@127.0.0.1>;tag=s1\r\nTo: <sip:peer@127.0.0.1>\r\n"
                + "Call-ID: " + callId + "\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n";
            final ByteBuf out = shard.allocate(text.length());
            out.writeCharSequence(text, StandardCharsets.US_ASCII);
            shard.sendRequest(out, destination);
        });
    }

    /** The peer's 200 to a request read off the connection. */
    static void answer(final StreamClient connection, final String request) throws IOException
    {
        connection.write("SIP/2.0 200 OK\r\nVia: " + header(request, "Via") + "\r\nFrom: " + header(request, "From")
            + "\r\nTo: " + header(request, "To") + ";tag=peer\r\nCall-ID: " + header(request, "Call-ID")
            + "\r\nCSeq: " + header(request, "CSeq") + "\r\nContent-Length: 0\r\n\r\n");
    }

    static String request(final String method, final String callId, final int localPort, final String transport)
    {
        return method + " sip:uas@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/" + transport + " 127.0.0.1:" + localPort + ";branch=z9hG4bK-" + callId + "\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:uac@127.0.0.1>;tag=u1\r\nTo: <sip:uas@127.0.0.1>\r\n"
            + "Call-ID: " + callId + "\r\nCSeq: 1 " + method + "\r\nContent-Length: 0\r\n\r\n";
    }

    static String header(final String message, final String name)
    {
        final Matcher m = Pattern.compile("(?im)^" + Pattern.quote(name) + "\\s*:\\s*(.*?)\\s*$").matcher(message);
        return m.find() ? m.group(1) : null;
    }

    /** A STUN Binding request (RFC 8489 §5) with transaction id 01020304 05060708 090a0b0c and no attributes. */
    private static byte[] bindingRequest()
    {
        final ByteBuffer b = ByteBuffer.allocate(20);
        b.putShort((short)0x0001).putShort((short)0).putInt(0x2112A442).putInt(0x01020304).putInt(0x05060708)
            .putInt(0x090A0B0C);
        return b.array();
    }

    static void awaitTrue(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.onSpinWait();
            Thread.sleep(1);
        }
    }

    /** Accepts, or fails with what the stack saw instead. */
    private static Socket accept(final ServerSocket peer, final SipStack stack, final StreamTestListener.Record record)
        throws IOException
    {
        try
        {
            return peer.accept();
        }
        catch (final SocketTimeoutException e)
        {
            throw new AssertionError("no connection: " + stack.streamCounters() + "; transport errors "
                + record.transportErrors + ", responses " + record.responses, e);
        }
    }

    private interface Accept
    {
        Socket accept() throws IOException;
    }

    private static void assertThrows(final Accept accept, final String why)
    {
        try (Socket extra = accept.accept())
        {
            throw new AssertionError(why + ": a second connection came from " + extra.getRemoteSocketAddress());
        }
        catch (final SocketTimeoutException expected)
        {
            // no second connection
        }
        catch (final IOException e)
        {
            throw new AssertionError(e);
        }
    }
}
