package io.sipline.sip.transport;

import java.net.InetAddress;
import java.util.List;

import io.sipline.sip.shard.ShardIds;

/**
 * What the UDP transport listens on: every port on every address (IPv4 or IPv6, wildcard or not), with how many
 * shards. Immutable; thread-safe.
 *
 * @param addresses       the local addresses to bind, at least one.
 * @param ports           the ports to bind on each address, at least one, each 0 to 65535; 0 asks the kernel for a free
 *                        port (all shards then share that one port).
 * @param shards          the number of event-loop shards, 1 to {@value #MAX_SHARDS}.
 * @param nativeTransport true to use native epoll when available (the default); false forces NIO (for tests of the
 *                        fallback).
 * @param peers           when shards connect channels to active peers (epoll only; {@link UdpPeerConfig#OFF} for
 *                        none).
 * @param steerByCpu      true to pick the shard of each datagram by the CPU that received it (a classic BPF program
 *                        on each port's {@code SO_REUSEPORT} group, see {@link SocketFilters#steerByCpu}) instead of
 *                        the kernel's hash of the sender's address and port; epoll only, off by default.
 */
public record UdpTransportConfig(List<InetAddress> addresses, int[] ports, int shards, boolean nativeTransport,
    UdpPeerConfig peers, boolean steerByCpu)
{
    /** Ids the stack makes carry the shard index in two hex digits ({@link ShardIds}). */
    public static final int MAX_SHARDS = ShardIds.MAX_SHARDS;

    public UdpTransportConfig
    {
        addresses = List.copyOf(addresses);
        ports = ports.clone();
        java.util.Objects.requireNonNull(peers, "peers");
        if (addresses.isEmpty())
        {
            throw new IllegalArgumentException("no address to listen on");
        }
        if (0 == ports.length)
        {
            throw new IllegalArgumentException("no port to listen on");
        }
        for (final int port : ports)
        {
            if (port < 0 || port > 65535)
            {
                throw new IllegalArgumentException("port " + port + " is out of range 0-65535");
            }
        }
        if (shards < 1 || shards > MAX_SHARDS)
        {
            throw new IllegalArgumentException("shards " + shards + " is out of range 1-" + MAX_SHARDS);
        }
    }

    /** With connected peer channels as {@link UdpPeerConfig#DEFAULT} says, and the kernel's hash across shards. */
    public UdpTransportConfig(final List<InetAddress> addresses, final int[] ports, final int shards,
        final boolean nativeTransport)
    {
        this(addresses, ports, shards, nativeTransport, UdpPeerConfig.DEFAULT, false);
    }

    /** The ports, a copy. */
    @Override
    public int[] ports()
    {
        return ports.clone();
    }
}
