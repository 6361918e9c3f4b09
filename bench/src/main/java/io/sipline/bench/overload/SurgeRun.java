package io.sipline.bench.overload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.sipline.bench.calls.ProcFs;
import io.sipline.bench.calls.Scenarios;
import io.sipline.bench.calls.ServerProcess;
import io.sipline.test.Sipp;

/**
 * One overload run through a running, warmed-up server, all sipp processes at once: the far end (the flow's uas,
 * serving every caller); the steady caller at {@code steadyShare * max} calls/s from the start to the end; the
 * population's caller, which places its calls over the seconds before the surge and holds each so that their BYEs
 * are sent in the second half of the surge and the seconds after it; and, {@code before} seconds after the start,
 * the surge's caller, which brings the offered rate to {@code multiplier * max} for {@code surgeSeconds}. Every
 * caller runs {@link SurgeScenario} ({@code -trace_counts}); then each second of each file is added up on the
 * surge's clock ({@link SippCsv#perSecond}). Every sipp process is stopped by its handle. The harness's main thread.
 */
final class SurgeRun
{
    /** sipp's socket buffers: the loopback maximum of this machine (net.core.rmem_max). */
    private static final String SIPP_BUFFER = "4194304";
    /** A call whose next response does not come within this is failed. */
    private static final String RECV_TIMEOUT_MS = "8000";

    /**
     * The shape of a run.
     *
     * @param registerRate REGISTERs/s of a registration storm in the surge's place (no INVITE surge); 0: none
     */
    record Plan(int max, int multiplier, int surgeSeconds, int before, int after, double steadyShare,
        int populationCalls, int registerRate)
    {
        boolean storm()
        {
            return registerRate > 0;
        }

        int steadyRate()
        {
            return Math.max(1, (int)Math.round(steadyShare * max));
        }

        int surgeRate()
        {
            return Math.max(1, multiplier * max - steadyRate());
        }

        /** The population's rate: its calls spread over the seconds before the surge. */
        int populationRate()
        {
            return Math.max(1, (int)Math.ceil(populationCalls / (double)before));
        }

        /**
         * How long each established call is held: its BYE is then sent {@code before / 2 + surgeSeconds} after its
         * INVITE, which puts the BYEs from the middle of the surge (or its start, for a surge shorter than the
         * seconds before it) to as far after its end.
         */
        long holdMs()
        {
            return (before / 2L + surgeSeconds) * 1000L;
        }
    }

    private final Path dir;
    private final Path scenario;
    private final Scenarios.Flow flow;
    private final List<String> uacOptions;
    /** Null: no registration storm. */
    private final StormScenario storm;

    SurgeRun(final Path dir, final Path scenario, final Scenarios.Flow flow, final List<String> uacOptions,
        final StormScenario storm)
    {
        this.dir = dir;
        this.scenario = scenario;
        this.flow = flow;
        this.uacOptions = List.copyOf(uacOptions);
        this.storm = storm;
    }

    /** Runs {@code plan} through {@code server} (whose far end listens on {@code uasPort}) and returns it measured. */
    Surge run(final ServerProcess server, final int uasPort, final String name, final String label, final Plan plan)
        throws IOException, InterruptedException
    {
        final String uasName = name + "-uas";
        final String steadyName = name + "-steady";
        final String popName = name + "-population";
        final String surgeName = name + "-surge";
        for (final String n : List.of(uasName, steadyName, popName, surgeName))
        {
            forget(n);
        }
        final int total = plan.before() + plan.surgeSeconds() + plan.after();
        final long overloaded0 = overloaded(server);
        Process uas = null;
        Process steady = null;
        Process population = null;
        Process surge = null;
        ServerTimeline timeline = null;
        try
        {
            final List<String> uasArgs = new ArrayList<>(flow.uasArgs());
            uasArgs.addAll(List.of("-buff_size", SIPP_BUFFER));
            uas = Sipp.start(uasName, uasArgs, uasPort);
            awaitBound(uas, uasPort);
            final int[] ports = IntStream.concat(IntStream.of(server.socketPorts()), IntStream.of(uasPort)).toArray();
            final int[] callerPorts = {Sipp.freeUdpPort(), Sipp.freeUdpPort(), Sipp.freeUdpPort()};
            final Map<Long, Long> drops0 = ProcFs.udpDrops(ports);
            final long t0 = System.nanoTime();
            timeline = ServerTimeline.start(server, dir, t0 + TimeUnit.SECONDS.toNanos(plan.before()),
                server.socketPorts());
            steady = Sipp.start(steadyName, caller(server, plan.steadyRate(), plan.steadyRate() * total, 0),
                callerPorts[0]);
            population = Sipp.start(popName, caller(server, plan.populationRate(), plan.populationCalls(),
                plan.holdMs()), callerPorts[1]);
            sleepUntil(t0 + TimeUnit.SECONDS.toNanos(plan.before()));
            final double surgeStart = System.currentTimeMillis() / 1000.0;
            // The callers' own sockets: a caller starved of CPU drops what it is sent, and retransmits for it.
            awaitBound(steady, callerPorts[0]);
            final Map<Long, Long> callerDrops0 = ProcFs.udpDrops(callerPorts);
            surge = Sipp.start(surgeName, plan.storm() ? registrations(server, plan)
                : caller(server, plan.surgeRate(), plan.surgeRate() * plan.surgeSeconds(), 0), callerPorts[2]);
            final long deadline = t0 + TimeUnit.SECONDS.toNanos(total + 60L);
            for (final Process p : new Process[] {surge, steady, population})
            {
                p.waitFor(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            final long drops = ProcFs.dropsBetween(drops0, ProcFs.udpDrops(ports));
            final long callerDrops = ProcFs.dropsBetween(callerDrops0, ProcFs.udpDrops(callerPorts));
            Sipp.stop(uas);
            for (final String n : List.of(uasName, steadyName, popName, surgeName))
            {
                keep(n);
            }
            final long overloaded = overloaded0 < 0 ? -1 : overloaded(server) - overloaded0;
            return measure(label, plan, surgeStart, overloaded, new long[] {drops, callerDrops});
        }
        finally
        {
            if (null != timeline)
            {
                timeline.close();
            }
            Sipp.stop(surge);
            Sipp.stop(population);
            Sipp.stop(steady);
            Sipp.stop(uas);
        }
    }

    /** The run read back from the files {@link #keep} copied into the run's directory. */
    private Surge measure(final String label, final Plan plan, final double surgeStartGuess, final long overloaded,
        final long[] drops) throws IOException
    {
        final String[] callers = {"steady", "population", "surge"};
        final SippCsv surgeCounts = SippCsv.read(file("surge", "counts.csv"));
        final double origin = surgeCounts.isEmpty() ? surgeStartGuess : surgeCounts.startTime();
        final Map<Integer, long[]> seconds = new TreeMap<>();
        long missingRetryAfter = 0;
        Surge.Population pop = null;
        Surge.Storm registrations = null;
        for (final String c : callers)
        {
            final SippCsv counts = SippCsv.read(file(c, "counts.csv"));
            final SippCsv stat = SippCsv.read(file(c, "stat.csv"));
            if (plan.storm() && "surge".equals(c))
            {
                registrations = storm(plan, counts, stat, SippCsv.read(file("steady", "counts.csv")), origin);
                missingRetryAfter += stat.last(List.of("FailedRegexpHdrNotFound(C)", "FailedRegexpDoesntMatch(C)"));
                continue;
            }
            final String bye = counts.column(n -> n.endsWith("_BYE_Sent"));
            final String byeAnswer = byeAnswer(bye);
            final List<String> invite = counts.columns(n -> n.endsWith("_INVITE_Sent"));
            final List<String> refused = counts.columns(n -> n.endsWith("_503_Recv"));
            add(seconds, 0, counts.perSecond(invite, origin));
            add(seconds, 1, counts.perSecond(null == byeAnswer ? List.of() : List.of(byeAnswer), origin));
            add(seconds, 2, counts.perSecond(refused, origin));
            add(seconds, 3, stat.perSecond(List.of("Retransmissions(C)"), origin));
            add(seconds, 4, stat.perSecond(List.of("FailedCall(C)"), origin));
            missingRetryAfter += stat.last(List.of("FailedRegexpHdrNotFound(C)", "FailedRegexpDoesntMatch(C)"));
            if ("population".equals(c))
            {
                final List<String> byes = null == bye ? List.of() : List.of(bye);
                final List<String> answers = null == byeAnswer ? List.of() : List.of(byeAnswer);
                add(seconds, 5, counts.perSecond(byes, origin));
                add(seconds, 6, counts.perSecond(answers, origin));
                long inSurge = 0;
                long after = 0;
                for (final Map.Entry<Integer, Long> e : counts.perSecond(byes, origin).entrySet())
                {
                    inSurge += e.getKey() >= 0 && e.getKey() < plan.surgeSeconds() ? e.getValue() : 0;
                    after += e.getKey() >= plan.surgeSeconds() ? e.getValue() : 0;
                }
                pop = new Surge.Population(plan.populationCalls(), counts.last(bye), inSurge, after,
                    counts.last(byeAnswer), stat.last("FailedCall(C)"));
            }
        }
        add(seconds, 3, SippCsv.read(file("uas", "stat.csv")).perSecond(List.of("Retransmissions(C)"), origin));
        final List<Surge.Second> list = new ArrayList<>();
        for (final Map.Entry<Integer, long[]> e : seconds.entrySet())
        {
            final long[] v = e.getValue();
            list.add(new Surge.Second(e.getKey(), v[0], v[1], v[2], v[3], v[4], v[5], v[6]));
        }
        return new Surge(label, plan.max(), plan.multiplier(), plan.steadyRate(), plan.surgeSeconds(), list, pop,
            missingRetryAfter, overloaded, drops[0], drops[1], registrations);
    }

    /** The storm's registrations, and the steady caller's calls completed in its seconds. */
    private static Surge.Storm storm(final Plan plan, final SippCsv counts, final SippCsv stat, final SippCsv steady,
        final double origin)
    {
        final String byeAnswer = byeAnswer(steady.column(n -> n.endsWith("_BYE_Sent")));
        final Map<Integer, Long> completed = steady.perSecond(null == byeAnswer ? List.of() : List.of(byeAnswer),
            origin);
        double least = Double.MAX_VALUE;
        for (int second = 0; second < plan.surgeSeconds(); second++)
        {
            least = Math.min(least, completed.getOrDefault(second, 0L) / (double)plan.steadyRate());
        }
        return new Surge.Storm(plan.registerRate(), counts.last(counts.columns(n -> n.endsWith("_REGISTER_Sent"))),
            counts.last(counts.columns(n -> n.endsWith("_200_Recv"))),
            counts.last(counts.columns(n -> n.endsWith("_503_Recv"))), stat.last("FailedCall(C)"),
            stat.last("Retransmissions(C)"), least);
    }

    private static void add(final Map<Integer, long[]> seconds, final int column, final Map<Integer, Long> values)
    {
        for (final Map.Entry<Integer, Long> e : values.entrySet())
        {
            seconds.computeIfAbsent(e.getKey(), k -> new long[7])[column] += e.getValue();
        }
    }

    /** The server's {@code overloaded} events so far, -1 when it has no {@code /metrics}. */
    private static long overloaded(final ServerProcess server)
    {
        if (0 == server.adminPort())
        {
            return -1;
        }
        try
        {
            return Math.round(io.sipline.bench.fuzz.FuzzBench.byLabel(io.sipline.bench.fuzz.FuzzBench.metrics(
                server.adminPort()), "sipline_container_events_total", "event").getOrDefault("overloaded", 0.0));
        }
        catch (final IOException ex)
        {
            System.out.println("bench overload: reading /metrics failed: " + ex);
            return -1;
        }
    }

    /** A caller: the surge scenario at {@code rate} calls/s, {@code calls} calls, each held {@code holdMs}. */
    private List<String> caller(final ServerProcess server, final int rate, final int calls, final long holdMs)
    {
        final List<String> args = new ArrayList<>(List.of("127.0.0.1:" + server.port(), "-sf", scenario.toString(),
            "-r", Integer.toString(rate), "-rp", "1000", "-m", Integer.toString(calls), "-d", Long.toString(holdMs),
            "-l", Long.toString(Math.max(1000, (long)rate * (holdMs / 1000 + 12))),
            "-recv_timeout", RECV_TIMEOUT_MS, "-buff_size", SIPP_BUFFER, "-trace_counts"));
        args.addAll(uacOptions);
        return args;
    }

    /** The counts column of the 200 to the BYE sent at column {@code bye} (the scenario's next message), or null. */
    private static String byeAnswer(final String bye)
    {
        return null == bye ? null : (Integer.parseInt(bye.substring(0, bye.indexOf('_'))) + 1) + "_200_Recv";
    }

    /** The storm's caller: {@code registerRate} REGISTERs/s through the surge, each from the next user. */
    private List<String> registrations(final ServerProcess server, final Plan plan)
    {
        return List.of("127.0.0.1:" + server.port(), "-sf", storm.scenario().toString(), "-inf",
            storm.users().toString(), "-r", Integer.toString(plan.registerRate()), "-rp", "1000", "-m",
            Integer.toString(plan.registerRate() * plan.surgeSeconds()), "-l",
            Integer.toString(plan.registerRate() * 12), "-recv_timeout", RECV_TIMEOUT_MS, "-buff_size", SIPP_BUFFER,
            "-trace_counts");
    }

    /** The copy of sipp's {@code what} file of caller {@code role} in the run's directory. */
    private Path file(final String role, final String what)
    {
        return dir.resolve(role + "-" + what);
    }

    /** Copies sipp's statistics, counts and errors of {@code name} into the run's directory, by role. */
    private void keep(final String name) throws IOException
    {
        final String role = name.substring(name.lastIndexOf('-') + 1);
        final Path from = Path.of("target", "sipp", name);
        final Path counts = SippCsv.countsFile(from);
        if (null != counts)
        {
            Files.copy(counts, dir.resolve(role + "-counts.csv"), StandardCopyOption.REPLACE_EXISTING);
        }
        for (final String f : new String[] {"stat.csv", "screen.log", "errors.log"})
        {
            if (Files.isRegularFile(from.resolve(f)))
            {
                Files.copy(from.resolve(f), dir.resolve(role + "-" + f), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** Removes what an earlier run of the same name left in sipp's directory. */
    private static void forget(final String name) throws IOException
    {
        final Path d = Path.of("target", "sipp", name);
        if (!Files.isDirectory(d))
        {
            return;
        }
        try (var files = Files.list(d))
        {
            for (final Path p : files.toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }

    private static void sleepUntil(final long nanoTime) throws InterruptedException
    {
        final long left = nanoTime - System.nanoTime();
        if (left > 0)
        {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private static void awaitBound(final Process sipp, final int port) throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (0 == ProcFs.udpSockets(port)[0])
        {
            if (!sipp.isAlive() || System.nanoTime() - deadline > 0)
            {
                throw new IOException("sipp uas did not bind 127.0.0.1:" + port
                    + (sipp.isAlive() ? "" : " (exited " + sipp.exitValue() + ")"));
            }
            sipp.waitFor(20, TimeUnit.MILLISECONDS);
        }
    }
}
