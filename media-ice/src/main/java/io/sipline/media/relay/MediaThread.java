package io.sipline.media.relay;

import io.sipline.media.ice.MediaDemux;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;

/**
 * A media thread: one JDK {@link Selector} over the sockets of the streams it owns, one receive buffer, and the
 * per-packet path. For each datagram: sort it by its first octet (RFC 7983 §7, {@link MediaDemux}); hand STUN and
 * DTLS to a WebRTC leg's {@link DtlsPacketSink}; check RTP/RTCP against the leg's latched address; unprotect on a
 * secure leg (the SRTP context finds the SSRC's stream in its SSRC index); latch; protect for the other leg if it is
 * secure; send from the other leg's socket to its peer. What fails is dropped and counted by {@link RelayDrop}
 * reason, on the leg and on the thread.
 *
 * <p>Nothing is allocated per relayed packet: one heap buffer is reused, ready keys come through a consumer made
 * once ({@link Selector#select(Consumer, long)} keeps no selected-key set), the JDK's datagram channel caches the
 * sender's address while it does not change, and SRTP with AES-CM allocates nothing.
 *
 * <p>Threading: every field without {@code volatile} or an atomic type is owned by this thread. Other threads reach
 * it only through {@link #execute(Runnable)} (a queue drained after each select, then a selector wake-up).
 */
final class MediaThread implements Runnable
{
    /** Largest datagram relayed; a larger one fills the buffer and is dropped as {@link RelayDrop#TOO_LARGE}. */
    static final int MAX_DATAGRAM = 4096;
    /** Room after the packet for the SRTP tag and MKI that protect appends (RFC 3711 §3.1). */
    private static final int TRAILER_ROOM = 64;
    /** Datagrams read from one ready socket before the others get a turn. */
    private static final int READ_BURST = 32;
    private static final System.Logger LOG = System.getLogger(MediaThread.class.getName());

    private final String name;
    private final PortAllocator ports;
    private final long idleNs;
    private final long idleCheckNs;
    private final Selector selector;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final ArrayList<RelayStream> streams = new ArrayList<>();
    private final byte[] packet = new byte[MAX_DATAGRAM + TRAILER_ROOM];
    private final ByteBuffer view = ByteBuffer.wrap(packet);
    private final byte[] rawOut = new byte[MAX_DATAGRAM];
    private final ByteBuffer rawView = ByteBuffer.wrap(rawOut);
    private final Consumer<SelectionKey> onReady = this::onReady;
    private final AtomicLongArray drops = new AtomicLongArray(RelayDrop.COUNT);
    private final AtomicLong relayed = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private volatile boolean running = true;
    private volatile Thread thread;
    private long nowNs;
    private long nextIdleCheckNs;

    MediaThread(final String name, final PortAllocator ports, final long idleTimeoutMs) throws IOException
    {
        this.name = name;
        this.ports = ports;
        this.idleNs = idleTimeoutMs * 1_000_000L;
        this.idleCheckNs = 0 == idleNs ? Long.MAX_VALUE : Math.min(1_000_000_000L, Math.max(1_000_000L, idleNs / 4));
        this.selector = Selector.open();
    }

    /** @return the thread's name. */
    String roleName()
    {
        return name;
    }

    /** @return the running thread, or null before it started. */
    Thread thread()
    {
        return thread;
    }

    /**
     * Hands a task to this thread. Any thread.
     *
     * @param task runs on this thread after the current select; must not block.
     */
    void execute(final Runnable task)
    {
        commands.offer(task);
        selector.wakeup();
    }

    /**
     * @param thread the thread that will run this loop, named before it starts so that measurements can find it.
     */
    void runOn(final Thread thread)
    {
        this.thread = thread;
    }

    @Override
    public void run()
    {
        nowNs = System.nanoTime();
        nextIdleCheckNs = nowNs + idleCheckNs;
        final long timeoutMs = Math.max(1, Math.min(1000, idleCheckNs / 1_000_000L));
        while (running)
        {
            try
            {
                selector.select(onReady, timeoutMs);
                nowNs = System.nanoTime();
                drainCommands();
                if (0 != idleNs && nowNs - nextIdleCheckNs >= 0)
                {
                    nextIdleCheckNs = nowNs + idleCheckNs;
                    checkIdle();
                }
            }
            catch (final Throwable t)
            {
                // One bad packet or task never kills the thread: counted, the first of them logged.
                if (1 == errors.incrementAndGet())
                {
                    LOG.log(System.Logger.Level.ERROR, name + ": error on the media thread (logged once)", t);
                }
            }
        }
        drainCommands();
        while (!streams.isEmpty())
        {
            remove(streams.getLast());
        }
        try
        {
            selector.close();
        }
        catch (final IOException ignored)
        {
            // Nothing left to release.
        }
    }

    /** Stops the loop; the thread closes every stream's sockets on its way out. Any thread. */
    void stop()
    {
        running = false;
        selector.wakeup();
    }

    private void drainCommands()
    {
        Runnable task;
        while (null != (task = commands.poll()))
        {
            try
            {
                task.run();
            }
            catch (final RuntimeException e)
            {
                if (1 == errors.incrementAndGet())
                {
                    LOG.log(System.Logger.Level.ERROR, name + ": media task failed (logged once)", e);
                }
            }
        }
    }

    /** This thread: starts serving a stream's four sockets. */
    void add(final RelayStream stream) throws IOException
    {
        register(stream.a);
        register(stream.b);
        stream.a.lastPacketNs = nowNs;
        stream.b.lastPacketNs = nowNs;
        streams.add(stream);
        opened(stream.a);
        opened(stream.b);
    }

    private void opened(final RelayLeg leg)
    {
        if (null != leg.dtls)
        {
            try
            {
                leg.dtls.onOpen(leg);
            }
            catch (final RuntimeException e)
            {
                errors.incrementAndGet();
            }
        }
    }

    private void register(final RelayLeg leg) throws IOException
    {
        leg.rtpKey = leg.rtpChannel.register(selector, SelectionKey.OP_READ, leg);
        leg.rtcpKey = leg.rtcpChannel.register(selector, SelectionKey.OP_READ, leg);
    }

    /** This thread: closes a stream's sockets, gives its ports back and tells its DTLS sides. Idempotent. */
    void remove(final RelayStream stream)
    {
        if (streams.remove(stream))
        {
            close(stream.a);
            close(stream.b);
        }
        else if (stream.a.rtpChannel.isOpen())
        {
            // Closed before its registration ran (the stream failed to start): the sockets are still ours to close.
            close(stream.a);
            close(stream.b);
        }
    }

    private void close(final RelayLeg leg)
    {
        if (null != leg.rtpKey)
        {
            leg.rtpKey.cancel();
            leg.rtcpKey.cancel();
        }
        PortAllocator.closeQuietly(leg.rtpChannel);
        PortAllocator.closeQuietly(leg.rtcpChannel);
        ports.release(leg.rtpPort());
        leg.closeContexts();
        if (null != leg.dtls)
        {
            try
            {
                leg.dtls.onClose(leg);
            }
            catch (final RuntimeException e)
            {
                errors.incrementAndGet();
            }
        }
    }

    void handshakeFailed(final RelayLeg leg, final String reason)
    {
        leg.closeContexts();
        if (!leg.stream.isClosed())
        {
            leg.stream.events.onHandshakeFailed(leg.stream, leg, reason);
        }
    }

    private void checkIdle()
    {
        for (int i = 0, n = streams.size(); i < n; i++)
        {
            final RelayStream s = streams.get(i);
            final long last = Math.max(s.a.lastPacketNs, s.b.lastPacketNs);
            if (!s.idleReported && nowNs - last >= idleNs)
            {
                s.idleReported = true;
                s.events.onIdle(s, (nowNs - last) / 1_000_000L);
            }
        }
    }

    private void onReady(final SelectionKey key)
    {
        final RelayLeg leg = (RelayLeg)key.attachment();
        final DatagramChannel channel = (DatagramChannel)key.channel();
        final boolean rtcpPort = channel == leg.rtcpChannel;
        nowNs = System.nanoTime();
        for (int i = 0; i < READ_BURST; i++)
        {
            // Tasks queued before the next datagram arrived (a leg's address or keys from an answer) apply to it,
            // even when it is read in the same burst as the datagrams before the task.
            if (!commands.isEmpty())
            {
                drainCommands();
            }
            if (!key.isValid())
            {
                return;
            }
            view.clear().limit(MAX_DATAGRAM);
            final SocketAddress source;
            try
            {
                source = channel.receive(view);
            }
            catch (final IOException e)
            {
                drop(leg, RelayDrop.SEND_FAILED);
                return;
            }
            if (null == source)
            {
                return;
            }
            final int length = view.position();
            if (length == MAX_DATAGRAM)
            {
                drop(leg, RelayDrop.TOO_LARGE);
                continue;
            }
            relay(leg, rtcpPort, (InetSocketAddress)source, length);
        }
    }

    /**
     * The per-packet path for one datagram in {@link #packet}.
     *
     * @param leg      the leg whose socket received it.
     * @param rtcpPort whether it came to the leg's RTCP (odd) port.
     * @param source   the sender.
     * @param length   the datagram's length.
     */
    private void relay(final RelayLeg leg, final boolean rtcpPort, final InetSocketAddress source, final int length)
    {
        final int kind = MediaDemux.classify(packet, 0, length);
        if (MediaDemux.RTP != kind && MediaDemux.RTCP != kind)
        {
            other(leg, kind, source, length);
            return;
        }
        final boolean rtcp = MediaDemux.RTCP == kind;
        final InetSocketAddress latched = rtcpPort ? leg.latchedRtcp : leg.latchedRtp;
        if (null != latched && !latched.equals(source))
        {
            drop(leg, RelayDrop.WRONG_SOURCE);
            return;
        }
        if (leg.stream.isClosed())
        {
            drop(leg, RelayDrop.INACTIVE);
            return;
        }
        int n = length;
        if (leg.secure)
        {
            if (null == leg.inbound)
            {
                drop(leg, RelayDrop.NOT_READY);
                return;
            }
            n = rtcp ? leg.inbound.unprotectRtcp(packet, 0, n) : leg.inbound.unprotectRtp(packet, 0, n);
            if (n < 0)
            {
                drop(leg, RelayDrop.ofSrtp(n));
                return;
            }
        }
        if (null == latched)
        {
            leg.latch(source, rtcpPort);
        }
        leg.lastPacketNs = nowNs;
        leg.stream.idleReported = false;
        leg.countIn();
        forward(leg.peer, rtcp, n);
    }

    private void forward(final RelayLeg to, final boolean rtcp, final int length)
    {
        final InetSocketAddress destination = rtcp ? to.rtcpDestination() : to.rtpDestination();
        if (null == destination)
        {
            drop(to.peer, RelayDrop.NO_DESTINATION);
            return;
        }
        int n = length;
        if (to.secure)
        {
            if (null == to.outbound)
            {
                drop(to.peer, RelayDrop.NOT_READY);
                return;
            }
            n = rtcp ? to.outbound.protectRtcp(packet, 0, n) : to.outbound.protectRtp(packet, 0, n);
            if (n < 0)
            {
                drop(to.peer, RelayDrop.ofSrtp(n));
                return;
            }
        }
        final DatagramChannel out = rtcp && !to.rtcpMux ? to.rtcpChannel : to.rtpChannel;
        view.clear().limit(n);
        try
        {
            if (0 == out.send(view, destination))
            {
                drop(to.peer, RelayDrop.SEND_FAILED);
                return;
            }
        }
        catch (final IOException e)
        {
            drop(to.peer, RelayDrop.SEND_FAILED);
            return;
        }
        to.countOut();
        relayed.lazySet(relayed.get() + 1);
    }

    private void other(final RelayLeg leg, final int kind, final InetSocketAddress source, final int length)
    {
        if ((MediaDemux.DTLS == kind || MediaDemux.STUN == kind) && null != leg.dtls)
        {
            try
            {
                if (MediaDemux.DTLS == kind)
                {
                    leg.dtls.onDtlsPacket(leg, packet, 0, length, source);
                }
                else
                {
                    leg.dtls.onStunPacket(leg, packet, 0, length, source);
                }
            }
            catch (final RuntimeException e)
            {
                drop(leg, RelayDrop.MALFORMED);
            }
            return;
        }
        drop(leg, switch (kind)
        {
            case MediaDemux.STUN -> RelayDrop.STUN_UNEXPECTED;
            case MediaDemux.DTLS -> RelayDrop.DTLS_UNEXPECTED;
            case MediaDemux.ZRTP, MediaDemux.TURN_CHANNEL -> RelayDrop.UNSUPPORTED_PROTOCOL;
            default -> RelayDrop.MALFORMED;
        });
    }

    /** This thread: sends a datagram of the leg's DTLS side from the leg's RTP socket. */
    boolean sendRaw(final RelayLeg leg, final byte[] buffer, final int offset, final int length,
        final InetSocketAddress destination)
    {
        if (length < 0 || length > rawOut.length || null == destination || !leg.rtpChannel.isOpen())
        {
            return false;
        }
        System.arraycopy(buffer, offset, rawOut, 0, length);
        rawView.clear().limit(length);
        try
        {
            return leg.rtpChannel.send(rawView, destination) > 0;
        }
        catch (final IOException e)
        {
            drop(leg, RelayDrop.SEND_FAILED);
            return false;
        }
    }

    /** This thread: counts a dropped datagram on the leg and the thread. */
    void drop(final RelayLeg leg, final int reason)
    {
        leg.countDrop(reason);
        // Single writer: a release store is enough for the readers of the totals.
        drops.lazySet(reason, drops.get(reason) + 1);
    }

    /** @return datagrams dropped for a reason on this thread's sockets. */
    long drops(final int reason)
    {
        return drops.get(reason);
    }

    /** @return packets relayed (sent on the other leg). */
    long relayed()
    {
        return relayed.get();
    }

    /** @return tasks and loop iterations that threw. */
    long errors()
    {
        return errors.get();
    }
}
