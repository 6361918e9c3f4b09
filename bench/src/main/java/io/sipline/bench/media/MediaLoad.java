package io.sipline.bench.media;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import io.sipline.media.srtp.SdesCryptoAttribute;
import io.sipline.media.srtp.SrtpContext;
import io.sipline.media.srtp.SrtpCryptoSuite;
import io.sipline.media.srtp.SrtpPolicy;

/**
 * The load generator of {@code bin/sipline bench media}: N calls on loopback, each with an SDES-SRTP phone (leg A,
 * {@code RTP/SAVP}, AES_CM_128_HMAC_SHA1_80) and a plain RTP phone (leg B, {@code RTP/AVP}), both sending 160-octet
 * PCMU frames every 20 ms (50 packets/s each way) to the relay under test. A sender thread paces every phone by the
 * clock, the phones spread evenly over the 20 ms; a receiver thread reads them all through one selector. The RTP
 * sequence number (which both relays pass through unchanged, and SRTP leaves in the clear) indexes a ring of send
 * times, so a received packet gives its transit time without decrypting it: the added latency, and the added
 * jitter as the change in transit between consecutive packets of a stream (the |D(i-1,i)| of RFC 3550 §6.4.1).
 * Only packets sent inside the measurement window count, for loss as for times.
 *
 * <p>Threading: set up and read by the harness thread; between {@link #start} and {@link #finish} the sender owns
 * the transmit buffers and send counters, the receiver the receive buffer, counters and histograms; the send-time
 * ring is published with release/acquire. Neither thread allocates per packet.
 */
final class MediaLoad implements AutoCloseable
{
    static final int PAYLOAD = 160;
    static final int RTP_LENGTH = 12 + PAYLOAD;
    static final long PERIOD_NANOS = 20_000_000;
    private static final int RING = 4096;
    private static final long GRACE_NANOS = 500_000_000;

    private final int calls;
    private final int endpoints;
    private final DatagramChannel[] channels;
    private final SdesCryptoAttribute[] keys;
    private final SrtpContext[] protect;
    private final byte[][] tx;
    private final ByteBuffer[] txBuffers;
    private final int[] ssrc;
    private final int[] seq;
    private final long[] phase;
    private final AtomicLongArray sendTimes;
    private final long[] sent;
    private final long[] received;
    private final long[] lastTransit;
    private final Histogram latency = new Histogram();
    private final Histogram jitter = new Histogram();
    private final Histogram senderLate = new Histogram();
    private final ByteBuffer rx = ByteBuffer.allocate(2048);
    private final Selector selector;
    private final Consumer<SelectionKey> onReadable = this::onReadable;
    private long sendErrors;
    private long foreign;
    private long windowStart;
    private long windowEnd;
    private volatile boolean receiving;
    private Thread sender;
    private Thread receiver;

    /**
     * Opens the phones' sockets: endpoint {@code 2i} is call i's SRTP phone, {@code 2i+1} its plain phone.
     *
     * @param calls how many calls.
     * @throws IOException when a socket cannot be opened.
     */
    MediaLoad(final int calls) throws IOException
    {
        this.calls = calls;
        this.endpoints = 2 * calls;
        channels = new DatagramChannel[endpoints];
        keys = new SdesCryptoAttribute[calls];
        protect = new SrtpContext[endpoints];
        tx = new byte[endpoints][RTP_LENGTH + 64];
        txBuffers = new ByteBuffer[endpoints];
        ssrc = new int[endpoints];
        seq = new int[endpoints];
        phase = new long[endpoints];
        sendTimes = new AtomicLongArray(endpoints * RING);
        sent = new long[endpoints];
        received = new long[endpoints];
        lastTransit = new long[endpoints];
        selector = Selector.open();
        final SecureRandom random = new SecureRandom();
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        for (int e = 0; e < endpoints; e++)
        {
            final DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
            channels[e] = ch;
            ch.bind(new InetSocketAddress(loopback, 0));
            ch.configureBlocking(false);
            ch.register(selector, SelectionKey.OP_READ, e);
            ssrc[e] = random.nextInt();
            seq[e] = random.nextInt(1 << 15);
            phase[e] = e * PERIOD_NANOS / endpoints;
            txBuffers[e] = ByteBuffer.wrap(tx[e]);
            header(tx[e], ssrc[e]);
        }
        for (int c = 0; c < calls; c++)
        {
            keys[c] = SdesCryptoAttribute.generate(1, SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, random);
            protect[2 * c] = SrtpContext.outbound(SrtpPolicy.fromSdes(keys[c]).build());
        }
    }

    private static void header(final byte[] p, final int ssrc)
    {
        p[0] = (byte)0x80;
        p[1] = 0; // PCMU
        p[8] = (byte)(ssrc >>> 24);
        p[9] = (byte)(ssrc >>> 16);
        p[10] = (byte)(ssrc >>> 8);
        p[11] = (byte)ssrc;
        for (int i = 12; i < RTP_LENGTH; i++)
        {
            p[i] = (byte)0xFF; // PCMU silence
        }
    }

    int calls()
    {
        return calls;
    }

    /** @return call {@code c}'s SRTP phone's SDP offer, {@code RTP/SAVP} with its SDES key. */
    String offer(final int c) throws IOException
    {
        return sdp("a", 2 * c, "RTP/SAVP") + "a=crypto:" + keys[c].format() + "\r\n";
    }

    /** @return call {@code c}'s plain phone's SDP answer, {@code RTP/AVP}. */
    String answer(final int c) throws IOException
    {
        return sdp("b", 2 * c + 1, "RTP/AVP");
    }

    private String sdp(final String user, final int e, final String proto) throws IOException
    {
        final int port = ((InetSocketAddress)channels[e].getLocalAddress()).getPort();
        return "v=0\r\no=" + user + " " + e + " 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
            + "m=audio " + port + " " + proto + " 0\r\na=rtpmap:0 PCMU/8000\r\na=ptime:20\r\na=sendrecv\r\n";
    }

    /**
     * Points call {@code c}'s phones at the relay's ports; each phone then hears only its relay port.
     *
     * @param relayPortA the relay's port in the SDP it gave the SRTP phone.
     * @param relayPortB the relay's port in the SDP it gave the plain phone.
     */
    void connect(final int c, final int relayPortA, final int relayPortB) throws IOException
    {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        channels[2 * c].connect(new InetSocketAddress(loopback, relayPortA));
        channels[2 * c + 1].connect(new InetSocketAddress(loopback, relayPortB));
    }

    /**
     * Starts both threads.
     *
     * @param warmupNanos   sending before the window opens.
     * @param measureNanos  the window's length.
     * @return the window's start, {@link System#nanoTime()} scale; it ends {@code measureNanos} later.
     */
    long start(final long warmupNanos, final long measureNanos)
    {
        final long t0 = System.nanoTime() + 50_000_000;
        windowStart = t0 + warmupNanos;
        windowEnd = windowStart + measureNanos;
        receiving = true;
        receiver = Thread.ofPlatform().name("media-load-rx").start(this::receive);
        sender = Thread.ofPlatform().name("media-load-tx").start(() -> send(t0));
        return windowStart;
    }

    /**
     * Waits for the sender to pass the window's end and for the packets still in flight, then stops.
     *
     * @return what was measured.
     */
    Result finish() throws InterruptedException
    {
        sender.join();
        LockSupport.parkNanos(GRACE_NANOS);
        receiving = false;
        selector.wakeup();
        receiver.join();
        long s = 0;
        long r = 0;
        for (int e = 0; e < endpoints; e++)
        {
            s += sent[e];
            r += received[e];
        }
        return new Result(calls, s, r, latency.percentile(0.5), latency.percentile(0.99), latency.max(),
            jitter.percentile(0.99), senderLate.percentile(0.99), sendErrors, foreign);
    }

    private void send(final long t0)
    {
        long round = 0;
        int e = 0;
        while (true)
        {
            final long due = t0 + round * PERIOD_NANOS + phase[e];
            if (due >= windowEnd)
            {
                return;
            }
            long now = System.nanoTime();
            while (now < due)
            {
                LockSupport.parkNanos(due - now);
                now = System.nanoTime();
            }
            if (due >= windowStart)
            {
                senderLate.record(now - due);
            }
            sendOne(e, now, due >= windowStart);
            if (++e == endpoints)
            {
                e = 0;
                round++;
            }
        }
    }

    private void sendOne(final int e, final long now, final boolean counted)
    {
        final byte[] p = tx[e];
        final int s = seq[e]++ & 0xFFFF;
        final int ts = s * PAYLOAD;
        p[2] = (byte)(s >>> 8);
        p[3] = (byte)s;
        p[4] = (byte)(ts >>> 24);
        p[5] = (byte)(ts >>> 16);
        p[6] = (byte)(ts >>> 8);
        p[7] = (byte)ts;
        final SrtpContext srtp = protect[e];
        final int length = null == srtp ? RTP_LENGTH : srtp.protectRtp(p, 0, RTP_LENGTH);
        sendTimes.setRelease(e * RING + (s & (RING - 1)), counted ? now : -now);
        final ByteBuffer b = txBuffers[e];
        b.clear().limit(Math.max(0, length));
        try
        {
            if (length <= 0 || 0 == channels[e].write(b))
            {
                sendErrors++;
            }
            else if (counted)
            {
                sent[e]++;
            }
        }
        catch (final IOException ex)
        {
            sendErrors++; // an ICMP port unreachable from a relay that has not opened the port
        }
    }

    private void receive()
    {
        try
        {
            while (receiving)
            {
                selector.select(onReadable, 100);
            }
        }
        catch (final IOException e)
        {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void onReadable(final SelectionKey key)
    {
        final int e = (Integer)key.attachment();
        final DatagramChannel ch = (DatagramChannel)key.channel();
        while (true)
        {
            rx.clear();
            final int n;
            try
            {
                n = ch.read(rx);
            }
            catch (final IOException ex)
            {
                foreign++;
                return;
            }
            if (n <= 0)
            {
                return;
            }
            onPacket(e, n, System.nanoTime());
        }
    }

    private void onPacket(final int e, final int n, final long now)
    {
        final byte[] p = rx.array();
        final int peer = e ^ 1;
        final int pt = p[1] & 0xFF;
        if (n < RTP_LENGTH || 0x80 != (p[0] & 0xC0) || (pt >= 200 && pt <= 204))
        {
            foreign++; // RTCP, or not this run's RTP
            return;
        }
        final int fromSsrc = (p[8] & 0xFF) << 24 | (p[9] & 0xFF) << 16 | (p[10] & 0xFF) << 8 | p[11] & 0xFF;
        if (fromSsrc != ssrc[peer])
        {
            foreign++;
            return;
        }
        final int s = (p[2] & 0xFF) << 8 | p[3] & 0xFF;
        final long sentAt = sendTimes.getAcquire(peer * RING + (s & (RING - 1)));
        if (sentAt <= 0)
        {
            return; // sent in the warm-up
        }
        received[e]++;
        final long transit = now - sentAt;
        latency.record(transit);
        if (0 != lastTransit[e])
        {
            jitter.record(Math.abs(transit - lastTransit[e]));
        }
        lastTransit[e] = transit;
    }

    @Override
    public void close()
    {
        for (final DatagramChannel ch : channels)
        {
            try
            {
                if (null != ch)
                {
                    ch.close();
                }
            }
            catch (final IOException e)
            {
                // closing a UDP socket only releases the port
            }
        }
        try
        {
            selector.close();
        }
        catch (final IOException e)
        {
            // as above
        }
        for (final SrtpContext s : protect)
        {
            if (null != s)
            {
                s.close();
            }
        }
    }

    /**
     * One step's figures, from the packets sent inside the window.
     *
     * @param calls         calls.
     * @param sent          packets the phones sent.
     * @param received      of them, those the phones received through the relay.
     * @param latencyP50    median added latency, ns.
     * @param latencyP99    99th percentile added latency, ns.
     * @param latencyMax    largest, ns.
     * @param jitterP99     99th percentile of the change in transit between consecutive packets of a stream, ns.
     * @param senderLateP99 99th percentile of how late the generator sent against its schedule, ns.
     * @param sendErrors    sends that failed.
     * @param foreign       packets received that were not this run's RTP (RTCP, other SSRCs, short, errors).
     */
    record Result(int calls, long sent, long received, long latencyP50, long latencyP99, long latencyMax,
        long jitterP99, long senderLateP99, long sendErrors, long foreign)
    {
    }
}
