package io.sipline.container;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import javax.servlet.sip.ar.SipApplicationRouter;

import io.netty.util.NetUtil;

import io.sipline.container.admin.AdminServer;
import io.sipline.container.admin.ContainerServerStatus;
import io.sipline.container.cli.Cli;
import io.sipline.container.cli.RunOptions;
import io.sipline.container.media.ContainerMedia;
import io.sipline.media.service.RelayMediaService;
import io.sipline.container.deploy.ApplicationDeployer;
import io.sipline.container.deploy.DeploymentListener;
import io.sipline.container.deploy.DeploymentWatcher;
import io.sipline.container.deploy.SharedLibraries;
import io.sipline.container.web.ConvergedDeployment;
import io.sipline.container.web.WebServer;
import io.sipline.container.dispatch.ContainerServer;
import io.sipline.container.logging.LogSetup;
import io.sipline.container.logging.RefusalLog;
import io.sipline.container.logging.ServerRefusals;
import io.sipline.container.os.GcThreadScheduling;
import io.sipline.container.replication.GridWriter;
import io.sipline.container.replication.ReplicationProvider;
import io.sipline.container.replication.SessionReplicator;
import io.sipline.container.router.ApplicationRouters;
import io.sipline.container.router.DarConfiguration;
import io.sipline.container.router.DarConfigurationException;
import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.container.security.UserRealm;
import io.sipline.container.security.UsersFileException;
import io.sipline.container.warmup.Warmup;
import io.sipline.sip.stack.SipStackConfig;
import io.sipline.sip.transport.ShardCounters;
import io.sipline.sip.transport.UdpBindException;
import io.sipline.sip.transport.UdpTransport;

/**
 * The server's entry point, as {@code bin/sipline run} starts it: {@code java <profile options> -cp ...
 * io.sipline.container.Main run [options]}; the options are parsed by {@link Cli}.
 *
 * <p>Starts the SIP stack with the servlet container on every shard ({@link ContainerServer}) and the application
 * router (JSR 289 §15.4.1: a {@code SipApplicationRouter} provider, else the default router with the {@code --dar}
 * file, else the default router in single-application mode), then deploys every {@code --deploy} path through the
 * {@link DeploymentWatcher} (one line per application; folders are watched). It prints one line per listening
 * address (udp, then tcp, tls, ws, wss), then {@code sipline: ready}. The logs are Log4j's, set up by the command
 * line ({@link LogSetup}); refused messages are logged per class and interval by a {@link RefusalLog}.
 *
 * <p>SIGTERM or SIGINT runs a shutdown hook that undeploys the applications, closes the channels, stops the shards
 * gracefully, prints {@code sipline: stopped} and exits with 0. A port that cannot be bound ends the process with
 * one line naming the address and exit code 1; a usage error exits with 2.
 *
 * <p>Threading: runs on the main thread, which returns once the server is up; the shard threads keep the JVM alive.
 */
public final class Main
{
    /** The bound on a graceful stop. */
    public static final long SHUTDOWN_MILLIS = 5_000;

    private Main()
    {
    }

    public static void main(final String[] args)
    {
        LogSetup.beforeFirstUse();
        // One line per log record ("sipline: WARNING: ..."), should the JDK's logging be the back end.
        if (null == System.getProperty("java.util.logging.SimpleFormatter.format"))
        {
            System.setProperty("java.util.logging.SimpleFormatter.format", "sipline: %4$s: %5$s%6$s%n");
        }
        final PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        final PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        final int code = Cli.execute(args, out, err, Main::serve);
        if (Cli.SERVING != code)
        {
            System.exit(code);
        }
    }

    /** Starts the container and deploys the applications; prints where it listens and "ready". */
    static int serve(final RunOptions options, final PrintWriter out, final PrintWriter err)
    {
        try
        {
            GcThreadScheduling.start(options.gcThreads(), out, err);
        }
        catch (final IllegalArgumentException e)
        {
            err.println("sipline: " + e.getMessage());
            return 2;
        }
        final SipApplicationRouter router;
        try
        {
            router = router(options.dar());
        }
        catch (final IllegalStateException e)
        {
            err.println("sipline: application router: " + e.getMessage());
            return 1;
        }
        final UserRealm users;
        try
        {
            users = null == options.users() ? UserRealm.empty() : UserRealm.load(options.users());
        }
        catch (final UsersFileException e)
        {
            err.println("sipline: --users: " + e.getMessage());
            return 1;
        }
        final SipStackConfig config = stackConfig(options);
        if (options.warmupCalls() > 0)
        {
            warmUp(options.warmupCalls(), options.shards(), options.overloadWaitMillis() * 1_000_000L, out, err);
        }
        final ContainerServer server;
        try
        {
            server = ContainerServer.start(config, router, users);
        }
        catch (final UdpBindException e)
        {
            err.println("sipline: " + e.getMessage());
            return 1;
        }
        catch (final IllegalArgumentException e) // e.g. a certificate or key the TLS context refuses (named)
        {
            err.println("sipline: " + e.getMessage());
            return 1;
        }
        final RelayMediaService media = startMedia(options, server, err);
        AdminServer admin = null;
        if (null != options.adminPort())
        {
            try
            {
                admin = AdminServer.start(new InetSocketAddress(options.bind().getFirst(), options.adminPort()),
                    server.stack(), new ContainerServerStatus(server));
            }
            catch (final IOException e)
            {
                err.println("sipline: admin port " + options.adminPort() + ": " + e.getMessage());
                server.close();
                return 1;
            }
        }
        final WebServer web = null == options.http() ? null : startWeb(options.http(), err);
        final SessionReplicator grid = null == options.http() || null != web ? joinGrid(options.cluster(), out, err)
            : null;
        if (null != options.http() && null == web || null != options.cluster() && GRID_FAILED == grid)
        {
            closeAll(web, admin, server);
            return 1;
        }
        exportMetrics(admin, web, media);
        final GridWriter writer = wireCluster(server, options, grid, admin, err);
        final DeploymentListener deployments =
            null == web ? server.registry() : new ConvergedDeployment(server.registry(), web);
        final DeploymentWatcher watcher =
            new DeploymentWatcher(options.deploy(), new ApplicationDeployer(
                SharedLibraries.loader(options.sharedLibraries(), Main.class.getClassLoader()), null),
                deployments, out, err);
        final AdminServer adminServer = admin;
        final RefusalLog refusals = ServerRefusals.log(server).start();
        final Thread hook = new Thread(
            () -> stop(watcher, adminServer, web, server, refusals, media, writer, grid, out), "sipline-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try
        {
            watcher.start();
        }
        catch (final IOException e)
        {
            err.println("sipline: cannot watch the deploy folders: " + e);
        }
        printReady(server, admin, web, media, out);
        return Cli.SERVING;
    }

    /**
     * Before any deployment: the grid's writer, through which distributable applications write and shards read other
     * nodes' calls, its counters in the admin port's {@code /metrics}, and the cluster's front, through which the
     * node's own initial requests go; null outside a grid.
     */
    private static GridWriter wireCluster(final ContainerServer server, final RunOptions options,
        final SessionReplicator grid, final AdminServer admin, final PrintWriter err)
    {
        final GridWriter writer = null == grid ? null : new GridWriter(grid, options.cluster().node(), err);
        if (null != writer && null != admin)
        {
            admin.metrics().registerGrid(writer);
        }
        server.registry().replication(writer, writer);
        server.registry().clusterFront(null == options.cluster() ? null : options.cluster().front());
        return writer;
    }

    /**
     * The media service on the media options, published to every application; null after saying on one line why
     * it is off (the media threads cannot start, or the options do not fit the addresses).
     */
    private static RelayMediaService startMedia(final RunOptions options, final ContainerServer server,
        final PrintWriter err)
    {
        try
        {
            final RelayMediaService media =
                ContainerMedia.start(ContainerMedia.settings(options.media(), options.bind().getFirst()));
            ContainerMedia.publish(server.registry(), media);
            return media;
        }
        catch (final IOException | IllegalArgumentException e)
        {
            err.println("sipline: media service off: " + e.getMessage());
            return null;
        }
    }

    /**
     * The web engine's requests per application and the media relay's counters in the admin port's
     * {@code /metrics}, for those that run.
     */
    private static void exportMetrics(final AdminServer admin, final WebServer web, final RelayMediaService media)
    {
        if (null != web && null != admin)
        {
            admin.metrics().registerHttp(web.metrics());
        }
        if (null != media && null != admin)
        {
            admin.metrics().registerMedia(media, media.relay());
        }
    }

    /** The web engine on {@code --http-port}, or null after saying on one line why it cannot start. */
    private static WebServer startWeb(final InetSocketAddress http, final PrintWriter err)
    {
        try
        {
            return WebServer.start(http);
        }
        catch (final Exception e)
        {
            err.println("sipline: --http-port " + http.getPort() + ": "
                + io.sipline.container.deploy.ApplicationClassLoader.oneLine(e));
            return null;
        }
    }

    /** What {@link #joinGrid} returns when the grid could not be joined (it said why). */
    private static final SessionReplicator GRID_FAILED = new NoGrid();

    /**
     * Joins the grid of {@code cluster} through the first {@link ReplicationProvider} on the class path, or returns
     * null outside a cluster. Without a provider (the cluster module is not on the class path) the node still writes
     * its number into its ids and says that it keeps no session in a grid; returns null then. When the grid cannot
     * be joined (its port taken, a peer it refuses) says why and returns {@link #GRID_FAILED}.
     */
    private static SessionReplicator joinGrid(final RunOptions.Cluster cluster, final PrintWriter out,
        final PrintWriter err)
    {
        if (null == cluster)
        {
            return null;
        }
        final ReplicationProvider provider = ReplicationProvider.find(Main.class.getClassLoader()).orElse(null);
        if (null == provider)
        {
            err.println("sipline: cluster " + cluster.name() + ": node " + cluster.node() + "; no grid on the class "
                + "path (the sipline-cluster jar), so no session is replicated");
            return null;
        }
        final String where = NetUtil.toSocketAddressString(cluster.bind());
        try
        {
            final SessionReplicator grid = provider.start(cluster.name(), cluster.bind(), cluster.peers(),
                cluster.node());
            out.println("sipline: cluster " + cluster.name() + ": node " + cluster.node() + ", " + provider.name()
                + " member on " + where + ", " + cluster.peers().size()
                + (1 == cluster.peers().size() ? " peer" : " peers"));
            return grid;
        }
        catch (final RuntimeException e) // the grid's own words
        {
            err.println("sipline: cluster " + cluster.name() + ": cannot join the grid on " + where + ": "
                + e.getMessage());
            return GRID_FAILED;
        }
    }

    private static void closeAll(final WebServer web, final AdminServer admin, final ContainerServer server)
    {
        if (null != web)
        {
            web.close();
        }
        if (null != admin)
        {
            admin.close();
        }
        server.close();
    }

    /** The marker of a grid that could not be joined; never used as a replicator. */
    private static final class NoGrid implements SessionReplicator
    {
        @Override
        public java.util.concurrent.CompletionStage<Void> write(
            final io.sipline.container.replication.ApplicationSnapshot snapshot)
        {
            throw new IllegalStateException("no grid");
        }

        @Override
        public java.util.Optional<io.sipline.container.replication.ApplicationSnapshot> read(final String id)
        {
            throw new IllegalStateException("no grid");
        }

        @Override
        public java.util.Optional<io.sipline.container.replication.ApplicationSnapshot> readByCallId(
            final String callId)
        {
            throw new IllegalStateException("no grid");
        }

        @Override
        public java.util.concurrent.CompletionStage<Void> remove(final String id)
        {
            throw new IllegalStateException("no grid");
        }

        @Override
        public int owner(final String id)
        {
            throw new IllegalStateException("no grid");
        }

        @Override
        public boolean claim(final String id, final int from, final int to)
        {
            throw new IllegalStateException("no grid");
        }

        @Override
        public java.util.List<String> ownedBy(final int node)
        {
            throw new IllegalStateException("no grid");
        }

        @Override
        public boolean member(final int node)
        {
            throw new IllegalStateException("no grid");
        }

        @Override
        public void onMemberLeft(final java.util.function.IntConsumer left)
        {
            throw new IllegalStateException("no grid");
        }

        @Override
        public long bytesWritten()
        {
            throw new IllegalStateException("no grid");
        }

        @Override
        public long bytesSent()
        {
            throw new IllegalStateException("no grid");
        }

        @Override
        public void close()
        {
        }
    }

    /** The stack's addresses, UDP ports, shards, overload wait and TLS of {@code options}. */
    private static SipStackConfig stackConfig(final RunOptions options)
    {
        final SipStackConfig config = new SipStackConfig().addresses(options.bind()).ports(options.allUdpPorts())
            .shards(options.shards()).overloadWaitNs(options.overloadWaitMillis() * 1_000_000L);
        if (null != options.tls())
        {
            config.tlsCertificate(options.tls().certificate()).tlsPrivateKey(options.tls().privateKey())
                .tlsPorts(options.tls().port());
        }
        config.hep(options.hep());
        final RunOptions.StreamLimits streams = options.streams();
        if (null != streams)
        {
            config.messageTimeoutMillis(streams.messageTimeoutMillis()).maxConnections(streams.maxConnections())
                .maxConnectionsPerAddress(streams.maxPerAddress());
        }
        if (null != options.cluster())
        {
            config.node(options.cluster().node());
        }
        final RunOptions.WebSocket ws = options.webSocket();
        if (null != ws)
        {
            config.webSocket(ws.settings());
            if (null != ws.wsPort())
            {
                config.wsPorts(ws.wsPort());
            }
            if (null != ws.wssPort())
            {
                config.wssPorts(ws.wssPort());
            }
        }
        return config;
    }

    /** Prints every address the server (its admin port and media relay, if any) listens on, then "ready". */
    private static void printReady(final ContainerServer server, final AdminServer admin, final WebServer web,
        final RelayMediaService media, final PrintWriter out)
    {
        final int n = server.stack().shardCount();
        final String how = " (" + n + (1 == n ? " shard, " : " shards, ") + server.stack().transport().ioName() + ")";
        for (final InetSocketAddress endpoint : server.localAddresses())
        {
            out.println("sipline: listening on " + UdpTransport.describe(endpoint) + how);
        }
        for (final InetSocketAddress endpoint : server.stack().tcpAddresses())
        {
            out.println("sipline: listening on tcp " + NetUtil.toSocketAddressString(endpoint) + how);
        }
        for (final InetSocketAddress endpoint : server.stack().tlsAddresses())
        {
            out.println("sipline: listening on tls " + NetUtil.toSocketAddressString(endpoint) + how);
        }
        for (final InetSocketAddress endpoint : server.stack().wsAddresses())
        {
            out.println("sipline: listening on ws " + NetUtil.toSocketAddressString(endpoint) + how);
        }
        for (final InetSocketAddress endpoint : server.stack().wssAddresses())
        {
            out.println("sipline: listening on wss " + NetUtil.toSocketAddressString(endpoint) + how);
        }
        if (null != server.stack().capture())
        {
            final InetSocketAddress collector = server.stack().capture().config().collector();
            out.println("sipline: HEP capture to udp " + NetUtil.toSocketAddressString(collector) + " (capture id "
                + Integer.toUnsignedString(server.stack().capture().config().captureId()) + ")");
        }
        if (null != admin)
        {
            out.println("sipline: admin on http://" + NetUtil.toSocketAddressString(admin.address())
                + " (/health, /metrics)");
        }
        if (null != web)
        {
            out.println("sipline: http on http://" + NetUtil.toSocketAddressString(web.address())
                + "/<application> (the web half of converged applications)");
        }
        if (null != media)
        {
            out.println(ContainerMedia.describe(media.relay().settings()));
        }
        out.println("sipline: ready");
    }

    /**
     * The {@code --warmup}: calls through a container of its own on loopback, before the server binds its ports
     * ({@link Warmup}). A warm-up that cannot run is said in one line and the server starts all the same.
     */
    private static void warmUp(final int calls, final int shards, final long overloadWaitNs, final PrintWriter out,
        final PrintWriter err)
    {
        out.println("sipline: warming up: " + calls + " calls at " + Warmup.RATE + "/s through a B2BUA of its own "
            + "on loopback (not the deployed applications) ...");
        try
        {
            final Warmup.Result r = Warmup.run(calls, shards, overloadWaitNs);
            out.printf("sipline: warmed up in %.1f s: %d calls completed, %d refused by overload control "
                + "(%d always-late rounds), %d failed%s%s%n",
                r.millis() / 1000.0, r.completed(), r.refused(), r.refusalRounds(), r.failed(),
                r.jitMillis() < 0 ? "" : ", JIT compile time " + r.jitMillis() + " ms",
                r.unsettled().isEmpty() ? ""
                    : "; the JIT still compiling the refusal in the last round: " + Warmup.describe(r.unsettled()));
        }
        catch (final IOException | RuntimeException e)
        {
            err.println("sipline: the warm-up did not run, starting without it: " + e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            err.println("sipline: the warm-up was interrupted, starting without it");
        }
    }

    /**
     * JSR 289 §15.4.1: a router registered by its provider, else the default router with the DAR file (parsed here so
     * that a malformed line stops the start), else the default router without one.
     */
    private static SipApplicationRouter router(final Path dar)
    {
        final ApplicationRouters.Selection selection = ApplicationRouters.load(Main.class.getClassLoader(), () ->
        {
            if (null == dar)
            {
                return new DefaultApplicationRouter();
            }
            try
            {
                return new DefaultApplicationRouter(DarConfiguration.load(dar));
            }
            catch (final DarConfigurationException e)
            {
                throw new IllegalStateException(e.getMessage(), e);
            }
        });
        final SipApplicationRouter router = selection.router();
        router.init();
        return router;
    }

    /**
     * The shutdown hook: undeploy, stop within the bound, report, and end the process with 0. A JVM ended by a
     * signal would otherwise exit with 128 + the signal number even after a clean stop; {@code halt} from the last
     * hook is how a signal-driven stop reports success.
     */
    private static void stop(final DeploymentWatcher watcher, final AdminServer admin, final WebServer web,
        final ContainerServer server, final RefusalLog refusals, final RelayMediaService media,
        final GridWriter writer, final SessionReplicator grid, final PrintWriter out)
    {
        out.println("sipline: stopping");
        if (null != admin)
        {
            admin.close(); // first, so that /health does not answer while the shards stop
        }
        watcher.close(); // both halves of every application, web first
        if (null != web)
        {
            web.close();
        }
        server.close();
        if (null != media)
        {
            media.close(); // after the applications, which end their anchors as they stop
        }
        if (null != writer)
        {
            writer.close(); // after the shards: the last snapshots are written
        }
        if (null != grid)
        {
            grid.close();
        }
        refusals.close(); // the last interval's refusals
        LogSetup.drain(); // the applications' last lines, before the server's
        final ShardCounters totals = server.stack().transportTotals();
        out.println("sipline: stopped (" + totals + ")");
        out.flush();
        Runtime.getRuntime().halt(0);
    }
}
