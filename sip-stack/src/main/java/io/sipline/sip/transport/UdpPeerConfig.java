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
 */
public record UdpPeerConfig(int connectAfter, int maxConnected, long idleMillis)
{
    /** Datagrams before a peer is connected, by default: a busy peer (a proxy, a trunk), not every phone. */
    public static final int CONNECT_AFTER_DEFAULT = 32;
    /**
     * Connected channels per shard, at most, by default. Kept small on purpose: connected sockets share the kernel's
     * per-address:port lookup chain with the listening ones, so each one lengthens the walk for datagrams of the
     * peers that have none.
     */
    public static final int MAX_CONNECTED_DEFAULT = 64;
    /** Idle time after which a peer's channel is closed, by default: Timer B/F (64*T1) with the default T1, twice. */
    public static final long IDLE_MILLIS_DEFAULT = 64_000;

    /** The defaults: on. */
    public static final UdpPeerConfig DEFAULT =
        new UdpPeerConfig(CONNECT_AFTER_DEFAULT, MAX_CONNECTED_DEFAULT, IDLE_MILLIS_DEFAULT);
    /** No connected channel: every datagram goes through the listening sockets. */
    public static final UdpPeerConfig OFF = new UdpPeerConfig(0, 0, IDLE_MILLIS_DEFAULT);

    public UdpPeerConfig
    {
        if (connectAfter < 0 || maxConnected < 0 || (connectAfter > 0 && maxConnected < 1) || idleMillis <= 0)
        {
            throw new IllegalArgumentException("invalid connected UDP peer settings: after " + connectAfter
                + " datagrams, at most " + maxConnected + " per shard, idle " + idleMillis + " ms");
        }
    }

    /** True when shards connect channels to their active peers. */
    public boolean enabled()
    {
        return connectAfter > 0;
    }
}
