package io.sipline.sip.stack;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.ScheduledFuture;
import io.sipline.sip.capture.HepCapture;
import io.sipline.sip.capture.HepConfig;
import io.sipline.sip.transport.ShardCounters;
import io.sipline.sip.transport.UdpBindException;
import io.sipline.sip.transport.UdpTransport;
import io.sipline.sip.transport.UdpTransportConfig;
import io.sipline.sip.transport.tcp.StreamSettings;
import io.sipline.sip.transport.tcp.TcpBindException;
import io.sipline.sip.transport.tcp.TcpCounters;
import io.sipline.sip.transport.tcp.TcpShards;
import io.sipline.sip.transport.tcp.TcpTransportConfig;
import io.sipline.sip.transport.tcp.TlsContexts;

/**
 * The SIP stack: the sharded UDP transport, TCP on the same address:ports and TLS on its own (sharded the same way,
 * {@link TcpShards}), and per shard one RFC 3261 §17 transaction layer, one §12 dialog layer and two hashed timer
 * wheels, all driven by the shard's event loop, under one {@link SipListener} per shard.
 *
 * <pre>{@code
 * SipStack stack = SipStack.start(new SipStackConfig().ports(5060).shards(4), shard -> new MyListener());
 * stack.execute(0, () -> stack.shard(0).sendRequest(invite, next));   // from another thread
 * }</pre>
 *
 * <p><b>Threading</b>: N shards, each a single-thread event loop that owns its sockets (one {@code SO_REUSEPORT}
 * channel per address:port), its {@link StackShard} state and its listener; nothing on a shard blocks or locks. A
 * datagram read by a shard that does not own its call is copied and handed to the owner through a bounded MPSC
 * queue (dropped and counted when full); a message read on a connection (owned by the shard that accepted or opened
 * it) is handed over the same way, and the answer goes back on that connection (RFC 3261 §18.2.2). Timers fire
 * before new inbound work: each shard ticks every {@link SipStackConfig#tickNs()} (one fixed-rate task) and polls
 * its wheels before a datagram when a tick has passed. {@link #start} and {@link #close} may be called from any
 * thread but a shard's own, {@link #execute} from any thread, the rest of a {@link StackShard} on its loop only.
 *
 * <p><b>Ownership.</b> Messages given to a listener are borrowed for the call; buffers given to a shard's send
 * methods are owned by the shard from then on (see {@link StackShard}).
 */
public final class SipStack implements AutoCloseable
{
    /**
     * Netty's object pool for buffer objects keeps every one the shards give back ({@code io.netty.recycler.ratio}
     * 1), unless the user set the property: with Netty's default of 8 only one new buffer object in 8 gets a place in
     * the pool. A UDP server transaction keeps its response buffer until Timer J, 64*T1 = 32 s after the response
     * (RFC 3261 §17.2.2), so at N transactions/s some 32*N buffers are out at once, more than the shard's own
     * {@code OutboundBuffers} keeps: nearly every response takes a buffer object from Netty, and with the default
     * ratio 7 in 8 of those objects were garbage (JFR, one port, 7,000 tx/s: 90.8 of 144.6 B per stateful
     * transaction; 33.7 B/tx with the ratio at 1). Set here, before the first buffer is taken, because Netty reads it
     * once when its {@code Recycler} class initializes; the JVM profiles need no flag for it.
     */
    static final String RECYCLER_RATIO_PROPERTY = "io.netty.recycler.ratio";

    /**
     * How many free buffer objects Netty's object pool keeps per thread
     * ({@code io.netty.recycler.maxCapacityPerThread}, or the older {@code io.netty.recycler.maxCapacity}), unless the
     * user set it: {@value #RECYCLER_CAPACITY} where Netty keeps 4,096. The pool never gives back what it holds, so
     * after a burst (a flood of requests answered while their transactions hold earlier responses) each shard's pool
     * stays at its high-water mark, up to 4,096 objects of about 130 bytes with Netty's bound. At a steady load a
     * buffer object is released about as often as one is taken, so the pool stays far below the bound and the ratio
     * above still spares every allocation; only a drop of the load by more than the bound makes objects garbage.
     */
    static final String RECYCLER_CAPACITY_PROPERTY = "io.netty.recycler.maxCapacityPerThread";
    private static final String RECYCLER_CAPACITY_PROPERTY_OLD = "io.netty.recycler.maxCapacity";
    static final int RECYCLER_CAPACITY = 256;

    /**
     * Netty's leak detector is off unless the user set its level ({@code -Dio.netty.leakDetection.level=simple}, or
     * the older {@code io.netty.leakDetectionLevel}): at Netty's default ({@code simple}) one buffer in 128 is tracked,
     * and each tracked buffer makes a {@code Throwable} with its stack trace when it is taken and when it is released,
     * CPU time and garbage on the shards. The tests run at
     * {@code paranoid} (every buffer tracked, a leak fails the test), which is where leaks
     * are found; a running server pays for none of it. {@code SIPLINE_JAVA_OPTS} gives bin/sipline the property.
     */
    static final String LEAK_DETECTION_PROPERTY = "io.netty.leakDetection.level";
    private static final String LEAK_DETECTION_PROPERTY_OLD = "io.netty.leakDetectionLevel";

    static
    {
        if (null == System.getProperty(RECYCLER_RATIO_PROPERTY))
        {
            System.setProperty(RECYCLER_RATIO_PROPERTY, "1");
        }
        if (null == System.getProperty(RECYCLER_CAPACITY_PROPERTY)
            && null == System.getProperty(RECYCLER_CAPACITY_PROPERTY_OLD))
        {
            System.setProperty(RECYCLER_CAPACITY_PROPERTY, Integer.toString(RECYCLER_CAPACITY));
        }
        if (null == System.getProperty(LEAK_DETECTION_PROPERTY)
            && null == System.getProperty(LEAK_DETECTION_PROPERTY_OLD))
        {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }

    /** How often a port of 0 is tried for UDP and TCP together before the stack gives up. */
    public static final int FREE_PORT_ATTEMPTS = 5;

    private final SipStackConfig config;
    private final StackShard[] shards;
    private final List<ScheduledFuture<?>> ticks = new ArrayList<>();
    private final long[] threadIds;
    private final AtomicBoolean closed = new AtomicBoolean();
    private UdpTransport transport;
    private TcpShards streams;
    /** The HEP capture of every shard, or null when off; closed after the loops. */
    private final HepCapture capture;
    private final List<InetSocketAddress> tcpEndpoints = new ArrayList<>();
    private final List<InetSocketAddress> tlsEndpoints = new ArrayList<>();
    private final List<InetSocketAddress> wsEndpoints = new ArrayList<>();
    private final List<InetSocketAddress> wssEndpoints = new ArrayList<>();

    /** INVITEs moved to another shard than their Call-ID's, for their CANCEL ({@link StackShard#route}). */
    final MovedInvites movedInvites;

    private SipStack(final SipStackConfig config, final SipListener.Factory listeners)
    {
        this.config = config;
        final int n = config.shards();
        shards = new StackShard[n];
        threadIds = new long[n];
        movedInvites = new MovedInvites(System.nanoTime());
        capture = null == config.hep() ? null : openCapture(config.hep(), n);
        final long seed = System.nanoTime() ^ ProcessHandle.current().pid() << 32;
        for (int k = 0; k < n; k++)
        {
            shards[k] = new StackShard(this, k, config, shards, listeners, seed);
        }
    }

    /**
     * Starts the shards, binds every address:port of the configuration (UDP, then TCP on the same ports, then TLS),
     * and starts each shard's tick. A port of 0 becomes a number free for UDP and TCP on every address
     * ({@link FreePorts}); if someone takes it before the stack binds it, the stack tries again (up to
     * {@value #FREE_PORT_ATTEMPTS} times).
     *
     * @param listeners makes the listener of each shard (on the calling thread).
     * @throws UdpBindException when an address:port cannot be bound for UDP, TCP or TLS (the message names which);
     *                          nothing is left running then.
     * @throws IllegalArgumentException for a bad configuration, or TLS files that cannot be read (named).
     */
    public static SipStack start(final SipStackConfig config, final SipListener.Factory listeners)
        throws UdpBindException
    {
        config.validate();
        ClassPreloader.load(); // before any shard runs: no shard waits on a class loader's lock later
        final SslContext serverTls = config.tls() ?
            TlsContexts.server(config.tlsCertificate(), config.tlsPrivateKey()) : null;
        final SslContext clientTls = TlsContexts.client(config.tlsTrustedCertificates());
        final SipStack stack = new SipStack(config, listeners);
        final StackShard[] shards = stack.shards;
        boolean freePort = false;
        for (final int port : config.ports())
        {
            freePort |= 0 == port;
        }
        for (int attempt = 1; ; attempt++)
        {
            final int[] ports;
            try
            {
                ports = FreePorts.resolve(config.ports(), config.addresses(), config.tcp());
            }
            catch (final java.io.IOException e)
            {
                throw new UdpBindException("udp", new InetSocketAddress(config.addresses().get(0), 0), e);
            }
            try
            {
                // A port FreePorts found free can be taken by another process before it is bound, by the UDP
                // sockets as well as by the TCP/TLS listeners: either way, with port 0 asked for, pick again.
                final HepCapture hep = stack.capture;
                stack.transport = UdpTransport.start(
                    new UdpTransportConfig(config.addresses(), ports, config.shards(), config.nativeTransport(),
                        config.udpPeers(), config.udpSteerByCpu()),
                    k -> shards[k].handler(), null == hep ? null : hep::agent);
                stack.listenOnStreams(serverTls, clientTls);
                break;
            }
            catch (final UdpBindException e)
            {
                if (null != stack.streams)
                {
                    stack.streams.close(UdpTransport.DEFAULT_CLOSE_MILLIS);
                }
                if (null != stack.transport)
                {
                    stack.transport.close(UdpTransport.DEFAULT_CLOSE_MILLIS);
                }
                stack.transport = null;
                stack.streams = null;
                stack.tcpEndpoints.clear();
                stack.tlsEndpoints.clear();
                stack.wsEndpoints.clear();
                stack.wssEndpoints.clear();
                if (!freePort || attempt >= FREE_PORT_ATTEMPTS)
                {
                    if (null != stack.capture)
                    {
                        stack.capture.close();
                    }
                    throw e;
                }
            }
        }
        final CountDownLatch attached = new CountDownLatch(shards.length);
        for (int k = 0; k < shards.length; k++)
        {
            final StackShard shard = shards[k];
            final EventLoop loop = stack.transport.eventLoop(k);
            final int index = k;
            shard.loop(loop);
            loop.execute(() ->
            {
                shard.attach(stack.transport.shard(index));
                shard.attachStreams(stack.streams.shard(index));
                stack.threadIds[index] = Thread.currentThread().threadId();
                attached.countDown();
            });
            stack.ticks.add(loop.scheduleAtFixedRate(shard.tickTask(), config.tickNs(), config.tickNs(),
                TimeUnit.NANOSECONDS));
        }
        try
        {
            attached.await(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        return stack;
    }

    /**
     * Binds for TCP every UDP endpoint's address:port (when TCP is on), then the TLS ports (when TLS is on), then the
     * WS and WSS ports.
     */
    private void listenOnStreams(final SslContext serverTls, final SslContext clientTls) throws UdpBindException
    {
        final EventLoop[] loops = new EventLoop[shards.length];
        for (int k = 0; k < loops.length; k++)
        {
            loops[k] = transport.eventLoop(k);
        }
        streams = new TcpShards(loops, k -> shards[k].streamHandler(), new StreamSettings(
            config.connectionIdleMillis(), TcpTransportConfig.DEFAULT_MAX_MESSAGE_BYTES, config.connectTimeoutMillis(),
            transport.sharesPorts(), serverTls, clientTls, config.messageTimeoutMillis(), config.maxConnections(),
            config.maxConnectionsPerAddress()), config.webSocket());
        if (null != capture)
        {
            streams.capture(capture::agent);
        }
        if (config.tcp())
        {
            for (final InetSocketAddress udp : transport.localAddresses())
            {
                tcpEndpoints.add(bindStream(udp, false));
            }
        }
        if (null != serverTls)
        {
            for (final java.net.InetAddress address : config.addresses())
            {
                for (final int port : config.tlsPorts())
                {
                    tlsEndpoints.add(bindStream(new InetSocketAddress(address, port), true));
                }
            }
        }
        listenOnWebSockets();
    }

    /** Binds the WebSocket ports (RFC 7118) on every address: plain WS, then WSS with the TLS context. */
    private void listenOnWebSockets() throws UdpBindException
    {
        for (final java.net.InetAddress address : config.addresses())
        {
            for (final int port : config.wsPorts())
            {
                wsEndpoints.add(bindWebSocket(new InetSocketAddress(address, port), false));
            }
            for (final int port : config.wssPorts())
            {
                wssEndpoints.add(bindWebSocket(new InetSocketAddress(address, port), true));
            }
        }
    }

    private InetSocketAddress bindWebSocket(final InetSocketAddress endpoint, final boolean tls)
        throws UdpBindException
    {
        try
        {
            return streams.bindWebSocket(endpoint, tls);
        }
        catch (final TcpBindException e)
        {
            throw new UdpBindException(tls ? "wss" : "ws", endpoint, null == e.getCause() ? e : e.getCause());
        }
    }

    private InetSocketAddress bindStream(final InetSocketAddress endpoint, final boolean tls) throws UdpBindException
    {
        try
        {
            return streams.bind(endpoint, tls);
        }
        catch (final TcpBindException e)
        {
            throw new UdpBindException(tls ? "tls" : "tcp", endpoint, null == e.getCause() ? e : e.getCause());
        }
    }

    private static HepCapture openCapture(final HepConfig hep, final int shards)
    {
        try
        {
            return new HepCapture(hep, shards);
        }
        catch (final java.io.IOException e)
        {
            throw new IllegalArgumentException("HEP capture: cannot open a UDP socket: " + e.getMessage(), e);
        }
    }

    /** The HEP capture (counters of captures sent and dropped), or null when {@link SipStackConfig#hep()} is null. */
    public HepCapture capture()
    {
        return capture;
    }

    public SipStackConfig config()
    {
        return config;
    }

    /** The TCP endpoints, one per UDP endpoint (same address:port) when TCP is on; empty otherwise. */
    public List<InetSocketAddress> tcpAddresses()
    {
        return List.copyOf(tcpEndpoints);
    }

    /** The TLS endpoints (addresses × TLS ports, kernel ports resolved) when TLS is on; empty otherwise. */
    public List<InetSocketAddress> tlsAddresses()
    {
        return List.copyOf(tlsEndpoints);
    }

    /** The WS endpoints (addresses × WS ports, kernel ports resolved); empty when none was asked for. */
    public List<InetSocketAddress> wsAddresses()
    {
        return List.copyOf(wsEndpoints);
    }

    /** The WSS endpoints (addresses × WSS ports, kernel ports resolved); empty when none was asked for. */
    public List<InetSocketAddress> wssAddresses()
    {
        return List.copyOf(wssEndpoints);
    }

    /** Counters of the WebSocket layer of the WS and WSS listeners (live; any thread). */
    public io.sipline.sip.transport.tcp.WsCounters webSocketCounters()
    {
        return streams.webSocketCounters();
    }

    /** Counters of the SIP messages over WS and WSS connections (live; any thread). */
    public TcpCounters webSocketMessageCounters()
    {
        return streams.webSocketMessageCounters();
    }

    /** WebSocket connections open now over all shards (racy; any thread). */
    public int webSocketConnections()
    {
        return streams.webSocketConnections();
    }

    /** Accepted TCP and TLS connections open now over all shards (racy; any thread). */
    public int streamConnections()
    {
        return streams.streamConnections();
    }

    /** Counters of every TCP and TLS connection (live; any thread). */
    public TcpCounters streamCounters()
    {
        return streams.counters();
    }

    /** The bound endpoints, one per address:port (ports resolved when 0 was asked for), in configuration order. */
    public List<InetSocketAddress> localAddresses()
    {
        return transport.localAddresses();
    }

    public int shardCount()
    {
        return shards.length;
    }

    /** Shard k; use it on its own loop only (from a listener callback of shard k, or through {@link #execute}). */
    public StackShard shard(final int k)
    {
        return shards[k];
    }

    /** Runs a task on shard k's loop (any thread; allocates, so not for the per-message path). */
    public void execute(final int k, final Runnable task)
    {
        transport.eventLoop(k).execute(task);
    }

    /**
     * Direct memory held in chunks by the pooled allocators the stack uses: Netty's shared
     * {@code PooledByteBufAllocator.DEFAULT} (the transports' reads and writes, stateless answers; the whole JVM's) and
     * each shard's allocator of outbound buffers. Any thread; reads each allocator's chunk lists.
     */
    public long pooledDirectMemory()
    {
        long bytes = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
        for (final StackShard shard : shards)
        {
            bytes += shard.outboundBufferMemory();
        }
        return bytes;
    }

    /** The transport's counters summed over the shards (any thread). */
    public ShardCounters transportTotals()
    {
        return transport.totals();
    }

    /** The underlying transport (counters, endpoints). */
    public UdpTransport transport()
    {
        return transport;
    }

    /** The thread id of each shard's loop (for {@code ThreadMXBean} allocation and CPU counters). */
    public long[] shardThreadIds()
    {
        return threadIds.clone();
    }

    /** Hand-overs between shards, summed (racy, for metrics). */
    public long handoffs()
    {
        long n = 0;
        for (final StackShard s : shards)
        {
            n += s.handoffsOut();
        }
        return n;
    }

    /** Hand-overs dropped on a full queue, summed (racy). */
    public long handoffDrops()
    {
        long n = 0;
        for (final StackShard s : shards)
        {
            n += s.handoffDrops();
        }
        return n;
    }

    /** Malformed messages seen by the shards, summed (racy). */
    public long malformed()
    {
        long n = 0;
        for (final StackShard s : shards)
        {
            n += s.malformed();
        }
        return n;
    }

    /** Listener exceptions caught, summed (racy). */
    public long listenerErrors()
    {
        long n = 0;
        for (final StackShard s : shards)
        {
            n += s.listenerErrors();
        }
        return n;
    }

    /**
     * Stops: cancels the ticks, lets each shard end its transactions and its listener release its buffers (on the
     * shard), closes the transport, then releases anything still queued. Idempotent; any thread but a shard's own.
     */
    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        for (final ScheduledFuture<?> tick : ticks)
        {
            tick.cancel(false);
        }
        final CountDownLatch stopped = new CountDownLatch(shards.length);
        for (int k = 0; k < shards.length; k++)
        {
            final StackShard shard = shards[k];
            try
            {
                transport.eventLoop(k).execute(() ->
                {
                    try
                    {
                        shard.stopOnLoop();
                    }
                    finally
                    {
                        stopped.countDown();
                    }
                });
            }
            catch (final RuntimeException e)
            {
                stopped.countDown();
            }
        }
        try
        {
            stopped.await(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        streams.close(UdpTransport.DEFAULT_CLOSE_MILLIS);
        transport.close(UdpTransport.DEFAULT_CLOSE_MILLIS);
        if (null != capture)
        {
            capture.close(); // after the loops: no shard captures any more
        }
        for (final StackShard shard : shards)
        {
            shard.releaseInbox();
        }
    }
}
