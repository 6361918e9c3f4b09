package io.sipline.bench.overload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import io.sipline.bench.calls.HarnessOptions;
import io.sipline.bench.calls.LoadDriver;
import io.sipline.bench.calls.RegistrarDeployment;
import io.sipline.bench.calls.Scenarios;
import io.sipline.bench.calls.ServerProcess;
import io.sipline.bench.calls.SystemUnderTest;
import io.sipline.bench.machine.CpuConfinement;
import io.sipline.test.Sipp;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bin/sipline bench overload}: the B2BUA example offered more than it can carry. Finds the maximum sustained
 * rate ({@link MaxRate}, as {@code bench calls --find-max} does, with shorter steps) or takes {@code --max-rate};
 * then, for each {@code --overload-wait} (0: overload control off) and each {@code --multipliers} entry, on a fresh
 * server, runs a surge ({@link SurgeRun}): steady calls at half the maximum, a population of established calls whose
 * BYEs fall during and after the surge, and the surge bringing the offered rate to the multiple of the maximum for
 * {@code --surge} seconds. Kamailio's stateful proxy (the {@code bench calls} baseline) is measured the same way at
 * twice its own maximum. With {@code --server-cpu} every server runs on a share of CPU 0 and the callers on the other
 * CPUs ({@link CpuConfinement}), as if the load came from another machine. Each run is reported second by second and
 * judged ({@link Surge}): goodput at or above 90% of the maximum through the surge, the established calls' BYEs all
 * answered, seconds to recover. Writes
 * {@code overload.md} and {@code overload.json} into {@code bench-results/overload-<stamp>/}. Every child process is
 * stopped by its handle. Runs on the main thread.
 */
@Command(name = "sipline bench overload", mixinStandardHelpOptions = true, sortOptions = false,
    description = "The B2BUA example offered 2x and 4x its maximum, with and without overload control, beside "
        + "Kamailio offered 2x its own.")
public final class OverloadBench implements Callable<Integer>
{
    @Mixin
    HarnessOptions harness = new HarnessOptions();

    @Option(names = "--app", paramLabel = "NAME", defaultValue = "typical-b2bua",
        description = "the B2BUA example: typical-b2bua (default) or b2bua")
    String app;

    @Option(names = "--max-rate", paramLabel = "R",
        description = "Sipline's maximum sustained calls/s (default: found, as bench calls --find-max does)")
    Integer maxRate;

    @Option(names = "--kamailio-max-rate", paramLabel = "R",
        description = "Kamailio's maximum sustained calls/s (default: found)")
    Integer kamailioMaxRate;

    @Option(names = "--no-kamailio", description = "leave Kamailio out")
    boolean noKamailio;

    @Option(names = "--surge", paramLabel = "S", defaultValue = "10",
        description = "seconds of the surge (default 10; e.g. 120 for a long one)")
    int surgeSeconds;

    @Option(names = "--before", paramLabel = "S", defaultValue = "10",
        description = "seconds of steady load before the surge, while the population's calls are set up (default 10)")
    int before;

    @Option(names = "--after", paramLabel = "S", defaultValue = "20",
        description = "seconds of steady load after the surge, to see the server recover (default 20)")
    int after;

    @Option(names = "--multipliers", paramLabel = "LIST", split = ",", defaultValue = "2,4",
        description = "Sipline's surges, as multiples of its maximum (default 2,4); Kamailio's is 2")
    List<Integer> multipliers;

    @Option(names = "--overload-waits", paramLabel = "LIST", split = ",", defaultValue = "0,30,100",
        description = "Sipline's --overload-wait of each series, ms; 0: overload control off (default 0,30,100)")
    List<Integer> overloadWaits;

    @Option(names = "--admission", paramLabel = "LIST", split = ",", defaultValue = "default",
        description = "Sipline's admission limit of each series: default (the server's own), off, MARGIN (percent "
            + "over the most calls completed in a recent 100 ms, always held) or MARGIN@MS (held only after a wait "
            + "above MS ms); default: default")
    List<String> admissions;

    @Option(names = "--register-storm", paramLabel = "R", defaultValue = "0",
        description = "a registration storm in the surge's place: R REGISTERs/s from distinct users, to the registrar "
            + "example deployed beside the B2BUA, while the steady and the established calls go on; Sipline only "
            + "(default 0: a surge of INVITEs)")
    int registerStorm;

    @Option(names = "--storm-users", paramLabel = "N", defaultValue = "100000",
        description = "distinct users of the registration storm, in turn (default 100000)")
    int stormUsers;

    @Option(names = "--register-rates", paramLabel = "LIST", split = ",", defaultValue = "default",
        description = "with --register-storm: the server's REGISTER budget of each series "
            + "(sipline.overload.register.rate: default, off, or REGISTERs/s per shard under pressure)")
    List<String> registerRates;

    @Option(names = "--steady-share", paramLabel = "F", defaultValue = "0.5",
        description = "the steady load before, during and after the surge, as a share of the maximum (default 0.5)")
    double steadyShare;

    @Option(names = "--population", paramLabel = "N", defaultValue = "1000",
        description = "established calls held across the surge (default 1000)")
    int population;

    @Option(names = "--profile", paramLabel = "NAME", defaultValue = "zgc",
        description = "GC profile of jvm-profiles/ (default zgc)")
    String profile;

    @Option(names = "--server-warmup", paramLabel = "CALLS", defaultValue = "10000",
        description = "bin/sipline run --warmup CALLS for every Sipline started (default 10000; 0: none)")
    int serverWarmup;

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "5",
        description = "seconds of calls at the steady rate on each fresh server before it is measured (default 5; "
            + "under --server-cpu the JIT compilers share the quota: 90 warmed a server on 30%%)")
    int warmup;

    @Option(names = "--start-rate", paramLabel = "R", defaultValue = "1000",
        description = "first rate of the search for Sipline's maximum (default 1000; Kamailio's starts at half)")
    int startRate;

    @Option(names = "--step-seconds", paramLabel = "S", defaultValue = "10",
        description = "seconds per step of the search (default 10)")
    int stepSeconds;

    @Option(names = "--max-steps", paramLabel = "N", defaultValue = "8",
        description = "bound on the steps of each phase of the search (default 8)")
    int maxSteps;

    @Option(names = "--server-cpu", paramLabel = "PERCENT",
        description = "confine every server to PERCENT of CPU 0 (a cgroup CPU quota) and the callers to the other "
            + "CPUs, as if the load came from another machine (needs root; default: the callers share the cores)")
    Integer serverCpu;

    @Spec
    CommandSpec spec;

    private final List<Surge> surges = new ArrayList<>();
    private int siplineMax;
    private int kamailioMax;
    private String confinement;

    public static void main(final String[] args)
    {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.current().descendants()
            .forEach(ProcessHandle::destroyForcibly), "bench-overload-stop"));
        System.exit(new CommandLine(new OverloadBench()).execute(args));
    }

    /** The runs measured so far, in order. */
    List<Surge> surges()
    {
        return List.copyOf(surges);
    }

    /** Checks the options together; fails with picocli's usage error. */
    void check()
    {
        final String bad;
        if (!"typical-b2bua".equals(app) && !"b2bua".equals(app))
        {
            bad = "--app: '" + app + "' is not a B2BUA example (typical-b2bua, b2bua)";
        }
        else if (surgeSeconds < 2 || before < 2 || after < 5 || population < 0 || warmup < 0 || stepSeconds < 2
            || maxSteps < 1 || startRate < 1 || serverWarmup < 0)
        {
            bad = "--surge and --before at least 2 s, --after at least 5 s, --population, --warmup and "
                + "--server-warmup not negative, --step-seconds 2 or more, --max-steps and --start-rate positive";
        }
        else if (!(steadyShare > 0 && steadyShare < 1))
        {
            bad = "--steady-share must be between 0 and 1";
        }
        else if (multipliers.isEmpty() || multipliers.stream().anyMatch(m -> m < 1 || m > 10))
        {
            bad = "--multipliers: each 1 to 10";
        }
        else if (overloadWaits.isEmpty() || overloadWaits.stream().anyMatch(w -> w < 0 || w > 10_000))
        {
            bad = "--overload-waits: each 0 (off) to 10000 ms";
        }
        else if (admissions.isEmpty()
            || !admissions.stream().allMatch(a -> a.matches("default|off|\\d{1,3}(@\\d{1,4})?")))
        {
            bad = "--admission: each default, off, MARGIN or MARGIN@MS (e.g. 25 or 25@10)";
        }
        else if (registerStorm < 0 || registerStorm > 100_000 || stormUsers < 1 || registerRates.isEmpty()
            || !registerRates.stream().allMatch(r -> r.matches("default|off|\\d{1,7}")))
        {
            bad = "--register-storm 0 to 100000 REGISTERs/s, --storm-users positive, --register-rates: each default, "
                + "off or a rate";
        }
        else if ((null != maxRate && maxRate < 1) || (null != kamailioMaxRate && kamailioMaxRate < 1))
        {
            bad = "--max-rate and --kamailio-max-rate must be positive";
        }
        else if (null != serverCpu && (serverCpu < 1 || serverCpu > 100))
        {
            bad = "--server-cpu: a share of CPU 0 from 1 to 100 percent";
        }
        else
        {
            return;
        }
        throw new CommandLine.ParameterException(spec.commandLine(), bad);
    }

    @Override
    public Integer call() throws Exception
    {
        check();
        if (!Sipp.available())
        {
            System.out.println("sipp is not installed (apt-get install sip-tester)");
            return 2;
        }
        // Kamailio's baseline is a stateful proxy without a registrar: it takes no registration storm.
        final boolean kamailio = !noKamailio && 0 == registerStorm;
        if (kamailio && !Files.isExecutable(Path.of("/usr/sbin/kamailio")))
        {
            System.out.println("kamailio is not installed (apt-get install kamailio); --no-kamailio leaves it out");
            return 2;
        }
        if (null == serverCpu)
        {
            return measure(kamailio, harness.layout());
        }
        makeAotCache(harness.layout().root());
        try (CpuConfinement cpu = CpuConfinement.create(serverCpu))
        {
            cpu.pinHarness();
            confinement = cpu.describe();
            System.out.println("bench overload: " + confinement);
            return measure(kamailio, harness.layout().confined(cpu));
        }
    }

    /**
     * Makes the AOT cache of the profile before any server is confined: the first server after a build would
     * otherwise make it, by a training run inside the confinement, several times slower and warmed up less.
     */
    private void makeAotCache(final Path root) throws IOException, InterruptedException
    {
        if ("off".equals(System.getenv("SIPLINE_AOT")))
        {
            return;
        }
        final Process p = new ProcessBuilder(root.resolve("bin/sipline").toString(), "aot", "--profile", profile)
            .inheritIO().start();
        if (!p.waitFor(10, TimeUnit.MINUTES) || 0 != p.exitValue())
        {
            p.destroyForcibly();
            throw new IOException("bin/sipline aot --profile " + profile + " failed");
        }
    }

    /** Finds the maxima (or takes them) and runs every series; {@link #call} after its checks. */
    private int measure(final boolean kamailio, final SystemUnderTest.Layout layout)
        throws IOException, InterruptedException
    {
        final Path dir = harness.resultDir("overload-");
        final Scenarios.Flow flow = Scenarios.b2bua(dir, null);
        final Path scenario = SurgeScenario.write(dir);
        final StormScenario storm = registerStorm > 0 ? StormScenario.write(dir, stormUsers) : null;
        final MaxRate search = new MaxRate(layout, app, profile, serverArgs(SystemUnderTest.SIPLINE, 0), stepSeconds,
            maxSteps, warmup);
        siplineMax = null != maxRate ? maxRate : search.find(dir, flow, SystemUnderTest.SIPLINE, startRate);
        if (kamailio)
        {
            kamailioMax = null != kamailioMaxRate ? kamailioMaxRate
                : search.find(dir, flow, SystemUnderTest.KAMAILIO, Math.max(1, startRate / 2));
        }
        write(dir);
        if (0 == siplineMax)
        {
            System.out.println("bench overload: no rate of Sipline was sustained twice; no surge run");
            return 1;
        }
        for (final int wait : overloadWaits)
        {
            for (final String admission : 0 == wait ? List.of("default") : admissions)
            {
                for (final String registerRate : null == storm ? List.of("default") : registerRates)
                {
                    for (final int m : null == storm ? multipliers : List.of(1))
                    {
                        surges.add(surge(layout, dir, flow, new Callers(scenario, storm), SystemUnderTest.SIPLINE,
                            new Series(wait, admission, registerRate), siplineMax, m));
                        write(dir);
                    }
                }
            }
        }
        if (kamailio && kamailioMax > 0)
        {
            surges.add(surge(layout, dir, flow, new Callers(scenario, null), SystemUnderTest.KAMAILIO,
                new Series(0, "default", "default"), kamailioMax, 2));
            write(dir);
        }
        System.out.println(Files.readString(dir.resolve("overload.md")));
        System.out.println("bench overload: results in " + dir);
        return 0;
    }

    /** The options of {@code bin/sipline run} for Sipline with {@code overloadWait} (0: off), also for the search. */
    private List<String> serverArgs(final SystemUnderTest s, final int overloadWait)
    {
        final List<String> args = new ArrayList<>();
        if (SystemUnderTest.SIPLINE == s && serverWarmup > 0)
        {
            args.addAll(List.of("--warmup", Integer.toString(serverWarmup)));
        }
        if (SystemUnderTest.SIPLINE == s)
        {
            // Always given: 0 turns the server's default overload control off.
            args.addAll(List.of("--overload-wait", Integer.toString(overloadWait)));
        }
        return args;
    }

    /**
     * The server's JVM options for an {@code --admission} entry: the admission limit's system properties
     * ({@code sipline.overload.admission.margin} and {@code .pressure}); none for {@code default}.
     */
    static List<String> admissionJvm(final String admission)
    {
        if ("default".equals(admission))
        {
            return List.of();
        }
        if ("off".equals(admission))
        {
            return List.of("-Dsipline.overload.admission.margin=off");
        }
        final int at = admission.indexOf('@');
        return List.of("-Dsipline.overload.admission.margin=" + (at < 0 ? admission : admission.substring(0, at)),
            "-Dsipline.overload.admission.pressure=" + (at < 0 ? "0" : admission.substring(at + 1)));
    }

    /**
     * The server's settings of one series.
     *
     * @param overloadWait {@code --overload-wait}, ms; 0: overload control off
     * @param admission    an {@code --admission} entry
     * @param registerRate a {@code --register-rates} entry
     */
    private record Series(int overloadWait, String admission, String registerRate)
    {
        /** The server's JVM options: the admission limit's and the REGISTER budget's system properties. */
        List<String> jvm()
        {
            final List<String> jvm = new ArrayList<>(admissionJvm(admission));
            if (!"default".equals(registerRate))
            {
                jvm.add("-Dsipline.overload.register.rate=" + registerRate);
            }
            return jvm;
        }
    }

    /**
     * The callers' scenarios.
     *
     * @param calls the surge's and the steady callers' ({@link SurgeScenario})
     * @param storm the registration storm's, null for a surge of INVITEs
     */
    private record Callers(Path calls, StormScenario storm)
    {
    }

    /** One surge (or registration storm) on a fresh, warmed-up server. */
    private Surge surge(final SystemUnderTest.Layout layout, final Path runDir, final Scenarios.Flow flow,
        final Callers callers, final SystemUnderTest s, final Series series, final int max, final int multiplier)
        throws IOException, InterruptedException
    {
        final boolean sipline = SystemUnderTest.SIPLINE == s;
        final boolean storm = null != callers.storm();
        final boolean admissionNamed = sipline && 0 != series.overloadWait() && !"default".equals(series.admission());
        final boolean budgetNamed = storm && !"default".equals(series.registerRate());
        final String name = s.label() + (sipline ? "-wait" + series.overloadWait() : "")
            + (admissionNamed ? "-admission-" + series.admission().replace('@', '-') : "")
            + (storm ? "-storm" + registerStorm + (budgetNamed ? "-budget-" + series.registerRate() : "")
                : "-" + multiplier + "x");
        final String label = s.label() + (sipline ? ", " + (0 == series.overloadWait() ? "overload control off"
            : "--overload-wait " + series.overloadWait()) : ", stateful proxy")
            + (admissionNamed ? ", admission " + series.admission() : "")
            + (storm ? ", register storm " + registerStorm + "/s, REGISTER budget " + series.registerRate()
                : ", " + multiplier + "x " + max + "/s");
        final Path dir = Files.createDirectories(runDir.resolve(name));
        final int uasPort = Sipp.freeUdpPort();
        final List<String> uacOptions = SystemUnderTest.KAMAILIO == s ? Scenarios.KAMAILIO_UAC_OPTIONS : List.of();
        final SurgeRun.Plan plan = new SurgeRun.Plan(max, multiplier, surgeSeconds, before, after, steadyShare,
            population, storm ? registerStorm : 0);
        final List<String> args = new ArrayList<>(serverArgs(s, series.overloadWait()));
        if (storm)
        {
            args.addAll(RegistrarDeployment.serverArgs(layout.root(), dir, app));
        }
        System.out.printf("bench overload: %s: starting%n", label);
        try (ServerProcess server = s.startOnFreePort(layout, dir, app, s.jvm() ? profile : "-", uasPort,
            sipline ? series.jvm() : List.of(), args, sipline))
        {
            if (warmup > 0)
            {
                warmUp(server, dir, flow, uasPort, uacOptions, name, plan);
            }
            final Surge result = new SurgeRun(dir, callers.calls(), flow, uacOptions, callers.storm())
                .run(server, uasPort, name, label, plan);
            System.out.printf("bench overload: %s: offered %.0f/s in the surge, goodput %.0f/s (least %.0f%% of the "
                + "max; before the surge, least %.0f%% of the steady rate), %d refused with 503, %d retransmissions, "
                + "%d failed; population %s; recovered %s%s%n", label, result.offeredInSurge(),
                result.goodputInSurge(), 100 * result.minGoodputShare(), 100 * result.steadyShareBefore(),
                result.refused(), result.retransmissions(), result.failed(), result.population(),
                result.recoverySeconds() < 0 ? "not within the run" : "after " + result.recoverySeconds() + " s",
                null == result.storm() ? "" : "; storm " + result.storm());
            return result;
        }
    }

    /**
     * The steady calls for {@code --warmup} seconds, with the run's scrapes of {@code /metrics} already going (into
     * {@code warmup/server-timeline.csv}): the JIT compiles the admin port's code now rather than in the measured
     * seconds, where on a confined server it would take its share of the quota.
     */
    private void warmUp(final ServerProcess server, final Path dir, final Scenarios.Flow flow, final int uasPort,
        final List<String> uacOptions, final String name, final SurgeRun.Plan plan)
        throws IOException, InterruptedException
    {
        final ServerTimeline scrapes = ServerTimeline.start(server, Files.createDirectories(dir.resolve("warmup")),
            System.nanoTime() + TimeUnit.SECONDS.toNanos(warmup), server.socketPorts());
        try
        {
            new LoadDriver(dir, uasPort, uacOptions, flow).run(server, name + "-warmup", "warmup",
                plan.steadyRate(), plan.steadyRate() * warmup, 0);
        }
        finally
        {
            if (null != scrapes)
            {
                scrapes.close();
            }
        }
    }

    private void write(final Path dir) throws IOException
    {
        final String command = "bin/sipline bench overload " + String.join(" ",
            spec.commandLine().getParseResult().originalArgs());
        Files.writeString(dir.resolve("overload.md"), OverloadReport.markdown(command, app, profile, siplineMax,
            kamailioMax, confinement, surges));
        Files.writeString(dir.resolve("overload.json"), OverloadReport.json(app, profile, siplineMax, kamailioMax,
            surges));
    }
}
