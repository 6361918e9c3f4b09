package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import io.sipline.test.Sipp;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bin/sipline bench coldstart}: a fresh server offered its load from its first second, as a restart under load
 * would be. For each {@code --variants} entry (with or without the AOT cache that {@code bin/sipline run} starts the
 * JVM with, and with or without the server's own {@code --warmup} calls), in one run: starts Sipline with the
 * application, and the moment it says it is ready offers {@code --rate} calls/s for {@code --duration} seconds
 * ({@link LoadDriver}); then reads sipp's statistics, written once a second, into calls offered, completed, failed
 * and retransmitted (caller and far end) in each second from the start ({@link SippSeconds}). The AOT cache is made
 * once before the first variant that uses it ({@code bin/sipline aot}), so that no variant's start includes its
 * training. Writes {@code coldstart.md} and {@code coldstart.json} into {@code bench-results/coldstart-<stamp>/}.
 * Every child process is stopped by its handle. Runs on the main thread.
 */
@Command(name = "sipline bench coldstart", mixinStandardHelpOptions = true, sortOptions = false,
    description = "A fresh server offered its load from its first second, with and without the AOT cache, in one run.")
public final class ColdStart implements Callable<Integer>
{
    @Mixin
    HarnessOptions harness = new HarnessOptions();

    /** How long {@code bin/sipline aot} may take: a build and a training run. */
    private static final long AOT_MAKE_SECONDS = 900;

    /** One way of starting the server: with the AOT cache or not, with {@code --warmup} calls or not. */
    record Variant(String name, boolean aot, boolean warmup)
    {
        /** {@code aot}, {@code no-aot}, {@code aot+warmup} or {@code no-aot+warmup}. */
        static Variant parse(final String name)
        {
            final String n = name.strip().toLowerCase(Locale.ROOT);
            final boolean warmup = n.endsWith("+warmup");
            final String cache = warmup ? n.substring(0, n.length() - "+warmup".length()) : n;
            if (!"aot".equals(cache) && !"no-aot".equals(cache))
            {
                throw new IllegalArgumentException("'" + name + "' is not one of aot, no-aot, aot+warmup, "
                    + "no-aot+warmup");
            }
            return new Variant(n, "aot".equals(cache), warmup);
        }
    }

    /** What one variant measured: its start, the step's totals, each second, and what the launcher said of AOT. */
    record Result(Variant variant, double startSeconds, Step step, List<SippSeconds.Second> seconds, String aotSaid)
    {
    }

    @Option(names = "--app", paramLabel = "NAME", defaultValue = "typical-b2bua",
        description = "the example Sipline runs: typical-b2bua (default), b2bua or proxy")
    String app;

    @Option(names = "--rate", paramLabel = "R", required = true,
        description = "calls per second offered from the server's first second (e.g. 80%% of its warm maximum, "
        + "bin/sipline bench calls --find-max)")
    int rate;

    @Option(names = "--duration", paramLabel = "S", defaultValue = "30",
        description = "seconds of load after the start (default 30)")
    int duration;

    @Option(names = "--profile", paramLabel = "NAME", defaultValue = "zgc",
        description = "GC profile of jvm-profiles/ (default zgc); the AOT cache is the profile's")
    String profile;

    @Option(names = "--variants", paramLabel = "LIST", split = ",", defaultValue = "no-aot,aot",
        description = "the starts to measure, in order: aot (with the AOT cache), no-aot (SIPLINE_AOT=off), either "
        + "with +warmup (bin/sipline run --warmup, see --server-warmup); default no-aot,aot")
    List<String> variants;

    @Option(names = "--server-warmup", paramLabel = "CALLS", defaultValue = "10000",
        description = "the --warmup calls of the +warmup variants (default 10000)")
    int serverWarmup;

    @Spec
    CommandSpec spec;

    private final List<Result> results = new ArrayList<>();

    public static void main(final String[] args)
    {
        // Interrupted: every process this harness started is stopped through its handle, never by name.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.current().descendants()
            .forEach(ProcessHandle::destroyForcibly), "bench-coldstart-stop"));
        System.exit(new CommandLine(new ColdStart()).execute(args));
    }

    /** The results of the last run (after {@link #call}), in the order of {@code --variants}. */
    List<Result> results()
    {
        return List.copyOf(results);
    }

    /** Adds a measured variant (the run's own, or a test's). */
    void add(final Result r)
    {
        results.add(r);
    }

    /** The variants of {@code --variants}, checked with the other options. */
    List<Variant> checkedVariants()
    {
        if (!SystemUnderTest.APPS.contains(app))
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--app: '" + app + "' is not one of "
                + SystemUnderTest.APPS);
        }
        if (rate <= 0 || duration <= 0 || serverWarmup <= 0 || serverWarmup > 120_000)
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--rate and --duration must be positive, --server-warmup 1-120000");
        }
        final List<Variant> list = new ArrayList<>();
        for (final String v : variants)
        {
            try
            {
                final Variant parsed = Variant.parse(v);
                if (list.stream().anyMatch(o -> o.name().equals(parsed.name())))
                {
                    throw new IllegalArgumentException("'" + v + "' is named twice");
                }
                list.add(parsed);
            }
            catch (final IllegalArgumentException e)
            {
                throw new CommandLine.ParameterException(spec.commandLine(), "--variants: " + e.getMessage());
            }
        }
        return list;
    }

    @Override
    public Integer call() throws Exception
    {
        final List<Variant> list = checkedVariants();
        if (!Sipp.available())
        {
            System.out.println("sipp is not installed (apt-get install sip-tester)");
            return 2;
        }
        final SystemUnderTest.Layout layout = harness.layout();
        final Path dir = harness.resultDir("coldstart-");
        final Scenarios.Flow flow = SystemUnderTest.proxy(app) ? Scenarios.proxied(dir, null)
            : Scenarios.b2bua(dir, null);
        if (list.stream().anyMatch(Variant::aot) && !makeAotCache(layout, dir))
        {
            return 1;
        }
        for (final Variant v : list)
        {
            add(measure(layout, dir, flow, v));
            write(dir);
        }
        System.out.println(Files.readString(dir.resolve("coldstart.md")));
        System.out.println("bench coldstart: results in " + dir);
        return 0;
    }

    /** {@code bin/sipline aot --profile P}: the cache made once, before any measured start. */
    private boolean makeAotCache(final SystemUnderTest.Layout layout, final Path dir)
        throws IOException, InterruptedException
    {
        final Path log = dir.resolve("aot-make.log");
        System.out.printf("bench coldstart: making the AOT cache of profile %s (bin/sipline aot) ...%n", profile);
        final ProcessBuilder pb = new ProcessBuilder(layout.root().resolve("bin/sipline").toString(), "aot",
            "--profile", profile).directory(layout.root().toFile()).redirectErrorStream(true)
            .redirectOutput(log.toFile());
        pb.environment().put("JAVA_HOME", Path.of(layout.java()).getParent().getParent().toString());
        final Process p = pb.start();
        try
        {
            if (!p.waitFor(AOT_MAKE_SECONDS, TimeUnit.SECONDS))
            {
                System.out.println("bench coldstart: bin/sipline aot took over " + AOT_MAKE_SECONDS + " s; see " + log);
                return false;
            }
        }
        finally
        {
            p.destroy();
        }
        if (0 != p.exitValue())
        {
            System.out.println("bench coldstart: the AOT cache could not be made (exit " + p.exitValue() + "):\n"
                + Files.readString(log, StandardCharsets.ISO_8859_1).strip());
            return false;
        }
        return true;
    }

    /** One fresh server, loaded from the moment it is ready. */
    private Result measure(final SystemUnderTest.Layout layout, final Path runDir, final Scenarios.Flow flow,
        final Variant v) throws IOException, InterruptedException
    {
        final String name = "sipline-" + profile + "-" + app + "-" + v.name().replace('+', '-');
        final Path dir = Files.createDirectories(runDir.resolve(name));
        final int uasPort = Sipp.freeUdpPort();
        final LoadDriver driver = new LoadDriver(dir, uasPort, List.of(), flow);
        final List<String> serverArgs = v.warmup() ? List.of("--warmup", Integer.toString(serverWarmup)) : List.of();
        final Map<String, String> env = Map.of("SIPLINE_AOT", v.aot() ? "auto" : "off");
        System.out.printf("bench coldstart: %s: starting%n", name);
        final long t0 = System.nanoTime();
        final ServerProcess server = SystemUnderTest.SIPLINE.startOnFreePort(layout, dir, app, profile, uasPort,
            List.of(), serverArgs, false, env);
        final double startSeconds = (System.nanoTime() - t0) / 1e9;
        final Step step;
        try
        {
            step = driver.run(server, name, "cold", rate, rate * duration, 0);
        }
        finally
        {
            server.close();
        }
        final List<SippSeconds.Second> seconds = SippSeconds.read(dir.resolve(name + "-uac-stat.csv"),
            dir.resolve(name + "-uas-stat.csv"));
        final String said = aotLines(server.output());
        System.out.printf("bench coldstart: %-40s ready after %.1f s; %d of %d calls completed, %d failed, %d "
            + "retransmissions; %s%n", name, startSeconds, step.successful(), step.planned(), step.failed(),
            step.retransmissions(), said.isEmpty() ? "no AOT cache" : said.replace('\n', ' '));
        return new Result(v, startSeconds, step, seconds, said);
    }

    /** What the launcher and the JVM said of the AOT cache in the server's output (its lines, or nothing). */
    static String aotLines(final Path output) throws IOException
    {
        if (null == output || !Files.isRegularFile(output))
        {
            return "";
        }
        return String.join("\n", Files.readAllLines(output, StandardCharsets.ISO_8859_1).stream()
            .filter(l -> l.contains("AOT cache") || l.contains("[aot]")).map(String::strip).toList());
    }

    private void write(final Path dir) throws IOException
    {
        Files.writeString(dir.resolve("coldstart.md"), markdown());
        Files.writeString(dir.resolve("coldstart.json"), json());
    }

    String markdown()
    {
        final StringBuilder md = new StringBuilder(4096);
        md.append("# bench coldstart\n\nApplication `").append(app).append("`, profile `").append(profile)
            .append("`: a fresh server offered ").append(rate).append(" calls/s from the moment it said it was ready, ")
            .append("for ").append(duration).append(" s (sipp's built-in `uac` and `uas`, as in `bench calls`). ")
            .append("Per second from the start: calls offered (INVITEs sent), completed (BYE answered), failed, and ")
            .append("retransmissions counted by the caller and the far end (sipp's statistics, written once a ")
            .append("second). A call that gets no answer fails after sipp's 8 s receive timeout, so failures show up ")
            .append("late; retransmissions show the server falling behind in the second it does. Machine: ")
            .append(Runtime.getRuntime().availableProcessors()).append(" cores, JDK ").append(Runtime.version())
            .append(".\n\n| variant | ready after s | offered | completed | failed | retransmissions | ")
            .append("seconds with retransmissions | first second completing >= 50% of the rate | AOT |\n")
            .append("|---|---|---|---|---|---|---|---|---|\n");
        for (final Result r : results)
        {
            final int half = SippSeconds.firstSecondAtLeast(r.seconds(), rate / 2.0);
            md.append("| ").append(r.variant().name()).append(" | ").append(String.format(Locale.ROOT, "%.1f",
                r.startSeconds())).append(" | ").append(r.step().planned()).append(" | ")
                .append(r.step().successful()).append(" | ").append(r.step().failed()).append(" | ")
                .append(r.step().retransmissions()).append(" | ")
                .append(r.seconds().stream().filter(s -> s.retransmissions() > 0).count()).append(" | ")
                .append(half < 0 ? "never" : Integer.toString(half)).append(" | ")
                .append(r.aotSaid().isEmpty() ? "none" : r.aotSaid().replace("\n", "<br>").replace("|", "\\|"))
                .append(" |\n");
        }
        for (final Result r : results)
        {
            md.append("\n### ").append(r.variant().name()).append("\n\n| second | offered | completed | failed | ")
                .append("retransmissions |\n|---|---|---|---|---|\n");
            for (final SippSeconds.Second s : r.seconds())
            {
                md.append("| ").append(s.second()).append(" | ").append(s.offered()).append(" | ")
                    .append(s.completed()).append(" | ").append(s.failed()).append(" | ").append(s.retransmissions())
                    .append(" |\n");
            }
        }
        return md.toString();
    }

    String json()
    {
        final StringBuilder j = new StringBuilder(4096);
        j.append("{\n  \"app\": \"").append(app).append("\",\n  \"profile\": \"").append(profile)
            .append("\",\n  \"rate\": ").append(rate).append(",\n  \"durationSeconds\": ").append(duration)
            .append(",\n  \"variants\": [");
        for (int i = 0; i < results.size(); i++)
        {
            final Result r = results.get(i);
            j.append(i > 0 ? "," : "").append("\n    {\"variant\": \"").append(r.variant().name())
                .append("\", \"aotCache\": ").append(r.variant().aot()).append(", \"serverWarmupCalls\": ")
                .append(r.variant().warmup() ? serverWarmup : 0)
                .append(", \"readySeconds\": ").append(String.format(Locale.ROOT, "%.3f", r.startSeconds()))
                .append(", \"plannedCalls\": ").append(r.step().planned())
                .append(", \"successfulCalls\": ").append(r.step().successful())
                .append(", \"failedCalls\": ").append(r.step().failed())
                .append(", \"retransmissions\": ").append(r.step().retransmissions())
                .append(", \"aotSaid\": \"").append(r.aotSaid().replace("\\", "\\\\").replace("\"", "\\\"")
                    .replace("\n", "\\n").replace("\t", " ")).append('"')
                .append(", \"perSecond\": [");
            for (int k = 0; k < r.seconds().size(); k++)
            {
                final SippSeconds.Second s = r.seconds().get(k);
                j.append(k > 0 ? ", " : "").append("[").append(s.second()).append(", ").append(s.offered())
                    .append(", ").append(s.completed()).append(", ").append(s.failed()).append(", ")
                    .append(s.retransmissions()).append("]");
            }
            j.append("], \"perSecondColumns\": [\"second\", \"offered\", \"completed\", \"failed\", "
                + "\"retransmissions\"]}");
        }
        return j.append("\n  ]\n}\n").toString();
    }
}
