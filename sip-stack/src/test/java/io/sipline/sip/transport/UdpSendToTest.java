package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.socket.SocketProtocolFamily;
import io.sipline.sip.test.Loopback6;

/**
 * The shard's own {@code sendto} on listening sockets ({@link UdpSendTo}, {@link UdpShardSockets}): answers leave from
 * the
 * port the request arrived on (RFC 3261 §18.2.2) over IPv4 and IPv6, a failed call (injected: a function of the
 * downcall's type that returns -1 as a failed sendto does; and a real one, to port 0) falls back to Netty's write
 * and is counted, and every
 * buffer is released once, whichever way it went. Real epoll sockets on loopback; skipped where epoll or the FFM
 * downcall is unavailable. Replies are awaited with a deadline; nothing sleeps.
 */
class UdpSendToTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final int TIMEOUT_MILLIS = 10_000;

    private static final AtomicInteger CALLS = new AtomicInteger();

    @Test
    void shouldAnswerWithSendtoFromTheListeningPortOverIpv4() throws Exception
    {
        assumeNative();
        answerThroughTransport(LOOPBACK);
    }

    @Test
    void shouldAnswerWithSendtoFromTheListeningPortOverIpv6() throws Exception
    {
        assumeNative();
        answerThroughTransport(Loopback6.orAbort());
    }

    @Test
    void shouldFallBackToNettysWriteWhenSendtoFails() throws Exception
    {
        assumeNative();
        fallBack(LOOPBACK);
    }

    @Test
    void shouldFallBackToNettysWriteWhenSendtoFailsOverIpv6() throws Exception
    {
        assumeNative();
        fallBack(Loopback6.orAbort());
    }

    @Test
    void shouldReleaseTheBufferOnceWhetherSentOrLeftToNetty() throws Exception
    {
        assumeNative();
        try (Shard ok = new Shard(LOOPBACK, new UdpSendTo());
            Shard failing = new Shard(LOOPBACK, new UdpSendTo(failing()));
            DatagramSocket peer = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            peer.setSoTimeout(TIMEOUT_MILLIS);
            final InetSocketAddress to = (InetSocketAddress)peer.getLocalSocketAddress();

            // Sent by sendto: released inside the call, before it returns.
            final ByteBuf sent = ok.onLoop(() -> direct("one"));
            assertTrue(ok.onLoop(() -> ok.shard.sendFrom(null, sent, to)));
            assertEquals(0, sent.refCnt(), "released by the shard once sendto sent it");
            assertEquals("one", receive(peer));

            // Left to Netty after a failed call: Netty releases it once written (at the flush).
            final ByteBuf queued = failing.onLoop(() -> direct("two"));
            assertTrue(failing.onLoop(() ->
            {
                final boolean accepted = failing.shard.sendFrom(null, queued, to);
                failing.shard.flush();
                return accepted;
            }));
            assertEquals("two", receive(peer));
            await(() -> 0 == queued.refCnt(), "released by Netty once written");

            // Declined (a heap buffer has no address to read in place): Netty's write, no fallback counted.
            final ByteBuf heap = Unpooled.copiedBuffer("three", StandardCharsets.US_ASCII);
            assertTrue(ok.onLoop(() ->
            {
                final boolean accepted = ok.shard.sendFrom(null, heap, to);
                ok.shard.flush();
                return accepted;
            }));
            assertEquals("three", receive(peer));
            await(() -> 0 == heap.refCnt(), "released by Netty once written");

            // The kernel refuses port 0 (EINVAL): Netty's write fails the same way, counts it, and releases.
            final ByteBuf refused = direct("four");
            assertTrue(ok.onLoop(() ->
            {
                final boolean accepted = ok.shard.sendFrom(null, refused, new InetSocketAddress(LOOPBACK, 0));
                ok.shard.flush();
                return accepted;
            }));
            await(() -> 0 == refused.refCnt(), "released by Netty once its write failed");
            await(() -> 1 == ok.shard.snapshot().errors(), "the failed write counted");

            final ShardCounters okCounts = ok.shard.snapshot();
            assertEquals(1, okCounts.nativeSends());
            assertEquals(1, okCounts.nativeSendFallbacks());
            assertEquals(3, okCounts.responsesSent());
            final ShardCounters failingCounts = failing.shard.snapshot();
            assertEquals(0, failingCounts.nativeSends());
            assertEquals(1, failingCounts.nativeSendFallbacks());
            assertEquals(1, failingCounts.responsesSent());
        }
    }

    @Test
    void shouldKeepNettysWriteWhenTurnedOff() throws Exception
    {
        assumeNative();
        try (Shard plain = new Shard(LOOPBACK, null);
            DatagramSocket peer = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            peer.setSoTimeout(TIMEOUT_MILLIS);
            final InetSocketAddress to = (InetSocketAddress)peer.getLocalSocketAddress();
            final ByteBuf buffer = plain.onLoop(() -> direct("plain"));
            assertTrue(plain.onLoop(() ->
            {
                final boolean accepted = plain.shard.sendFrom(null, buffer, to);
                plain.shard.flush();
                return accepted;
            }));
            assertEquals("plain", receive(peer));
            await(() -> 0 == buffer.refCnt(), "released by Netty once written");
            assertEquals(0, plain.shard.snapshot().nativeSends());
        }
    }

    /** An OPTIONS through a transport without peer channels: its 200 comes back by sendto, from the port it hit. */
    private static void answerThroughTransport(final InetAddress address) throws Exception
    {
        final UdpTransport transport = UdpTransport.start(new UdpTransportConfig(List.of(address), new int[] {0}, 2,
            true, UdpPeerConfig.OFF, false), StatelessResponder.factory());
        try (transport; DatagramSocket client = new DatagramSocket(new InetSocketAddress(address, 0)))
        {
            client.setSoTimeout(TIMEOUT_MILLIS);
            final InetSocketAddress server = transport.localAddresses().get(0);
            for (int i = 0; i < 8; i++)
            {
                final DatagramPacket reply = exchange(client, server, "sendto-" + i);
                assertEquals(server, reply.getSocketAddress(), "from the port the request arrived on (§18.2.2)");
            }
            // The shard counts a send once sendto has returned, which may be after the reply was read here.
            await(() -> 8 == transport.totals().responsesSent(), "8 answers counted");
            final ShardCounters totals = transport.totals();
            assertEquals(8, totals.nativeSends(), totals.toString());
            assertEquals(0, totals.nativeSendFallbacks(), totals.toString());
            assertEquals(8, totals.responsesSent(), totals.toString());
            assertEquals(0, totals.errors(), totals.toString());
            if (UdpRecvMsg.AVAILABLE)
            {
                // Read by the shards' recvfrom too (UdpRecvMsgTest), one reader per listening socket.
                assertEquals(8, totals.nativeDatagramsIn(), totals.toString());
                for (int k = 0; k < 2; k++)
                {
                    final UdpShardSockets shard = transport.shard(k);
                    assertEquals(1, (int)transport.eventLoop(k).submit(shard::nativeReaders).get());
                }
            }
        }
        for (int k = 0; k < 2; k++)
        {
            assertEquals(0, transport.shard(k).nativeReaders(), "readers stopped, buffer released, at close");
        }
    }

    /** A shard whose every sendto fails: each answer still arrives, through Netty's write. */
    private static void fallBack(final InetAddress address) throws Exception
    {
        try (Shard shard = new Shard(address, new UdpSendTo(failing()));
            DatagramSocket client = new DatagramSocket(new InetSocketAddress(address, 0)))
        {
            client.setSoTimeout(TIMEOUT_MILLIS);
            final int before = CALLS.get();
            for (int i = 0; i < 4; i++)
            {
                final DatagramPacket reply = exchange(client, shard.local, "fallback-" + i);
                assertEquals(shard.local, reply.getSocketAddress());
            }
            await(() -> 4 == shard.shard.snapshot().responsesSent(), "4 answers counted");
            final ShardCounters counts = shard.shard.snapshot();
            assertEquals(4, CALLS.get() - before, "sendto tried once per answer");
            assertEquals(0, counts.nativeSends());
            assertEquals(4, counts.nativeSendFallbacks());
            assertEquals(4, counts.responsesSent());
            assertEquals(0, counts.sendFailures());
        }
    }

    private static DatagramPacket exchange(final DatagramSocket client, final InetSocketAddress server,
        final String callId) throws Exception
    {
        final String host = client.getLocalAddress().getHostAddress();
        final String hostPort = (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + client.getLocalPort();
        final byte[] request = ("OPTIONS sip:ping@example.com SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP " + hostPort + ";branch=z9hG4bK" + callId + ";rport\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:t@example.com>;tag=t1\r\nTo: <sip:ping@example.com>\r\n"
            + "Call-ID: " + callId + "\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
        client.send(new DatagramPacket(request, request.length, server));
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
        while (System.nanoTime() - deadline < 0)
        {
            final DatagramPacket reply = new DatagramPacket(new byte[65_536], 65_536);
            client.receive(reply); // SocketTimeoutException past the socket's timeout fails the test
            final String text = new String(reply.getData(), 0, reply.getLength(), StandardCharsets.US_ASCII);
            if (text.contains("Call-ID: " + callId + "\r\n"))
            {
                assertTrue(text.startsWith("SIP/2.0 200 OK\r\n"), text);
                return reply;
            }
        }
        throw new AssertionError("no answer to " + callId);
    }

    private static String receive(final DatagramSocket socket) throws Exception
    {
        final DatagramPacket packet = new DatagramPacket(new byte[2048], 2048);
        socket.receive(packet);
        return new String(packet.getData(), 0, packet.getLength(), StandardCharsets.US_ASCII);
    }

    private static ByteBuf direct(final String text)
    {
        final ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        b.writeCharSequence(text, StandardCharsets.US_ASCII);
        return b;
    }

    private static void await(final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() - deadline < 0, "not within the deadline: " + what);
            Thread.onSpinWait();
        }
    }

    private static void assumeNative()
    {
        assumeTrue(Epoll.isAvailable(), "native epoll is not available here");
        assumeTrue(UdpSendTo.AVAILABLE, "sendto through FFM is not available here");
    }

    /** A function of the downcall's type that fails every call as sendto does: -1 (EAGAIN, EPERM, ...). */
    private static MethodHandle failing() throws ReflectiveOperationException
    {
        final MethodHandle fail = MethodHandles.lookup().findStatic(UdpSendToTest.class, "fail",
            MethodType.methodType(long.class, int.class, long.class, long.class, int.class, MemorySegment.class,
                int.class));
        assertEquals(UdpSendTo.type(), fail.type());
        return fail;
    }

    @SuppressWarnings("unused") // through failing()
    private static long fail(final int fd, final long buffer, final long length, final int flags,
        final MemorySegment to, final int toLength)
    {
        CALLS.incrementAndGet();
        return -1;
    }

    /**
     * One {@link UdpShardSockets} with a {@link StatelessResponder} on one epoll socket bound to {@code address} port
     * 0,
     * on its own event loop, without peer channels.
     */
    private static final class Shard implements AutoCloseable
    {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        final UdpShardSockets shard;
        final Channel channel;
        final InetSocketAddress local;

        Shard(final InetAddress address, final UdpSendTo sendTo) throws Exception
        {
            shard = new UdpShardSockets(0, StatelessResponder.factory().create(0), PooledByteBufAllocator.DEFAULT,
                new DistinctErrors(), UdpPeerConfig.OFF, sendTo, null);
            final SocketProtocolFamily family = address instanceof java.net.Inet6Address ?
                SocketProtocolFamily.INET6 : SocketProtocolFamily.INET;
            channel = new Bootstrap().group(group).channelFactory(() -> new EpollDatagramChannel(family))
                .handler(shard).bind(new InetSocketAddress(address, 0)).sync().channel();
            local = (InetSocketAddress)channel.localAddress();
            assertNotNull(local);
            // channelActive (which records the descriptor) has run once the bind's future completed on the loop.
            onLoop(() -> shard.endpointCount());
        }

        <T> T onLoop(final Callable<T> task) throws Exception
        {
            return group.next().submit(task).get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        }

        @Override
        public void close()
        {
            channel.close().awaitUninterruptibly(TIMEOUT_MILLIS);
            group.shutdownGracefully(0, TIMEOUT_MILLIS, TimeUnit.MILLISECONDS).awaitUninterruptibly(TIMEOUT_MILLIS);
        }
    }
}
