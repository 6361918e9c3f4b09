package io.sipline.sip.transport.tcp;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The connection limits of a kind of listener (TCP and TLS, or WebSocket): at most {@code maxConnections} open in all
 * and {@code maxPerAddress} from one IP address, counted from the accept (a handshake in progress holds a place) to
 * the close. A refusal is answered with the counter slot the owner gave for it.
 *
 * <p><b>Threading.</b> Shared by every shard: connections of one address land on several shards with
 * {@code SO_REUSEPORT}. Called once per accept and once per close, never per message; the per-address table is a
 * {@link ConcurrentHashMap} whose entries are dropped when their count returns to 0.
 */
final class ConnectionAdmission
{
    private final int maxConnections;
    private final int maxPerAddress;
    private final int overTotalSlot;
    private final int overPerAddressSlot;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

    /**
     * @param maxConnections     open connections in all; 0: no limit.
     * @param maxPerAddress      open connections from one IP address; 0: no limit.
     * @param overTotalSlot      what {@link #admit} returns when the total is reached (a positive counter slot).
     * @param overPerAddressSlot what it returns when the address's share is reached (a positive counter slot).
     */
    ConnectionAdmission(final int maxConnections, final int maxPerAddress, final int overTotalSlot,
        final int overPerAddressSlot)
    {
        this.maxConnections = maxConnections;
        this.maxPerAddress = maxPerAddress;
        this.overTotalSlot = overTotalSlot;
        this.overPerAddressSlot = overPerAddressSlot;
    }

    /**
     * Takes a place for a connection from {@code address}.
     *
     * @return 0 when admitted (call {@link #release} at its close), else the counter slot of the refusal.
     */
    int admit(final InetAddress address)
    {
        if (open.incrementAndGet() > maxConnections && maxConnections > 0)
        {
            open.decrementAndGet();
            return overTotalSlot;
        }
        if (maxPerAddress > 0)
        {
            final Integer now = perAddress.merge(address, 1, Integer::sum);
            if (now > maxPerAddress)
            {
                releaseAddress(address);
                open.decrementAndGet();
                return overPerAddressSlot;
            }
        }
        return 0;
    }

    /** Gives back the place {@link #admit} took. */
    void release(final InetAddress address)
    {
        if (maxPerAddress > 0)
        {
            releaseAddress(address);
        }
        open.decrementAndGet();
    }

    private void releaseAddress(final InetAddress address)
    {
        perAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }

    /** Connections holding a place now; any thread. */
    int open()
    {
        return open.get();
    }
}
