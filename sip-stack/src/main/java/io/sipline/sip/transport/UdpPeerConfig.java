package io.sipline.sip.transport;

/**
 * When a shard gives an active UDP peer its own connected channel ({@link UdpPeers}): a socket bound to the listening
 * address:port with {@code SO_REUSEPORT} and connected to the peer, so that the kernel delivers that peer's datagrams
 * on it without a source address to decode, and datagrams to the peer are written without an address. Immutable;
 * thread-safe.
 *
 * @param connectAfter how many datagrams a shard must have read from or sent to a peer (on one local address:port)
 *                     before it connects a channel to it; 0 turns connected channels off.
 * @param maxConnected most connected channels one shard keeps open; the least recently used one is closed to make
 *                     room. At least 1 when {@code connectAfter} is not 0.
 * @param idleMillis   a peer not heard from nor written to for this long loses its channel (and its count).
 * @param quietMillis  when a shard has {@code maxConnected} channels, the least recently used one is closed for a new
 *                     busy peer only if its own peer has been quiet this long; 0 closes it at once. With more busy
 *                     peers than channels, closing at once makes every channel close and reopen in turn (and each
 *                     close loses the datagrams queued on that socket); waiting keeps the channels where they are
 *                     and the other peers on the listening sockets.
 */
public record UdpPeerConfig(int connectAfter, int maxConnected, long idleMillis, long quietMillis)
{
    /** Datagrams before a peer is connected, by default: a busy peer (a proxy, a trunk), not every phone. */
    public static final int CONNECT_AFTER_DEFAULT = 32;
    /**
     * Connected channels per shard, at most, by default. Each costs a file descriptor, a kernel socket (its buffers
     * are only charged for queued datagrams) and a Netty channel on the heap, and it shares the kernel's
     * per-address:port lookup chain with the listening sockets, lengthening the walk for datagrams of peers on that
     * address:port that have none (Linux 6.13+ finds connected sockets by a 4-tuple hash first): about 8 ns per
     * connected socket sharing the address:port, while a datagram to a connected socket costs the same whatever their
     * number. A larger cap is cheap when the peers spread over many ports and costly for the peers left on one busy
     * port; a smaller one leaves a shard with many busy peers answering most of them on the listening sockets, which
     * costs allocation per transaction ({@code StackManyPeersAllocationTest}).
     */
    public static final int MAX_CONNECTED_DEFAULT = 256;
    /** Idle time after which a peer's channel is closed, by default: Timer B/F (64*T1) with the default T1, twice. */
    public static final long IDLE_MILLIS_DEFAULT = 64_000;
    /** Quiet time before a channel gives its place to another peer, by default. */
    public static final long QUIET_MILLIS_DEFAULT = 1_000;

    /** The defaults: on. */
    public static final UdpPeerConfig DEFAULT =
        new UdpPeerConfig(CONNECT_AFTER_DEFAULT, MAX_CONNECTED_DEFAULT, IDLE_MILLIS_DEFAULT);
    /** No connected channel: every datagram goes through the listening sockets. */
    public static final UdpPeerConfig OFF = new UdpPeerConfig(0, 0, IDLE_MILLIS_DEFAULT);

    public UdpPeerConfig
    {
        if (connectAfter < 0 || maxConnected < 0 || (connectAfter > 0 && maxConnected < 1) || idleMillis <= 0
            || quietMillis < 0)
        {
            throw new IllegalArgumentException("invalid connected UDP peer settings: after " + connectAfter
                + " datagrams, at most " + maxConnected + " per shard, idle " + idleMillis + " ms, quiet "
                + quietMillis + " ms");
        }
    }

    /** With the default quiet time ({@value #QUIET_MILLIS_DEFAULT} ms). */
    public UdpPeerConfig(final int connectAfter, final int maxConnected, final long idleMillis)
    {
        this(connectAfter, maxConnected, idleMillis, QUIET_MILLIS_DEFAULT);
    }

    /** True when shards connect channels to their active peers. */
    public boolean enabled()
    {
        return connectAfter > 0;
    }
}
