package io.sipline.sip.stack;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.sipline.sip.transaction.TransactionConfig;

/**
 * Settings of a {@link SipStack}: where it listens (addresses × ports, each bound for UDP and — unless
 * {@link #tcp(boolean)} is off — TCP, once per shard with {@code SO_REUSEPORT}; TLS on its own ports when a
 * certificate and key are given), connections (idle time, connect timeout), how many shards, the RFC 3261 timer
 * bases T1/T2/T4 (§17, Table 4), and the sizes of the
 * per-shard queues and pools. Fluent setters with {@code *_DEFAULT} constants; read once by {@link SipStack#start}.
 *
 * <p>Not thread-safe: build it on one thread, then hand it to {@link SipStack#start}.
 */
public final class SipStackConfig
{
    /** {@link #node()} of a process outside a cluster (its ids carry node 0). */
    public static final int NODE_NONE = -1;
    /** The URI parameter that names the node in the Contact and Record-Route a cluster node writes. */
    public static final String NODE_URI_PARAMETER = "sipline-node";
    public static final int SHARDS_DEFAULT = Math.max(1, Runtime.getRuntime().availableProcessors());
    /** Datagrams waiting in one shard's hand-over queue (a power of two); more are dropped and counted. */
    public static final int HANDOFF_QUEUE_DEFAULT = 4096;
    /** The most hand-overs one drain handles before it yields the loop to its sockets and timers. */
    public static final int DRAIN_LIMIT_DEFAULT = 256;
    /** The period of each shard's tick (timers, hand-over drain, {@link SipListener#onTick}): 1 ms. */
    public static final long TICK_NS_DEFAULT = 1_000_000L;
    public static final int INITIAL_POOL_DEFAULT = 256;
    public static final int INITIAL_DIALOGS_DEFAULT = 1024;
    /** Outbound buffers a shard keeps at most ({@link #outboundBuffers()}). */
    public static final int OUTBOUND_BUFFERS_DEFAULT = 4096;
    /** RFC 5626 §4.4.1 suggests keep-alives every 95-120 s: an idle connection gets two rounds before it closes. */
    public static final long CONNECTION_IDLE_MILLIS_DEFAULT = 300_000;
    public static final long CONNECT_TIMEOUT_MILLIS_DEFAULT = 10_000;
    /** RFC 3261 §19.1.2: the default port of SIP over TLS. */
    public static final int TLS_PORT_DEFAULT = 5061;
    /** How long one DNS query may take before RFC 3263 location moves on without its answer. */
    public static final long DNS_TIMEOUT_MILLIS_DEFAULT = 2_000;
    /** RFC 8289 §4.3: CoDel's interval, the time a queue may stand above its target before it is overload. */
    public static final long OVERLOAD_INTERVAL_NS_DEFAULT = 100_000_000L;

    private List<InetAddress> addresses = List.of(InetAddress.getLoopbackAddress());
    private int[] ports = {5060};
    private int shards = SHARDS_DEFAULT;
    private int node = NODE_NONE;
    private boolean nativeTransport = true;
    private long t1Ns = TransactionConfig.T1_DEFAULT_NS;
    private long t2Ns = TransactionConfig.T2_DEFAULT_NS;
    private long t4Ns = TransactionConfig.T4_DEFAULT_NS;
    private int handoffQueueCapacity = HANDOFF_QUEUE_DEFAULT;
    private int drainLimit = DRAIN_LIMIT_DEFAULT;
    private long tickNs = TICK_NS_DEFAULT;
    private int initialTransactionPool = INITIAL_POOL_DEFAULT;
    private boolean udpSteerByCpu;
    private int timerSpokeCapacity = io.sipline.sip.timer.TimerWheel.DEFAULT_SPOKE_CAPACITY;
    private int initialDialogs = INITIAL_DIALOGS_DEFAULT;
    private int outboundBuffers = OUTBOUND_BUFFERS_DEFAULT;
    private io.sipline.sip.transport.UdpPeerConfig udpPeers = io.sipline.sip.transport.UdpPeerConfig.DEFAULT;
    private ByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;
    private boolean tcp = true;
    private long connectionIdleMillis = CONNECTION_IDLE_MILLIS_DEFAULT;
    private long connectTimeoutMillis = CONNECT_TIMEOUT_MILLIS_DEFAULT;
    private long messageTimeoutMillis = io.sipline.sip.transport.tcp.StreamSettings.DEFAULT_MESSAGE_TIMEOUT_MILLIS;
    private int maxConnections = io.sipline.sip.transport.tcp.StreamSettings.DEFAULT_MAX_CONNECTIONS;
    private int maxConnectionsPerAddress = io.sipline.sip.transport.tcp.StreamSettings.DEFAULT_MAX_PER_ADDRESS;
    private Path tlsCertificate;
    private Path tlsPrivateKey;
    private Path tlsTrustedCertificates;
    private int[] tlsPorts = {TLS_PORT_DEFAULT};
    private int[] wsPorts = {};
    private int[] wssPorts = {};
    private io.sipline.sip.transport.tcp.WsSettings webSocket = io.sipline.sip.transport.tcp.WsSettings.defaults();
    private List<InetSocketAddress> dnsServers = List.of();
    private long dnsTimeoutMillis = DNS_TIMEOUT_MILLIS_DEFAULT;
    private long overloadWaitNs;
    private long overloadIntervalNs = OVERLOAD_INTERVAL_NS_DEFAULT;
    private io.sipline.sip.capture.HepConfig hep;

    /**
     * Overload control, the target delay: once the requests a shard takes in have each waited longer than this since
     * the kernel received them (their {@code SipMessage#receivedAtNanos()}: socket buffer, hand-over queue and the
     * shard's backlog) for a whole {@link #overloadIntervalNs()} (CoDel's standing queue, RFC 8289 §3.2), the shard is
     * overloaded: each new request outside a dialog that waited longer than this is refused (the container's
     * decision, asked by the transaction layer through {@code Admission}) with a stateless {@code 503 Service
     * Unavailable} and {@code Retry-After} (RFC 3261 §21.5.4) before a transaction exists, the ones that waited less
     * are served, until the waits have stayed within it for an interval;
     * requests within dialogs, CANCELs and responses are always served, so that the calls already up finish. 0 (the
     * default of this class; the server's command line turns it on): off.
     */
    public long overloadWaitNs()
    {
        return overloadWaitNs;
    }

    public SipStackConfig overloadWaitNs(final long value)
    {
        if (value < 0)
        {
            throw new IllegalArgumentException("overload wait must not be negative: " + value);
        }
        overloadWaitNs = value;
        return this;
    }

    /**
     * Overload control, the interval: how long the waits must stay above {@link #overloadWaitNs()} before new
     * requests are refused, and within it before the refusals stop (RFC 8289 §4.3; default
     * {@link #OVERLOAD_INTERVAL_NS_DEFAULT}).
     */
    public long overloadIntervalNs()
    {
        return overloadIntervalNs;
    }

    public SipStackConfig overloadIntervalNs(final long value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException("overload interval must be positive: " + value);
        }
        overloadIntervalNs = value;
        return this;
    }

    public List<InetAddress> addresses()
    {
        return addresses;
    }

    /** The local addresses to listen on (IPv4 and IPv6); default the loopback address. */
    public SipStackConfig addresses(final List<InetAddress> value)
    {
        addresses = List.copyOf(value);
        return this;
    }

    public int[] ports()
    {
        return ports.clone();
    }

    /**
     * SIP ports, each bound on every address for UDP and TCP (RFC 3261 §18: a server listening on a port for UDP
     * listens there for TCP too); 0 = any free port, the same number for both; default 5060.
     */
    public SipStackConfig ports(final int... value)
    {
        ports = value.clone();
        return this;
    }

    public int shards()
    {
        return shards;
    }

    /** Number of shards (event-loop threads), 1..256; default one per core. */
    public SipStackConfig shards(final int value)
    {
        shards = value;
        return this;
    }

    public int node()
    {
        return node;
    }

    /**
     * This process's node in a cluster, 0..255, or {@link #NODE_NONE} outside one: written with the shard into every
     * Call-ID, tag and branch the stack makes (0 outside a cluster), so that any node can tell whose call a message
     * belongs to.
     */
    public SipStackConfig node(final int value)
    {
        node = value;
        return this;
    }

    public boolean nativeTransport()
    {
        return nativeTransport;
    }

    /** Native epoll with SO_REUSEPORT when available (default true); false forces NIO. */
    public SipStackConfig nativeTransport(final boolean value)
    {
        nativeTransport = value;
        return this;
    }

    public long t1Ns()
    {
        return t1Ns;
    }

    /** RFC 3261 T1, the RTT estimate (default 500 ms). */
    public SipStackConfig t1Ns(final long value)
    {
        t1Ns = value;
        return this;
    }

    public long t2Ns()
    {
        return t2Ns;
    }

    /** RFC 3261 T2, the cap on retransmission intervals (default 4 s). */
    public SipStackConfig t2Ns(final long value)
    {
        t2Ns = value;
        return this;
    }

    public long t4Ns()
    {
        return t4Ns;
    }

    /** RFC 3261 T4, the longest a message stays in the network (default 5 s). */
    public SipStackConfig t4Ns(final long value)
    {
        t4Ns = value;
        return this;
    }

    public int handoffQueueCapacity()
    {
        return handoffQueueCapacity;
    }

    /** Capacity of each shard's MPSC hand-over queue (rounded up to a power of two by JCTools). */
    public SipStackConfig handoffQueueCapacity(final int value)
    {
        handoffQueueCapacity = value;
        return this;
    }

    public int drainLimit()
    {
        return drainLimit;
    }

    /** The most hand-overs one drain takes. */
    public SipStackConfig drainLimit(final int value)
    {
        drainLimit = value;
        return this;
    }

    public long tickNs()
    {
        return tickNs;
    }

    /** Period of each shard's tick; also the timer wheels' resolution. */
    public SipStackConfig tickNs(final long value)
    {
        tickNs = value;
        return this;
    }

    public int initialTransactionPool()
    {
        return initialTransactionPool;
    }

    /** Transactions of each kind made per shard at start. */
    public SipStackConfig initialTransactionPool(final int value)
    {
        initialTransactionPool = value;
        return this;
    }

    /**
     * Timer slots each tick of a shard's transaction timer wheel starts with (a power of two; 16 by default). A tick
     * that gets more timers doubles its slots, once per new peak, so a shard's wheel grows tick by tick to its load:
     * at R transactions per second per shard, a tick of 1 ms gets about R/1000 timeouts at once (Timers J, K, D, H
     * fire at fixed delays). Size it to the expected load to keep that growth out of the run (1024 ticks, 20 bytes
     * per slot).
     */
    public int timerSpokeCapacity()
    {
        return timerSpokeCapacity;
    }

    /** See {@link #timerSpokeCapacity()}. */
    public SipStackConfig timerSpokeCapacity(final int value)
    {
        timerSpokeCapacity = value;
        return this;
    }

    public int initialDialogs()
    {
        return initialDialogs;
    }

    /** Dialog records made per shard at start (and the dialog table's expected size). */
    public SipStackConfig initialDialogs(final int value)
    {
        initialDialogs = value;
        return this;
    }

    /** Most outbound message buffers a shard keeps for reuse ({@link OutboundBuffers}); 4096 by default. */
    public int outboundBuffers()
    {
        return outboundBuffers;
    }

    /**
     * See {@link #outboundBuffers()}: 0 keeps none (every message buffer comes from the allocator and goes back to
     * it). Kept buffers hold their memory while recent use needs them (twice the most in use at once over the last
     * seconds; see {@link OutboundBuffers}), at most {@value OutboundBuffers#MAX_KEPT_CAPACITY} bytes each (about 1 KiB
     * for a typical message).
     */
    public SipStackConfig outboundBuffers(final int value)
    {
        outboundBuffers = value;
        return this;
    }

    /**
     * When a shard connects a UDP channel to an active peer (epoll only): after how many datagrams, how many per
     * shard, closed after how long idle. {@link io.sipline.sip.transport.UdpPeerConfig#DEFAULT} by default.
     */
    public io.sipline.sip.transport.UdpPeerConfig udpPeers()
    {
        return udpPeers;
    }

    /**
     * See {@link #udpPeers()}; {@link io.sipline.sip.transport.UdpPeerConfig#OFF} sends everything through the
     * listening sockets.
     */
    public SipStackConfig udpPeers(final io.sipline.sip.transport.UdpPeerConfig value)
    {
        udpPeers = java.util.Objects.requireNonNull(value, "udpPeers");
        return this;
    }

    /**
     * True to pick the shard of each UDP datagram by the CPU that received it (a classic BPF program on each port's
     * {@code SO_REUSEPORT} group) rather than by the kernel's hash of the sender's address and port. Off by default.
     * With one busy peer ({@code StackSteeringRun}) its reads spread over the shards, but hand-overs do not drop,
     * because a call's shard is chosen by its Call-ID, not by who read it. A peer with a connected channel ({@link
     * #udpPeers()}) bypasses the group, so steering does
     * nothing for it.
     */
    public boolean udpSteerByCpu()
    {
        return udpSteerByCpu;
    }

    /** See {@link #udpSteerByCpu()}. */
    public SipStackConfig udpSteerByCpu(final boolean value)
    {
        udpSteerByCpu = value;
        return this;
    }

    public ByteBufAllocator allocator()
    {
        return allocator;
    }

    /**
     * The shards' allocator: stateless answers and the transaction layer's own messages; default Netty's pooled
     * allocator, and then each shard's outbound messages and hand-over copies come from a pooled allocator of the
     * shard's own ({@link OutboundBuffers}), so that the buffers it keeps hold no chunk of this one. Any other
     * allocator serves those too.
     */
    public SipStackConfig allocator(final ByteBufAllocator value)
    {
        allocator = value;
        return this;
    }

    public boolean tcp()
    {
        return tcp;
    }

    /** Listen on TCP on every address:port of {@link #ports} as well as UDP (default true). */
    public SipStackConfig tcp(final boolean value)
    {
        tcp = value;
        return this;
    }

    public long connectionIdleMillis()
    {
        return connectionIdleMillis;
    }

    /** A TCP or TLS connection with neither reads nor sends for this long is closed (0 = never); default 300 s. */
    public SipStackConfig connectionIdleMillis(final long value)
    {
        connectionIdleMillis = value;
        return this;
    }

    public long connectTimeoutMillis()
    {
        return connectTimeoutMillis;
    }

    public long messageTimeoutMillis()
    {
        return messageTimeoutMillis;
    }

    /**
     * A message on a TCP or TLS connection must be whole within this long of its first byte, and an accepted
     * connection must send its first whole message (after its TLS handshake) within this long of its accept; else
     * the connection is closed (slowloris, headers that never end, connections left idle). 0 = never; default 10 s.
     */
    public SipStackConfig messageTimeoutMillis(final long value)
    {
        if (value < 0)
        {
            throw new IllegalArgumentException("message timeout must not be negative: " + value);
        }
        messageTimeoutMillis = value;
        return this;
    }

    public int maxConnections()
    {
        return maxConnections;
    }

    /** Accepted TCP and TLS connections open at once; beyond it a new one is closed at once (0 = no limit). */
    public SipStackConfig maxConnections(final int value)
    {
        if (value < 0)
        {
            throw new IllegalArgumentException("max connections must not be negative: " + value);
        }
        maxConnections = value;
        return this;
    }

    public int maxConnectionsPerAddress()
    {
        return maxConnectionsPerAddress;
    }

    /** Accepted TCP and TLS connections open at once from one IP address (0 = no limit). */
    public SipStackConfig maxConnectionsPerAddress(final int value)
    {
        if (value < 0)
        {
            throw new IllegalArgumentException("max connections per address must not be negative: " + value);
        }
        maxConnectionsPerAddress = value;
        return this;
    }

    /** How long an outbound TCP or TLS connect may take before the request fails with a transport error. */
    public SipStackConfig connectTimeoutMillis(final long value)
    {
        connectTimeoutMillis = value;
        return this;
    }

    public Path tlsCertificate()
    {
        return tlsCertificate;
    }

    /**
     * The PEM certificate chain of the TLS listeners (flag {@code --tls-cert}); with {@link #tlsPrivateKey} it turns
     * TLS on, on {@link #tlsPorts}.
     */
    public SipStackConfig tlsCertificate(final Path value)
    {
        tlsCertificate = value;
        return this;
    }

    public Path tlsPrivateKey()
    {
        return tlsPrivateKey;
    }

    /** The PEM PKCS#8 private key of {@link #tlsCertificate} (flag {@code --tls-key}). */
    public SipStackConfig tlsPrivateKey(final Path value)
    {
        tlsPrivateKey = value;
        return this;
    }

    public Path tlsTrustedCertificates()
    {
        return tlsTrustedCertificates;
    }

    /**
     * PEM certificates that outbound TLS connections trust (a private CA, a peer's self-signed certificate); null
     * (the default) trusts the JDK's default trust store.
     */
    public SipStackConfig tlsTrustedCertificates(final Path value)
    {
        tlsTrustedCertificates = value;
        return this;
    }

    public int[] tlsPorts()
    {
        return tlsPorts.clone();
    }

    /** TLS ports (flag {@code --tls-port}), each bound on every address when TLS is on; default 5061; 0 = free. */
    public SipStackConfig tlsPorts(final int... value)
    {
        tlsPorts = value.clone();
        return this;
    }

    public int[] wsPorts()
    {
        return wsPorts.clone();
    }

    /** SIP-over-WebSocket ports (flag {@code --ws-port}, RFC 7118), each bound on every address; none by default. */
    public SipStackConfig wsPorts(final int... value)
    {
        wsPorts = value.clone();
        return this;
    }

    public int[] wssPorts()
    {
        return wssPorts.clone();
    }

    /** Secure WebSocket ports (flag {@code --wss-port}): TLS with the TLS listeners' certificate and key. */
    public SipStackConfig wssPorts(final int... value)
    {
        wssPorts = value.clone();
        return this;
    }

    public io.sipline.sip.transport.tcp.WsSettings webSocket()
    {
        return webSocket;
    }

    /** Path, origins, sizes, limits and timers of the WebSocket listeners. */
    public SipStackConfig webSocket(final io.sipline.sip.transport.tcp.WsSettings value)
    {
        webSocket = java.util.Objects.requireNonNull(value);
        return this;
    }

    /** Where every SIP message read and sent is mirrored in HEPv3, or null (the default) for no capture. */
    public io.sipline.sip.capture.HepConfig hep()
    {
        return hep;
    }

    /** Mirror every SIP message read and sent, on every transport, to this HEP collector; null for none. */
    public SipStackConfig hep(final io.sipline.sip.capture.HepConfig value)
    {
        hep = value;
        return this;
    }

    public List<InetSocketAddress> dnsServers()
    {
        return dnsServers;
    }

    /** DNS servers for RFC 3263 location ({@link StackShard#locator()}), in order; empty (default): the system's. */
    public SipStackConfig dnsServers(final List<InetSocketAddress> value)
    {
        dnsServers = List.copyOf(value);
        return this;
    }

    public long dnsTimeoutMillis()
    {
        return dnsTimeoutMillis;
    }

    /** How long one DNS query may take (default 2 s). */
    public SipStackConfig dnsTimeoutMillis(final long value)
    {
        dnsTimeoutMillis = value;
        return this;
    }

    /** True when a certificate and a key are set: the stack listens for TLS. */
    public boolean tls()
    {
        return null != tlsCertificate && null != tlsPrivateKey;
    }

    /** The transaction layer settings of one shard, derived from this configuration. */
    TransactionConfig transactionConfig()
    {
        return new TransactionConfig()
            .t1Ns(t1Ns)
            .t2Ns(t2Ns)
            .t4Ns(t4Ns)
            .initialPoolSize(initialTransactionPool)
            .initialTableCapacity(2 * initialTransactionPool)
            .allocator(allocator);
    }

    void validate()
    {
        if (Integer.bitCount(timerSpokeCapacity) != 1)
        {
            throw new IllegalArgumentException("timerSpokeCapacity must be a power of two: " + timerSpokeCapacity);
        }
        if (outboundBuffers < 0)
        {
            throw new IllegalArgumentException("outboundBuffers must be 0 or more");
        }
        if (shards < 1 || shards > io.sipline.sip.shard.ShardIds.MAX_SHARDS)
        {
            throw new IllegalArgumentException("shards must be 1.." + io.sipline.sip.shard.ShardIds.MAX_SHARDS);
        }
        if (node < NODE_NONE || node >= io.sipline.sip.shard.ShardIds.MAX_NODES)
        {
            throw new IllegalArgumentException("node must be 0.." + (io.sipline.sip.shard.ShardIds.MAX_NODES - 1)
                + ": " + node);
        }
        if (t1Ns <= 0 || t2Ns < t1Ns || t4Ns <= 0 || tickNs <= 0 || drainLimit <= 0 || handoffQueueCapacity < 2)
        {
            throw new IllegalArgumentException("invalid timer or queue settings");
        }
        if (connectionIdleMillis < 0 || connectTimeoutMillis <= 0 || dnsTimeoutMillis <= 0)
        {
            throw new IllegalArgumentException("invalid connection settings: idle " + connectionIdleMillis
                + " ms, connect timeout " + connectTimeoutMillis + " ms");
        }
        if ((null == tlsCertificate) != (null == tlsPrivateKey))
        {
            throw new IllegalArgumentException("TLS needs both a certificate (--tls-cert) and a key (--tls-key)");
        }
        if (wssPorts.length > 0 && null == tlsCertificate)
        {
            throw new IllegalArgumentException("--wss-port needs a certificate and a key (--tls-cert, --tls-key)");
        }
    }
}
