package io.sipline.bench.abuse;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import io.sipline.bench.calls.HarnessOptions;
import io.sipline.bench.calls.Scenarios;
import io.sipline.bench.calls.ServerProcess;
import io.sipline.bench.calls.ServerTls;
import io.sipline.bench.calls.SystemUnderTest;
import io.sipline.bench.fuzz.FuzzBench;
import io.sipline.test.Sipp;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/sipline bench abuse}: connection abuse on the TCP, TLS, WS and WSS ports of the server (its
 * {@code b2bua} example, the run's limits at their defaults unless {@code --server-args} says otherwise) while a sipp
 * call load runs over UDP beside it. Each {@link ConnectionAttack.Kind}, the baseline first, runs for
 * {@code --seconds} with a fresh sipp load of {@code --call-rate} calls/s; the report gives that load's calls/s and
 * failed calls under each attack against the baseline of the same run, what the attack opened and saw closed, and
 * the server's {@code sipline_stream_events_total} and {@code sipline_ws_events_total} (these as {@code ws_EVENT}) by
 * event over the attack (from {@code /metrics}). Writes {@code abuse.md} into
 * {@code bench-results/abuse-<stamp>/}. Runs on the main thread; every process it starts is stopped by its handle.
 */
@Command(name = "sipline bench abuse", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Connection abuse on TCP, TLS, WS and WSS (idle connections, slowloris, 10 MB Content-Length or "
        + "frame, WebSocket fragments past the message limit, endless headers, TLS garbage, one address) beside a "
        + "sipp call load; the load's calls/s and failures with and without each attack.")
public final class AbuseBench implements Callable<Integer>
{
    @Mixin
    HarnessOptions harness = new HarnessOptions();

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "30",
        description = "seconds of each attack and of its call load (default 30; at least the 10 s message timeout)")
    int seconds;

    @Option(names = "--call-rate", paramLabel = "R", defaultValue = "200",
        description = "sipp calls per second beside each attack (default 200)")
    int callRate;

    @Option(names = "--attacks", paramLabel = "LIST", split = ",",
        description = "the attacks to run (default all): IDLE, SLOWLORIS, HUGE_BODY, ENDLESS_HEADERS, TLS_GARBAGE, "
            + "ONE_ADDRESS, WS_IDLE, WS_SLOWLORIS, WS_SLOW_MESSAGE, WS_HUGE_FRAME, WS_FRAGMENTS, "
            + "WS_ENDLESS_HEADERS, WS_ONE_ADDRESS, WSS_GARBAGE; the baseline always runs first")
    List<ConnectionAttack.Kind> attacks;

    @Option(names = "--server-args", paramLabel = "ARGS", split = " ",
        description = "more options of bin/sipline run, space-separated (e.g. '--tcp-max-per-address 100')")
    List<String> serverArgs;

    @Option(names = "--profile", paramLabel = "NAME", defaultValue = "zgc", description = "GC profile (default zgc)")
    String profile;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new AbuseBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        if (!Sipp.available())
        {
            System.err.println("sipp is not installed (apt-get install sip-tester)");
            return 2;
        }
        final SystemUnderTest.Layout layout = harness.layout();
        final Path dir = harness.resultDir("abuse-");
        final List<String> args = new ArrayList<>(List.of("--warmup", "2000"));
        final int tlsPort = tlsArgs(dir, args);
        final int wsPort = SystemUnderTest.freeTcpPort();
        final int wssPort = tlsPort > 0 ? SystemUnderTest.freeTcpPort() : 0;
        args.addAll(List.of("--ws-port", Integer.toString(wsPort)));
        if (wssPort > 0)
        {
            args.addAll(List.of("--wss-port", Integer.toString(wssPort)));
        }
        if (null != serverArgs)
        {
            args.addAll(serverArgs);
        }
        final int uasPort = Sipp.freeUdpPort();
        final Scenarios.Flow flow = Scenarios.b2bua(dir, null);
        final List<ConnectionAttack.Kind> kinds = new ArrayList<>(List.of(ConnectionAttack.Kind.NONE));
        for (final ConnectionAttack.Kind k : null == attacks ? List.of(ConnectionAttack.Kind.values()) : attacks)
        {
            if (ConnectionAttack.Kind.NONE != k)
            {
                kinds.add(k);
            }
        }
        final List<Row> rows = new ArrayList<>();
        boolean alive;
        try (ServerProcess server = SystemUnderTest.SIPLINE.startOnFreePort(layout, dir, "b2bua", profile, uasPort,
            List.of(), args, true))
        {
            final ConnectionAttack.Targets targets = new ConnectionAttack.Targets(loopback(server.port()),
                loopback(tlsPort), loopback(wsPort), loopback(wssPort));
            final Process uas = Sipp.start("abuse-uas", new ArrayList<>(flow.uasArgs()), uasPort);
            try
            {
                for (final ConnectionAttack.Kind kind : kinds)
                {
                    rows.add(attack(server, flow, targets, kind));
                    System.out.println("bench abuse: " + rows.getLast().line());
                    TimeUnit.SECONDS.sleep(12); // what the attack left open times out before the next
                }
            }
            finally
            {
                Sipp.stop(uas);
            }
            alive = ProcessHandle.of(server.pid()).map(ProcessHandle::isAlive).orElse(false);
        }
        final String report = report(rows, alive);
        Files.writeString(dir.resolve("abuse.md"), report);
        System.out.println(report);
        System.out.println("bench abuse: results in " + dir);
        return alive ? 0 : 1;
    }

    /** One attack with its own sipp call load beside it, and the server's stream and WebSocket events over it. */
    private Row attack(final ServerProcess server, final Scenarios.Flow flow, final ConnectionAttack.Targets targets,
        final ConnectionAttack.Kind kind) throws Exception
    {
        final Map<String, Double> before = events(server);
        final String name = "abuse-uac-" + kind.name().toLowerCase(java.util.Locale.ROOT);
        final int calls = callRate * seconds;
        final long start = System.nanoTime();
        final Process uac = Sipp.start(name, List.of("127.0.0.1:" + server.port(), "-sf", flow.uac().toString(),
            "-m", Integer.toString(calls), "-r", Integer.toString(callRate), "-l", Integer.toString(callRate * 20),
            "-recv_timeout", "8000", "-timeout", (seconds + 60) + "s"));
        final ConnectionAttack.Result result;
        try
        {
            result = new ConnectionAttack(targets).run(kind, seconds);
            uac.waitFor(seconds + 60L, TimeUnit.SECONDS);
        }
        finally
        {
            Sipp.stop(uac);
        }
        final double elapsed = (System.nanoTime() - start) / 1e9;
        final long[] done = Sipp.successAndFailed(name);
        final Map<String, Double> after = events(server);
        final Map<String, Long> events = new TreeMap<>();
        for (final Map.Entry<String, Double> e : after.entrySet())
        {
            final long d = Math.round(e.getValue() - before.getOrDefault(e.getKey(), 0.0));
            if (d != 0)
            {
                events.put(e.getKey(), d);
            }
        }
        return new Row(kind, result, done[0], done[1], done[0] / elapsed, events);
    }

    /** The server's stream events by name, and its WebSocket events as {@code ws_NAME}. */
    private static Map<String, Double> events(final ServerProcess server) throws IOException
    {
        final Map<String, Double> samples = FuzzBench.metrics(server.adminPort());
        final Map<String, Double> events = new TreeMap<>(FuzzBench.byLabel(samples, "sipline_stream_events_total",
            "event"));
        FuzzBench.byLabel(samples, "sipline_ws_events_total", "event").forEach((k, v) -> events.put("ws_" + k, v));
        return events;
    }

    private static InetSocketAddress loopback(final int port)
    {
        return port > 0 ? new InetSocketAddress("127.0.0.1", port) : null;
    }

    /** One line of the table. */
    record Row(ConnectionAttack.Kind kind, ConnectionAttack.Result attack, long completed, long failed,
        double callsPerSecond, Map<String, Long> events)
    {
        String line()
        {
            return String.format("%s: %,d calls completed (%.0f/s), %,d failed; attack opened %,d, server closed %,d, "
                + "connect failures %,d; %s", kind.description, completed, callsPerSecond, failed, attack.opened(),
                attack.closedByServer(), attack.connectFailures(), events);
        }
    }

    private String report(final List<Row> rows, final boolean alive)
    {
        final double base = rows.isEmpty() ? 0 : rows.getFirst().callsPerSecond();
        final StringBuilder sb = new StringBuilder("# bench abuse\n\n`bin/sipline bench abuse --seconds " + seconds
            + " --call-rate " + callRate + (null == serverArgs ? "" : " --server-args '" + String.join(" ", serverArgs)
            + "'") + "`: the b2bua example, sipp calls over UDP at " + callRate + "/s for " + seconds
            + " s beside each attack; WebSocket events are shown as ws_EVENT. Server alive at the end: " + alive
            + ".\n\n"
            + "| attack | calls/s beside it (vs baseline) | failed calls | connections the attack opened | closed by "
            + "the server | connect failures | server's stream and ws events (/metrics) |\n"
            + "|---|---:|---:|---:|---:|---:|---|\n");
        for (final Row r : rows)
        {
            final StringBuilder ev = new StringBuilder();
            r.events().forEach((k, v) -> ev.append(ev.isEmpty() ? "" : ", ").append(k).append(' ')
                .append(String.format("%,d", v)));
            sb.append(String.format("| %s | %.0f (%.0f%%) | %,d | %,d | %,d | %,d | %s |%n", r.kind().description,
                r.callsPerSecond(), base > 0 ? 100 * r.callsPerSecond() / base : 0, r.failed(), r.attack().opened(),
                r.attack().closedByServer(), r.attack().connectFailures(), ev));
        }
        return sb.toString();
    }

    /** The server's TLS options (a certificate made by openssl); 0 when there is none. */
    private static int tlsArgs(final Path dir, final List<String> args) throws IOException, InterruptedException
    {
        final int port = ServerTls.addArgs(dir, "abuse", args);
        if (0 == port)
        {
            System.out.println("bench abuse: openssl could not make a certificate: no TLS or WSS attack");
        }
        return port;
    }
}
