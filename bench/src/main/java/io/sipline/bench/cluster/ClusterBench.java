package io.sipline.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import io.sipline.bench.calls.AllocationRun;
import io.sipline.bench.calls.CallsBench;
import io.sipline.bench.calls.HarnessOptions;
import io.sipline.bench.calls.LoadDriver;
import io.sipline.bench.calls.MaxSearch;
import io.sipline.bench.calls.Scenarios;
import io.sipline.bench.calls.Step;
import io.sipline.bench.calls.SystemUnderTest;
import io.sipline.test.Sipp;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code bin/sipline bench cluster}: what a cluster costs a node, each figure beside its baseline in the same run
 * ({@link ClusterSetup}: the measured node running examples/b2bua as member 1 of a grid of two):
 * <ol>
 * <li><b>Per call</b>, {@code --pairs} times in alternation (baseline, then distributable): the b2bua with its
 * {@code <distributable/>} taken out (the baseline: the same node in the same grid, nothing replicated) and as
 * shipped; for each, a warm-up and then {@code --calls} calls at {@code --rate}: the node's CPU seconds per 1,000
 * calls (the harness's step), and from its {@code /metrics} before and after the step the snapshots and bytes it
 * handed to the grid and the bytes its grid transport sent, per call.</li>
 * <li><b>Allocated bytes per call</b> of both, by the harness's allocation run ({@link AllocationRun}: epsilon, TLABs
 * off); {@code --alloc-calls 0} skips it.</li>
 * <li><b>Calls/s</b> of the distributable node alone (sipp to the node) against the same node behind Kamailio with
 * {@code cluster/kamailio/kamailio.cfg} (sipp to the front, both legs record-routed by it): the highest rate
 * sustained twice ({@link MaxSearch}, steps of {@code --duration} s); {@code --max-steps 0} skips it.</li>
 * </ol>
 * Writes {@code bench-results/cluster-<yyyyMMdd-HHmmss>/report.md} ({@link ClusterReport}). Every process is stopped
 * by its handle, also on failure or interrupt. Runs on the main thread.
 */
@Command(name = "sipline bench cluster", mixinStandardHelpOptions = true, sortOptions = false,
    description = "A distributable application against the same one not distributable (CPU, allocated bytes and grid "
        + "bytes per call), and one node's calls/s alone against behind Kamailio, in one run.")
public final class ClusterBench implements Callable<Integer>
{
    @Mixin
    HarnessOptions harness = new HarnessOptions();

    @Option(names = "--rate", paramLabel = "R", description = "calls/s of the per-call steps (default 200)",
        defaultValue = "200")
    int rate;

    @Option(names = "--calls", paramLabel = "N", description = "calls of each per-call step (default 6000)",
        defaultValue = "6000")
    int calls;

    @Option(names = "--pairs", paramLabel = "N", description = "per-call steps of the baseline and the distributable "
        + "application, alternated, N of each (default 2)", defaultValue = "2")
    int pairs;

    @Option(names = "--warmup", paramLabel = "S", description = "warm-up seconds before the steps of each started "
        + "node, not judged (default 15)", defaultValue = "15")
    int warmup;

    @Option(names = "--alloc-calls", paramLabel = "N", description = "calls of each allocation run under epsilon, 0 = "
        + "none (default 6000)", defaultValue = "6000")
    int allocCalls;

    @Option(names = "--alloc-rate", paramLabel = "R", description = "rate of the allocation runs (default 200)",
        defaultValue = "200")
    int allocRate;

    @Option(names = "--start-rate", paramLabel = "R", description = "first rate of the calls/s search (default 200)",
        defaultValue = "200")
    int startRate;

    @Option(names = "--duration", paramLabel = "S", description = "seconds per step of the calls/s search (default 10)",
        defaultValue = "10")
    int duration;

    @Option(names = "--max-steps", paramLabel = "N", description = "bound on the steps of each phase of the calls/s "
        + "search; 0 = no calls/s comparison (default 8)", defaultValue = "8")
    int maxSteps;

    @Spec
    CommandSpec spec;

    public static void main(final String[] args)
    {
        // Interrupted (Ctrl-C, SIGTERM): every process this harness started is stopped through its handle.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.current().descendants()
            .forEach(ProcessHandle::destroyForcibly), "bench-cluster-stop"));
        System.exit(new CommandLine(new ClusterBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        if (rate <= 0 || calls <= 0 || pairs <= 0 || warmup < 0 || allocCalls < 0 || allocRate <= 0 || startRate <= 0
            || duration <= 0 || maxSteps < 0)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--rate, --calls, --pairs, --alloc-rate, "
                + "--start-rate, --duration must be positive and --warmup, --alloc-calls, --max-steps not negative");
        }
        if (!Sipp.available())
        {
            System.out.println("sipp is not installed (apt-get install sip-tester)");
            return 2;
        }
        if (maxSteps > 0 && !Files.isExecutable(Path.of("/usr/sbin/kamailio")))
        {
            System.out.println("kamailio is not installed (apt-get install kamailio)");
            return 2;
        }
        final SystemUnderTest.Layout layout = harness.layout();
        final Path dir = harness.resultDir("cluster-");
        final ClusterReport report = new ClusterReport(dir, commandLine(), rate, calls);
        final Scenarios.Flow b2bua = Scenarios.b2bua(dir, null);
        for (int pair = 1; pair <= pairs; pair++)
        {
            for (final boolean distributable : new boolean[] {false, true})
            {
                report.add(perCall(layout, dir, b2bua, distributable, pair));
                report.write();
            }
        }
        if (allocCalls > 0)
        {
            for (final boolean distributable : new boolean[] {false, true})
            {
                report.add(allocated(layout, dir, b2bua, distributable));
                report.write();
            }
        }
        if (maxSteps > 0)
        {
            // the front record-routes both legs: the caller follows the route set, the far end copies Record-Route
            final Scenarios.Flow routed = Scenarios.proxied(dir, null);
            for (final boolean fronted : new boolean[] {false, true})
            {
                report.add(fronted, maxRate(layout, dir, routed, fronted));
                report.write();
            }
        }
        report.write();
        System.out.println(Files.readString(dir.resolve("report.md")));
        System.out.println("bench cluster: results in " + dir);
        return 0;
    }

    /** One per-call step of the b2bua, distributable or not, on a node started for it. */
    private ClusterReport.PerCall perCall(final SystemUnderTest.Layout layout, final Path runDir,
        final Scenarios.Flow flow, final boolean distributable, final int pair) throws IOException, InterruptedException
    {
        final String name = variant(distributable) + "-" + pair;
        final Path dir = Files.createDirectories(runDir.resolve(name));
        final int uasPort = Sipp.freeUdpPort();
        final LoadDriver driver = new LoadDriver(dir, uasPort, List.of(), flow);
        System.out.printf("bench cluster: %s: starting%n", name);
        try (ClusterSetup setup = ClusterSetup.start(layout, dir, uasPort, distributable, false,
            new ClusterSetup.Jvm("zgc", List.of(), true)))
        {
            warmUp(setup, driver, name, rate);
            final GridCounters before = setup.grid();
            final Step step = CallsBench.print(name, driver.run(setup, name + "-run", "r" + rate, rate, calls, 0));
            final GridCounters grid = setup.grid().since(before);
            System.out.printf("bench cluster: %s: %d snapshots, %d bytes written to the grid, %d sent%n", name,
                grid.snapshots(), grid.written(), grid.sent());
            return new ClusterReport.PerCall(distributable, pair, step, grid);
        }
    }

    /** Bytes allocated per call of the b2bua, distributable or not ({@link AllocationRun}). */
    private ClusterReport.Allocated allocated(final SystemUnderTest.Layout layout, final Path runDir,
        final Scenarios.Flow flow, final boolean distributable) throws IOException, InterruptedException
    {
        final String name = variant(distributable) + "-alloc";
        final Path dir = Files.createDirectories(runDir.resolve(name));
        final int uasPort = Sipp.freeUdpPort();
        System.out.printf("bench cluster: %s: %d calls at %d/s under %s%n", name, allocCalls, allocRate,
            AllocationRun.PROFILE);
        try (ClusterSetup setup = ClusterSetup.start(layout, dir, uasPort, distributable, false,
            new ClusterSetup.Jvm(AllocationRun.PROFILE, AllocationRun.JVM_OPTIONS, false)))
        {
            final AllocationRun.Result r = AllocationRun.measure(setup.node(),
                new LoadDriver(dir, uasPort, List.of(), flow), name, allocRate, allocCalls);
            return new ClusterReport.Allocated(distributable, r);
        }
    }

    /** The highest rate the distributable node sustains twice, alone or behind the front. */
    private MaxSearch.Result<Step> maxRate(final SystemUnderTest.Layout layout, final Path runDir,
        final Scenarios.Flow flow, final boolean fronted) throws IOException, InterruptedException
    {
        final String name = fronted ? "node-behind-front" : "node-alone";
        final Path dir = Files.createDirectories(runDir.resolve(name));
        final int uasPort = Sipp.freeUdpPort();
        // the front's two workers may forward a 180 after the 200: the caller takes it as the Kamailio baseline does
        final LoadDriver driver = new LoadDriver(dir, uasPort, Scenarios.KAMAILIO_UAC_OPTIONS, flow);
        final List<ClusterSetup> running = new ArrayList<>();
        try
        {
            return new MaxSearch<Step>(startRate, maxSteps, Step::sustained).find((label, r, fresh) ->
            {
                if (fresh && !running.isEmpty())
                {
                    running.removeFirst().close();
                }
                if (running.isEmpty())
                {
                    System.out.printf("bench cluster: %s: starting%n", name);
                    running.add(ClusterSetup.start(layout, dir, uasPort, true, fronted,
                        new ClusterSetup.Jvm("zgc", List.of(), true)));
                    warmUp(running.getFirst(), driver, name, startRate);
                }
                final Step step = CallsBench.print(name, driver.run(running.getFirst(), name + "-" + label, label, r,
                    r * duration, 0));
                if (step.sustained())
                {
                    running.getFirst().settle();
                }
                else
                {
                    running.removeFirst().close(); // a failed step leaves a backlog: the next starts afresh
                }
                return step;
            });
        }
        finally
        {
            running.forEach(ClusterSetup::close);
        }
    }

    /** {@code --warmup} seconds at {@code r} calls/s through a newly started setup, then until it is quiet. */
    private void warmUp(final ClusterSetup setup, final LoadDriver driver, final String name, final int r)
        throws IOException, InterruptedException
    {
        if (warmup > 0)
        {
            CallsBench.print(name, driver.run(setup, name + "-warmup-" + System.nanoTime(), "warmup", r, r * warmup,
                0));
            setup.settle();
        }
    }

    private static String variant(final boolean distributable)
    {
        return distributable ? "distributable" : "not-distributable";
    }

    /** The command as it was typed (picocli's original arguments). */
    private String commandLine()
    {
        final List<String> cmd = new ArrayList<>(List.of("bin/sipline", "bench", "cluster"));
        cmd.addAll(spec.commandLine().getParseResult().originalArgs());
        return String.join(" ", cmd);
    }
}
