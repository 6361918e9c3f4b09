package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.sipline.bench.machine.MachinePauses;

/**
 * The results of one {@code bench calls} run and the files written from them into the run directory:
 * {@code report.md} (method, summary table, ratios of the measured system to each baseline, every step),
 * {@code results.json} (the same figures, machine-readable) and {@code p99.svg} (p99 INVITE→200 against offered
 * calls/s, one line per series: system, profile and application, drawn here without a library). Rewritten after
 * each series so an interrupted run keeps what it measured. The harness's main thread.
 */
public final class Report
{
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
        "#e377c2", "#17becf"};

    private final Path dir;
    private final String command;
    private final List<String> apps;
    private final boolean findMax;
    private final int duration;
    private final long hold;
    private final Instant started = Instant.now();
    private final List<Series> series = new ArrayList<>();
    private final List<Footprint> footprints = new ArrayList<>();
    private final List<LockCheck> lockChecks = new ArrayList<>();
    /** What was changed in the far end's scenario and why, or null (sipp's built-in uas, or the proxy's copy). */
    private String farEnd;
    /** The machine-pause probe run before the steps, or null (none run). */
    private MachinePauses.Result machinePauses;

    Report(final Path dir, final String command, final List<String> apps, final boolean findMax, final int duration,
        final long hold)
    {
        this.dir = dir;
        this.command = command;
        this.apps = List.copyOf(apps);
        this.findMax = findMax;
        this.duration = duration;
        this.hold = hold;
    }

    public Path dir()
    {
        return dir;
    }

    public List<Series> series()
    {
        return List.copyOf(series);
    }

    public List<Footprint> footprints()
    {
        return List.copyOf(footprints);
    }

    void add(final Series s)
    {
        series.add(s);
    }

    void add(final Footprint f)
    {
        footprints.add(f);
    }

    void farEnd(final String what)
    {
        farEnd = what;
    }

    void machinePauses(final MachinePauses.Result result)
    {
        machinePauses = result;
    }

    void add(final LockCheck c)
    {
        lockChecks.add(c);
    }

    /** The footprint of {@code kind} for {@code system} running {@code app}, or null. */
    public Footprint footprint(final SystemUnderTest system, final String app, final String kind)
    {
        for (final Footprint f : footprints)
        {
            if (f.system() == system && f.app().equals(app) && f.kind().equals(kind))
            {
                return f;
            }
        }
        return null;
    }

    /** Writes report.md, results.json and p99.svg. */
    void write() throws IOException
    {
        Files.writeString(dir.resolve("report.md"), markdown());
        Files.writeString(dir.resolve("results.json"), json());
        Files.writeString(dir.resolve("p99.svg"), svg());
    }

    // --- report.md ------------------------------------------------------------------------------------------------

    String markdown()
    {
        final StringBuilder md = new StringBuilder(8192);
        context(md);
        method(md);
        md.append("Steps of ").append(duration).append(" s, calls held ").append(hold).append(" ms")
            .append(findMax ? "; --find-max: doubling from the start rate, then bisection to 5% (a sustained step "
                + "keeps its server, a failed one is followed by a fresh server), then confirmation: a rate is the "
                + "maximum only when it was sustained twice and never failed. The best rate of the search is run "
                + "again on a fresh server (`confirm-r…`); if it fails, 10% lower on a fresh server each time "
                + "(`down-r…`, then `confirm-r…`) until one rate holds twice. Then one step at 80% of that maximum "
                + "(`at80`).\n\n" : ".\n\n");
        summary(md);
        limits(md);
        ratios(md);
        for (final Series s : series)
        {
            stepTable(md, s);
        }
        memory(md);
        md.append("\nFiles: sipp statistics (`*-stat.csv`), per-call times (`*-calls.log`), server output and GC logs ")
            .append("in one directory per system/profile; `results.json`; `p99.svg`.\n");
        return md.toString();
    }

    /** The run's command, machine, machine pauses and application. */
    private void context(final StringBuilder md)
    {
        md.append("# bench calls ").append(started).append("\n\n");
        md.append("Command: `").append(command).append("`\n\n");
        md.append("Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores (").append(cpuModel())
            .append("), JDK ").append(Runtime.version()).append(". sipp's uac and uas run on the same cores as the ")
            .append("server: every figure is for the three sharing this machine. The steps' last column says how ")
            .append("busy the machine was: server / whole machine in cores (2.00 = saturated); whatever exceeds ")
            .append("server + sipp was other work on the box. Where the whole machine comes out below the server ")
            .append("alone, /proc/stat does not count what runs here, and the summary gives no machine figure.\n\n");
        if (null != machinePauses)
        {
            md.append("Machine pauses, measured before the steps with nothing else running (`bin/sipline bench ")
                .append("pauses`): ").append(machinePauses.describe()).append(". Every call in flight while every ")
                .append("core is stopped waits that long and then for the backlog it leaves, whatever the system; ")
                .append("read the p99 and max columns against it.\n\n");
        }
        md.append(apps.size() > 1 ? "Applications, each its own series: " : "Application: ");
        for (int i = 0; i < apps.size(); i++)
        {
            md.append(i > 0 ? "; " : "").append('`').append(apps.get(i)).append("` (").append(describe(apps.get(i)))
                .append(')');
        }
        md.append(". A baseline deploys no application: it is measured once for every kind of call (B2BUA or ")
            .append("proxied) and stands for each application of that kind it can play.\n\n");
        if (apps.stream().anyMatch(SystemUnderTest::proxy))
        {
            md.append("Proxied calls follow the route set: sipp's built-in `uac` with `rrs=\"true\"` on the 200 and ")
                .append("the ACK and BYE sent to the 200's Contact (`[next_url]`) with the Route header built from ")
                .append("the Record-Route (`[routes]`); the far end is sipp's built-in `uas` copying the INVITE's ")
                .append("Record-Route into its 180 and 200 (`[last_Record-Route:]`); both derived from the installed ")
                .append("sipp at run time, messages otherwise unchanged.\n\n");
        }
    }

    /** What an application of {@link SystemUnderTest#APPS} is, and its baselines. */
    static String describe(final String app)
    {
        return switch (app)
        {
            case "typical-b2bua" -> "`examples/typical-b2bua`, a B2BUA as applications are usually written: session "
                + "and application-session listeners, attributes on both kinds of session, a custom header through "
                + "`B2buaHelper.createRequest` with a header map, responses and in-dialog requests relayed through "
                + "`B2buaHelper`, a `ServletContext.log` line every 10 calls; two dialogs per call; Kamailio, a "
                + "stateful record-routing proxy between the same sipp ends, is its baseline";
            case "b2bua" -> "`examples/b2bua`, the minimal forwarding servlet: two dialogs per call; baselines the "
                + "JAIN-SIP RI B2BUA, as minimal, and Kamailio as a stateful record-routing proxy between the same "
                + "sipp ends";
            case "proxy" -> "`examples/proxy` with targets=sip:service@<the far end>, record-route=true, "
                + "parallel=true; Kamailio, the same kind of stateful record-routing proxy, is its baseline";
            default -> throw new IllegalArgumentException("unknown application '" + app + "'");
        };
    }

    /** How the figures are measured: the callers, what sustained means, GC, CPU, memory, server-side timing. */
    private void method(final StringBuilder md)
    {
        md.append("""
            Method: sipp's uac calls through the system to sipp's uas on 127.0.0.1 (UDP). The uac scenario is sipp's \
            built-in `uac` (from `sipp -sd uac` at run time, with the changes above for the proxy) with timing \
            actions only (the clock read before the \
            INVITE and at the 180 and the 200, logged in microseconds); the messages are the built-in ones. For \
            Kamailio the caller also runs with `-default_behaviors all,-abortunexp`: a 180 that one of its two \
            workers forwards after the 200 is logged and the call goes on instead of failing; the \
            steps count these (column "late msgs"). A rate is sustained when every call succeeds, sipp counts 0 \
            retransmissions on the uac and the uas, the kernel drops no datagram on the server's or the uas's \
            sockets, and the completed rate is at least 95% of the offered one. Percentiles are nearest-rank over \
            every call of the step; the column "INVITE→180 p99 per second" takes the p99 of each run of as many \
            successive 180s as the rate (about one second each, in the order sipp logged them) and gives the \
            median of those and the worst with its second (0 = the first), so that a few bad seconds show apart \
            from a steady figure. GC pauses are read from the server's GC log over the step. Sipline runs as \
            `bin/sipline run` starts it: under the `zgc` profile its ZGC concurrent threads run under Linux's \
            `SCHED_IDLE` policy (`--gc-threads idle`, docs/operations.md); the JAIN-SIP RI B2BUA gets the same \
            profile's JVM flags and its GC threads stay as the JVM made them. CPU is utime+stime \
            of the server process and its children. Allocated bytes per call: heap growth over a fixed count of \
            calls under `jvm-profiles/epsilon.args` plus `-XX:-UseTLAB` (every byte accounted, none reclaimed), \
            after a warm-up at the same rate that lasts at least 37 s (64*T1 = 32 s, the longest life of a SIP \
            transaction, plus 5 s), so that the calls of the warm-up still in their transactions are as many as \
            during the run and what the server pools for them is already there: the figure is the garbage of a \
            call, not the growth of the pools to the rate's size. Retained bytes per established call: bytes of \
            live objects (`jcmd \
            GC.class_histogram`: a full GC, then only reachable objects counted) under the `parallel` profile with \
            the calls held, 36 s after the last set-up so that every set-up transaction has ended, minus the same \
            before the calls (also 36 s after the warm-up), divided by the calls sipp counts as established.
            """).append('\n');
        if (null != farEnd)
        {
            md.append("The far end: ").append(farEnd).append(".\n\n");
        }
        md.append("""
            Server response times (columns "server INVITE→180" and "server INVITE→2xx", after sipp's): Sipline's own \
            figure, beside sipp's and not instead of it. For each INVITE server transaction the server times, once, \
            from the kernel's receive timestamp of the INVITE on its socket to the moment its socket took its first \
            180 (its first 2xx); it keeps them in fixed buckets (50 µs steps to 2 ms, 250 µs steps to 10 ms, then \
            12.5, 15, 17.5, 20, 25, 30, 40, 50, 100, 200, 500 ms, 1, 2, 5, 10 s) served on its admin port \
            (`sipline_sip_invite_response_seconds`). The harness reads `/metrics` right before sipp's caller starts \
            and right after it ends, takes the bucket deltas summed over the shards, and gives each percentile \
            (nearest rank) and the max as the upper bound of the bucket it falls in: "<= x ms" means at most x ms. \
            What it leaves out: sipp's own send and receive delays on the caller side, i.e. the time from sipp \
            reading its clock to its INVITE reaching the server's socket, and from the response leaving the server's \
            socket to sipp reading it and its clock (on this machine sipp stalls and is descheduled, so its own \
            figure mixes those delays with ours). "n/a": a scrape failed; "-": no server figure (a baseline, sipp \
            alone); "none timed": the server timed no response in the step (its transport gave no arrival times).
            """).append('\n');
        md.append("""
            The far end's part (column "far end INVITE→180 as the server saw it"): the same kind of figure from the \
            other side of the server, its INVITE client transactions (`sipline_sip_invite_client_response_seconds`): \
            from the moment the server's socket took its INVITE to the far end (sipp's uas) to the kernel's receive \
            timestamp of the 180 that came back. A B2BUA's INVITE→180 is its own two hops (the INVITE in and out, \
            the 180 in and out) plus this, so the difference between the two columns is the server's part; both are \
            percentiles of bucket bounds, so the difference of two percentiles is an estimate, not a per-call figure. \
            The server's input lag (columns "server input lag", per message, `sipline_sip_input_lag_seconds`) is how \
            long a message waited between the kernel's receive timestamp and the moment its shard began to handle \
            it: "read" for messages a shard read from its own socket, "handed over" for those one shard read and \
            passed to the shard that owns the call (the reading shard's wait, the copy and the inbox together).
            """).append('\n');
    }

    /** One system's steps, and the server's counters when it stopped. */
    private void stepTable(final StringBuilder md, final Series s)
    {
        md.append("\n### ").append(s.name()).append(" (").append(s.scenario()).append(")\n\n");
        md.append("| step | offered/s | completed/s | failed | retrans | drops | late msgs | ")
            .append("p50/p90/p99/max INVITE→180 ms | ")
            .append("INVITE→180 p99 per second: median / worst (its second) ms | ")
            .append("p50/p90/p99/max INVITE→200 ms | ")
            .append("server INVITE→180 p50/p90/p99/max ms (bucket bounds) | ")
            .append("server INVITE→2xx p50/p90/p99/max ms (bucket bounds) | ")
            .append("far end INVITE→180 as the server saw it p50/p90/p99/max ms (bucket bounds) | ")
            .append("server input lag, read p50/p90/p99/max ms | ")
            .append("server input lag, handed over p50/p90/p99/max ms | ")
            .append("GC pauses n/total/max ms | ")
            .append("CPU s/1k calls | cores busy: server / machine | sustained |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (final Step st : s.steps())
        {
            md.append("| ").append(st.label()).append(" | ").append(st.offered()).append(" | ")
                .append(f1(st.completedRate())).append(" | ").append(st.failed()).append(" | ")
                .append(st.retransmissions()).append(" | ").append(st.drops()).append(" | ")
                .append(st.unexpected()).append(" | ")
                .append(latency(st.ringing())).append(" | ").append(perSecond(st.ringing())).append(" | ")
                .append(latency(st.answered())).append(" | ")
                .append(serverLatency(st.serverRinging())).append(" | ")
                .append(serverLatency(st.serverAnswered())).append(" | ")
                .append(serverLatency(st.farEndRinging())).append(" | ")
                .append(serverLatency(st.readLag())).append(" | ")
                .append(serverLatency(st.handoverLag())).append(" | ")
                .append(gc(s, st)).append(" | ").append(f3(st.cpuPer1000())).append(" | ")
                .append(f2(st.serverCores())).append(" / ").append(f2(st.machineCores())).append(" | ")
                .append("warmup".equals(st.label()) ? "(warm-up)" : CallsBench.FLOOR_STEP.equals(st.label())
                    ? "(sipp alone, no server)" : st.sustained() ? "yes" : "no").append(" |\n");
        }
        if (!s.counters().isEmpty())
        {
            md.append("\nThe server's own counters when it stopped (one line per server started):\n\n");
            for (final String line : s.counters().split("\n"))
            {
                md.append("    ").append(line).append('\n');
            }
        }
    }

    /** The memory table: allocated and retained bytes per call. */
    private void memory(final StringBuilder md)
    {
        if (!footprints.isEmpty())
        {
            md.append("\n### Memory\n\n| system | application | figure | profile | calls | bytes | bytes per call |\n")
                .append("|---|---|---|---|---|---|---|\n");
            for (final Footprint f : footprints)
            {
                md.append("| ").append(f.system().label()).append(" | ")
                    .append(f.system().deploys() ? f.app() : "-").append(" | ").append(f.kind()).append(" | ")
                    .append(f.profile()).append(" | ").append(f.calls()).append(" | ").append(f.bytes()).append(" | ")
                    .append(f0(f.perCall())).append(" |\n");
            }
        }
    }

    /** The comparison table: one line per system/profile. */
    void summary(final StringBuilder md)
    {
        md.append("| system | application | ").append(findMax ? "max sustained calls/s (held twice)" :
            "sustained calls/s")
            .append(" | held by steps | machine cores busy at max | ")
            .append("p50/p90/p99/max INVITE→180 ms at 80% | ")
            .append("p50/p90/p99/max INVITE→200 ms at 80% | server INVITE→180 ms at 80% (bucket bounds) | ")
            .append("server INVITE→2xx ms at 80% (bucket bounds) | ")
            .append("far end INVITE→180 as the server saw it, ms at 80% (bucket bounds) | ")
            .append("p99 INVITE→200 at max | GC pauses at max n/total/max ms | ")
            .append("CPU s/1k calls at max | allocated B/call | retained B/call |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (final Series s : series)
        {
            final Step at = null != s.at80() ? s.at80() : s.best();
            final Footprint alloc = footprint(s.system(), s.app(), "allocated");
            final Footprint kept = footprint(s.system(), s.app(), "retained");
            md.append("| ").append(s.system().jvm() ? s.system().label() + "/" + s.profile() : s.system().label())
                .append(" | ").append(application(s)).append(" | ").append(s.maxSustained()).append(" | ")
                .append(s.confirming().isEmpty() ? "-" : String.join(", ", s.confirming().stream().map(Step::label)
                    .toList())).append(" | ")
                .append(s.machineCountBelowServer() ? "n/a" : f2(s.machineCoresAtMax()) + " of " + cores())
                .append(" | ")
                .append(null == at ? "-" : latency(at.ringing())).append(" | ")
                .append(null == at ? "-" : latency(at.answered())).append(" | ")
                .append(null == at ? "-" : serverLatency(at.serverRinging())).append(" | ")
                .append(null == at ? "-" : serverLatency(at.serverAnswered())).append(" | ")
                .append(null == at ? "-" : serverLatency(at.farEndRinging())).append(" | ")
                .append(null == s.best() ? "-" : f2(s.best().answered().p99())).append(" | ")
                .append(null == s.best() ? "-" : gc(s, s.best())).append(" | ")
                .append(null == s.best() ? "-" : f3(s.best().cpuPer1000())).append(" | ")
                .append(null == alloc ? "n/a" : f0(alloc.perCall())).append(" | ")
                .append(null == kept ? "n/a" : f0(kept.perCall())).append(" |\n");
        }
    }

    /** The application column: the one deployed, or for a baseline the applications it stands for. */
    String application(final Series s)
    {
        return s.system().deploys() ? s.app() : "baseline of " + String.join(", ", baselineOf(s));
    }

    /** The applications of the run a baseline series stands for (same kind of call, one it can play); none else. */
    List<String> baselineOf(final Series s)
    {
        if (s.system().deploys())
        {
            return List.of();
        }
        return apps.stream().filter(a -> s.system().plays(a) && SystemUnderTest.proxy(a) == SystemUnderTest.proxy(
            s.app())).toList();
    }

    /**
     * One plain sentence per series on what its maximum is a limit of: the machine (saturated at the max: sipp and
     * the server together) or not; and a rate held once above the confirmed maximum, when there was one.
     */
    void limits(final StringBuilder md)
    {
        md.append('\n');
        for (final Series s : series)
        {
            md.append("- ").append(s.name()).append(": ");
            if (0 == s.maxSustained())
            {
                md.append("no rate was sustained twice");
                md.append(s.heldOnce() > 0 ? " (" + s.heldOnce() + " calls/s held once, not again)" : "");
                md.append(".\n");
                continue;
            }
            if (s.machineCountBelowServer())
            {
                md.append("whether the machine was saturated at the max is not known: its busy time (/proc/stat) "
                    + "came out below the server's own CPU time in a confirming step, so this machine does not count "
                    + "what runs on it.");
            }
            else if (s.saturatedAtMax(cores()))
            {
                md.append("the machine was saturated at the max (").append(f2(s.machineCoresAtMax())).append(" of ")
                    .append(cores()).append(" cores busy): ").append(s.maxSustained()).append(" calls/s is a limit of ")
                    .append("sipp and the server together on this machine, not of the server alone.");
            }
            else
            {
                md.append("the machine was not saturated at the max (").append(f2(s.machineCoresAtMax()))
                    .append(" of ").append(cores()).append(" cores busy).");
            }
            if (s.heldOnce() > s.maxSustained())
            {
                md.append(" ").append(s.heldOnce()).append(" calls/s held once in the search but not again on a ")
                    .append("fresh server.");
            }
            for (final LockCheck c : lockChecks)
            {
                if (c.series().equals(s.name()))
                {
                    md.append(" Contended monitor enters during ").append(c.step()).append(" (JFR ")
                        .append("`jdk.JavaMonitorEnter`, threshold 0): ").append(c.shardThreads())
                        .append(" on the shard threads, ").append(c.otherThreads()).append(" on other threads.");
                }
            }
            for (final Step st : s.steps())
            {
                if (CallsBench.FLOOR_STEP.equals(st.label()))
                {
                    md.append(" sipp alone (its caller straight to its far end, no server running) at the same ")
                        .append(st.offered()).append(" calls/s: INVITE→180 p50/p90/p99/max ")
                        .append(latency(st.ringing())).append(" ms, the floor under the figures at 80% on this ")
                        .append("machine (").append(st.failed()).append(" failed, ").append(st.retransmissions())
                        .append(" retransmissions).");
                }
            }
            md.append('\n');
        }
    }

    private static int cores()
    {
        return Runtime.getRuntime().availableProcessors();
    }

    /**
     * Each series of the measured system (the first series' system and profile, one per application) against every
     * series it compares with ({@link Series#comparesWith}): the baselines that stand for its application, and the
     * same system with the other applications of its kind of call.
     */
    void ratios(final StringBuilder md)
    {
        if (series.size() < 2)
        {
            return;
        }
        for (final Series ours : series)
        {
            if (ours.system() == series.getFirst().system() && ours.profile().equals(series.getFirst().profile()))
            {
                ratios(md, ours);
            }
        }
    }

    private void ratios(final StringBuilder md, final Series ours)
    {
        if (series.stream().noneMatch(ours::comparesWith))
        {
            return;
        }
        md.append("\nRatios of ").append(ours.name()).append(" to each baseline and to its other applications (max ")
            .append("calls/s: ours / theirs, higher is better for us; p99 and bytes: theirs / ours, higher is better ")
            .append("for us):\n\n")
            .append("| against | max calls/s | p99 INVITE→180 at 80% | p99 INVITE→200 at 80% | allocated B/call | ")
            .append("retained B/call |\n|---|---|---|---|---|---|\n");
        for (final Series other : series)
        {
            if (!ours.comparesWith(other))
            {
                continue;
            }
            md.append("| ").append(other.name()).append(" | ")
                .append(ratio(ours.maxSustained(), other.maxSustained())).append(" | ")
                .append(ratio(p99(other, true), p99(ours, true))).append(" | ")
                .append(ratio(p99(other, false), p99(ours, false))).append(" | ")
                .append(ratio(perCall(other, "allocated"), perCall(ours, "allocated"))).append(" | ")
                .append(ratio(perCall(other, "retained"), perCall(ours, "retained"))).append(" |\n");
        }
    }

    private double perCall(final Series s, final String kind)
    {
        final Footprint f = footprint(s.system(), s.app(), kind);
        return null == f ? Double.NaN : f.perCall();
    }

    private static double p99(final Series s, final boolean ringing)
    {
        final Step at = null != s.at80() ? s.at80() : s.best();
        return null == at ? Double.NaN : ringing ? at.ringing().p99() : at.answered().p99();
    }

    private static String ratio(final double a, final double b)
    {
        return Double.isNaN(a) || Double.isNaN(b) || 0 == b ? "n/a" : String.format(Locale.ROOT, "%.2fx", a / b);
    }

    private static String gc(final Series s, final Step st)
    {
        return s.system().jvm() ? st.gc().count() + " / " + f1(st.gc().totalMillis()) + " / "
            + f2(st.gc().maxMillis()) : "n/a";
    }

    /**
     * The server's own figures of a step: "-" when there are none (not Sipline), "n/a" when a scrape failed, "none
     * timed" when it timed nothing, else each as "<= x" (the upper bound of the bucket the figure falls in).
     */
    static String serverLatency(final ServerLatency l)
    {
        return switch (l.state())
        {
            case NOT_MEASURED -> "-";
            case SCRAPE_FAILED -> "n/a";
            case MEASURED -> 0 == l.count() ? "none timed" : atMost(l.p50()) + " / " + atMost(l.p90()) + " / "
                + atMost(l.p99()) + " / " + atMost(l.max());
        };
    }

    /** The server's p99 alone, for the console: "<= x ms", "n/a", "-" or "none timed". */
    static String serverP99(final ServerLatency l)
    {
        return ServerLatency.State.MEASURED == l.state() && l.count() > 0 ? atMost(l.p99()) + " ms" :
            serverLatency(l);
    }

    private static String atMost(final double ms)
    {
        return Double.isInfinite(ms) ? "> 10000" : "<= " + f2(ms);
    }

    /** "6.10 / 24.02 (2)": the median and the worst of the step's per-second p99s, with the worst one's second. */
    static String perSecond(final Latency l)
    {
        return 0 == l.p99PerSecond().length ? "-" : f2(l.medianSecondP99()) + " / "
            + f2(l.p99PerSecond()[l.worstSecond()]) + " (" + l.worstSecond() + ")";
    }

    private static String latency(final Latency l)
    {
        return 0 == l.count() ? "-" : f2(l.p50()) + " / " + f2(l.p90()) + " / " + f2(l.p99()) + " / " + f2(l.max());
    }

    private static String cpuModel()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/cpuinfo")))
            {
                if (line.startsWith("model name"))
                {
                    return line.substring(line.indexOf(':') + 1).strip();
                }
            }
        }
        catch (final IOException ignored)
        {
            // not Linux: no model
        }
        return "unknown CPU";
    }

    // --- results.json ---------------------------------------------------------------------------------------------

    private String machinePausesJson()
    {
        if (null == machinePauses)
        {
            return "null";
        }
        final MachinePauses.Result p = machinePauses;
        return "{\"threads\": " + p.threads() + ", \"seconds\": " + n(p.nanos() / 1e9) + ", \"gapMs\": "
            + n(MachinePauses.GAP_NS / 1e6) + ", \"everyCoreAtOnce\": " + p.together()
            + ", \"everyCoreAtOnceTotalMs\": "
            + n(p.togetherNs() / 1e6) + ", \"everyCoreAtOnceLongestMs\": " + n(p.longestTogetherNs() / 1e6)
            + ", \"anyCore\": " + p.gaps() + ", \"anyCoreLongestMs\": " + n(p.longestGapNs() / 1e6)
            + ", \"harnessGcs\": " + p.gcs() + ", \"overflowed\": " + p.overflowed() + "}";
    }

    String json()
    {
        final StringBuilder j = new StringBuilder(8192);
        j.append("{\n  \"started\": ").append(q(started.toString())).append(",\n  \"command\": ").append(q(command))
            .append(",\n  \"apps\": [").append(String.join(", ", apps.stream().map(Report::q).toList())).append(']')
            .append(",\n  \"cores\": ").append(Runtime.getRuntime().availableProcessors())
            .append(",\n  \"cpu\": ").append(q(cpuModel())).append(",\n  \"jdk\": ").append(q(Runtime.version()
                .toString())).append(",\n  \"stepSeconds\": ").append(duration).append(",\n  \"holdMs\": ")
            .append(hold).append(",\n  \"machinePauses\": ").append(machinePausesJson())
            .append(",\n  \"series\": [");
        for (int i = 0; i < series.size(); i++)
        {
            final Series s = series.get(i);
            j.append(i > 0 ? "," : "").append("\n    {\"name\": ").append(q(s.name()))
                .append(", \"system\": ").append(q(s.system().label()))
                .append(", \"app\": ").append(s.system().deploys() ? q(s.app()) : "null")
                .append(", \"baselineOf\": [").append(String.join(", ", baselineOf(s).stream().map(Report::q)
                    .toList())).append(']')
                .append(", \"profile\": ").append(q(s.profile())).append(", \"scenario\": ").append(q(s.scenario()))
                .append(", \"maxSustainedCallsPerSecond\": ").append(s.maxSustained())
                .append(", \"heldOnceCallsPerSecond\": ").append(s.heldOnce())
                .append(", \"confirmingSteps\": [").append(String.join(", ", s.confirming().stream()
                    .map(st -> q(st.label())).toList())).append(']')
                .append(", \"machineBusyCoresAtMax\": ").append(n(s.machineCoresAtMax()))
                .append(", \"machineCountBelowServer\": ").append(s.machineCountBelowServer())
                .append(", \"machineSaturatedAtMax\": ").append(s.saturatedAtMax(cores()))
                .append(", \"bestStep\": ").append(null == s.best() ? "null" : q(s.best().label()))
                .append(", \"at80Step\": ").append(null == s.at80() ? "null" : q(s.at80().label()))
                .append(", \"serverStopLine\": ").append(q(s.counters()))
                .append(", \"steps\": [");
            for (int k = 0; k < s.steps().size(); k++)
            {
                final Step st = s.steps().get(k);
                j.append(k > 0 ? "," : "").append("\n      {\"label\": ").append(q(st.label()))
                    .append(", \"offeredCallsPerSecond\": ").append(st.offered())
                    .append(", \"plannedCalls\": ").append(st.planned())
                    .append(", \"successfulCalls\": ").append(st.successful())
                    .append(", \"failedCalls\": ").append(st.failed())
                    .append(", \"retransmissions\": ").append(st.retransmissions())
                    .append(", \"droppedDatagrams\": ").append(st.drops())
                    .append(", \"unexpectedMessagesContinued\": ").append(st.unexpected())
                    .append(", \"seconds\": ").append(n(st.seconds()))
                    .append(", \"completedCallsPerSecond\": ").append(n(st.completedRate()))
                    .append(", \"invite180Ms\": ").append(latencyJson(st.ringing()))
                    .append(", \"invite200Ms\": ").append(latencyJson(st.answered()))
                    .append(", \"serverInvite180Ms\": ").append(serverLatencyJson(st.serverRinging()))
                    .append(", \"serverInvite2xxMs\": ").append(serverLatencyJson(st.serverAnswered()))
                    .append(", \"farEndInvite180Ms\": ").append(serverLatencyJson(st.farEndRinging()))
                    .append(", \"inputLagReadMs\": ").append(serverLatencyJson(st.readLag()))
                    .append(", \"inputLagHandoverMs\": ").append(serverLatencyJson(st.handoverLag()))
                    .append(", \"gcPauses\": {\"count\": ").append(st.gc().count()).append(", \"totalMs\": ")
                    .append(n(st.gc().totalMillis())).append(", \"maxMs\": ").append(n(st.gc().maxMillis()))
                    .append("}, \"cpuSecondsPer1000Calls\": ").append(n(st.cpuPer1000()))
                    .append(", \"serverCores\": ").append(n(st.serverCores()))
                    .append(", \"machineBusyCores\": ").append(n(st.machineCores()))
                    .append(", \"sustained\": ").append(st.sustained()).append('}');
            }
            j.append("]}");
        }
        j.append("\n  ],\n  \"memory\": [");
        for (int i = 0; i < footprints.size(); i++)
        {
            final Footprint f = footprints.get(i);
            j.append(i > 0 ? "," : "").append("\n    {\"system\": ").append(q(f.system().label()))
                .append(", \"app\": ").append(f.system().deploys() ? q(f.app()) : "null")
                .append(", \"kind\": ").append(q(f.kind())).append(", \"profile\": ").append(q(f.profile()))
                .append(", \"calls\": ").append(f.calls()).append(", \"bytes\": ").append(f.bytes())
                .append(", \"bytesPerCall\": ").append(n(f.perCall())).append('}');
        }
        j.append("\n  ],\n  \"lockChecks\": [");
        for (int i = 0; i < lockChecks.size(); i++)
        {
            final LockCheck c = lockChecks.get(i);
            j.append(i > 0 ? "," : "").append("\n    {\"series\": ").append(q(c.series())).append(", \"step\": ")
                .append(q(c.step())).append(", \"contendedMonitorEntersOnShardThreads\": ").append(c.shardThreads())
                .append(", \"contendedMonitorEntersOnOtherThreads\": ").append(c.otherThreads()).append('}');
        }
        return j.append("\n  ]\n}\n").toString();
    }

    private static String latencyJson(final Latency l)
    {
        return "{\"count\": " + l.count() + ", \"p50\": " + n(l.p50()) + ", \"p90\": " + n(l.p90()) + ", \"p99\": "
            + n(l.p99()) + ", \"max\": " + n(l.max()) + ", \"p99PerSecond\": [" + String.join(", ",
                java.util.Arrays.stream(l.p99PerSecond()).mapToObj(Report::n).toList()) + "]}";
    }

    /**
     * null when the step has no server figure; {@code {"scrape": "failed"}} when a scrape failed (never a 0);
     * else the count and each figure as a bucket upper bound ({@code "bucketUpperBounds": true}; null for +Inf).
     */
    static String serverLatencyJson(final ServerLatency l)
    {
        return switch (l.state())
        {
            case NOT_MEASURED -> "null";
            case SCRAPE_FAILED -> "{\"scrape\": \"failed\"}";
            case MEASURED -> "{\"scrape\": \"ok\", \"bucketUpperBounds\": true, \"count\": " + l.count()
                + ", \"p50\": " + n(l.p50()) + ", \"p90\": " + n(l.p90()) + ", \"p99\": " + n(l.p99())
                + ", \"max\": " + n(l.max()) + "}";
        };
    }

    private static String n(final double v)
    {
        return Double.isNaN(v) || Double.isInfinite(v) ? "null" : String.format(Locale.ROOT, "%.4f", v);
    }

    private static String q(final String s)
    {
        final StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (final char c : s.toCharArray())
        {
            switch (c)
            {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default ->
                {
                    if (c < 0x20)
                    {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
                    }
                    else
                    {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    // --- p99.svg --------------------------------------------------------------------------------------------------

    /** p99 INVITE→200 (log scale) against offered calls/s; filled dots sustained, hollow dots not. */
    String svg()
    {
        final int w = 760;
        final int h = 460;
        final int left = 70;
        final int right = 200;
        final int top = 30;
        final int bottom = 50;
        double maxRate = 1;
        double maxMs = 10;
        for (final Series s : series)
        {
            for (final Step st : s.steps())
            {
                maxRate = Math.max(maxRate, st.offered());
                if (!Double.isNaN(st.answered().p99()))
                {
                    maxMs = Math.max(maxMs, st.answered().p99());
                }
            }
        }
        final double minLog = -1; // 0.1 ms
        final double maxLog = Math.ceil(Math.log10(maxMs));
        final double xMax = niceCeil(maxRate);
        final StringBuilder svg = new StringBuilder(8192);
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(w).append("\" height=\"").append(h)
            .append("\" font-family=\"sans-serif\" font-size=\"12\">\n")
            .append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n")
            .append("<text x=\"").append(left).append("\" y=\"18\" font-size=\"14\">p99 INVITE→200 (ms, log scale) ")
            .append("against offered calls/s; hollow = not sustained</text>\n");
        final int pw = w - left - right;
        final int ph = h - top - bottom;
        for (int d = (int)minLog; d <= maxLog; d++)
        {
            final double y = top + ph - (d - minLog) / (maxLog - minLog) * ph;
            svg.append(line(left, y, left + pw, y, "#ddd")).append(text(left - 8, y + 4, fmtMs(Math.pow(10, d)),
                "end"));
        }
        for (int i = 0; i <= 5; i++)
        {
            final double x = left + i / 5.0 * pw;
            svg.append(line(x, top, x, top + ph, "#eee")).append(text(x, top + ph + 18,
                String.valueOf(Math.round(xMax * i / 5)), "middle"));
        }
        svg.append(line(left, top + ph, left + pw, top + ph, "#000")).append(line(left, top, left, top + ph, "#000"))
            .append(text(left + pw / 2.0, h - 10, "offered calls/s", "middle"));
        for (int i = 0; i < series.size(); i++)
        {
            final Series s = series.get(i);
            final String colour = COLOURS[i % COLOURS.length];
            final List<Step> pts = new ArrayList<>();
            for (final Step st : s.steps())
            {
                if (!"warmup".equals(st.label()) && !CallsBench.FLOOR_STEP.equals(st.label())
                    && !Double.isNaN(st.answered().p99()))
                {
                    pts.add(st);
                }
            }
            pts.sort((a, b) -> Integer.compare(a.offered(), b.offered()));
            final StringBuilder path = new StringBuilder();
            for (final Step st : pts)
            {
                final double x = left + st.offered() / xMax * pw;
                final double y = top + ph - (Math.log10(Math.max(0.1, st.answered().p99())) - minLog)
                    / (maxLog - minLog) * ph;
                path.append(path.isEmpty() ? "M" : " L").append(f1(x)).append(',').append(f1(y));
                svg.append("<circle cx=\"").append(f1(x)).append("\" cy=\"").append(f1(y))
                    .append("\" r=\"4\" stroke=\"").append(colour)
                    .append("\" fill=\"").append(st.sustained() ? colour : "white").append("\"/>\n");
            }
            if (!path.isEmpty())
            {
                svg.append("<path d=\"").append(path).append("\" fill=\"none\" stroke=\"").append(colour)
                    .append("\" stroke-width=\"1.5\"/>\n");
            }
            final double ly = top + 10 + i * 20;
            svg.append("<rect x=\"").append(left + pw + 15).append("\" y=\"").append(f1(ly - 9))
                .append("\" width=\"12\" ")
                .append("height=\"12\" fill=\"").append(colour).append("\"/>\n")
                .append(text(left + pw + 32, ly + 2, s.name() + " (max " + s.maxSustained() + ")", "start"));
        }
        return svg.append("</svg>\n").toString();
    }

    private static double niceCeil(final double v)
    {
        final double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (final double m : new double[] {1, 2, 2.5, 5, 10})
        {
            if (m * p >= v)
            {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String fmtMs(final double ms)
    {
        return ms < 1 ? String.format(Locale.ROOT, "%.1f", ms) : String.valueOf(Math.round(ms));
    }

    private static String line(final double x1, final double y1, final double x2, final double y2, final String c)
    {
        return "<line x1=\"" + f1(x1) + "\" y1=\"" + f1(y1) + "\" x2=\"" + f1(x2) + "\" y2=\"" + f1(y2)
            + "\" stroke=\"" + c + "\"/>\n";
    }

    private static String text(final double x, final double y, final String s, final String anchor)
    {
        return "<text x=\"" + f1(x) + "\" y=\"" + f1(y) + "\" text-anchor=\"" + anchor + "\">"
            + s.replace("&", "&amp;").replace("<", "&lt;") + "</text>\n";
    }

    private static String f0(final double v)
    {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.0f", v);
    }

    private static String f1(final double v)
    {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String f2(final double v)
    {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String f3(final double v)
    {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.3f", v);
    }
}
