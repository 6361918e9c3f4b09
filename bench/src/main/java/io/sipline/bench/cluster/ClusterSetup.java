package io.sipline.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sipline.bench.calls.CallPath;
import io.sipline.bench.calls.ServerLatency;
import io.sipline.bench.calls.ServerProcess;
import io.sipline.bench.calls.SystemUnderTest;

/**
 * The processes of one configuration of {@code bench cluster}: the measured Sipline node running the b2bua example
 * (its {@code <distributable/>} kept or taken out) as member 1 of a grid of two, the second member a Sipline node
 * with the same application that no call reaches (so that every snapshot has its backup copy, as in a cluster), and,
 * when asked, Kamailio in front of the measured node with the repository's cluster configuration, the node sending
 * its own outbound legs through it ({@code --cluster-front}). As a {@link CallPath}: calls go to the front when there
 * is one, else to the node; its CPU is the node's and the front's; its GC log and {@code /metrics} the node's.
 * <p>
 * Every process is stopped by its handle in {@link #close}, last started first. The harness's main thread.
 */
final class ClusterSetup implements CallPath, AutoCloseable
{
    /**
     * The nodes start without the AOT cache, which a training run of 30-40 s would make for each new set of JVM
     * options: the harness's warm-up step compiles them, the same for every configuration.
     */
    private static final Map<String, String> NO_AOT = Map.of("SIPLINE_AOT", "off");
    private final List<ServerProcess> started = new ArrayList<>();
    private ServerProcess node;
    private ServerProcess front;

    private ClusterSetup()
    {
    }

    /**
     * Starts the grid's second member, then the measured node (after it, so it joins a grid that is there), then the
     * front when {@code fronted}.
     *
     * @param dir           where the processes write their output.
     * @param uasPort       the far end the node's b2bua relays to.
     * @param distributable whether the b2bua keeps its {@code <distributable/>}.
     * @param jvm           the node's JVM and its admin port.
     */
    static ClusterSetup start(final SystemUnderTest.Layout layout, final Path dir, final int uasPort,
        final boolean distributable, final boolean fronted, final Jvm jvm) throws IOException, InterruptedException
    {
        final ClusterSetup setup = new ClusterSetup();
        try
        {
            final String cluster = "bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
            final int nodeGrid = SystemUnderTest.freeTcpPort();
            final int peerGrid = SystemUnderTest.freeTcpPort();
            final int frontPort = fronted ? SystemUnderTest.freeServerPort(uasPort) : 0;
            setup.started.add(SystemUnderTest.SIPLINE.start(layout, Files.createDirectories(dir.resolve("peer")),
                "b2bua", "zgc", SystemUnderTest.freeServerPort(uasPort), uasPort, List.of(),
                gridOptions(cluster, 2, peerGrid, nodeGrid, 0), false, NO_AOT, true));
            setup.node = SystemUnderTest.SIPLINE.start(layout, dir, "b2bua", jvm.profile(),
                SystemUnderTest.freeServerPort(uasPort), uasPort, jvm.options(),
                gridOptions(cluster, 1, nodeGrid, peerGrid, frontPort), jvm.metrics(), NO_AOT, distributable);
            setup.started.add(setup.node);
            if (fronted)
            {
                setup.front = SystemUnderTest.clusterFront(layout, Files.createDirectories(dir.resolve("front")),
                    frontPort, List.of(setup.node.port()));
                setup.started.add(setup.front);
            }
            return setup;
        }
        catch (final IOException | InterruptedException | RuntimeException ex)
        {
            setup.close();
            throw ex;
        }
    }

    /**
     * The node's JVM profile and the options after it (the allocation run's {@code -XX:-UseTLAB}), and whether it
     * serves {@code /metrics} on an admin port (not for the allocation run: a scrape's bytes would be counted).
     */
    record Jvm(String profile, List<String> options, boolean metrics)
    {
    }

    /** {@code bin/sipline run}'s options of member {@code node} of {@code cluster}, with its front if front > 0. */
    private static List<String> gridOptions(final String cluster, final int node, final int bind, final int peer,
        final int front)
    {
        final List<String> args = new ArrayList<>(List.of("--cluster-name", cluster, "--cluster-node",
            Integer.toString(node), "--cluster-bind", "127.0.0.1:" + bind, "--cluster-peers", "127.0.0.1:" + peer));
        if (front > 0)
        {
            args.addAll(List.of("--cluster-front", "sip:127.0.0.1:" + front));
        }
        return args;
    }

    /** The measured node. */
    ServerProcess node()
    {
        return node;
    }

    /** The node's grid counters now. */
    GridCounters grid() throws IOException
    {
        return GridCounters.scrape(node.adminPort());
    }

    @Override
    public int port()
    {
        return null == front ? node.port() : front.port();
    }

    @Override
    public long cpuTicks()
    {
        return node.cpuTicks() + (null == front ? 0 : front.cpuTicks());
    }

    @Override
    public int[] socketPorts()
    {
        return null == front ? node.socketPorts() : new int[] {node.port(), front.port()};
    }

    @Override
    public Path gcLog()
    {
        return node.gcLog();
    }

    @Override
    public ServerLatency.Scrape scrapeServerTimes() throws IOException
    {
        return node.scrapeServerTimes();
    }

    /** Waits until the node and the front are quiet ({@link ServerProcess#settle}). */
    void settle() throws InterruptedException
    {
        node.settle();
        if (null != front)
        {
            front.settle();
        }
    }

    @Override
    public void close()
    {
        for (int i = started.size() - 1; i >= 0; i--)
        {
            started.get(i).close();
        }
        started.clear();
    }
}
