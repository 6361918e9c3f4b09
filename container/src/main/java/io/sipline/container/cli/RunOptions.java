package io.sipline.container.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

import io.sipline.container.os.GcThreadScheduling;
import io.sipline.sip.capture.HepConfig;

/**
 * The validated options of {@code sipline run}.
 *
 * @param bind     the addresses to listen on, at least one, no duplicates.
 * @param port     the SIP port, 1 to 65535.
 * @param udpPorts the extra UDP ports, none equal to {@code port}.
 * @param shards   the number of event-loop shards.
 * @param profile  the GC profile the launcher started the JVM with (informational here).
 * @param deploy   what {@code --deploy} named, in order: {@code .war} files, exploded application directories, and
 *                 folders to watch; may be empty.
 * @param dar      the {@code --dar} file of the default application router, or {@code null}.
 * @param adminPort the {@code --admin-port}, or {@code null} for none.
 * @param users    the {@code --users} file (checked readable and well-formed), or {@code null} for none.
 * @param tls      the TLS listeners ({@code --tls-port}, {@code --tls-cert}, {@code --tls-key}), or {@code null}
 *                 when TLS is off.
 * @param gcThreads the {@code --gc-threads} scheduling of ZGC's concurrent threads, or {@code null} for the
 *                 profile's {@code -Dsipline.gc.threads}.
 * @param warmupCalls the {@code --warmup} calls placed through a warm-up container before the server binds its
 *                 ports ({@code io.sipline.container.warmup.Warmup}); 0 for none.
 * @param overloadWaitMillis the {@code --overload-wait}: a new request that waited longer than this many
 *                 milliseconds since it arrived is refused with 503 (overload control); 0 for off.
 * @param sharedLibraries the {@code --shared-lib} jars every application sees (checked readable); may be empty.
 * @param webSocket the SIP-over-WebSocket listeners ({@code --ws-port}, {@code --wss-port}, ...), or {@code null}
 *                 when there are none.
 * @param http     the {@code --http-port} on the {@code --http-bind} address (the web half of converged
 *                 applications), or {@code null} when it is off.
 * @param media    the media relay's ports and addresses ({@code --media-ports}, {@code --media-bind},
 *                 {@code --media-advertise}, ...), or {@code null} for the defaults on the first {@code --bind}
 *                 address.
 * @param hep      the HEPv3 capture ({@code --hep}, {@code --hep-id}, {@code --hep-password}), or {@code null} when
 *                 it is off.
 * @param cluster  the {@code --cluster-*} membership, or {@code null} outside a cluster.
 * @param streams  the TCP and TLS limits ({@code --tcp-message-timeout}, {@code --tcp-max-connections},
 *                 {@code --tcp-max-per-address}), or {@code null} for the defaults.
 */
public record RunOptions(
    List<InetAddress> bind, int port, PortList udpPorts, int shards, String profile,
    List<Path> deploy, Path dar, Integer adminPort, Path users, Tls tls, GcThreadScheduling.Mode gcThreads,
    int warmupCalls, int overloadWaitMillis, List<Path> sharedLibraries, WebSocket webSocket,
    InetSocketAddress http, Media media, HepConfig hep, Cluster cluster, StreamLimits streams)
{
    /**
     * The limits of the TCP and TLS listeners against connection abuse ({@code io.sipline.sip.stack.SipStackConfig}).
     *
     * @param messageTimeoutMillis a message must be whole within this of its first byte (0: never).
     * @param maxConnections       accepted connections open at once (0: no limit).
     * @param maxPerAddress        accepted connections open at once from one IP address (0: no limit).
     */
    public record StreamLimits(long messageTimeoutMillis, int maxConnections, int maxPerAddress)
    {
    }

    /** Options with the default TCP and TLS limits. */
    public RunOptions(
        final List<InetAddress> bind, final int port, final PortList udpPorts, final int shards, final String profile,
        final List<Path> deploy, final Path dar, final Integer adminPort, final Path users, final Tls tls,
        final GcThreadScheduling.Mode gcThreads, final int warmupCalls, final int overloadWaitMillis,
        final List<Path> sharedLibraries, final WebSocket webSocket, final InetSocketAddress http, final Media media,
        final HepConfig hep, final Cluster cluster)
    {
        this(bind, port, udpPorts, shards, profile, deploy, dar, adminPort, users, tls, gcThreads, warmupCalls,
            overloadWaitMillis, sharedLibraries, webSocket, http, media, hep, cluster, null);
    }

    /**
     * The media relay behind the media service (validated by the run command's media flags).
     *
     * @param portMin       lowest UDP port.
     * @param portMax       highest UDP port.
     * @param bind          the address media sockets bind, or null for the first {@code --bind} address.
     * @param advertise     the address written into SDP, or null for the bind address.
     * @param threads       media threads, or 0 for one per core.
     * @param idleTimeoutMs silence after which an anchor's listener hears of it; 0 for never.
     */
    public record Media(int portMin, int portMax, InetAddress bind, InetAddress advertise, int threads,
        long idleTimeoutMs)
    {
    }

    /**
     * A cluster's membership: the grid member of this node binds {@code bind}, the other members are {@code peers}
     * (a static list), and {@code node} (0-255, unique in the cluster) is written into every id the node makes;
     * {@code front} is the SIP URI of the cluster's front (a loose route, {@code ;lr}) that the node's own initial
     * requests go through, or null when they go straight to their Request-URI.
     */
    public record Cluster(String name, InetSocketAddress bind, List<InetSocketAddress> peers, int node, String front)
    {
        public Cluster
        {
            peers = List.copyOf(peers);
        }

        /** A membership whose node's requests go straight to their Request-URI. */
        public Cluster(final String name, final InetSocketAddress bind, final List<InetSocketAddress> peers,
            final int node)
        {
            this(name, bind, peers, node, null);
        }
    }

    /** Options with the media relay's defaults, no capture, outside a cluster. */
    public RunOptions(
        final List<InetAddress> bind, final int port, final PortList udpPorts, final int shards, final String profile,
        final List<Path> deploy, final Path dar, final Integer adminPort, final Path users, final Tls tls,
        final GcThreadScheduling.Mode gcThreads, final int warmupCalls, final int overloadWaitMillis,
        final List<Path> sharedLibraries, final WebSocket webSocket, final InetSocketAddress http)
    {
        this(bind, port, udpPorts, shards, profile, deploy, dar, adminPort, users, tls, gcThreads, warmupCalls,
            overloadWaitMillis, sharedLibraries, webSocket, http, null, null, null);
    }

    /**
     * The SIP-over-WebSocket listeners (RFC 7118): every {@code --bind} address on each given port.
     *
     * @param wsPort   the {@code ws://} port (0: a free one), or null for none.
     * @param wssPort  the {@code wss://} port (TLS with {@link Tls}'s certificate), or null for none.
     * @param settings path, origins, sizes and limits.
     */
    public record WebSocket(Integer wsPort, Integer wssPort, io.sipline.sip.transport.tcp.WsSettings settings)
    {
    }

    /** Options without shared libraries, WebSocket listeners or web half. */
    public RunOptions(
        final List<InetAddress> bind, final int port, final PortList udpPorts, final int shards, final String profile,
        final List<Path> deploy, final Path dar, final Integer adminPort, final Path users, final Tls tls,
        final GcThreadScheduling.Mode gcThreads, final int warmupCalls, final int overloadWaitMillis)
    {
        this(bind, port, udpPorts, shards, profile, deploy, dar, adminPort, users, tls, gcThreads, warmupCalls,
            overloadWaitMillis, List.of(), null, null);
    }

    /**
     * The TLS listeners: every {@code --bind} address on {@code port}, with a PEM certificate chain and its PEM
     * PKCS#8 private key (both checked readable).
     *
     * @param port        the TLS port, 1 to 65535.
     * @param certificate the {@code --tls-cert} file.
     * @param privateKey  the {@code --tls-key} file.
     */
    public record Tls(int port, Path certificate, Path privateKey)
    {
    }

    public RunOptions
    {
        bind = List.copyOf(bind);
        deploy = List.copyOf(deploy);
        sharedLibraries = List.copyOf(sharedLibraries);
        if (warmupCalls < 0)
        {
            throw new IllegalArgumentException("warm-up calls must not be negative: " + warmupCalls);
        }
        if (overloadWaitMillis < 0)
        {
            throw new IllegalArgumentException("the overload wait must not be negative: " + overloadWaitMillis);
        }
    }

    /** Options without a warm-up and without overload control. */
    public RunOptions(
        final List<InetAddress> bind, final int port, final PortList udpPorts, final int shards, final String profile,
        final List<Path> deploy, final Path dar, final Integer adminPort, final Path users, final Tls tls,
        final GcThreadScheduling.Mode gcThreads)
    {
        this(bind, port, udpPorts, shards, profile, deploy, dar, adminPort, users, tls, gcThreads, 0, 0);
    }

    /** Options without applications, router file or admin port (the transport alone; tests). */
    public RunOptions(
        final List<InetAddress> bind, final int port, final PortList udpPorts, final int shards, final String profile)
    {
        this(bind, port, udpPorts, shards, profile, List.of(), null, null);
    }

    /** Options without users file or TLS. */
    public RunOptions(
        final List<InetAddress> bind, final int port, final PortList udpPorts, final int shards, final String profile,
        final List<Path> deploy, final Path dar, final Integer adminPort)
    {
        this(bind, port, udpPorts, shards, profile, deploy, dar, adminPort, null, null, null);
    }

    /** {@link #port()} first, then the extra UDP ports. */
    public int[] allUdpPorts()
    {
        final int[] extra = udpPorts.ports();
        final int[] all = new int[extra.length + 1];
        all[0] = port;
        System.arraycopy(extra, 0, all, 1, extra.length);
        return all;
    }
}
