package io.sipline.sip.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.sipline.test.AllocationMeter;
import io.sipline.test.HepPacket;
import org.junit.jupiter.api.Test;

/**
 * {@link HepCaptureAgent} with a {@link DatagramChannel} on loopback as the collector: what it sends decodes to the
 * message and addresses given, with the capture id and password of its {@link HepConfig}; a send that fails or a
 * message too long is dropped and counted, never thrown; and a capture allocates nothing in the steady state
 * ({@link AllocationMeter} around 10,000 captures, from a pooled direct buffer and from a {@code byte[]}).
 */
class HepCaptureAgentTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final byte[] OPTIONS = ("OPTIONS sip:127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5070;"
        + "branch=z9hG4bK-1\r\nCall-ID: hep-agent\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);

    @Test
    void shouldSendEachCaptureToTheCollector() throws Exception
    {
        try (DatagramChannel collector = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
            HepCaptureAgent agent = new HepCaptureAgent(0, new HepConfig(
                (InetSocketAddress)collector.getLocalAddress(), 42, "pw")))
        {
            final InetSocketAddress peer = new InetSocketAddress(LOOPBACK, 5070);
            final InetSocketAddress local = new InetSocketAddress(LOOPBACK, 5060);
            final long now = System.currentTimeMillis() * 1_000_000L;
            agent.capture(HepEncoder.PROTOCOL_UDP, OPTIONS, 0, OPTIONS.length, peer, local, now);
            final HepPacket p = receive(collector);
            assertEquals(peer, p.source());
            assertEquals(local, p.destination());
            assertEquals(17, p.protocol());
            assertEquals(42L, p.captureId());
            assertArrayEquals("pw".getBytes(StandardCharsets.UTF_8), p.authKey());
            assertArrayEquals(OPTIONS, p.payload());
            assertEquals(now / 1_000L, p.nanos() / 1_000L);
            assertEquals(1, agent.sent());
            assertEquals(0, agent.dropped());
        }
    }

    @Test
    void shouldDropAndCountWhatCannotBeSent() throws Exception
    {
        try (DatagramChannel collector = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0)))
        {
            final HepCaptureAgent agent = new HepCaptureAgent(0, new HepConfig(
                (InetSocketAddress)collector.getLocalAddress(), 1, null));
            final InetSocketAddress a = new InetSocketAddress(LOOPBACK, 1);
            final byte[] tooLong = new byte[HepEncoder.MAX_PACKET_BYTES];
            tooLong[0] = 'I';
            agent.capture(HepEncoder.PROTOCOL_TCP, tooLong, 0, tooLong.length, a, a, 0L);
            assertEquals(1, agent.dropped());
            agent.close();
            agent.capture(HepEncoder.PROTOCOL_UDP, OPTIONS, 0, OPTIONS.length, a, a, 0L); // closed: no throw
            agent.capture(HepEncoder.PROTOCOL_UDP, OPTIONS, 0, OPTIONS.length, a, a, 0L);
            assertEquals(3, agent.dropped());
            assertEquals(0, agent.sent());
        }
    }

    @Test
    void shouldNotTakeKeepAlivesOrStunForSip()
    {
        assertTrue(HepCaptureAgent.startsSip('I'));
        assertTrue(HepCaptureAgent.startsSip('S'));
        assertTrue(!HepCaptureAgent.startsSip('\r') && !HepCaptureAgent.startsSip('\n'));
        assertTrue(!HepCaptureAgent.startsSip(0x00) && !HepCaptureAgent.startsSip(0x01), "STUN (RFC 7983)");
    }

    /** 0 B per capture once warm: measured on the capturing thread, as a shard would capture. */
    @Test
    void shouldAllocateNothingPerCapture() throws Exception
    {
        final int captures = 10_000;
        try (DatagramChannel collector = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
            HepCaptureAgent agent = new HepCaptureAgent(0, new HepConfig(
                (InetSocketAddress)collector.getLocalAddress(), 7, "secret")))
        {
            collector.setOption(StandardSocketOptions.SO_RCVBUF, 4 * 1024 * 1024);
            final AtomicBoolean running = new AtomicBoolean(true);
            final AtomicLong received = new AtomicLong();
            final Thread drain = Thread.ofPlatform().daemon().start(() -> drain(collector, running, received));
            // Made with the leak detector off: at the tests' paranoid level its wrapper records a stack trace on
            // every access, test machinery that is not the capture's garbage (a shard's receive buffer is unwrapped).
            final ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
            final ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(OPTIONS.length);
            ResourceLeakDetector.setLevel(level);
            direct.writeBytes(OPTIONS);
            final InetSocketAddress peer = new InetSocketAddress(LOOPBACK, 5070);
            final InetSocketAddress local = new InetSocketAddress(LOOPBACK, 5060);
            final Runnable run = () ->
            {
                for (int i = 0; i < captures; i++)
                {
                    agent.capture(HepEncoder.PROTOCOL_UDP, direct, 0, OPTIONS.length, peer, local, 1L + i);
                    agent.capture(HepEncoder.PROTOCOL_TCP, OPTIONS, 0, OPTIONS.length, local, peer, 1L + i);
                }
            };
            try
            {
                final long bytes = AllocationMeter.leastBytes(run, run, 5, 0);
                System.out.printf("HEP capture: %d B over %d captures (%.3f B/capture), sent %d dropped %d%n",
                    bytes, 2 * captures, bytes / (2.0 * captures), agent.sent(), agent.dropped());
                assertEquals(0, bytes, "bytes allocated by " + 2 * captures + " captures");
                assertTrue(agent.sent() > 0);
            }
            finally
            {
                direct.release();
                running.set(false);
                drain.join(5_000);
            }
        }
    }

    private static void drain(final DatagramChannel collector, final AtomicBoolean running, final AtomicLong received)
    {
        final ByteBuffer b = ByteBuffer.allocate(65_536);
        try
        {
            collector.configureBlocking(false);
            while (running.get())
            {
                b.clear();
                if (null != collector.receive(b))
                {
                    received.incrementAndGet();
                }
                else
                {
                    Thread.onSpinWait();
                }
            }
        }
        catch (final java.io.IOException e)
        {
            // the test closed the collector
        }
    }

    static HepPacket receive(final DatagramChannel collector) throws Exception
    {
        collector.socket().setSoTimeout(5_000);
        final java.net.DatagramPacket packet = new java.net.DatagramPacket(new byte[65_536], 65_536);
        collector.socket().receive(packet);
        return HepPacket.decode(packet.getData(), packet.getLength());
    }
}
