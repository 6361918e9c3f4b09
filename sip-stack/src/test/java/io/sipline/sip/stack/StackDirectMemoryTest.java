package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import javax.net.ssl.SSLSocket;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocatorMetric;
import io.netty.util.ResourceLeakDetector;
import io.sipline.sip.test.SelfSignedPem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Direct memory after a burst: a stack of two shards on loopback (UDP, TCP and TLS on port 0; T1 of 40 ms, so that a
 * UDP server transaction holds its 200 for 64*T1 = 2.56 s, RFC 3261 §17.2.2 Timer J), answering every OPTIONS with 200
 * ({@link StreamTestListener}). Warmed with small OPTIONS over UDP (the shards keep small outbound buffers), it takes a
 * burst of large ones (about 7 KB of Via headers, every fifth 20 KB, which the 200 copies, RFC 3261 §8.2.6.2) over UDP
 * from several sockets, over many TCP and TLS connections at once: thousands of 200s held by transactions, the kept
 * buffers grown to their size or let go and made again, beside the connections' read and TLS buffers. Once the
 * transactions have ended and the shards have trimmed (once a second, over a window of 10 s), polled with a deadline:
 * <ul>
 * <li>the shards' own allocators of outbound buffers ({@link StackShard#outboundBufferMemory}), which this stack alone
 * uses and the burst must have grown well past the bound, are back within {@link OutboundBuffers#SPARSE_SLACK_CHUNKS}
 * of their 256 KiB chunks per shard of their start (Netty keeps an empty run of each size class for good, and the chunk
 * it is in);</li>
 * <li>Netty's shared allocator (the transports' read, write and TLS buffers) is back within three of its chunks of its
 * start. It is the whole JVM's: the tests before this one leave free room in it that the burst may reuse, so how much
 * the burst takes there is printed, not asserted.</li>
 * </ul>
 *
 * <p>Netty's leak detector is off for the test: under it the shards keep no outbound buffer, and kept buffers are the
 * point. Figures go to standard output.
 */
class StackDirectMemoryTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final long T1_NS = 40_000_000L;
    /** Via headers added to a large request: about 7 KB. */
    private static final int EXTRA_VIAS = 90;
    /** Via headers added to every fifth: about 20 KB, an answer larger than a kept buffer may stay. */
    private static final int EXTRA_VIAS_LARGEST = 260;
    private static final int WARM_UP = 600;
    private static final int UDP_SOCKETS = 4;
    private static final int UDP_PER_SOCKET = 1_500;
    private static final int TCP_CONNECTIONS = 16;
    private static final int TLS_CONNECTIONS = 8;
    private static final int PER_CONNECTION = 100;
    private static final long BURST_DEADLINE_NS = 60_000_000_000L;
    /** The trim window (10 s) and then some. */
    private static final long SETTLE_DEADLINE_NS = 40_000_000_000L;
    /** Chunks of a shard's own allocator its memory may stay above its start (see the class). */
    private static final long OWN_CHUNKS_ABOVE_START = OutboundBuffers.SPARSE_SLACK_CHUNKS;
    /** Netty's default chunks its shared allocator may stay above its start (see the class). */
    private static final long SHARED_CHUNKS_ABOVE_START = 3;
    /** The burst must take this many times the own allocators' bound, so that their return is what is tested. */
    private static final long BURST_OVER_BOUND = 2;

    @Test
    void shouldGiveTheDirectMemoryOfABurstBack(@TempDir final Path directory) throws Exception
    {
        final SelfSignedPem pem = SelfSignedPem.generate(directory);
        final ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        try
        {
            measure(pem);
        }
        finally
        {
            ResourceLeakDetector.setLevel(level);
        }
    }

    private static void measure(final SelfSignedPem pem) throws Exception
    {
        final SipStackConfig config = StackTcpTest.config(2).t1Ns(T1_NS).tlsCertificate(pem.certificate())
            .tlsPrivateKey(pem.privateKey()).tlsPorts(0);
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (SipStack stack = SipStack.start(config, StreamTestListener.factory(record)))
        {
            final InetSocketAddress sip = stack.localAddresses().get(0);
            final InetSocketAddress tls = stack.tlsAddresses().get(0);
            warmUp(sip, record);
            final PooledByteBufAllocatorMetric shared = PooledByteBufAllocator.DEFAULT.metric();
            final long ownChunk = (long)OutboundBuffers.OWN_PAGE_SIZE << OutboundBuffers.OWN_MAX_ORDER;
            final long ownBound = config.shards() * OWN_CHUNKS_ABOVE_START * ownChunk;
            final long sharedBound = SHARED_CHUNKS_ABOVE_START * shared.chunkSize();
            final long ownStart = ownMemory(stack);
            final long sharedStart = shared.usedDirectMemory();

            final long burstStart = System.nanoTime();
            burst(sip, tls, pem, record);
            final long ownPeak = ownMemory(stack);
            final long sharedPeak = shared.usedDirectMemory();
            final long burstEnd = System.nanoTime();
            System.out.printf("direct memory: the shards' own %,d bytes before the burst, %,d after it; Netty's shared "
                + "%,d before, %,d after (%.1f s)%n", ownStart, ownPeak, sharedStart, sharedPeak,
                (burstEnd - burstStart) / 1e9);
            assertTrue(ownPeak - ownStart > BURST_OVER_BOUND * ownBound, "the burst took the shards' own chunks: "
                + ownStart + " -> " + ownPeak);

            final long deadline = System.nanoTime() + SETTLE_DEADLINE_NS;
            long own = ownMemory(stack);
            long now = shared.usedDirectMemory();
            while ((own > ownStart + ownBound || now > sharedStart + sharedBound) && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(50); // polled: the shards trim once a second
                own = ownMemory(stack);
                now = shared.usedDirectMemory();
            }
            System.out.printf("direct memory %.1f s after the burst: the shards' own %,d bytes, Netty's shared %,d%n",
                (System.nanoTime() - burstEnd) / 1e9, own, now);
            assertTrue(own <= ownStart + ownBound, "the shards' own direct memory " + own + " bytes, "
                + SETTLE_DEADLINE_NS / 1_000_000_000L + " s after a burst: not back within " + ownBound
                + " bytes of its start, " + ownStart + " (peak " + ownPeak + ")");
            assertTrue(now <= sharedStart + sharedBound, "Netty's shared direct memory " + now + " bytes after a "
                + "burst: not back within " + sharedBound + " bytes of its start, " + sharedStart + " (peak "
                + sharedPeak + ")");
        }
    }

    /** Direct memory of the shards' own allocators of outbound buffers: this stack's alone. */
    private static long ownMemory(final SipStack stack)
    {
        long n = 0;
        for (int i = 0; i < stack.config().shards(); i++)
        {
            n += stack.shard(i).outboundBufferMemory();
        }
        return n;
    }

    /** Small OPTIONS over UDP, answered, so that each shard keeps a few hundred small outbound buffers. */
    private static void warmUp(final InetSocketAddress sip, final StreamTestListener.Record record)
        throws IOException, InterruptedException
    {
        try (DatagramChannel channel = DatagramChannel.open())
        {
            channel.bind(new InetSocketAddress(LOOPBACK, 0));
            final int port = ((InetSocketAddress)channel.getLocalAddress()).getPort();
            for (int i = 0; i < WARM_UP; i++)
            {
                channel.send(ByteBuffer.wrap(StackTcpTest.request("OPTIONS", "warm-" + i, port, "UDP")
                    .getBytes(StandardCharsets.US_ASCII)), sip);
                if (i % 64 == 63)
                {
                    final int sent = i + 1;
                    StackTcpTest.awaitTrue(() -> record.requests.size() >= sent, "warm-up requests read");
                }
            }
        }
    }

    /** The burst: UDP senders, TCP and TLS connections, all at once; returns once every stream request is answered. */
    private static void burst(final InetSocketAddress sip, final InetSocketAddress tls, final SelfSignedPem pem,
        final StreamTestListener.Record record) throws Exception
    {
        final int reliable = (TCP_CONNECTIONS + TLS_CONNECTIONS) * PER_CONNECTION;
        final int before = record.reliableRequests.get();
        final List<Future<?>> tasks = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor())
        {
            for (int t = 0; t < UDP_SOCKETS; t++)
            {
                final int socket = t;
                tasks.add(threads.submit(() -> udpSender(sip, socket)));
            }
            for (int c = 0; c < TCP_CONNECTIONS + TLS_CONNECTIONS; c++)
            {
                final int connection = c;
                final boolean secure = c >= TCP_CONNECTIONS;
                final BooleanSupplier allAnswered = () -> record.reliableRequests.get() - before >= reliable;
                tasks.add(threads.submit(() -> streamSender(secure ? tls : sip, secure ? pem : null, connection,
                    threads, allAnswered)));
            }
            for (final Future<?> task : tasks)
            {
                task.get(BURST_DEADLINE_NS, TimeUnit.NANOSECONDS);
            }
        }
    }

    private static Void udpSender(final InetSocketAddress sip, final int socket) throws IOException
    {
        try (DatagramChannel channel = DatagramChannel.open())
        {
            channel.bind(new InetSocketAddress(LOOPBACK, 0));
            final int port = ((InetSocketAddress)channel.getLocalAddress()).getPort();
            for (int i = 0; i < UDP_PER_SOCKET; i++)
            {
                channel.send(ByteBuffer.wrap(largeOptions("udp-" + socket + "-" + i, port, "UDP", i)), sip);
            }
        }
        return null;
    }

    /**
     * One TCP connection, or TLS trusting {@code tls}: its requests written back to back while another thread reads
     * (and drops) the answers, closed once every stream request of the burst has been answered.
     */
    private static Void streamSender(final InetSocketAddress to, final SelfSignedPem tls, final int connection,
        final ExecutorService threads, final BooleanSupplier allAnswered) throws Exception
    {
        final boolean secure = null != tls;
        try (Socket socket = secure ? tls.clientContext().getSocketFactory().createSocket() : new Socket())
        {
            socket.connect(to, 5_000);
            socket.setSoTimeout(30_000);
            if (socket instanceof final SSLSocket ssl)
            {
                ssl.startHandshake();
            }
            final InputStream in = socket.getInputStream();
            final Future<?> drain = threads.submit(() ->
            {
                final byte[] sink = new byte[16 * 1024];
                try
                {
                    while (in.read(sink) >= 0)
                    {
                        // answers are not looked at: the listener counts the requests
                    }
                }
                catch (final IOException closed)
                {
                    // the socket was closed under the read: the end
                }
                return null;
            });
            final OutputStream out = socket.getOutputStream();
            final String transport = secure ? "TLS" : "TCP";
            for (int i = 0; i < PER_CONNECTION; i++)
            {
                out.write(largeOptions(transport.toLowerCase(Locale.ROOT) + "-" + connection + "-" + i,
                    socket.getLocalPort(), transport, i));
            }
            out.flush();
            StackTcpTest.awaitTrue(allAnswered, "every stream request of the burst read");
            in.close(); // closes the socket: the drain's read ends
            drain.get(30, TimeUnit.SECONDS);
        }
        return null;
    }

    /**
     * The i-th large OPTIONS: {@link #EXTRA_VIAS} more Via headers, {@link #EXTRA_VIAS_LARGEST} for every fifth; the
     * 200 copies them all.
     */
    private static byte[] largeOptions(final String callId, final int localPort, final String transport, final int i)
    {
        final int vias = i % 5 == 4 ? EXTRA_VIAS_LARGEST : EXTRA_VIAS;
        final StringBuilder b = new StringBuilder(8192).append("OPTIONS sip:uas@127.0.0.1 SIP/2.0\r\n")
            .append("Via: SIP/2.0/").append(transport).append(" 127.0.0.1:").append(localPort)
            .append(";branch=z9hG4bK-").append(callId).append("\r\n");
        for (int v = 0; v < vias; v++)
        {
            b.append("Via: SIP/2.0/UDP proxy-").append(v).append(".example.com:5060;branch=z9hG4bK-hop").append(v)
                .append('-').append(callId).append("\r\n");
        }
        b.append("Max-Forwards: 70\r\nFrom: <sip:uac@127.0.0.1>;tag=u1\r\nTo: <sip:uas@127.0.0.1>\r\nCall-ID: ")
            .append(callId).append("\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n");
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
