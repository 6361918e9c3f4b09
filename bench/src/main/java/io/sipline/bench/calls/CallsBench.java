package io.sipline.bench.calls;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import io.sipline.bench.machine.MachinePauses;
import io.sipline.test.Sipp;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bin/sipline bench calls}: the load harness. For the measured system (Sipline, unless {@code --system} says
 * otherwise) with each application of {@code --app} (default {@code typical-b2bua}, a B2BUA written as applications
 * usually are; {@code b2bua}, the minimal one; {@code proxy}), and each {@code --baseline} (the JAIN-SIP RI B2BUA for
 * {@code b2bua} only, Kamailio for every one, each measured once per kind of call: B2BUA or proxied), in one
 * run on this machine's loopback, one series per system, profile and application: starts the system, warms it up,
 * then runs one rate
 * ({@code --rate --duration}) or finds the highest rate sustained twice ({@code --find-max}, {@link MaxSearch}:
 * doubling from {@code --start-rate}, then bisecting to 5%, then the best rate again on a fresh server, 10% lower
 * until one rate held twice; each step {@code --duration} seconds, each phase at most {@code --max-steps} steps) and
 * one step at 80% of it; then, for each JVM system, a fixed-count allocation run under the epsilon profile
 * and a retained-heap run with calls held. Writes {@code bench-results/<yyyyMMdd-HHmmss>/} (see {@link Report}).
 * Every child process is stopped by its handle, also on failure or interrupt. Runs on the main thread.
 */
@Command(name = "sipline bench calls", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Example applications under sipp load beside their baselines, in one run.")
public final class CallsBench implements Callable<Integer>
{
    @Mixin
    HarnessOptions harness = new HarnessOptions();

    @Mixin
    SiplineJvmArgs siplineJvmArgs = new SiplineJvmArgs();

    @Option(names = "--app", paramLabel = "NAME[,NAME...]", split = ",",
        description = "the examples Sipline runs, each its own series: typical-b2bua (default; a B2BUA as "
        + "applications are usually written: listeners, session attributes, a header map, a log line every 10 calls; "
        + "baseline kamailio), b2bua (the minimal forwarding servlet; baselines jainsip and kamailio) or proxy "
        + "(examples/proxy, stateful and record-routing, one target; baseline kamailio); e.g. typical-b2bua,b2bua "
        + "measures the realistic and the minimal application side by side",
        defaultValue = "typical-b2bua")
    List<String> apps;

    @Option(names = "--system", paramLabel = "NAME",
        description = "the measured system: sipline, jainsip or kamailio (default sipline)",
        defaultValue = "sipline")
    String system;

    @Option(names = "--profile", paramLabel = "NAME",
        description = "GC profile of jvm-profiles/ (default zgc)", defaultValue = "zgc")
    String profile;

    @Option(names = "--profiles", paramLabel = "all",
        description = "'all': every jvm-profiles/*.args but epsilon, one table")
    String profiles;

    @Option(names = "--rate", paramLabel = "R",
        description = "calls per second of one run")
    Integer rate;

    @Option(names = "--duration", paramLabel = "S",
        description = "seconds per step (default 20)", defaultValue = "20")
    int duration;

    @Option(names = "--find-max", description = "find the highest rate sustained twice (ramp x2, bisect to 5%%, "
        + "confirm on a fresh server, 10%% lower until one rate held twice), then a step at 80%% of it")
    boolean findMax;

    @Option(names = "--start-rate", paramLabel = "R",
        description = "first rate of --find-max and warm-up rate (default 100)",
        defaultValue = "100")
    int startRate;

    @Option(names = "--max-steps", paramLabel = "N",
        description = "bound on the steps of each --find-max phase: search, "
        + "confirmation (default 14)", defaultValue = "14")
    int maxSteps;

    @Option(names = "--hold", paramLabel = "MS",
        description = "call duration after the ACK, ms (default 0)", defaultValue = "0")
    long hold;

    @Option(names = "--warmup", paramLabel = "S",
        description = "warm-up seconds at the start rate, not judged (default 10; 0: none)",
        defaultValue = "10")
    int warmup;

    @Option(names = "--baseline", paramLabel = "NAME",
        description = "jainsip or kamailio (repeatable)")
    List<String> baselines = new ArrayList<>();

    @Option(names = "--alloc-calls", paramLabel = "N",
        description = "calls of the allocation run under epsilon, 0 = none "
        + "(default 10000)", defaultValue = "10000")
    int allocCalls;

    @Option(names = "--alloc-rate", paramLabel = "R",
        description = "rate of the allocation run (default 250)", defaultValue = "250")
    int allocRate;

    @Option(names = "--retained-calls", paramLabel = "N",
        description = "calls held for the retained-heap run, 0 = none "
        + "(default 2000)", defaultValue = "2000")
    int retainedCalls;

    @Option(names = "--overload-wait", paramLabel = "MS",
        description = "Sipline's overload control: bin/sipline run --overload-wait MS "
        + "(new requests that waited longer are refused with 503; 0: off; default: not given, the server's own: 30)")
    Integer overloadWait;

    @Option(names = "--server-warmup", paramLabel = "CALLS",
        description = "Sipline's own warm-up: bin/sipline run --warmup CALLS (calls "
        + "through a B2BUA of its own before it binds its ports, so that the JIT has compiled it; default: not given, "
        + "none). The baselines have nothing like it; the harness's --warmup step runs for every system either way")
    Integer serverWarmup;

    @Option(names = "--server-shards", paramLabel = "N",
        description = "Sipline's shards: bin/sipline run --shards N (default: not "
        + "given, one per core). On a machine shared with sipp's two processes, fewer shards than cores is a setting "
        + "worth measuring: every runnable thread beyond the cores waits for one")
    Integer serverShards;

    @Option(names = "--far-end-timewait", paramLabel = "MS",
        description = "how long sipp's far end keeps each ended call, ms (its "
        + "built-in uas: 4000, unchanged unless given): " + Scenarios.TIMEWAIT_WHY + "; 1000 spares every system "
        + "that spell. Same far end for every system and step of the run; nothing on the wire changes")
    Integer farEndTimewait;

    @Option(names = "--machine-pauses", paramLabel = "S",
        description = "seconds of the machine-pause probe before the steps, every "
        + "core spinning on the clock (bin/sipline bench pauses): how long the machine stops every core at once on its "
        + "own, the floor under the latency figures; 0 = none (default 10)", defaultValue = "10")
    int machinePauses;

    @Option(names = "--http-load", paramLabel = "RPS",
        description = "Sipline only: also serve the click-to-call example's web half (--http-port, the DAR routing "
        + "INVITE to the application under test) and send it RPS HTTP GET /click-to-call/calls per second during "
        + "every measured step; the report's server lines say what was sent and answered; 0 = none (default)",
        defaultValue = "0")
    int httpLoad;

    @Option(names = "--http-client", paramLabel = "NAME",
        description = "the --http-load client: h2load (nghttp2-client, native; the default when installed) or jdk "
        + "(the JDK's HttpClient in a JVM of its own: several times h2load's CPU per request)")
    String httpClient;

    /** The client {@link #httpClient} names, or the preferred one. */
    private HttpLoadProcess.Client httpLoadClient;

    @Option(names = "--http-client-nice", paramLabel = "N",
        description = "the nice value of the --http-load client's own process (default 10: the server's shards and "
        + "sipp get a busy core before it; 0: the same priority as they)", defaultValue = "10")
    int httpClientNice;

    /** The web port of the Sipline server started last with {@code --http-load}. */
    private int httpPort;

    @Spec
    CommandSpec spec;

    private Report report;
    /** The stop lines of the servers of the last series (one per server started). */
    private String lastCounters = "";
    /** The lock checks of the series being run, added to the report with it. */
    private final List<LockCheck> lockChecks = new ArrayList<>();
    /** The stop lines of the series being run. */
    private final List<String> counters = new ArrayList<>();

    /** The last run's results (after {@link #call}). */
    public Report report()
    {
        return report;
    }

    public static void main(final String[] args)
    {
        // Interrupted (Ctrl-C, SIGTERM): every process this harness started (servers, sipp, Kamailio's workers) is
        // stopped through its handle, never by name.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.current().descendants()
            .forEach(ProcessHandle::destroyForcibly), "bench-calls-stop"));
        System.exit(new CommandLine(new CallsBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        final PrintStream log = System.out;
        final Set<SystemUnderTest> systems = checkedSystems();
        if (!Sipp.available())
        {
            log.println("sipp is not installed (apt-get install sip-tester)");
            return 2;
        }
        if (systems.contains(SystemUnderTest.KAMAILIO) && !Files.isExecutable(Path.of("/usr/sbin/kamailio")))
        {
            log.println("kamailio is not installed (apt-get install kamailio)");
            return 2;
        }
        final SystemUnderTest.Layout layout = harness.layout();
        final List<String> profileNames = "all".equals(profiles) ?
            JvmProfile.serverProfiles(layout.profiles()) : List.of(profile);
        for (final String p : profileNames)
        {
            JvmProfile.load(layout.profiles(), p, Path.of("gc.log")); // refuses an unknown name before any start
        }
        final Path dir = harness.resultDir("");
        final Scenarios.Flow b2buaFlow = apps.stream().allMatch(SystemUnderTest::proxy) ? null
            : Scenarios.b2bua(dir, farEndTimewait);
        final Scenarios.Flow proxyFlow = apps.stream().noneMatch(SystemUnderTest::proxy) ? null
            : Scenarios.proxied(dir, farEndTimewait);
        report = new Report(dir, String.join(" ", commandLine()), apps, findMax, duration, hold);
        if (null != farEndTimewait)
        {
            report.farEnd((null != b2buaFlow ? b2buaFlow : proxyFlow).uas().getFileName() + (null != b2buaFlow
                && null != proxyFlow ? " and " + proxyFlow.uas().getFileName() : "") + ": sipp's built-in `uas`"
                + (null != proxyFlow ? " (for the proxy copying Record-Route, above)" : "")
                + " keeping each ended call " + farEndTimewait
                + " ms instead of its 4,000 (`--far-end-timewait`): " + Scenarios.TIMEWAIT_WHY + "; the messages are "
                + "unchanged, and a BYE retransmitted after that time "
                + "would find no call (only after a lost 200, which a sustained step does not have)");
        }
        if (machinePauses > 0)
        {
            // Before any process of the run starts: the machine as the steps will find it, less their load.
            final MachinePauses.Result pauses = MachinePauses.measure(Runtime.getRuntime().availableProcessors(),
                TimeUnit.SECONDS.toNanos(machinePauses));
            log.println("bench calls: machine pauses: " + pauses.describe());
            report.machinePauses(pauses);
            report.write();
        }
        for (final SystemUnderTest s : systems)
        {
            for (final String a : appsOf(s, apps))
            {
                final Scenarios.Flow flow = SystemUnderTest.proxy(a) ? proxyFlow : b2buaFlow;
                for (final String p : s.jvm() ? profileNames : List.of("-"))
                {
                    report.add(series(layout, dir, s, a, p, flow)
                        .withCounters(lastCounters));
                    lockChecks.forEach(report::add);
                    lockChecks.clear();
                    report.write();
                }
            }
        }
        for (final SystemUnderTest s : systems)
        {
            for (final String a : appsOf(s, apps))
            {
                final Scenarios.Flow flow = SystemUnderTest.proxy(a) ? proxyFlow : b2buaFlow;
                if (s.jvm() && allocCalls > 0)
                {
                    report.add(allocated(layout, dir, s, a, flow));
                    report.write();
                }
                if (s.jvm() && retainedCalls > 0)
                {
                    report.add(retained(layout, dir, s, a, flow));
                    report.write();
                }
            }
        }
        report.write();
        log.println(Files.readString(dir.resolve("report.md")));
        log.println("bench calls: results in " + dir);
        return 0;
    }

    /**
     * The applications {@code system} runs in one run of {@code apps}: every one for the system that deploys them
     * (Sipline); for a baseline, which is the same for every application, the first it can play of each kind of call
     * (B2BUA, proxied), so that it is measured once per kind and not once per application.
     */
    static List<String> appsOf(final SystemUnderTest system, final List<String> apps)
    {
        if (system.deploys())
        {
            return List.copyOf(apps);
        }
        final List<String> own = new ArrayList<>();
        for (final String a : apps)
        {
            if (system.plays(a) && own.stream().noneMatch(o -> SystemUnderTest.proxy(o) == SystemUnderTest.proxy(a)))
            {
                own.add(a);
            }
        }
        return own;
    }

    /** The options checked against each other and their ranges; returns the systems to measure, in order. */
    private Set<SystemUnderTest> checkedSystems()
    {
        final Set<String> seen = new LinkedHashSet<>();
        for (final String a : apps)
        {
            if (!SystemUnderTest.APPS.contains(a))
            {
                throw new CommandLine.ParameterException(spec.commandLine(), "--app: '" + a + "' is not one of "
                    + SystemUnderTest.APPS);
            }
            if (!seen.add(a))
            {
                throw new CommandLine.ParameterException(spec.commandLine(), "--app: '" + a + "' is named twice");
            }
        }
        if (findMax == (null != rate))
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "give either --rate R (with --duration S) or --find-max");
        }
        if (null != serverWarmup && (serverWarmup < 0 || serverWarmup > 120_000)) // what bin/sipline run takes
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--server-warmup: " + serverWarmup + " is not a number of calls (0-120000)");
        }
        if (null != serverShards && (serverShards < 1 || serverShards > 256)) // what bin/sipline run takes
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--server-shards: " + serverShards + " is not a number of shards (1-256)");
        }
        if (null != overloadWait && (overloadWait < 0 || overloadWait > 10_000))
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--overload-wait: " + overloadWait + " is not a number of milliseconds (0-10000)");
        }
        if (null != farEndTimewait && (farEndTimewait < 0 || farEndTimewait > 32_000))
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--far-end-timewait: " + farEndTimewait + " is not a number of milliseconds (0-32000)");
        }
        if (httpLoad < 0 || httpLoad > 100_000)
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--http-load: " + httpLoad + " is not a number of requests per second (0-100000)");
        }
        httpLoadClient = null == httpClient ? HttpLoadProcess.Client.preferred() : switch (httpClient)
        {
            case "h2load" -> HttpLoadProcess.Client.H2LOAD;
            case "jdk" -> HttpLoadProcess.Client.JDK;
            default -> throw new CommandLine.ParameterException(spec.commandLine(),
                "--http-client: '" + httpClient + "' is not h2load or jdk");
        };
        if (HttpLoadProcess.Client.H2LOAD == httpLoadClient && httpLoad > 0 && H2load.binary().isEmpty())
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--http-client h2load: h2load is not installed (apt-get install nghttp2-client)");
        }
        if (httpClientNice < 0 || httpClientNice > 19)
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--http-client-nice: " + httpClientNice + " is not a nice value one may set (0-19)");
        }
        if (machinePauses < 0 || machinePauses > 600)
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--machine-pauses: " + machinePauses + " is not a number of seconds (0-600)");
        }
        if (null != rate && rate <= 0 || duration <= 0 || startRate <= 0 || maxSteps <= 0 || hold < 0 || warmup < 0)
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--rate, --duration, --start-rate, --max-steps must be positive and --hold, --warmup not negative");
        }
        final Set<SystemUnderTest> systems = new LinkedHashSet<>();
        systems.add(SystemUnderTest.of(system));
        for (final String b : baselines)
        {
            systems.add(SystemUnderTest.of(b));
        }
        for (final SystemUnderTest s : systems)
        {
            if (appsOf(s, apps).isEmpty())
            {
                throw new CommandLine.ParameterException(spec.commandLine(), "--app " + String.join(",", apps)
                    + ": the " + s.label() + " baseline is a minimal B2BUA and stands for b2bua only (add b2bua to "
                    + "--app, e.g. --app typical-b2bua,b2bua); the baseline of typical-b2bua and of the proxy is "
                    + "Kamailio, a stateful record-routing proxy (--baseline kamailio)");
            }
        }
        return systems;
    }

    /** The command as it was typed (picocli's original arguments). */
    private List<String> commandLine()
    {
        final List<String> cmd = new ArrayList<>(List.of("bin/sipline", "bench", "calls"));
        cmd.addAll(spec.commandLine().getParseResult().originalArgs());
        return cmd;
    }

    /**
     * The load steps of one system under one profile: warm-up, then one rate or the search for the maximum
     * ({@link MaxSearch}). A step that is not sustained leaves the server in a state of its own making (the JAIN-SIP
     * RI never recovers from an overload: its backlog of transactions keeps it failing at rates it sustained before),
     * so after one the server is stopped and the next step starts on a fresh, warmed-up server; the steps that
     * confirm a maximum always do.
     */
    private Series series(final SystemUnderTest.Layout layout, final Path runDir, final SystemUnderTest s,
        final String a, final String p, final Scenarios.Flow flow) throws IOException, InterruptedException
    {
        final String name = directory(Series.name(s, a, p));
        final Path dir = Files.createDirectories(runDir.resolve(name));
        final int uasPort = Sipp.freeUdpPort();
        final List<String> uacOptions = SystemUnderTest.KAMAILIO == s ? Scenarios.KAMAILIO_UAC_OPTIONS : List.of();
        final String scenarioName = String.join(" ", flow.describe(), String.join(" ", uacOptions)).strip();
        final SeriesRunner runner = new SeriesRunner(layout, dir, s, a, p, name,
            new LoadDriver(dir, uasPort, uacOptions, flow));
        try
        {
            if (findMax)
            {
                final MaxSearch.Result<Step> found = new MaxSearch<Step>(startRate, maxSteps, Step::sustained)
                    .find(runner);
                if (null != found.at80())
                {
                    // sipp alone at the same rate, with no server running: the floor of the latency figures.
                    runner.stopServer();
                    final int r = found.at80().offered();
                    runner.steps.add(print(name, runner.driver.run(new CallPath.FarEnd(uasPort), name + "-"
                        + FLOOR_STEP, FLOOR_STEP, r, r * duration, hold)));
                }
                return new Series(s, a, p, scenarioName, runner.steps, found.max(), found.heldOnce(),
                    found.confirming(), found.at80(), "");
            }
            final Step one = runner.run("r" + rate, rate, true);
            final int held = one.sustained() ? rate : 0;
            return new Series(s, a, p, scenarioName, runner.steps, held, held,
                one.sustained() ? List.of(one) : List.of(), null, "");
        }
        finally
        {
            runner.stopServer();
            lastCounters = String.join("\n", counters.stream().filter(c -> !c.isEmpty()).toList());
            counters.clear();
        }
    }

    /**
     * Runs the steps of one series (the {@link MaxSearch.Runner} of the harness): starts a server and warms it up
     * when a step asks for a fresh one or none runs, keeps it after a sustained step (once it settled), stops it
     * after a failed one. Collects every step, warm-ups included, and the servers' stop lines. The main thread.
     */
    private final class SeriesRunner implements MaxSearch.Runner<Step>
    {
        final List<Step> steps = new ArrayList<>();
        private final SystemUnderTest.Layout layout;
        private final Path dir;
        private final SystemUnderTest system;
        private final String app;
        private final String profile;
        private final String name;
        final LoadDriver driver;
        private ServerProcess server;
        private int started;

        SeriesRunner(final SystemUnderTest.Layout layout, final Path dir, final SystemUnderTest system,
            final String app, final String profile, final String name, final LoadDriver driver)
        {
            this.layout = layout;
            this.dir = dir;
            this.system = system;
            this.app = app;
            this.profile = profile;
            this.name = name;
            this.driver = driver;
        }

        @Override
        public Step run(final String label, final int r, final boolean fresh) throws IOException, InterruptedException
        {
            if (fresh)
            {
                stopServer();
            }
            // Sipline's step at 80% (or its one --rate step) is checked against a JFR recording of contended
            // monitor enters; the shard threads must have none (they never take a lock).
            final boolean lockCheck = SystemUnderTest.SIPLINE == system && (!findMax || "at80".equals(label));
            if (null == server)
            {
                System.out.printf("bench calls: %s: starting%n", name);
                final List<String> args = new ArrayList<>(serverArgs(system));
                if (httpLoad > 0 && SystemUnderTest.SIPLINE == system)
                {
                    args.addAll(webHalfArgs(app)); // the app's own name is its app-name in sip.xml
                }
                server = system.startOnFreePort(layout, dir, app, system.jvm() ? profile : "-", driver.uasPort(),
                    jvmArgs(system, List.of()), args, true);
                if (SystemUnderTest.SIPLINE == system)
                {
                    server.startLocks();
                }
                if (warmup > 0)
                {
                    final String warmupName = name + "-warmup" + started++;
                    steps.add(withHttpLoad("warmup", warmup, () -> print(name, driver.run(server, warmupName,
                        "warmup", startRate, startRate * warmup, hold)))); // the web half warms up with the SIP half
                    server.settle();
                }
            }
            final Instant from = Instant.now();
            final ThreadTimes threads0 = ThreadTimes.of(server.handle());
            final Step step = withHttpLoad(label, duration, () -> print(name, driver.run(server, name + "-" + label,
                label, r, r * duration, hold)));
            final Instant to = Instant.now();
            final String threads = label + ": " + ThreadTimes.of(server.handle()).since(threads0,
                Math.max(1e-3, Duration.between(from, to).toNanos() / 1e9));
            final String safepoints = label + ": " + GcLog.read(server.gcLog()).safepointsBetween(from, to);
            System.out.printf("bench calls: %s %s%nbench calls: %s %s%n", name, threads, name, safepoints);
            counters.add(threads);
            counters.add(safepoints);
            if (lockCheck)
            {
                final LockCheck locks = server.locks(dir.resolve(name + "-" + label + "-locks.jfr"),
                    Series.name(system, app, profile), label, from, to);
                System.out.printf("bench calls: %s %s: contended monitor enters: %d on shard threads, %d on others%n",
                    name, label, locks.shardThreads(), locks.otherThreads());
                lockChecks.add(locks);
            }
            steps.add(step);
            if (step.sustained())
            {
                server.settle();
            }
            else
            {
                stopServer();
            }
            return step;
        }

        /**
         * Runs {@code step}, which sends calls for {@code seconds} (each held {@code --hold} more), with the HTTP load
         * of {@code --http-load} beside it (Sipline), or alone.
         */
        private Step withHttpLoad(final String label, final int seconds, final StepRun step)
            throws IOException, InterruptedException
        {
            if (httpLoad <= 0 || SystemUnderTest.SIPLINE != system)
            {
                return step.run();
            }
            final HttpLoadProcess load = HttpLoadProcess.start(httpLoadClient, URI.create("http://127.0.0.1:"
                + httpPort + "/click-to-call/calls"), httpLoad, seconds * 1000L + hold, httpClientNice);
            try
            {
                return step.run();
            }
            finally
            {
                load.close();
                System.out.printf("bench calls: %s %s: %s%n", name, label, load.describe());
                counters.add(label + ": " + load.describe());
            }
        }

        /** Stops the running server, if any, keeping its stop line. */
        void stopServer() throws InterruptedException
        {
            if (null != server)
            {
                server.close();
                counters.add(server.stopLine());
                server = null;
            }
        }
    }

    /** One step of load. */
    @FunctionalInterface
    private interface StepRun
    {
        Step run() throws IOException, InterruptedException;
    }

    /** A series name as a directory name: {@code sipline/zgc typical-b2bua} to {@code sipline-zgc-typical-b2bua}. */
    static String directory(final String seriesName)
    {
        return seriesName.replaceAll("[^A-Za-z0-9._-]+", "-").replaceAll("-+$", "");
    }

    /** The label of the step that runs sipp alone at the 80% rate (see {@link CallPath.FarEnd}). */
    static final String FLOOR_STEP = "sipp-alone-at80";

    /** Bytes allocated per call: a fixed-count run under epsilon (no collection), TLABs off so every byte counts. */
    private Footprint allocated(final SystemUnderTest.Layout layout, final Path runDir, final SystemUnderTest s,
        final String app, final Scenarios.Flow flow) throws IOException, InterruptedException
    {
        final String name = s.label() + (s.deploys() ? "-" + app : "") + "-alloc";
        final Path dir = Files.createDirectories(runDir.resolve(name));
        final int uasPort = Sipp.freeUdpPort();
        final LoadDriver driver = new LoadDriver(dir, uasPort, List.of(), flow);
        System.out.printf("bench calls: %s: %d calls at %d/s under epsilon%n", name, allocCalls, allocRate);
        try (ServerProcess server = s.startOnFreePort(layout, dir, app, AllocationRun.PROFILE, uasPort,
            jvmArgs(s, AllocationRun.JVM_OPTIONS), serverArgs(s), false))
        {
            final AllocationRun.Result r = AllocationRun.measure(server, driver, name, allocRate, allocCalls);
            return new Footprint(s, app, "allocated", AllocationRun.PROFILE, r.step().successful(), r.bytes());
        }
    }

    /**
     * Live heap per established call: bytes of live objects ({@code jcmd GC.class_histogram}: a full collection, then
     * a walk of the reachable objects only) before, and with {@code --retained-calls} calls held once
     * every transaction of their set-up has ended (64*T1 = 32 s, RFC 3261 §17.2.1 Timer H and RFC 6026 Timer L); the
     * warm-up's transactions are given the same time to end before the first measurement. Under the parallel profile
     * (the histogram's collection is then a stop-the-world full GC).
     */
    private Footprint retained(final SystemUnderTest.Layout layout, final Path runDir, final SystemUnderTest s,
        final String app, final Scenarios.Flow flow) throws IOException, InterruptedException
    {
        final String name = s.label() + (s.deploys() ? "-" + app : "") + "-retained";
        final Path dir = Files.createDirectories(runDir.resolve(name));
        final int uasPort = Sipp.freeUdpPort();
        final LoadDriver driver = new LoadDriver(dir, uasPort, List.of(), flow);
        final int r = 250;
        final long setupSeconds = retainedCalls / r + 1;
        final long transactionsEnd = 36;
        final long holdMs = (setupSeconds + transactionsEnd + 60) * 1000;
        System.out.printf("bench calls: %s: %d calls held%n", name, retainedCalls);
        try (ServerProcess server = s.startOnFreePort(layout, dir, app, "parallel", uasPort, jvmArgs(s, List.of()),
            serverArgs(s), false))
        {
            print(name, driver.run(server, name + "-warmup", "warmup", 50, 100, 0));
            // The warm-up's transactions end too before the first measurement, so neither side holds any.
            server.keepRunning(transactionsEnd);
            final long before = server.liveBytes(dir.resolve(name + "-histogram-before.txt"));
            final Process[] sipp = driver.hold(server, name, r, retainedCalls, holdMs);
            try
            {
                final String uac = name + "-uac";
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(setupSeconds + 60);
                while (Sipp.statistic(uac, "OutgoingCall(C)") < retainedCalls && System.nanoTime() - deadline < 0
                    && sipp[0].isAlive())
                {
                    sipp[0].waitFor(200, TimeUnit.MILLISECONDS);
                }
                sipp[0].waitFor(transactionsEnd, TimeUnit.SECONDS); // returns early only if sipp died
                final long established = Math.max(0, Sipp.statistic(uac, "CurrentCall"));
                final long after = server.liveBytes(dir.resolve(name + "-histogram-held.txt"));
                driver.keep(uac);
                driver.keep(name + "-uas");
                System.out.printf("bench calls: %s: %d established, heap %d -> %d bytes%n", name, established, before,
                    after);
                return new Footprint(s, app, "retained", "parallel", established, after - before);
            }
            finally
            {
                Sipp.stop(sipp[0]);
                Sipp.stop(sipp[1]);
            }
        }
    }

    /**
     * The options of {@code bin/sipline run} this run adds for Sipline ({@code --overload-wait}, {@code --warmup} from
     * {@code --server-warmup}, {@code --shards} from {@code --server-shards}); none for the others.
     */
    private List<String> serverArgs(final SystemUnderTest s)
    {
        final List<String> args = new ArrayList<>();
        if (SystemUnderTest.SIPLINE == s && null != overloadWait)
        {
            args.addAll(List.of("--overload-wait", Integer.toString(overloadWait)));
        }
        if (SystemUnderTest.SIPLINE == s && null != serverWarmup)
        {
            args.addAll(List.of("--warmup", Integer.toString(serverWarmup)));
        }
        if (SystemUnderTest.SIPLINE == s && null != serverShards)
        {
            args.addAll(List.of("--shards", Integer.toString(serverShards)));
        }
        return args;
    }

    /**
     * {@code --http-port} on a free port, the click-to-call example deployed beside the application under test, and a
     * DAR that routes INVITE to the latter (click-to-call takes no initial request).
     */
    private List<String> webHalfArgs(final String app) throws IOException
    {
        final Path home = harness.home();
        final Path war = home.resolve("examples/click-to-call/target/click-to-call.war");
        if (!Files.isRegularFile(war))
        {
            throw new IOException("--http-load: " + war + " is missing (./mvnw -B -q -DskipTests -pl "
                + "examples/click-to-call -am package)");
        }
        final Path dar = Files.createTempFile("bench-http-load", ".properties");
        dar.toFile().deleteOnExit();
        Files.writeString(dar, "INVITE: (\"" + app + "\", \"DAR:From\", \"ORIGINATING\", \"\", \"NO_ROUTE\", \"0\")\n");
        httpPort = SystemUnderTest.freeTcpPort();
        return List.of("--http-port", Integer.toString(httpPort), "--deploy", war.toString(), "--dar",
            dar.toString());
    }

    /** {@code own}, the harness's JVM options for a server of {@code s}, then --sipline-jvm-args for Sipline. */
    private List<String> jvmArgs(final SystemUnderTest s, final List<String> own)
    {
        return SystemUnderTest.SIPLINE == s ? siplineJvmArgs.after(own) : own;
    }

    /** Prints one step's line on the console, as every command of the harness does, and returns the step. */
    public static Step print(final String name, final Step s)
    {
        System.out.printf("bench calls: %-18s %-8s offered %6d/s completed %8.1f/s failed %d retrans %d drops %d "
                + "p99(200) %.2f ms server p99(2xx) %s far end p99(180) %s gc %d max %.3f ms cpu %.3f s/1k "
                + "cores %.2f/%.2f %s%n", name,
            s.label(), s.offered(), s.completedRate(), s.failed(), s.retransmissions(), s.drops(), s.answered().p99(),
            Report.serverP99(s.serverAnswered()), Report.serverP99(s.farEndRinging()), s.gc().count(),
            s.gc().maxMillis(), s.cpuPer1000(), s.serverCores(), s.machineCores(),
            s.sustained() ? "sustained" : "NOT sustained");
        return s;
    }
}
