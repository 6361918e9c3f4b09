package io.sipline.bench.soak;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sipline.bench.calls.GcLog;
import io.sipline.bench.calls.HarnessOptions;
import io.sipline.bench.calls.RegistrarDeployment;
import io.sipline.bench.calls.Scenarios;
import io.sipline.bench.calls.ServerProcess;
import io.sipline.bench.calls.SystemUnderTest;
import io.sipline.bench.fuzz.FuzzBench;
import io.sipline.bench.overload.MaxRate;
import io.sipline.test.Sipp;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bin/sipline bench soak}: the example applications at half their maximum for a long time. Sipline runs the
 * B2BUA example and the registrar (a DAR sends REGISTER to the registrar, INVITE to the B2BUA); sipp places answered
 * calls, failing calls (486), CANCELled calls and registration refreshes of a fixed set of users ({@link
 * SoakScenarios}) for {@code --duration} seconds. Every {@code --sample} seconds it takes a {@link Sample}: heap after
 * a collection it requests ({@code jcmd GC.run}), direct memory ({@code /metrics}), RSS, the server's and sipp's
 * retransmissions, the longest GC pause since the last sample (the GC log, as {@code bench calls} reads it).
 * Reports the least-squares slope per hour of heap, direct memory and RSS over the whole run and over its second
 * half, and the longest GC pause. Writes
 * {@code soak.md} and {@code soak.json} into {@code bench-results/soak-<stamp>/}. Every child process is stopped by
 * its handle. Runs on the main thread.
 */
@Command(name = "sipline bench soak", mixinStandardHelpOptions = true, sortOptions = false,
    description = "The example applications at half their maximum for a long time, with registrations, CANCELs and "
        + "failing calls: the slopes of heap, direct memory and RSS, and the GC pauses.")
public final class SoakBench implements Callable<Integer>
{
    @Mixin
    HarnessOptions harness = new HarnessOptions();

    private static final String SIPP_BUFFER = "4194304";
    /** A collection {@code jcmd GC.run} asked for, in a unified GC log, and the heap after it. */
    private static final Pattern SYSTEM_GC = Pattern.compile("\\(System\\.gc\\(\\)\\) .*->(\\d+)([KMG])");

    @Option(names = "--duration", paramLabel = "S", defaultValue = "180",
        description = "seconds of load (default 180; 3600 for the hour)")
    int duration;

    @Option(names = "--sample", paramLabel = "S", defaultValue = "10",
        description = "seconds between samples (default 10)")
    int sampleSeconds;

    @Option(names = "--max-rate", paramLabel = "R",
        description = "the maximum sustained calls/s of the B2BUA example (default: found, as bench overload does)")
    Integer maxRate;

    @Option(names = "--rate-share", paramLabel = "F", defaultValue = "0.5",
        description = "calls/s offered, as a share of the maximum (default 0.5)")
    double rateShare;

    @Option(names = "--fail-share", paramLabel = "F", defaultValue = "0.1",
        description = "share of the calls answered 486 Busy Here (default 0.1)")
    double failShare;

    @Option(names = "--cancel-share", paramLabel = "F", defaultValue = "0.1",
        description = "share of the calls CANCELled while they ring (default 0.1)")
    double cancelShare;

    @Option(names = "--register-share", paramLabel = "F", defaultValue = "0.2",
        description = "registrations per second, as a share of the calls per second (default 0.2; Sipline only)")
    double registerShare;

    @Option(names = "--users", paramLabel = "N", defaultValue = "1000",
        description = "users refreshing their registrations in turn (default 1000)")
    int users;

    @Option(names = "--expires", paramLabel = "S", defaultValue = "60",
        description = "Expires of each registration, seconds (default 60)")
    int expires;

    @Option(names = "--hold", paramLabel = "MS", defaultValue = "1000",
        description = "how long an answered call is held before its BYE, ms (default 1000)")
    long hold;

    @Option(names = "--app", paramLabel = "NAME", defaultValue = "typical-b2bua",
        description = "the B2BUA example: typical-b2bua (default) or b2bua")
    String app;

    @Option(names = "--system", paramLabel = "NAME", defaultValue = "sipline",
        description = "sipline (default) or jainsip (the JAIN-SIP RI B2BUA of bench calls: no registrar, no /metrics)")
    String system;

    @Option(names = "--profile", paramLabel = "NAME", defaultValue = "zgc",
        description = "GC profile of jvm-profiles/ (default zgc)")
    String profile;

    @Option(names = "--server-warmup", paramLabel = "CALLS", defaultValue = "10000",
        description = "bin/sipline run --warmup CALLS (default 10000; 0: none)")
    int serverWarmup;

    @Option(names = "--start-rate", paramLabel = "R", defaultValue = "1000",
        description = "first rate of the search for the maximum (default 1000)")
    int startRate;

    @Spec
    CommandSpec spec;

    private final List<Sample> samples = new ArrayList<>();
    private final List<Caller> callers = new ArrayList<>();
    private GcLog.Summary gc = new GcLog.Summary(0, 0, 0);
    private int max;
    private String serverName = "";

    /** One sipp caller of the run and what it counted at its end. */
    record Caller(String kind, int rate, long successful, long failed, long retransmissions)
    {
    }

    public static void main(final String[] args)
    {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.current().descendants()
            .forEach(ProcessHandle::destroyForcibly), "bench-soak-stop"));
        System.exit(new CommandLine(new SoakBench()).execute(args));
    }

    List<Sample> samples()
    {
        return List.copyOf(samples);
    }

    List<Caller> callers()
    {
        return List.copyOf(callers);
    }

    GcLog.Summary gc()
    {
        return gc;
    }

    private SystemUnderTest checked()
    {
        final SystemUnderTest s;
        try
        {
            s = SystemUnderTest.of(system);
        }
        catch (final IllegalArgumentException e)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--system: " + e.getMessage());
        }
        final double shares = failShare + cancelShare;
        if (SystemUnderTest.KAMAILIO == s || !s.plays(app) || SystemUnderTest.proxy(app))
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--system " + system + " --app " + app
                + ": sipline with typical-b2bua or b2bua, or jainsip with b2bua");
        }
        if (duration < 5 || sampleSeconds < 1 || sampleSeconds > duration || users < 1 || expires < 1 || hold < 0
            || !(rateShare > 0 && rateShare <= 1) || failShare < 0 || cancelShare < 0 || !(shares < 1)
            || registerShare < 0 || (null != maxRate && maxRate < 1) || serverWarmup < 0 || startRate < 1)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--duration at least 5 s, --sample 1 s to "
                + "the duration, --rate-share in (0, 1], --fail-share and --cancel-share not negative and below 1 "
                + "together, --register-share, --hold, --server-warmup not negative, --users, --expires, --max-rate, "
                + "--start-rate positive");
        }
        if (SystemUnderTest.JAINSIP == s && registerShare > 0)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "jainsip has no registrar: "
                + "--register-share 0");
        }
        return s;
    }

    @Override
    public Integer call() throws Exception
    {
        final SystemUnderTest s = checked();
        if (!Sipp.available())
        {
            System.out.println("sipp is not installed (apt-get install sip-tester)");
            return 2;
        }
        final SystemUnderTest.Layout layout = harness.layout();
        final Path dir = harness.resultDir("soak-");
        final List<String> warm = SystemUnderTest.SIPLINE == s && serverWarmup > 0
            ? List.of("--warmup", Integer.toString(serverWarmup)) : List.of();
        max = null != maxRate ? maxRate : new MaxRate(layout, app, profile, warm, 10, 8, 5)
            .find(dir, Scenarios.b2bua(dir, null), s, startRate);
        if (0 == max)
        {
            System.out.println("bench soak: no rate was sustained twice");
            return 1;
        }
        final SoakScenarios files = SoakScenarios.write(dir, users, expires);
        final List<String> serverArgs = new ArrayList<>(warm);
        if (SystemUnderTest.SIPLINE == s && registerShare > 0)
        {
            serverArgs.addAll(RegistrarDeployment.serverArgs(layout.root(), dir, app));
        }
        final int uasPort = Sipp.freeUdpPort();
        try (ServerProcess server = s.startOnFreePort(layout, dir, app, profile, uasPort, List.of(), serverArgs,
            SystemUnderTest.SIPLINE == s))
        {
            serverName = s.label() + " " + app + (SystemUnderTest.SIPLINE == s && registerShare > 0 ? " + registrar"
                : "") + ", profile " + profile;
            soak(server, files, uasPort, dir);
        }
        write(dir);
        System.out.println(Files.readString(dir.resolve("soak.md")));
        System.out.println("bench soak: results in " + dir);
        return 0;
    }

    /** The load and the samples, then each caller's totals. */
    private void soak(final ServerProcess server, final SoakScenarios files, final int uasPort, final Path dir)
        throws IOException, InterruptedException
    {
        final int calls = Math.max(1, (int)Math.round(rateShare * max));
        final int busy = (int)Math.round(calls * failShare);
        final int cancel = (int)Math.round(calls * cancelShare);
        final int registers = (int)Math.round(calls * registerShare);
        final List<String[]> plan = new ArrayList<>();
        final int answered = Math.max(1, calls - busy - cancel);
        plan.add(new String[] {"answered", Integer.toString(answered), files.uac().toString()});
        plan.add(new String[] {"busy", Integer.toString(busy), files.busy().toString()});
        plan.add(new String[] {"cancel", Integer.toString(cancel), files.cancel().toString()});
        plan.add(new String[] {"register", Integer.toString(registers), files.register().toString()});
        final String prefix = "soak-" + server.port();
        final List<Process> processes = new ArrayList<>();
        final List<String> names = new ArrayList<>();
        try
        {
            final Process uas = Sipp.start(prefix + "-uas", List.of("-sf", files.uas().toString(), "-buff_size",
                SIPP_BUFFER), uasPort);
            processes.add(uas);
            names.add(prefix + "-uas");
            awaitBound(uas, uasPort);
            final long t0 = System.nanoTime();
            final Instant from = Instant.now();
            for (final String[] p : plan)
            {
                final int rate = Integer.parseInt(p[1]);
                if (rate > 0)
                {
                    names.add(prefix + "-" + p[0]);
                    processes.add(Sipp.start(prefix + "-" + p[0], caller(server, p[0], rate, p[2], files)));
                }
            }
            Instant last = from;
            // Samples while the load runs: the last one before the callers reach their last calls.
            for (int k = 1; (long)k * sampleSeconds < duration; k++)
            {
                final long at = t0 + TimeUnit.SECONDS.toNanos((long)k * sampleSeconds);
                final long left = at - System.nanoTime();
                if (left > 0)
                {
                    TimeUnit.NANOSECONDS.sleep(left);
                }
                final Instant now = Instant.now();
                samples.add(sample(server, (System.nanoTime() - t0) / 1e9, names, last, now, dir));
                final Sample x = samples.getLast();
                System.out.printf("bench soak: %4.0f s: heap after GC %,d B, direct %,d B, RSS %,d B, server "
                    + "retransmissions %d, sipp retransmissions %d, longest GC pause %.3f ms%n", x.seconds(),
                    x.heapAfterGc(), x.direct(), x.rss(), x.serverRetrans(), x.sippRetrans(), x.maxPauseMillis());
                last = now;
            }
            for (final Process p : processes.subList(1, processes.size()))
            {
                p.waitFor(60, TimeUnit.SECONDS);
            }
            gc = GcLog.read(server.gcLog()).between(from, Instant.now());
            for (int i = 1; i < names.size(); i++)
            {
                final String n = names.get(i);
                final long[] done = Sipp.successAndFailed(n);
                final String kind = n.substring(prefix.length() + 1);
                final int rate = Integer.parseInt(plan.stream().filter(p -> p[0].equals(kind)).findFirst()
                    .orElseThrow()[1]);
                callers.add(new Caller(kind, rate, Math.max(0, done[0]), Math.max(0, done[1]),
                    Math.max(0, Sipp.statistic(n, "Retransmissions(C)"))));
            }
            callers.add(new Caller("far end", 0, 0, 0, Math.max(0, Sipp.statistic(names.getFirst(),
                "Retransmissions(C)"))));
        }
        finally
        {
            for (final Process p : processes)
            {
                Sipp.stop(p);
            }
            for (final String n : names)
            {
                keep(n, dir);
            }
        }
    }

    private List<String> caller(final ServerProcess server, final String kind, final int rate, final String scenario,
        final SoakScenarios files)
    {
        final List<String> args = new ArrayList<>(List.of("127.0.0.1:" + server.port(), "-sf", scenario, "-r",
            Integer.toString(rate), "-rp", "1000", "-m", Long.toString((long)rate * duration), "-l",
            Long.toString(Math.max(1000, rate * (hold / 1000 + 12))), "-recv_timeout", "8000", "-buff_size",
            SIPP_BUFFER));
        if ("answered".equals(kind))
        {
            args.addAll(List.of("-d", Long.toString(hold)));
        }
        if ("register".equals(kind))
        {
            args.addAll(List.of("-inf", files.users().toString()));
        }
        return args;
    }

    private Sample sample(final ServerProcess server, final double seconds, final List<String> names,
        final Instant from, final Instant to, final Path dir) throws IOException, InterruptedException
    {
        final long heap = heapAfterGc(server);
        long direct = -1;
        long serverRetrans = -1;
        if (server.adminPort() > 0)
        {
            final Map<String, Double> m = FuzzBench.metrics(server.adminPort());
            direct = Math.round(FuzzBench.sum(m, "sipline_jvm_direct_memory_used_bytes"));
            serverRetrans = Math.round(FuzzBench.sum(m, "sipline_sip_retransmissions_sent")
                + FuzzBench.sum(m, "sipline_sip_retransmissions_sent_total"));
        }
        long sipp = 0;
        for (final String n : names)
        {
            sipp += Math.max(0, Sipp.statistic(n, "Retransmissions(C)"));
        }
        return new Sample(seconds, heap, direct, rss(server.pid()), serverRetrans, sipp,
            GcLog.read(server.gcLog()).between(from, to).maxMillis());
    }

    /**
     * The heap after a collection requested now ({@code jcmd PID GC.run}): the {@code ->} figure of the GC log's last
     * {@code (System.gc())} collection line, else the heap in use right after ({@code GC.heap_info}). Not
     * {@code GC.class_histogram}: its heap walk stops the server for long enough that the callers retransmit.
     */
    private static long heapAfterGc(final ServerProcess server) throws IOException, InterruptedException
    {
        // jcmd is a JVM of its own: at nice 19 and with C1 only, its start does not take the cores from the server
        // and the callers (at normal priority it delayed requests past overload control's wait at each sample)
        final Process p = new ProcessBuilder("nice", "-n", "19",
            Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), "-J-XX:TieredStopAtLevel=1",
            Long.toString(server.pid()), "GC.run").redirectErrorStream(true).start();
        try
        {
            p.getInputStream().readAllBytes();
            if (!p.waitFor(120, TimeUnit.SECONDS) || 0 != p.exitValue())
            {
                throw new IOException("jcmd " + server.pid() + " GC.run failed");
            }
        }
        finally
        {
            p.destroyForcibly();
        }
        final long logged = null == server.gcLog() ? -1 : lastSystemGc(Files.readAllLines(server.gcLog(),
            StandardCharsets.ISO_8859_1));
        return logged >= 0 ? logged : server.heapUsed();
    }

    /** The heap after the last {@code System.gc()} collection of a unified GC log, bytes; -1 when none. */
    static long lastSystemGc(final List<String> lines)
    {
        for (int i = lines.size() - 1; i >= 0; i--)
        {
            final Matcher m = SYSTEM_GC.matcher(lines.get(i));
            if (m.find())
            {
                final long v = Long.parseLong(m.group(1));
                return switch (m.group(2))
                {
                    case "K" -> v << 10;
                    case "M" -> v << 20;
                    default -> v << 30;
                };
            }
        }
        return -1;
    }

    /** VmRSS of {@code pid}, bytes; -1 when it cannot be read. */
    static long rss(final long pid) throws IOException
    {
        for (final String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")))
        {
            if (line.startsWith("VmRSS:"))
            {
                return Long.parseLong(line.substring(6).replace("kB", "").strip()) * 1024;
            }
        }
        return -1;
    }

    private static void keep(final String name, final Path dir) throws IOException
    {
        for (final String f : new String[] {"stat.csv", "screen.log", "errors.log"})
        {
            final Path from = Path.of("target", "sipp", name, f);
            if (Files.isRegularFile(from))
            {
                Files.copy(from, dir.resolve(name + "-" + f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static void awaitBound(final Process sipp, final int port) throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (0 == io.sipline.bench.calls.ProcFs.udpSockets(port)[0])
        {
            if (!sipp.isAlive() || System.nanoTime() - deadline > 0)
            {
                throw new IOException("sipp far end did not bind 127.0.0.1:" + port);
            }
            sipp.waitFor(20, TimeUnit.MILLISECONDS);
        }
    }

    private void write(final Path dir) throws IOException
    {
        final String command = "bin/sipline bench soak " + String.join(" ",
            spec.commandLine().getParseResult().originalArgs());
        Files.writeString(dir.resolve("soak.md"), SoakReport.markdown(command, serverName, max, duration, samples,
            callers, gc));
        Files.writeString(dir.resolve("soak.json"), SoakReport.json(serverName, max, duration, samples, callers, gc));
    }
}
