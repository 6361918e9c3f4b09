package io.sipline.sip.stack;

import static io.sipline.sip.stack.Datagrams.send;
import static io.sipline.sip.stack.Datagrams.text;
import static io.sipline.sip.stack.StackTcpTest.header;
import static io.sipline.sip.stack.StackUdpSourcePortTest.firstLine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.netty.buffer.ByteBuf;
import io.netty.channel.epoll.Epoll;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.Transaction;
import io.sipline.sip.transport.ShardCounters;
import io.sipline.sip.transport.UdpPeerConfig;
import org.junit.jupiter.api.Test;

/**
 * Connected UDP channels per active peer ({@code UdpPeers}) through the whole stack, two shards, so that about half
 * of the requests are handed over between them by Call-ID: two peers each get their own answers from the listening
 * port; a peer that goes quiet loses its channels and is served again when it comes back; an ICMP port unreachable
 * fails the transactions with that peer at once (RFC 3261 §18.4, §17.1.4) and leaves the listening sockets serving; the
 * per-shard cap holds; IPv6 loopback works the same. Counters are polled with a deadline; nothing sleeps.
 */
class StackUdpPeerTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);

    private static int calls;

    @Test
    void shouldAnswerTwoPeersOnTheirOwnConnectedChannels() throws Exception
    {
        twoPeers(LOOPBACK);
    }

    @Test
    void shouldConnectPeersOverIpv6() throws Exception
    {
        twoPeers(io.sipline.sip.test.Loopback6.orAbort());
    }

    /** Two peers, 8 requests each, alternating: each gets its own answers, most of them on connected channels. */
    private static void twoPeers(final InetAddress loopback) throws Exception
    {
        assumeTrue(Epoll.isAvailable(), "connected peer channels need native epoll");
        try (SipStack stack = start(loopback, new UdpPeerConfig(2, 16, 60_000), new Listener());
            DatagramSocket a = peer(loopback);
            DatagramSocket b = peer(loopback))
        {
            final InetSocketAddress server = stack.localAddresses().get(0);
            for (int i = 0; i < 8; i++)
            {
                exchange(a, server);
                exchange(b, server);
            }
            final ShardCounters totals = awaitTotals(stack, t -> t.responsesSent() == 16);
            assertTrue(totals.peersOpened() >= 2, "a channel for each peer: " + totals);
            assertTrue(totals.peerDatagramsIn() > 0, "requests read on connected channels: " + totals);
            assertTrue(totals.peerDatagramsOut() > 0, "answers written on connected channels: " + totals);
            assertEquals(0, totals.peerOpenFailures(), totals.toString());
            assertEquals(16, totals.datagramsIn());
            assertEquals(2, stack.transport().channelCount(), "the listening channels alone are counted");
        }
    }

    @Test
    void shouldForgetAQuietPeerAndServeItAgain() throws Exception
    {
        assumeTrue(Epoll.isAvailable(), "connected peer channels need native epoll");
        try (SipStack stack = start(LOOPBACK, new UdpPeerConfig(2, 16, 100), new Listener());
            DatagramSocket a = peer(LOOPBACK))
        {
            final InetSocketAddress server = stack.localAddresses().get(0);
            for (int i = 0; i < 4; i++)
            {
                exchange(a, server);
            }
            final ShardCounters before = awaitTotals(stack, t -> t.peersOpened() >= 1 && t.responsesSent() == 4);
            // Idle for 100 ms: the sweep (every 25 ms) closes every channel it had.
            final ShardCounters quiet = awaitTotals(stack, t -> t.peersClosed() == t.peersOpened());
            assertTrue(quiet.peersClosed() >= before.peersOpened());
            assertEquals(0, connected(stack), "no connected channel left");
            for (int i = 0; i < 4; i++)
            {
                exchange(a, server);
            }
            final ShardCounters again = awaitTotals(stack, t -> t.responsesSent() == 8);
            assertTrue(again.peersOpened() > quiet.peersOpened(), "connected again: " + again);
        }
    }

    @Test
    void shouldFailTheTransactionsOfAPeerThatIsGoneOnIcmpPortUnreachable() throws Exception
    {
        assumeTrue(Epoll.isAvailable(), "connected peer channels need native epoll");
        final Listener listener = new Listener();
        // T1 500 ms: Timer F would end the forwarded request after 32 s; the transport error must come first.
        try (SipStack stack = start(LOOPBACK, new UdpPeerConfig(2, 16, 60_000), listener);
            DatagramSocket control = peer(LOOPBACK))
        {
            final InetSocketAddress server = stack.localAddresses().get(0);
            final InetSocketAddress goneAddress;
            try (DatagramSocket gone = peer(LOOPBACK))
            {
                for (int i = 0; i < 4; i++)
                {
                    exchange(gone, server);
                }
                goneAddress = (InetSocketAddress)gone.getLocalSocketAddress();
                awaitTotals(stack, t -> t.peersOpened() >= 1 && t.responsesSent() == 4);
            }
            // The peer's socket is closed: a request to it gets ICMP port unreachable from the kernel.
            listener.forwardTo.set(goneAddress);
            final String callId = "fwd-" + ++calls;
            send(control, server, request("MESSAGE", callId, control.getLocalPort()));
            assertEquals("SIP/2.0 200", firstLine(receiveCall(control, callId)).substring(0, 11));
            awaitCondition(() -> listener.clientTransportErrors.get() >= 1, () -> "no transport error for the request");
            assertEquals(0, listener.timeouts.get(), "not a timeout");
            // The error is counted when it is read; the channel's close completes on the loop a moment later.
            final ShardCounters after = awaitTotals(stack, t -> t.peersUnreachable() >= 1 && t.peersClosed() >= 1);
            assertTrue(after.peersClosed() >= 1, after.toString());
            // Each shard hears of the peer on its own loop (the other shards by a task posted to them): wait for it.
            awaitCondition(() -> listener.serverTransportErrors.get() >= 1,
                () -> "the completed server transactions with that peer ended too (§17.2.4)");

            // The listening sockets are untouched: the control peer is still answered.
            exchange(control, server);
            assertEquals(2, stack.transport().channelCount());
        }
    }

    /**
     * Requests forwarded in one read batch to a peer whose socket just closed queue on its connected channel; the
     * flush meets ECONNREFUSED and the channel closes with the rest still queued. Those are datagrams not sent
     * (send failures), not exceptions of the shard: the error counter stays 0.
     */
    @Test
    void shouldCountDatagramsQueuedToAGonePeerAsSendFailuresNotErrors() throws Exception
    {
        assumeTrue(Epoll.isAvailable(), "connected peer channels need native epoll");
        final Listener listener = new Listener();
        try (SipStack stack = SipStack.start(new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(1)
            .tcp(false).udpPeers(new UdpPeerConfig(1, 4, 60_000, 0)), shard -> listener);
            DatagramSocket control = peer(LOOPBACK))
        {
            final InetSocketAddress server = stack.localAddresses().get(0);
            final InetSocketAddress goneAddress;
            try (DatagramSocket gone = peer(LOOPBACK))
            {
                exchange(gone, server);
                awaitCondition(() -> connectedQuietly(stack) == 1, () -> "the peer never got a connected channel");
                exchange(gone, server);
                goneAddress = (InetSocketAddress)gone.getLocalSocketAddress();
            }
            listener.forwardTo.set(goneAddress);
            for (int i = 0; i < 64; i++)
            {
                send(control, server, request("MESSAGE", "queued-" + i, control.getLocalPort()));
            }
            final ShardCounters after = awaitTotals(stack, t -> t.peersUnreachable() >= 1 && t.peersClosed() >= 1);
            awaitCondition(() -> listener.clientTransportErrors.get() >= 1, () -> "no transport error");
            assertEquals(0, stack.transportTotals().errors(), () -> "no shard error: " + stack.transportTotals());
            assertTrue(after.peersUnreachable() >= 1, after.toString());
            for (int i = 0; i < 64; i++)
            {
                assertEquals("SIP/2.0 200 OK", firstLine(Datagrams.receivePacket(control)), "answered despite it");
            }
            exchange(control, server);
        }
    }

    @Test
    void shouldKeepAtMostTheConfiguredChannelsPerShard() throws Exception
    {
        assumeTrue(Epoll.isAvailable(), "connected peer channels need native epoll");
        try (SipStack stack = start(LOOPBACK, new UdpPeerConfig(1, 1, 60_000, 0), new Listener()))
        {
            final InetSocketAddress server = stack.localAddresses().get(0);
            final DatagramSocket[] peers = new DatagramSocket[4];
            try
            {
                for (int p = 0; p < peers.length; p++)
                {
                    peers[p] = peer(LOOPBACK);
                }
                for (int round = 0; round < 3; round++)
                {
                    for (final DatagramSocket p : peers)
                    {
                        exchange(p, server);
                        for (int k = 0; k < stack.shardCount(); k++)
                        {
                            assertTrue(connected(stack, k) <= 1, "shard " + k + " over its cap");
                        }
                    }
                }
                final ShardCounters totals = awaitTotals(stack, t -> t.responsesSent() == 12);
                assertTrue(totals.peersClosed() >= 2, "channels closed to make room: " + totals);
            }
            finally
            {
                for (final DatagramSocket p : peers)
                {
                    if (null != p)
                    {
                        p.close();
                    }
                }
            }
        }
    }

    /**
     * A busy peer's burst queues on its connected socket as it would on the listening one: the shard is held while
     * the peer sends {@link #BURST} requests on a connected channel, then every one is answered. A connected socket
     * with a quarter of the listening socket's buffer (1 MiB, as it was) dropped about half of them in the kernel.
     */
    @Test
    void shouldQueueABusyPeersBurstOnItsConnectedSocketWithoutDrops() throws Exception
    {
        assumeTrue(Epoll.isAvailable(), "connected peer channels need native epoll");
        final long rmemMax;
        try (java.io.BufferedReader r = java.nio.file.Files.newBufferedReader(
            java.nio.file.Path.of("/proc/sys/net/core/rmem_max")))
        {
            rmemMax = Long.parseLong(r.readLine().trim()); // procfs: read a line (its size reads as 0)
        }
        assumeTrue(rmemMax >= io.sipline.sip.transport.UdpTransport.SOCKET_BUFFER_BYTES,
            "net.core.rmem_max is " + rmemMax + ": the kernel would cap both kinds of socket alike");
        try (SipStack stack = SipStack.start(new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(1)
            .tcp(false).udpPeers(new UdpPeerConfig(1, 4, 60_000, 0)), shard -> new Listener());
            DatagramSocket peer = peer(LOOPBACK))
        {
            peer.setReceiveBufferSize(io.sipline.sip.transport.UdpTransport.SOCKET_BUFFER_BYTES);
            final InetSocketAddress server = stack.localAddresses().get(0);
            exchange(peer, server);
            awaitCondition(() -> connectedQuietly(stack) == 1, () -> "the peer never got a connected channel");
            exchange(peer, server); // now on the connected channel

            final java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
            final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            stack.execute(0, () ->
            {
                held.countDown();
                try
                {
                    release.await(30, TimeUnit.SECONDS);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(held.await(10, TimeUnit.SECONDS), "the shard never ran the task that holds it");
            for (int i = 0; i < BURST; i++)
            {
                send(peer, server, request("OPTIONS", "burst-" + i, peer.getLocalPort()));
            }
            release.countDown();
            int answered = 0;
            final long deadline = System.nanoTime() + DEADLINE_NS;
            while (answered < BURST && System.nanoTime() - deadline < 0)
            {
                final DatagramPacket p;
                try
                {
                    p = Datagrams.receivePacket(peer);
                }
                catch (final java.net.SocketTimeoutException e)
                {
                    break; // nothing more is coming
                }
                if (header(text(p), "Call-ID").startsWith("burst-"))
                {
                    answered++;
                }
            }
            assertEquals(BURST, answered, "requests of the burst answered (the rest were dropped by the kernel)");
        }
    }

    /**
     * Requests sent while the shard is held: about 1.6 MiB of kernel buffer on loopback, over what 1 MiB asked holds.
     */
    private static final int BURST = 2_500;

    // ---------------------------------------------------------------------------------------------------------------

    private static int connectedQuietly(final SipStack stack)
    {
        try
        {
            return connected(stack);
        }
        catch (final Exception e)
        {
            throw new IllegalStateException(e);
        }
    }

    private static SipStack start(final InetAddress address, final UdpPeerConfig peers, final Listener listener)
        throws Exception
    {
        return SipStack.start(new SipStackConfig().addresses(List.of(address)).ports(0).shards(2).tcp(false)
            .udpPeers(peers), shard -> listener);
    }

    private static DatagramSocket peer(final InetAddress address) throws Exception
    {
        final DatagramSocket socket = new DatagramSocket(new InetSocketAddress(address, 0));
        socket.setSoTimeout(5_000);
        return socket;
    }

    /** One OPTIONS with a new Call-ID; its 200 must come back to this peer, from the listening address:port. */
    private static void exchange(final DatagramSocket peer, final InetSocketAddress server) throws Exception
    {
        final String callId = "peer-" + ++calls;
        send(peer, server, request("OPTIONS", callId, peer.getLocalPort()));
        final DatagramPacket answer = receiveCall(peer, callId);
        assertEquals("SIP/2.0 200 OK", firstLine(answer));
        assertEquals(server, answer.getSocketAddress(), "RFC 3261 §18.2.2: from where the request arrived");
    }

    /** The next datagram of this call (another call's datagram here would be a misdelivery: fails). */
    private static DatagramPacket receiveCall(final DatagramSocket socket, final String callId) throws Exception
    {
        final DatagramPacket p = Datagrams.receivePacket(socket);
        assertEquals(callId, header(text(p), "Call-ID"), "an answer of this peer's own request");
        return p;
    }

    private static String request(final String method, final String callId, final int localPort)
    {
        return method + " sip:uas@localhost SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP localhost:" + localPort + ";rport;branch=z9hG4bK-" + callId + "\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:uac@localhost>;tag=u1\r\nTo: <sip:uas@localhost>\r\n"
            + "Call-ID: " + callId + "\r\nCSeq: 1 " + method + "\r\nContent-Length: 0\r\n\r\n";
    }

    private static ShardCounters awaitTotals(final SipStack stack, final Predicate<ShardCounters> done)
    {
        final ShardCounters[] last = new ShardCounters[1];
        awaitCondition(() -> done.test(last[0] = stack.transportTotals()),
            () -> "counters never got there: " + last[0]);
        return last[0];
    }

    private static void awaitCondition(final BooleanSupplier done, final Supplier<String> what)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (!done.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail(what.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /** Connected channels of every shard, read on each shard's loop. */
    private static int connected(final SipStack stack) throws Exception
    {
        int n = 0;
        for (int k = 0; k < stack.shardCount(); k++)
        {
            n += connected(stack, k);
        }
        return n;
    }

    private static int connected(final SipStack stack, final int k) throws Exception
    {
        final CompletableFuture<Integer> n = new CompletableFuture<>();
        stack.execute(k, () -> n.complete(stack.transport().shard(k).connectedPeers()));
        return n.get(10, TimeUnit.SECONDS);
    }

    /**
     * Every request but MESSAGE: 200. MESSAGE: 200, and an OPTIONS to {@link #forwardTo} on a client transaction.
     * Counts transport errors and timeouts. Shared by the shards; its counters are atomic.
     */
    private static final class Listener implements SipListener
    {
        final AtomicReference<InetSocketAddress> forwardTo = new AtomicReference<>();
        final AtomicInteger clientTransportErrors = new AtomicInteger();
        final AtomicInteger serverTransportErrors = new AtomicInteger();
        final AtomicInteger timeouts = new AtomicInteger();

        @Override
        public void onRequest(final StackShard shard, final ServerTransaction tx, final SipMessage request)
        {
            final ByteBuf out = shard.allocate(256 + request.length());
            shard.builder().startResponse(out, request, 200, "OK", shard.ids().appendId(new StringBuilder()),
                tx.peer()).end(null, 0, 0);
            shard.respond(tx, out, 200);
            final InetSocketAddress to = forwardTo.get();
            if (request.method() == SipMethod.MESSAGE && null != to)
            {
                final String branch = shard.ids().appendBranch(new StringBuilder()).toString();
                final String text = "OPTIONS sip:gone@127.0.0.1:" + to.getPort() + " SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.1:" + shard.stack().localAddresses().get(0).getPort()
                    + ";branch=" + branch + "\r\nMax-Forwards: 70\r\nFrom: <sip:stack@127.0.0.1>;tag=s1\r\n"
                    + "To: <sip:gone@127.0.0.1>\r\nCall-ID: gone-" + request.callId() + "\r\nCSeq: 1 OPTIONS\r\n"
                    + "Content-Length: 0\r\n\r\n";
                final ByteBuf forward = shard.allocate(text.length());
                forward.writeCharSequence(text, StandardCharsets.US_ASCII);
                shard.sendRequest(forward, to);
            }
        }

        @Override
        public void onResponse(final StackShard shard, final ClientTransaction tx, final SipMessage response)
        {
        }

        @Override
        public void onTimeout(final StackShard shard, final Transaction tx, final char timer)
        {
            if (tx.isClient())
            {
                timeouts.incrementAndGet();
            }
        }

        @Override
        public void onTransportError(final StackShard shard, final Transaction tx)
        {
            (tx.isClient() ? clientTransportErrors : serverTransportErrors).incrementAndGet();
        }
    }
}
