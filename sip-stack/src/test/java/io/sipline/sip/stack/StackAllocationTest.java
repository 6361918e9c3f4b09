package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.netty.util.ResourceLeakDetector;
import io.sipline.sip.transport.ShardCounters;
import io.sipline.sip.transport.UdpPeerConfig;
import io.sipline.sip.stack.demo.DemoUas;
import org.junit.jupiter.api.Test;

/**
 * Bytes allocated by the stack's shard threads per stateful OPTIONS transaction (target 64 B): a
 * {@link SipStack} with two shards on one loopback port, a {@link DemoUas} answering every OPTIONS with 200 on a server
 * transaction, and a sender in the test ({@link DatagramChannel}, a window of 64 outstanding, a new Call-ID and branch
 * per request, so about half of them are handed over between the shards). After a warm-up that runs under the paranoid
 * leak detector, the detector is turned off (its per-buffer records are test machinery, not the stack's garbage), as
 * many transactions again, then more until a round makes no outbound buffer and allocates a few bytes per transaction
 * at most ({@code settle}), let the pools grow to the faster pace (the outbound buffers keep none while the detector
 * is on; the timer wheel holds 64 ms of transactions), and a measured window reads
 * {@code ThreadMXBean.getThreadAllocatedBytes} of the shard threads around it: up to {@link #MAX_WINDOWS} of them,
 * until one in which no pool grew, the least counting.
 *
 * <p>T1 is 1 ms, so Timer J (64*T1) ends each transaction 64 ms after its 200 and the run reaches the steady state the
 * stack has after 32 s with the default T1: transactions, timer entries and buffers come back to their pools as fast
 * as they are taken. With the default T1 a short run measures pool, timer-wheel and buffer-pool growth instead (every
 * transaction of the first 32 s is new live state), which is what the 5-second steps of {@code bench stack} report.
 *
 * <p>Measured (this class's {@code main}, 3 rounds, paranoid warm-up, one run): 177-182 B per transaction with
 * connected peer channels off, 24-27 B with them on ({@code UdpPeers}: the request is read on the peer's connected
 * channel, and what remains per transaction is the {@code DatagramPacket} Netty's {@code connectedRead} makes for it,
 * 24 B; the 200 is written on the connected channel as a plain buffer, allocating nothing). Since the shard reads its
 * connected channels itself ({@code recvmsg} through FFM, {@code UdpShardSockets} "Connected peers") that packet is
 * gone too: the surefire run of this test printed 26.4 B before, 4.1-5.6 B after (busy 2-core machine).
 *
 * <p>{@code main} runs the same measurement outside surefire, e.g. under JFR allocation sampling.
 */
class StackAllocationTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final int WINDOW = 64;
    private static final int WARM_UP = 20_000;
    private static final int MEASURED = 20_000;
    /** The target; the measured value is in the class javadoc. */
    private static final double MAX_BYTES_PER_TRANSACTION = 64;
    /**
     * Timer slots per tick of the transaction wheel: at this pace a 1 ms tick gets tens of timeouts at once (Timer J
     * fires 64*T1 after each 200); with the default 16 each of the 1,024 ticks doubles on its own first peak during
     * the run, which is growth (30-40 B per transaction over 20,000, measured), not steady state.
     */
    private static final int TIMER_SPOKE_CAPACITY = 64;
    /** Settle rounds at most after the first settle, each a quarter of the warm-up. */
    private static final int SETTLE_ROUNDS = 16;
    /** A settle round at or under this allocation per transaction on the shard threads ends the settling. */
    private static final int SETTLED_BYTES_PER_TRANSACTION = 8;
    /** Measured windows at most: the first in which no pool grew ends the measurement (see {@link Window}). */
    private static final int MAX_WINDOWS = 3;
    /**
     * Outbound buffers each shard may keep ({@link SipStackConfig#outboundBuffers}): more than this test's pace can
     * hold in use at once. Each 200 is held 64 ms by Timer J and about half the requests are copied for a hand-over, so
     * at the pace of a quiet machine (100,000 transactions a second and more) a shard can need over the default
     * 4,096; beyond the kept ones every buffer is made anew, a cost of the pool's size and not of the code measured.
     */
    static final int KEPT_BUFFERS = 16_384;

    @Test
    void shouldAllocateLittlePerStatefulTransaction() throws Exception
    {
        final double perTx = measure(WARM_UP, MEASURED);
        assertTrue(perTx <= MAX_BYTES_PER_TRANSACTION, "bytes per stateful transaction: " + perTx);
    }

    /**
     * {@code StackAllocationTest [rounds [kept...]]}: the measurement {@code rounds} times (5) for each number of kept
     * outbound buffers given ({@link SipStackConfig#outboundBuffers}; {@link #KEPT_BUFFERS} alone when none, 0 for
     * none kept), each with connected UDP peer channels off (the baseline: every datagram through the listening
     * sockets) and on ({@link UdpPeerConfig#DEFAULT}), interleaved round by round so that each is measured beside the
     * others in the same run.
     */
    public static void main(final String[] args) throws Exception
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        final int[] kept = args.length > 1 ? java.util.Arrays.stream(args, 1, args.length)
            .mapToInt(Integer::parseInt).toArray() : new int[] {KEPT_BUFFERS};
        for (int i = 0; i < rounds; i++)
        {
            for (final int k : kept)
            {
                for (final UdpPeerConfig peers : new UdpPeerConfig[] {UdpPeerConfig.OFF, UdpPeerConfig.DEFAULT})
                {
                    System.out.printf("outbound buffers %d, peer channels %s: ", k, peers.enabled() ? "on" : "off");
                    measure(WARM_UP, MEASURED, k, peers);
                }
            }
        }
    }

    static double measure(final int warmUp, final int measured) throws Exception
    {
        return measure(warmUp, measured, KEPT_BUFFERS, UdpPeerConfig.DEFAULT);
    }

    static double measure(final int warmUp, final int measured, final int outboundBuffers,
        final UdpPeerConfig peers) throws Exception
    {
        return measure(warmUp, measured, outboundBuffers, peers, null);
    }

    /** @param hep where the stack mirrors every message in HEPv3 ({@link SipStackConfig#hep}), or null for off. */
    static double measure(final int warmUp, final int measured, final int outboundBuffers,
        final UdpPeerConfig peers, final io.sipline.sip.capture.HepConfig hep) throws Exception
    {
        final DemoUas.Stats stats = new DemoUas.Stats();
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        try (SipStack stack = SipStack.start(new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(2)
            .t1Ns(1_000_000L).initialTransactionPool(4096).outboundBuffers(outboundBuffers).udpPeers(peers)
            .timerSpokeCapacity(TIMER_SPOKE_CAPACITY).hep(hep),
            DemoUas.factory(stats)))
        {
            final InetSocketAddress to = stack.localAddresses().get(0);
            try (DatagramChannel channel = DatagramChannel.open())
            {
                channel.bind(new InetSocketAddress(LOOPBACK, 0));
                channel.connect(to);
                channel.socket().setSoTimeout(5_000);
                final int localPort = ((InetSocketAddress)channel.getLocalAddress()).getPort();
                final byte[] template = options(localPort, to.getPort());
                final int seqAt = indexOf(template, "00000000");
                final int seq2At = indexOf(template, "00000000", seqAt + 8);
                final ByteBuffer tx = ByteBuffer.allocate(template.length);
                final ByteBuffer rx = ByteBuffer.allocate(4096);

                run(channel, template, seqAt, seq2At, tx, rx, 0, warmUp);
                final long[] ids = stack.shardThreadIds();
                final ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
                ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
                // Settle with the detector off before measuring: while it was on, OutboundBuffers kept no buffer, and
                // filling that pool (a new buffer and its NIO view per miss) or growing the timer wheel to the faster
                // pace is growth, not steady state. The pool holds what Timer J keeps alive (about 64 ms of
                // transactions), so it grows until the pace stops rising: settle until a round makes no buffer.
                int done = warmUp;
                double least = Double.MAX_VALUE;
                try
                {
                    final int settle = settle(stack, channel, template, seqAt, seq2At, tx, rx, warmUp, threads, ids);
                    done += settle;
                    for (int w = 0; w < MAX_WINDOWS; w++)
                    {
                        final Window window = new Window(stack, threads, ids);
                        run(channel, template, seqAt, seq2At, tx, rx, done, measured);
                        done += measured;
                        least = Math.min(least, window.report(settle, measured));
                        if (!window.grew())
                        {
                            break;
                        }
                    }
                }
                finally
                {
                    ResourceLeakDetector.setLevel(level);
                }
                assertEquals(done, stats.others.get());
                return least;
            }
        }
    }

    /**
     * One measured window: the shard threads' allocation and the stack's counters from its start. A window in which a
     * pool grew (a transaction or an outbound buffer made: the pace rose above what the settle reached) measured
     * growth, not steady state, and another is measured after it.
     */
    private static final class Window
    {
        private final SipStack stack;
        private final com.sun.management.ThreadMXBean threads;
        private final long[] ids;
        private final ShardCounters udpBefore;
        private final long missesBefore;
        private final long madeBefore;
        private final long reusedBefore;
        private final long before;
        private long misses;
        private long made;

        Window(final SipStack stack, final com.sun.management.ThreadMXBean threads, final long[] ids)
        {
            this.stack = stack;
            this.threads = threads;
            this.ids = ids;
            udpBefore = stack.transportTotals();
            missesBefore = poolMisses(stack);
            madeBefore = buffers(stack, false);
            reusedBefore = buffers(stack, true);
            before = allocated(threads, ids);
        }

        /** Prints the window's figures; returns its bytes per transaction. */
        double report(final int settled, final int measured)
        {
            final long bytes = allocated(threads, ids) - before;
            final double perTx = bytes / (double)measured;
            misses = poolMisses(stack) - missesBefore;
            made = buffers(stack, false) - madeBefore;
            final ShardCounters udp = stack.transportTotals();
            System.out.printf("stateful OPTIONS, 2 shards, 1 port: %d settled, %d transactions, %d bytes, "
                + "%.1f B/tx, hand-overs %d, pool misses %d, outbound buffers made %d reused %d kept %d, datagrams in "
                + "%d (%d on connected peer channels) out %d (%d)%n", settled, measured, bytes, perTx,
                stack.handoffs(), misses, made, buffers(stack, true) - reusedBefore, kept(stack),
                udp.datagramsIn() - udpBefore.datagramsIn(), udp.peerDatagramsIn() - udpBefore.peerDatagramsIn(),
                udp.responsesSent() - udpBefore.responsesSent(), udp.peerDatagramsOut() - udpBefore.peerDatagramsOut());
            return perTx;
        }

        boolean grew()
        {
            return misses > 0 || made > 0;
        }
    }

    /**
     * Runs {@code warmUp} transactions, then rounds of a quarter of that (at most {@value #SETTLE_ROUNDS}) until one
     * makes no outbound buffer and no transaction object and allocates at most
     * {@value #SETTLED_BYTES_PER_TRANSACTION} B per transaction on the shard threads: the pools have grown to the pace
     * and the code the measured phase runs is compiled (C2's escape analysis removes what the interpreter and C1
     * allocate per call, e.g. the FFM call-state slice of each recvmsg; on a busy machine that comes late). A stack
     * that allocates per message never settles, and the measured phase that follows shows it.
     *
     * @return the transactions run.
     */
    private static int settle(final SipStack stack, final DatagramChannel channel, final byte[] template,
        final int seqAt, final int seq2At, final ByteBuffer tx, final ByteBuffer rx, final int warmUp,
        final com.sun.management.ThreadMXBean threads, final long[] ids) throws Exception
    {
        run(channel, template, seqAt, seq2At, tx, rx, warmUp, warmUp);
        int settled = warmUp;
        final int round = Math.max(1, warmUp / 4);
        for (int i = 0; i < SETTLE_ROUNDS; i++)
        {
            final long made = buffers(stack, false);
            final long misses = poolMisses(stack);
            final long bytes = allocated(threads, ids);
            run(channel, template, seqAt, seq2At, tx, rx, warmUp + settled, round);
            settled += round;
            if (buffers(stack, false) == made && poolMisses(stack) == misses
                && allocated(threads, ids) - bytes <= (long)SETTLED_BYTES_PER_TRANSACTION * round)
            {
                break;
            }
        }
        return settled;
    }

    private static void run(final DatagramChannel channel, final byte[] template, final int seqAt, final int seq2At,
        final ByteBuffer tx, final ByteBuffer rx, final int first, final int count) throws Exception
    {
        int sent = 0;
        int answered = 0;
        while (answered < count)
        {
            while (sent < count && sent - answered < WINDOW)
            {
                writeSeq(template, seqAt, first + sent);
                writeSeq(template, seq2At, first + sent);
                tx.clear();
                tx.put(template).flip();
                channel.write(tx);
                sent++;
            }
            rx.clear();
            try
            {
                channel.socket().getChannel().receive(rx);
            }
            catch (final SocketTimeoutException e)
            {
                throw new AssertionError("no answer: " + answered + "/" + count, e);
            }
            rx.flip();
            if (rx.remaining() > 11 && rx.get(8) == '2' && rx.get(9) == '0' && rx.get(10) == '0')
            {
                answered++;
            }
        }
    }

    /** Bytes allocated so far by the given threads, summed. */
    static long allocated(final com.sun.management.ThreadMXBean threads, final long[] ids)
    {
        long n = 0;
        for (final long id : ids)
        {
            n += threads.getThreadAllocatedBytes(id);
        }
        return n;
    }

    /** Outbound buffers reused (or made) by all shards so far. */
    private static long buffers(final SipStack stack, final boolean reused)
    {
        long n = 0;
        for (int i = 0; i < stack.config().shards(); i++)
        {
            n += reused ? stack.shard(i).outboundBuffersReused() : stack.shard(i).outboundBuffersMade();
        }
        return n;
    }

    /** Outbound buffers the shards keep now, in use or free. */
    private static long kept(final SipStack stack)
    {
        long n = 0;
        for (int i = 0; i < stack.config().shards(); i++)
        {
            n += stack.shard(i).outboundBuffersKept();
        }
        return n;
    }

    private static long poolMisses(final SipStack stack)
    {
        long n = 0;
        for (int i = 0; i < stack.config().shards(); i++)
        {
            n += stack.shard(i).transactions().poolMisses();
        }
        return n;
    }

    private static byte[] options(final int localPort, final int port)
    {
        return ("OPTIONS sip:ping@127.0.0.1:" + port + " SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + localPort + ";branch=z9hG4bKal00000000;rport\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:al@127.0.0.1>;tag=al1\r\nTo: <sip:ping@127.0.0.1>\r\n"
            + "Call-ID: al-00000000@127.0.0.1\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    }

    /** Writes {@code value} as 8 decimal digits at {@code at} (the Call-ID and branch counters of the template). */
    static void writeSeq(final byte[] b, final int at, final int value)
    {
        int v = value;
        for (int i = at + 7; i >= at; i--)
        {
            b[i] = (byte)('0' + v % 10);
            v /= 10;
        }
    }

    private static int indexOf(final byte[] b, final String s)
    {
        return indexOf(b, s, 0);
    }

    private static int indexOf(final byte[] b, final String s, final int from)
    {
        final String text = new String(b, StandardCharsets.US_ASCII);
        return text.indexOf(s, from);
    }
}
