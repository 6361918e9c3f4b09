package io.sipline.container.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.sipline.sip.shard.ShardIds;
import picocli.CommandLine.Option;

/**
 * The {@code sipline run} flags of a cluster, a picocli mixin of the run command: the cluster's name, the address
 * this node's grid member binds, its peers' addresses (a static member list: no multicast) and the node number written
 * into every Call-ID, tag and branch the node makes, and the front its own initial requests go through. Validated into
 * a {@link RunOptions.Cluster} by {@link #options}.
 *
 * <p>Not thread-safe: filled by picocli, read once on the command's thread.
 */
final class ClusterFlags
{
    @Option(names = "--cluster-name", paramLabel = "NAME",
        description = "Join the cluster NAME: distributable applications keep their sessions in a grid shared with "
            + "the --cluster-peers, and every id this node makes names it. Off by default.")
    String name;

    @Option(names = "--cluster-bind", paramLabel = "ADDR:PORT",
        description = "The address and TCP port this node's grid member listens on (not the SIP port); required "
            + "with --cluster-name.")
    String bind;

    @Option(names = "--cluster-peers", paramLabel = "ADDR:PORT,...",
        description = "The grid addresses (their --cluster-bind) of the other nodes, comma-separated; the same "
            + "members on every node.")
    String peers;

    @Option(names = "--cluster-node", paramLabel = "N",
        description = "This node's number, 0-255, unique in the cluster. Default: the place of --cluster-bind among "
            + "all members (--cluster-bind and --cluster-peers) in address order, the same on every node given the "
            + "same member list.")
    Integer node;

    @Option(names = "--cluster-front", paramLabel = "URI",
        description = "The SIP URI of the cluster's front (e.g. sip:127.0.0.1:5060): the initial requests this node "
            + "sends as a user agent (a B2BUA's outbound legs) go through it with a Route to it (RFC 3261 §8.1.2), "
            + "so that it Record-Routes them and the far end's requests come back through it. Off by default.")
    String front;

    /**
     * @return the cluster, or null when no --cluster-* flag was given.
     * @throws IllegalArgumentException naming the flag that is wrong and why.
     */
    RunOptions.Cluster options()
    {
        if (null == name)
        {
            if (null != bind || null != peers || null != node || null != front)
            {
                throw new IllegalArgumentException("--cluster-bind, --cluster-peers, --cluster-node and "
                    + "--cluster-front need --cluster-name");
            }
            return null;
        }
        if (name.isBlank() || name.chars().anyMatch(c -> c <= ' ' || c > '~'))
        {
            throw new IllegalArgumentException("--cluster-name: '" + name + "' must be printable ASCII without "
                + "blanks");
        }
        if (null == bind)
        {
            throw new IllegalArgumentException("--cluster-name needs --cluster-bind ADDR:PORT (this node's grid "
                + "address)");
        }
        final InetSocketAddress self = address("--cluster-bind", bind.strip());
        final List<InetSocketAddress> others = peerList(self);
        if (others.size() + 1 > ShardIds.MAX_NODES)
        {
            throw new IllegalArgumentException("--cluster-peers: " + (others.size() + 1) + " members; at most "
                + ShardIds.MAX_NODES);
        }
        final int n;
        if (null != node)
        {
            if (node < 0 || node >= ShardIds.MAX_NODES)
            {
                throw new IllegalArgumentException("--cluster-node: " + node + " is not within 0-"
                    + (ShardIds.MAX_NODES - 1));
            }
            n = node;
        }
        else
        {
            n = placeOf(self, others);
        }
        return new RunOptions.Cluster(name, self, others, n, null == front ? null : frontRoute(front.strip()));
    }

    /**
     * The front's URI as a loose route ({@code ;lr} added when missing, RFC 3261 §16.12.1.1): a sip or sips URI
     * with a host, an optional port and parameters, and no user part.
     */
    static String frontRoute(final String uri)
    {
        final String lower = uri.toLowerCase(java.util.Locale.ROOT);
        final int colon = uri.indexOf(':');
        final String why;
        if (!lower.startsWith("sip:") && !lower.startsWith("sips:"))
        {
            why = "is not a sip: or sips: URI";
        }
        else if (uri.chars().anyMatch(c -> c <= ' ' || c == '<' || c == '>' || c == '@' || c == '?' || c == '"'))
        {
            why = "may hold no user part, header, blank or angle bracket";
        }
        else
        {
            final int params = uri.indexOf(';');
            final String hostPort = uri.substring(colon + 1, params < 0 ? uri.length() : params);
            why = hostPortError(hostPort);
        }
        if (null != why)
        {
            throw new IllegalArgumentException("--cluster-front: '" + uri + "' " + why
                + " (like sip:127.0.0.1:5060)");
        }
        final boolean loose = lower.matches(".*;lr(=[^;]*)?(;.*)?");
        return loose ? uri : uri + ";lr";
    }

    /** Why {@code hostPort} (a host or [IPv6], then an optional :PORT) is not one, or null. */
    private static String hostPortError(final String hostPort)
    {
        final int close = hostPort.startsWith("[") ? hostPort.indexOf(']') : -1;
        final int colon = hostPort.indexOf(':', Math.max(close, 0));
        final String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
        if (host.isEmpty() || hostPort.startsWith("[") && close < 0)
        {
            return "has no host";
        }
        if (colon < 0)
        {
            return null;
        }
        try
        {
            final int port = Integer.parseInt(hostPort.substring(colon + 1));
            return port < 1 || port > 65535 ? "has a port not within 1-65535" : null;
        }
        catch (final NumberFormatException e)
        {
            return "has a port that is not a number";
        }
    }

    /** The peers, each once, none equal to {@code self}; an empty or wrong entry names itself in the error. */
    private List<InetSocketAddress> peerList(final InetSocketAddress self)
    {
        final List<InetSocketAddress> out = new ArrayList<>();
        if (null == peers)
        {
            return out;
        }
        for (final String raw : peers.split(",", -1))
        {
            final String entry = raw.strip();
            if (entry.isEmpty())
            {
                throw new IllegalArgumentException("--cluster-peers: an empty entry in '" + peers
                    + "' (expected ADDR:PORT,ADDR:PORT,...)");
            }
            final InetSocketAddress peer = address("--cluster-peers", entry);
            if (peer.equals(self))
            {
                throw new IllegalArgumentException("--cluster-peers: " + entry + " is this node's --cluster-bind");
            }
            if (out.contains(peer))
            {
                throw new IllegalArgumentException("--cluster-peers: " + entry + " is given twice");
            }
            out.add(peer);
        }
        return out;
    }

    /** The place of {@code self} among all members ordered by address bytes, then port. */
    static int placeOf(final InetSocketAddress self, final List<InetSocketAddress> others)
    {
        final List<InetSocketAddress> all = new ArrayList<>(others);
        all.add(self);
        all.sort(Comparator.comparing((InetSocketAddress a) -> a.getAddress().getAddress(), java.util.Arrays::compare)
            .thenComparingInt(InetSocketAddress::getPort));
        return all.indexOf(self);
    }

    /** {@code ADDR:PORT} or {@code [IPv6]:PORT} as a resolved address; the error names {@code flag}. */
    static InetSocketAddress address(final String flag, final String value)
    {
        final int colon = value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1)
        {
            throw new IllegalArgumentException(flag + ": '" + value + "' is not ADDR:PORT (like 127.0.0.2:7800)");
        }
        String host = value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        else if (host.indexOf(':') >= 0)
        {
            throw new IllegalArgumentException(flag + ": '" + value + "': write an IPv6 address in brackets, like "
                + "[::1]:7800");
        }
        final int port;
        try
        {
            port = Integer.parseInt(value.substring(colon + 1));
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException(flag + ": '" + value + "': the port is not a number", e);
        }
        if (port < 1 || port > 65535)
        {
            throw new IllegalArgumentException(flag + ": '" + value + "': the port is not within 1-65535");
        }
        try
        {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        }
        catch (final UnknownHostException e)
        {
            throw new IllegalArgumentException(flag + ": '" + value + "': unknown host " + host, e);
        }
    }
}
