package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.channel.epoll.Epoll;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.test.Loopback6;

/**
 * The arrival time of every datagram the UDP transport reads ({@link SipMessage#receivedAtNanos()}): the
 * kernel's receive timestamp on listening sockets and on connected peer channels read with recvmsg, IPv4 and {@code
 * ::1};
 * the shard's clock when Netty reads (recvmsg turned off). Each time is checked as an ordering, never against a
 * duration: it is not before a {@link RealtimeClock} read taken before the send, and not after one the handler took
 * when
 * it saw the message. Also: an ICMP port unreachable on one peer channel read with recvmsg closes that channel only
 * (RFC 3261 §18.4), and closed peer channels leave no descriptor behind (their duplicates included) and never read a
 * descriptor number the kernel gave to a new socket. Counters are polled with a deadline; nothing sleeps.
 */
class UdpReceiveTimeTest
{
    /** How far RealtimeClock and the kernel's receive stamp may disagree (see timed). */
    private static final long CLOCK_SLACK_NS = 100_000;

    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);

    private static int calls;

    @Test
    void shouldTakeTheKernelTimeOnAListeningSocketOverIpv4() throws Exception
    {
        listeningSocket(LOOPBACK);
    }

    @Test
    void shouldTakeTheKernelTimeOnAListeningSocketOverIpv6() throws Exception
    {
        listeningSocket(Loopback6.orAbort());
    }

    @Test
    void shouldTakeTheKernelTimeOnAConnectedPeerChannelOverIpv4() throws Exception
    {
        peerChannel(LOOPBACK);
    }

    @Test
    void shouldTakeTheKernelTimeOnAConnectedPeerChannelOverIpv6() throws Exception
    {
        peerChannel(Loopback6.orAbort());
    }

    @Test
    void shouldTakeTheClockWhenNettyReads() throws Exception
    {
        assumeNative();
        final String before = System.getProperty(UdpTransport.RECVFROM_PROP_NAME);
        System.setProperty(UdpTransport.RECVFROM_PROP_NAME, "false");
        final Recorder recorder = new Recorder();
        try (UdpTransport transport = start(LOOPBACK, new UdpPeerConfig(2, 16, 60_000), recorder);
            DatagramSocket peer = peer(LOOPBACK))
        {
            final InetSocketAddress server = transport.localAddresses().get(0);
            for (int i = 0; i < 6; i++)
            {
                timed(recorder, peer, server, "OPTIONS");
            }
            final ShardCounters totals = transport.totals();
            assertEquals(6, totals.datagramsIn(), totals.toString());
            assertEquals(0, totals.nativeDatagramsIn(), "Netty reads the listening socket: " + totals);
            assertEquals(0, totals.nativePeerDatagramsIn(), "Netty reads the peer channel: " + totals);
            assertTrue(totals.peerDatagramsIn() > 0, "some read on the connected channel: " + totals);
            assertEquals(0, totals.kernelTimestamps(), totals.toString());
        }
        finally
        {
            if (null == before)
            {
                System.clearProperty(UdpTransport.RECVFROM_PROP_NAME);
            }
            else
            {
                System.setProperty(UdpTransport.RECVFROM_PROP_NAME, before);
            }
        }
    }

    @Test
    void shouldCloseOnlyTheRefusingPeerChannelOnIcmpPortUnreachable() throws Exception
    {
        assumeNative();
        final Recorder recorder = new Recorder();
        try (UdpTransport transport = start(LOOPBACK, new UdpPeerConfig(1, 16, 60_000), recorder);
            DatagramSocket staying = peer(LOOPBACK))
        {
            final InetSocketAddress server = transport.localAddresses().get(0);
            final InetSocketAddress goneAddress;
            try (DatagramSocket gone = peer(LOOPBACK))
            {
                for (int i = 0; i < 3; i++)
                {
                    timed(recorder, gone, server, "OPTIONS");
                    timed(recorder, staying, server, "OPTIONS");
                }
                goneAddress = (InetSocketAddress)gone.getLocalSocketAddress();
                final ShardCounters connected = awaitTotals(transport, t -> t.nativePeerDatagramsIn() >= 4);
                assertEquals(2, connectedPeers(transport), connected.toString());
            }
            // That peer's socket is closed: what the shard sends it on its connected channel comes back as ICMP port
            // unreachable, reported on that channel's socket (ECONNREFUSED).
            recorder.sendTo.set(goneAddress);
            final long deadline = System.nanoTime() + DEADLINE_NS;
            do
            {
                // Again until it comes: the kernel may drop an ICMP error under its global rate limit
                // (icmp_msgs_per_sec), which other tests on the machine share.
                assertTrue(System.nanoTime() - deadline < 0, "no ICMP port unreachable: " + transport.totals());
                timed(recorder, staying, server, "MESSAGE");
            }
            while (!poll(transport, t -> t.peersUnreachable() >= 1, TimeUnit.MILLISECONDS.toNanos(100)));
            // The error is counted when it is read; the channel's close completes on the loop a moment later.
            final ShardCounters after = awaitTotals(transport, t -> t.peersClosed() >= 1);
            assertEquals(1, after.peersUnreachable(), after.toString());
            assertEquals(1, after.peersClosed(), "that channel only: " + after);
            assertEquals(1, connectedPeers(transport));
            assertEquals(0, after.errors(), after.toString());

            // The other peer is still read on its own connected channel, and the listening socket still serves.
            recorder.sendTo.set(null);
            timed(recorder, staying, server, "OPTIONS");
            final ShardCounters last = transport.totals();
            assertEquals(after.nativePeerDatagramsIn() + 1, last.nativePeerDatagramsIn(), last.toString());
            assertEquals(2, transport.channelCount() + connectedPeers(transport), "the listening socket and one peer");
        }
    }

    @Test
    void shouldLeaveNoDescriptorOfAClosedPeerChannelAndNeverReadAReusedOne() throws Exception
    {
        assumeNative();
        final File fds = new File("/proc/self/fd");
        assumeTrue(fds.isDirectory(), "no /proc/self/fd here");
        final Recorder recorder = new Recorder();
        final int n = 4;
        final DatagramSocket[] peers = new DatagramSocket[n];
        try (UdpTransport transport = start(LOOPBACK, new UdpPeerConfig(1, 16, 60_000), recorder))
        {
            final InetSocketAddress server = transport.localAddresses().get(0);
            for (int p = 0; p < n; p++)
            {
                peers[p] = peer(LOOPBACK);
            }
            final Map<String, Integer> baseline = sockets(fds);
            for (int round = 0; round < 2; round++)
            {
                for (final DatagramSocket p : peers)
                {
                    timed(recorder, p, server, "OPTIONS");
                }
            }
            final ShardCounters connected = awaitTotals(transport, t -> t.nativePeerDatagramsIn() >= n);
            assertEquals(n, connectedPeers(transport), connected.toString());
            // Each peer channel's socket is open twice: the channel's descriptor and the shard's duplicate.
            final Map<String, Integer> open = sockets(fds);
            open.keySet().removeAll(baseline.keySet());
            open.values().removeIf(count -> count != 2);
            assertEquals(n, open.size(), "new sockets with two descriptors each: " + open);

            transport.eventLoop(0).submit(transport.shard(0)::closePeers).get(10, TimeUnit.SECONDS);
            awaitCondition(() -> java.util.Collections.disjoint(sockets(fds).keySet(), open.keySet()),
                () -> "descriptors of the closed peer channels left: " + sockets(fds) + ", were " + open);
            assertEquals(0, connectedPeers(transport));

            // New sockets now get the numbers the closed ones had: every datagram sent to them is theirs to read.
            final ShardCounters before = transport.totals();
            final DatagramSocket[] fresh = new DatagramSocket[2 * n];
            try
            {
                for (int i = 0; i < fresh.length; i++)
                {
                    fresh[i] = peer(LOOPBACK);
                }
                for (int i = 0; i < fresh.length; i++)
                {
                    final byte[] bytes = ("fresh " + i).getBytes(StandardCharsets.US_ASCII);
                    peers[0].send(new DatagramPacket(bytes, bytes.length, fresh[i].getLocalSocketAddress()));
                }
                for (int i = 0; i < fresh.length; i++)
                {
                    final DatagramPacket got = new DatagramPacket(new byte[64], 64);
                    fresh[i].receive(got);
                    assertEquals("fresh " + i,
                        new String(got.getData(), 0, got.getLength(), StandardCharsets.US_ASCII));
                }
            }
            finally
            {
                for (final DatagramSocket s : fresh)
                {
                    if (null != s)
                    {
                        s.close();
                    }
                }
            }
            assertEquals(before.datagramsIn(), transport.totals().datagramsIn(), "the shard read none of them");
            assertEquals(0, transport.totals().errors(), transport.totals().toString());
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

    // ---------------------------------------------------------------------------------------------------------------

    private static void listeningSocket(final InetAddress address) throws Exception
    {
        assumeNative();
        final Recorder recorder = new Recorder();
        try (UdpTransport transport = start(address, UdpPeerConfig.OFF, recorder);
            DatagramSocket peer = peer(address))
        {
            final InetSocketAddress server = transport.localAddresses().get(0);
            for (int i = 0; i < 3; i++)
            {
                timed(recorder, peer, server, "OPTIONS");
            }
            final ShardCounters totals = transport.totals();
            assertEquals(3, totals.nativeDatagramsIn(), totals.toString());
            assertEquals(3, totals.kernelTimestamps(), "every one timed by the kernel: " + totals);
        }
    }

    private static void peerChannel(final InetAddress address) throws Exception
    {
        assumeNative();
        final Recorder recorder = new Recorder();
        try (UdpTransport transport = start(address, new UdpPeerConfig(2, 16, 60_000), recorder);
            DatagramSocket peer = peer(address))
        {
            final InetSocketAddress server = transport.localAddresses().get(0);
            for (int i = 0; i < 6; i++)
            {
                timed(recorder, peer, server, "OPTIONS");
            }
            final ShardCounters totals = transport.totals();
            assertEquals(6, totals.datagramsIn(), totals.toString());
            assertTrue(totals.nativePeerDatagramsIn() > 0, "read on the connected channel with recvmsg: " + totals);
            assertEquals(totals.peerDatagramsIn(), totals.nativePeerDatagramsIn(), totals.toString());
            assertEquals(6, totals.kernelTimestamps(), "every one timed by the kernel: " + totals);
        }
    }

    /**
     * Sends one request with a new Call-ID and checks its arrival time: a clock read before the send, at most the
     * arrival, at most the clock read of the handler that saw it.
     */
    private static void timed(final Recorder recorder, final DatagramSocket peer, final InetSocketAddress server,
        final String method) throws Exception
    {
        final String callId = "rx-" + ++calls;
        final byte[] bytes = (method + " sip:uas@localhost SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP localhost:" + peer.getLocalPort() + ";rport;branch=z9hG4bK-" + callId + "\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:uac@localhost>;tag=u1\r\nTo: <sip:uas@localhost>\r\n"
            + "Call-ID: " + callId + "\r\nCSeq: 1 " + method + "\r\nContent-Length: 0\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
        final long sentAfter = RealtimeClock.nanos();
        peer.send(new DatagramPacket(bytes, bytes.length, server));
        awaitCondition(() -> recorder.seen.containsKey(callId), () -> "the handler never saw " + callId);
        final long[] times = recorder.seen.get(callId);
        assertNotNull(times);
        assertTrue(times[0] != 0, "an arrival time");
        // The kernel stamps with CLOCK_REALTIME; RealtimeClock is the monotonic clock plus an offset taken at most
        // 1 s before, so the two may disagree by that offset's error (the gap between its two reads, and any slewing
        // since): 292 ns once on this machine. So the window is widened by CLOCK_SLACK_NS on each side.
        assertTrue(sentAfter <= times[0] + CLOCK_SLACK_NS,
            "arrived before it was sent: " + sentAfter + " > " + times[0]);
        assertTrue(times[0] <= times[1] + CLOCK_SLACK_NS,
            "arrived after the handler saw it: " + times[0] + " > " + times[1]);
    }

    private static UdpTransport start(final InetAddress address, final UdpPeerConfig peers, final Recorder recorder)
        throws UdpBindException
    {
        return UdpTransport.start(new UdpTransportConfig(List.of(address), new int[] {0}, 1, true, peers, false),
            shard -> recorder);
    }

    private static DatagramSocket peer(final InetAddress address) throws Exception
    {
        final DatagramSocket socket = new DatagramSocket(new InetSocketAddress(address, 0));
        socket.setSoTimeout((int)TimeUnit.NANOSECONDS.toMillis(DEADLINE_NS));
        return socket;
    }

    private static int connectedPeers(final UdpTransport transport) throws Exception
    {
        return transport.eventLoop(0).submit(transport.shard(0)::connectedPeers).get(10, TimeUnit.SECONDS);
    }

    /**
     * The sockets this process has open ({@code socket:[inode]}, read from the links in {@code /proc/self/fd}), each
     * with the number of descriptors that refer to it.
     */
    private static Map<String, Integer> sockets(final File fds)
    {
        final Map<String, Integer> sockets = new java.util.HashMap<>();
        final File[] links = fds.listFiles();
        if (null == links)
        {
            return sockets;
        }
        for (final File link : links)
        {
            try
            {
                final String target = java.nio.file.Files.readSymbolicLink(link.toPath()).toString();
                if (target.startsWith("socket:"))
                {
                    sockets.merge(target, 1, Integer::sum);
                }
            }
            catch (final java.io.IOException closedMeanwhile)
            {
                // a descriptor closed while the directory was read (the listing's own, say): not a socket of ours
            }
        }
        return sockets;
    }

    private static ShardCounters awaitTotals(final UdpTransport transport, final Predicate<ShardCounters> done)
    {
        final ShardCounters[] last = new ShardCounters[1];
        awaitCondition(() -> done.test(last[0] = transport.totals()), () -> "counters never got there: " + last[0]);
        return last[0];
    }

    /** True once {@code done} holds for the totals, false when it still does not after {@code forNs}. */
    private static boolean poll(final UdpTransport transport, final Predicate<ShardCounters> done, final long forNs)
    {
        final long until = System.nanoTime() + forNs;
        while (!done.test(transport.totals()))
        {
            if (System.nanoTime() - until > 0)
            {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return true;
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

    private static void assumeNative()
    {
        assumeTrue(Epoll.isAvailable(), "native epoll is not available here");
        assumeTrue(UdpRecvMsg.AVAILABLE, "recvmsg through FFM is not available here");
    }

    /**
     * Records, per Call-ID, the message's arrival time and a clock read taken when the handler saw it; for a MESSAGE,
     * sends one datagram to {@link #sendTo} when it is set. Shared by the shards (one here); its map is concurrent.
     */
    private static final class Recorder implements SipMessageHandler
    {
        final Map<String, long[]> seen = new ConcurrentHashMap<>();
        final AtomicReference<InetSocketAddress> sendTo = new AtomicReference<>();

        @Override
        public boolean onMessage(final UdpShardSockets shard, final SipMessage message, final InetSocketAddress source)
        {
            final long now = RealtimeClock.nanos();
            final InetSocketAddress to = sendTo.get();
            if (null != to && message.method() == io.sipline.sip.message.SipMethod.MESSAGE)
            {
                final ByteBuf out = shard.allocate(16);
                out.writeBytes("ping".getBytes(StandardCharsets.US_ASCII));
                shard.send(out, to);
            }
            seen.put(message.callId(), new long[] {message.receivedAtNanos(), now});
            return true;
        }
    }
}
