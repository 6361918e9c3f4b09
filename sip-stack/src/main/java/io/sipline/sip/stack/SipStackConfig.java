package io.sipline.sip.stack;

import java.net.InetAddress;
import java.util.List;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.sipline.sip.transaction.TransactionConfig;

/**
 * Settings of a {@link SipStack}: where it listens (addresses × UDP ports, bound once per shard with
 * {@code SO_REUSEPORT}), how many shards, the RFC 3261 timer bases T1/T2/T4 (§17, Table 4), and the sizes of the
 * per-shard queues and pools. Fluent setters with {@code *_DEFAULT} constants; read once by {@link SipStack#start}.
 *
 * <p>Not thread-safe: build it on one thread, then hand it to {@link SipStack#start}.
 */
public final class SipStackConfig
{
    public static final int SHARDS_DEFAULT = Math.max(1, Runtime.getRuntime().availableProcessors());
    /** Datagrams waiting in one shard's hand-over queue (a power of two); more are dropped and counted. */
    public static final int HANDOFF_QUEUE_DEFAULT = 4096;
    /** The most hand-overs one drain handles before it yields the loop to its sockets and timers. */
    public static final int DRAIN_LIMIT_DEFAULT = 256;
    /** The period of each shard's tick (timers, hand-over drain, {@link SipListener#onTick}): 1 ms. */
    public static final long TICK_NS_DEFAULT = 1_000_000L;
    public static final int INITIAL_POOL_DEFAULT = 256;
    public static final int INITIAL_DIALOGS_DEFAULT = 1024;

    private List<InetAddress> addresses = List.of(InetAddress.getLoopbackAddress());
    private int[] ports = {5060};
    private int shards = SHARDS_DEFAULT;
    private boolean nativeTransport = true;
    private long t1Ns = TransactionConfig.T1_DEFAULT_NS;
    private long t2Ns = TransactionConfig.T2_DEFAULT_NS;
    private long t4Ns = TransactionConfig.T4_DEFAULT_NS;
    private int handoffQueueCapacity = HANDOFF_QUEUE_DEFAULT;
    private int drainLimit = DRAIN_LIMIT_DEFAULT;
    private long tickNs = TICK_NS_DEFAULT;
    private int initialTransactionPool = INITIAL_POOL_DEFAULT;
    private int initialDialogs = INITIAL_DIALOGS_DEFAULT;
    private ByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;

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

    /** UDP ports, each bound on every address (0 = any free port); default 5060. */
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

    public ByteBufAllocator allocator()
    {
        return allocator;
    }

    /** Where outbound messages and hand-over copies are allocated; default Netty's pooled allocator. */
    public SipStackConfig allocator(final ByteBufAllocator value)
    {
        allocator = value;
        return this;
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
        if (shards < 1 || shards > io.sipline.sip.shard.ShardIds.MAX_SHARDS)
        {
            throw new IllegalArgumentException("shards must be 1.." + io.sipline.sip.shard.ShardIds.MAX_SHARDS);
        }
        if (t1Ns <= 0 || t2Ns < t1Ns || t4Ns <= 0 || tickNs <= 0 || drainLimit <= 0 || handoffQueueCapacity < 2)
        {
            throw new IllegalArgumentException("invalid timer or queue settings");
        }
    }
}
