package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.socket.SocketProtocolFamily;
import io.sipline.sip.test.Loopback6;

/**
 * {@link UdpRecvMmsg} on real epoll sockets bound to loopback (auto-read off, so that only the test reads them): a
 * batch of datagrams of mixed sizes, up to the largest UDP payload over IPv4 (65,507 bytes), from two senders, each
 * read whole, in the order sent, with its sender (the cached object of {@link UdpRecvMsg}) and the kernel's receive
 * time (between a clock read before the sends and one after the read: an ordering, not a duration); a batch cut short
 * because the queue ran empty; {@code EAGAIN} with nothing queued; {@code MSG_CTRUNC} per slot; {@code ECONNREFUSED}
 * on a connected socket whose peer is gone; a batch cut short by its reader's stop under the shard's handling of
 * one of its datagrams (the socket's channel going inactive stops it so): those before delivered, the rest counted
 * as read and dropped, the reader off its duplicate descriptor; and the transport answering with its reads batched
 * or, by the system property, one at a time. Loopback delivers a datagram to the receiving socket before
 * {@code sendto} returns; reads still poll with a deadline. Nothing sleeps.
 */
class UdpRecvMmsgTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    private static final long RESEND_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The largest UDP payload over IPv4: 65,535 - 20 (IP header) - 8 (UDP header). */
    private static final int LARGEST_IPV4 = 65_507;
    private static final int SLOTS = 16;

    @Test
    void shouldReadABatchOfMixedSizesWholeAndInOrderOverIpv4() throws Exception
    {
        assumeNative();
        mixedBatch(LOOPBACK);
    }

    @Test
    void shouldReadABatchOfMixedSizesWholeAndInOrderOverIpv6() throws Exception
    {
        assumeNative();
        mixedBatch(Loopback6.orAbort());
    }

    @Test
    void shouldStopAPartialBatchWhereTheQueueRunsEmptyAndReportEagain() throws Exception
    {
        assumeNative();
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        final ByteBuf[] buffers = buffers(SLOTS);
        try (DatagramSocket a = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            final Channel channel = bind(group, LOOPBACK);
            final InetSocketAddress server = (InetSocketAddress)channel.localAddress();
            final int fd = ((EpollDatagramChannel)channel).fd().intValue();
            final UdpRecvMsg single = new UdpRecvMsg();
            final UdpRecvMmsg batch = new UdpRecvMmsg(single, SLOTS);

            assertEquals(-1, batch.receive(fd, buffers, SLOTS), "nothing queued yet");
            assertEquals(-UdpRecvMsg.EAGAIN, batch.receiveOrErrno(fd, buffers, SLOTS, true), "nothing queued: EAGAIN");

            for (int i = 0; i < 3; i++)
            {
                send(a, server, text("partial " + i));
            }
            assertEquals(3, batch.receive(fd, buffers, SLOTS), "three queued, sixteen asked for: three");
            for (int i = 0; i < 3; i++)
            {
                assertEquals("partial " + i, buffers[i].toString(StandardCharsets.US_ASCII));
                assertEquals(a.getLocalSocketAddress(), batch.sender(i));
            }
            assertEquals(-UdpRecvMsg.EAGAIN, batch.receiveOrErrno(fd, buffers, SLOTS, true), "all read");

            for (int i = 0; i < 5; i++)
            {
                send(a, server, text("capped " + i));
            }
            assertEquals(2, batch.receive(fd, buffers, 2), "no more than asked for");
            assertEquals("capped 1", buffers[1].toString(StandardCharsets.US_ASCII));
            assertEquals(3, batch.receive(fd, buffers, SLOTS), "the rest, in order");
            assertEquals("capped 2", buffers[0].toString(StandardCharsets.US_ASCII));
            assertEquals("capped 4", buffers[2].toString(StandardCharsets.US_ASCII));
            channel.close().sync();
        }
        finally
        {
            release(buffers);
            shutdown(group);
        }
    }

    @Test
    void shouldGiveNoReceiveTimeToASlotWhoseControlBufferIsTooSmall() throws Exception
    {
        assumeNative();
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        final ByteBuf[] buffers = buffers(4);
        try (DatagramSocket a = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            final Channel channel = bind(group, LOOPBACK);
            final InetSocketAddress server = (InetSocketAddress)channel.localAddress();
            final int fd = ((EpollDatagramChannel)channel).fd().intValue();
            final UdpRecvMsg single = new UdpRecvMsg();
            assertEquals(0, single.enableTimestamps(fd));
            final UdpRecvMmsg small = new UdpRecvMmsg(single, 4, 24); // room for a cmsghdr, not for its timespec
            send(a, server, text("no room 0"));
            send(a, server, text("no room 1"));
            final List<String> read = new ArrayList<>();
            final long deadline = System.nanoTime() + TIMEOUT_NS;
            while (read.size() < 2)
            {
                final int n = small.receive(fd, buffers, 4);
                for (int i = 0; i < n; i++)
                {
                    read.add(buffers[i].toString(StandardCharsets.US_ASCII));
                    assertTrue(small.controlTruncated(i), "MSG_CTRUNC");
                    assertEquals(0, small.receivedAtNanos(i), "a truncated control message gives no time");
                    assertFalse(small.truncated(i));
                }
                assertTrue(System.nanoTime() - deadline < 0, "no datagram within the deadline");
            }
            assertEquals(List.of("no room 0", "no room 1"), read);
            channel.close().sync();
        }
        finally
        {
            release(buffers);
            shutdown(group);
        }
    }

    @Test
    void shouldReportARefusedPeerOnAConnectedSocket() throws Exception
    {
        assumeNative();
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        final ByteBuf[] buffers = buffers(SLOTS);
        try
        {
            final InetSocketAddress gone;
            try (DatagramSocket closed = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
            {
                gone = (InetSocketAddress)closed.getLocalSocketAddress();
            }
            final Channel channel = new Bootstrap().group(group)
                .channelFactory(() -> new EpollDatagramChannel(SocketProtocolFamily.INET))
                .option(ChannelOption.AUTO_READ, false).handler(new ChannelInboundHandlerAdapter())
                .connect(gone, new InetSocketAddress(LOOPBACK, 0)).sync().channel();
            final UdpRecvMmsg batch = new UdpRecvMmsg(new UdpRecvMsg(), SLOTS);
            final int fd = ((EpollDatagramChannel)channel).fd().intValue();
            assertEquals(-UdpRecvMsg.EAGAIN, batch.receiveOrErrno(fd, buffers, SLOTS, false), "nothing yet");
            final long deadline = System.nanoTime() + TIMEOUT_NS;
            long sentAt = System.nanoTime() - RESEND_NS;
            int n;
            while ((n = batch.receiveOrErrno(fd, buffers, SLOTS, false)) == -UdpRecvMsg.EAGAIN)
            {
                assertTrue(System.nanoTime() - deadline < 0, "no ICMP port unreachable within the deadline");
                if (System.nanoTime() - sentAt >= RESEND_NS)
                {
                    // Again until it comes: the kernel may drop an ICMP error under its global rate limit.
                    sentAt = System.nanoTime();
                    channel.writeAndFlush(Unpooled.copiedBuffer("anyone?", StandardCharsets.US_ASCII)).sync();
                }
                Thread.onSpinWait();
            }
            assertEquals(-UdpRecvMsg.ECONNREFUSED, n, "RFC 3261 §18.4: the peer's port is closed");
            assertEquals(-UdpRecvMsg.EAGAIN, batch.receiveOrErrno(fd, buffers, SLOTS, false), "reported once");
            channel.close().sync();
        }
        finally
        {
            release(buffers);
            shutdown(group);
        }
    }

    @Test
    void shouldDeliverOrCountEveryDatagramOfABatchCutShortByItsReadersStop() throws Exception
    {
        assumeNative();
        final List<String> handled = new ArrayList<>();
        final CompletableFuture<UdpNativeReader> stoppedReader = new CompletableFuture<>();
        // The second datagram of the batch stops the reader of the socket it came in on, as channelInactive does.
        final SipMessageHandler stopper = (shard, message, source) ->
        {
            handled.add(message.callId());
            if ("batch-1".equals(message.callId()))
            {
                final UdpNativeReader reader = shard.output.current.reader;
                shard.reads.stopReading(shard.output.current);
                stoppedReader.complete(reader);
            }
            return true;
        };
        final ByteBuf[] buffers = buffers(SLOTS);
        try (UdpTransport transport = UdpTransport.start(new UdpTransportConfig(List.of(LOOPBACK), new int[] {0}, 1,
            true, UdpPeerConfig.OFF, false), shard -> stopper);
            DatagramSocket client = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            final InetSocketAddress server = transport.localAddresses().get(0);
            final UdpShardSockets shard = transport.shard(0);
            final EventLoop loop = transport.eventLoop(0);
            send(client, server, options("first"));
            awaitOnLoop(loop, () -> 1 == shard.snapshot().nativeDatagramsIn()); // the reader is registered and reads
            assertTrue(loop.submit(() -> shard.reads.batched()).get(), "recvmmsg is on by default");

            // The loop held while five datagrams queue: its next wake-up reads them in one recvmmsg.
            final CountDownLatch release = new CountDownLatch(1);
            final CountDownLatch held = new CountDownLatch(1);
            loop.execute(() ->
            {
                held.countDown();
                try
                {
                    release.await(10, TimeUnit.SECONDS);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(held.await(10, TimeUnit.SECONDS));
            for (int i = 0; i < 5; i++)
            {
                send(client, server, options("batch-" + i));
            }
            release.countDown();
            final UdpNativeReader reader = stoppedReader.get(10, TimeUnit.SECONDS);
            // Runs after the wake-up that stopped the reader: the batch is over.
            final ShardCounters counters = loop.submit(shard::snapshot).get();
            assertEquals(List.of("first", "batch-0", "batch-1"), loop.submit(() -> List.copyOf(handled)).get(),
                "those before the stop delivered, in order, and none after it");
            assertEquals(6, counters.nativeDatagramsIn(), "every datagram the batch read is counted as read");
            assertEquals(6, counters.datagramsIn());
            assertEquals(3, counters.dropped(), "the three after the stop counted as dropped");
            assertEquals(0, counters.errors());
            assertTrue(reader.stopped);
            assertFalse(reader.fd.isOpen(), "the duplicate descriptor closed");
            assertEquals(0, loop.submit(() -> shard.reads.nativeReaders()).get().intValue());

            // Stopped for good: a datagram sent now stays queued on the socket, which only its channel holds.
            send(client, server, options("after"));
            final UdpRecvMmsg direct = new UdpRecvMmsg(new UdpRecvMsg(), SLOTS);
            final int fd = loop.submit(() -> shard.output.byLocal(server).fd).get();
            assertEquals(1, direct.receive(fd, buffers, SLOTS), "the stopped reader read nothing more");
            assertTrue(buffers[0].toString(StandardCharsets.US_ASCII).contains("Call-ID: after\r\n"));
            assertEquals(6, loop.submit(shard::snapshot).get().nativeDatagramsIn());
        }
        finally
        {
            release(buffers);
        }
    }

    @Test
    void shouldAnswerThroughTheTransportWithBatchedReads() throws Exception
    {
        assumeNative();
        assertEquals(List.of(true, true), answer(null));
    }

    @Test
    void shouldAnswerThroughTheTransportWithOneReadPerDatagramWhenBatchingIsOff() throws Exception
    {
        assumeNative();
        assertEquals(List.of(true, false), answer("false"));
    }

    /**
     * Six datagrams, from two senders, of 40 bytes to the largest payload, read through a duplicate descriptor with
     * timestamps on: each whole and in order, with its sender and a receive time; more than one per call.
     */
    private static void mixedBatch(final InetAddress address) throws Exception
    {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        final ByteBuf[] buffers = buffers(SLOTS);
        try (DatagramSocket a = new DatagramSocket(new InetSocketAddress(address, 0));
            DatagramSocket b = new DatagramSocket(new InetSocketAddress(address, 0)))
        {
            a.setSendBufferSize(1 << 20);
            b.setSendBufferSize(1 << 20);
            final Channel channel = bind(group, address);
            final InetSocketAddress server = (InetSocketAddress)channel.localAddress();
            final UdpRecvMsg single = new UdpRecvMsg();
            final int dup = single.dup(((EpollDatagramChannel)channel).fd().intValue());
            assertTrue(dup >= 0, "dup: " + dup);
            final io.netty.channel.unix.FileDescriptor copy = new io.netty.channel.unix.FileDescriptor(dup);
            try
            {
                assertEquals(0, single.enableTimestamps(dup));
                final UdpRecvMmsg batch = new UdpRecvMmsg(single, SLOTS);
                final DatagramSocket[] from = {a, b, a, b, a, b};
                final byte[][] sent = {text("a first"), pattern(LARGEST_IPV4, 1), pattern(1_500, 2), text("b second"),
                    pattern(9_000, 3), pattern(40, 4)};
                final long before = wallNanos();
                for (int i = 0; i < sent.length; i++)
                {
                    send(from[i], server, sent[i]);
                }
                final List<byte[]> read = new ArrayList<>();
                final List<InetSocketAddress> senders = new ArrayList<>();
                final List<Long> times = new ArrayList<>();
                int calls = 0;
                final long deadline = System.nanoTime() + TIMEOUT_NS;
                while (read.size() < sent.length)
                {
                    final int n = batch.receive(dup, buffers, SLOTS);
                    if (n > 0)
                    {
                        calls++;
                    }
                    for (int i = 0; i < n; i++)
                    {
                        assertFalse(batch.truncated(i), "MSG_TRUNC on datagram " + read.size());
                        read.add(ByteBufUtil.getBytes(buffers[i]));
                        senders.add(batch.sender(i));
                        times.add(batch.receivedAtNanos(i));
                    }
                    assertTrue(System.nanoTime() - deadline < 0, "not every datagram within the deadline: " + read);
                }
                final long after = wallNanos();
                for (int i = 0; i < sent.length; i++)
                {
                    assertTrue(Arrays.equals(sent[i], read.get(i)), "datagram " + i + " whole and in order ("
                        + sent[i].length + " bytes sent, " + read.get(i).length + " read)");
                    assertEquals(from[i].getLocalSocketAddress(), senders.get(i), "sender of datagram " + i);
                    assertTrue(before <= times.get(i) && times.get(i) <= after, "receive time of datagram " + i);
                    assertTrue(0 == i || times.get(i - 1) <= times.get(i), "receive times in queue order");
                }
                assertSame(senders.get(0), senders.get(2), "a sender seen before is the same object");
                assertSame(senders.get(1), senders.get(5));
                assertEquals(2, single.senderMisses());
                assertTrue(calls < sent.length, calls + " calls for " + sent.length + " queued datagrams");
                assertEquals(-UdpRecvMsg.EAGAIN, batch.receiveOrErrno(dup, buffers, SLOTS, true), "all read");
            }
            finally
            {
                copy.close();
            }
            channel.close().sync();
        }
        finally
        {
            release(buffers);
            shutdown(group);
        }
    }

    /**
     * An OPTIONS through a transport started with {@link UdpTransport#RECVMMSG_PROP_NAME} at {@code property} (null:
     * unset): whether it was answered 200 OK by a native read, and whether the shard's reads are batched.
     */
    private static List<Boolean> answer(final String property) throws Exception
    {
        final OptionsThroughTransport.Answer<Boolean> a = OptionsThroughTransport.send(
            UdpTransport.RECVMMSG_PROP_NAME, property, "mmsg1", t -> t.shard(0).reads.batched());
        return List.of(a.ok() && 1 == a.totals().nativeDatagramsIn() && 1 == a.totals().kernelTimestamps(), a.probe());
    }

    /** Polls {@code condition} on {@code loop} until it holds, within the deadline. */
    private static void awaitOnLoop(final EventLoop loop, final Callable<Boolean> condition) throws Exception
    {
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (!loop.submit(condition).get())
        {
            assertTrue(System.nanoTime() - deadline < 0, "not within the deadline");
            Thread.onSpinWait();
        }
    }

    /** An OPTIONS with its own Call-ID and branch. */
    private static byte[] options(final String callId)
    {
        return text("OPTIONS sip:ping@example.com SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5999;branch=z9hG4bK" + callId
            + "\r\nMax-Forwards: 70\r\nFrom: <sip:t@example.com>;tag=t1\r\nTo: <sip:ping@example.com>\r\nCall-ID: "
            + callId + "\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n");
    }

    private static Channel bind(final EventLoopGroup group, final InetAddress address) throws InterruptedException
    {
        final SocketProtocolFamily family = address instanceof Inet6Address ? SocketProtocolFamily.INET6
            : SocketProtocolFamily.INET;
        return new Bootstrap().group(group).channelFactory(() -> new EpollDatagramChannel(family))
            .option(ChannelOption.AUTO_READ, false).option(ChannelOption.SO_RCVBUF, 1 << 20)
            .handler(new ChannelInboundHandlerAdapter()).bind(new InetSocketAddress(address, 0)).sync().channel();
    }

    /** Direct buffers of the transport's size, with a memory address (the test is skipped where they have none). */
    private static ByteBuf[] buffers(final int n)
    {
        final ByteBuf[] buffers = new ByteBuf[n];
        for (int i = 0; i < n; i++)
        {
            buffers[i] = UnpooledByteBufAllocator.DEFAULT.directBuffer(UdpTransport.RECEIVE_BUFFER_BYTES,
                UdpTransport.RECEIVE_BUFFER_BYTES);
        }
        if (!buffers[0].hasMemoryAddress())
        {
            release(buffers);
            assumeTrue(false, "direct buffers have no memory address here");
        }
        return buffers;
    }

    private static void release(final ByteBuf[] buffers)
    {
        for (final ByteBuf buffer : buffers)
        {
            if (null != buffer && buffer.refCnt() > 0)
            {
                buffer.release();
            }
        }
    }

    private static void shutdown(final EventLoopGroup group)
    {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(TIMEOUT_NS, TimeUnit.NANOSECONDS);
    }

    private static byte[] text(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code length} bytes that differ from one offset and one {@code seed} to the next. */
    private static byte[] pattern(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(i * 31 + seed + (i >>> 8));
        }
        return bytes;
    }

    private static void send(final DatagramSocket from, final InetSocketAddress to, final byte[] bytes)
        throws Exception
    {
        from.send(new DatagramPacket(bytes, bytes.length, to));
    }

    /**
     * The wall clock read exactly ({@code CLOCK_REALTIME}, the kernel's timestamps' clock): {@link RealtimeClock} is
     * the monotonic clock plus a calibrated offset, off by up to half its calibration's bracket, too much to order.
     */
    private static long wallNanos()
    {
        final Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private static void assumeNative()
    {
        assumeTrue(Epoll.isAvailable(), "native epoll is not available here");
        assumeTrue(UdpRecvMmsg.AVAILABLE, "recvmmsg through FFM is not available here");
    }
}
