package io.sipline.bench.fuzz;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
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
import io.sipline.test.Sipp;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/sipline bench fuzz}: the wire fuzzer against the server. Starts Sipline with its {@code b2bua} example
 * (and a TLS port when {@code openssl} can make it a certificate), runs a sipp call load through it, and once the calls
 * are under way ({@link #CALLS_LEAD_SECONDS}) sends {@link SipMutator} messages over UDP, then TCP, then TLS
 * ({@link WireFlood}). Reports whether the server is
 * alive, the ERROR lines it logged, the shard and connection errors and every drop by reason (from {@code /metrics},
 * before and after), heap after a full GC and direct memory before and after, and sipp's failed calls. With
 * {@code --prime N} a priming round comes first (N mutants over each transport and a second of calls, then the settle
 * time) and is measured too, so that the report tells what a process makes once in its life (classes, tables, a
 * pool's first chunk, thread caches) from what the flood itself leaves. Writes {@code report.md} into the run
 * directory. Runs on the main thread; every process it starts is stopped by its handle.
 */
@Command(name = "sipline bench fuzz", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Mutated SIP messages over UDP, TCP and TLS into the b2bua example under a sipp call load.")
public final class FuzzBench implements Callable<Integer>
{
    /** Seconds between the first heap histogram and the load. */
    static final int QUIET_SECONDS = 5;
    /** Added to {@link #seed} for the priming round's mutators, so the flood after it sends what it sends without. */
    static final int PRIMING_SEED = 1000;
    /** Seconds the call load runs before the flood starts. */
    static final int CALLS_LEAD_SECONDS = 5;
    @Mixin
    HarnessOptions harness = new HarnessOptions();

    @Option(names = "--udp", paramLabel = "N", description = "messages over UDP (default 1000000)",
        defaultValue = "1000000")
    long udp;

    @Option(names = "--tcp", paramLabel = "N", description = "messages over TCP (default 100000)",
        defaultValue = "100000")
    long tcp;

    @Option(names = "--tls", paramLabel = "N", description = "messages over TLS (default 20000; 0: no TLS port)",
        defaultValue = "20000")
    long tls;

    @Option(names = "--rate", paramLabel = "R", description = "UDP messages per second (default 5000)",
        defaultValue = "5000")
    int rate;

    @Option(names = "--stream-rate", paramLabel = "R", description = "TCP and TLS messages per second (default 2000)",
        defaultValue = "2000")
    int streamRate;

    @Option(names = "--connections", paramLabel = "N", description = "TCP/TLS connections at once (default 8)",
        defaultValue = "8")
    int connections;

    @Option(names = "--call-rate", paramLabel = "R", description = "sipp calls per second beside (default 50)",
        defaultValue = "50")
    int callRate;

    @Option(names = "--seed", paramLabel = "S", description = "the mutator's seed (default 4475)",
        defaultValue = "4475")
    long seed;

    @Option(names = "--settle", paramLabel = "SECONDS", description = "wait after the flood before the second "
        + "measurement (default 40: the flood's transactions end in 32 s; 220 lets its calls' application sessions "
        + "expire too)", defaultValue = "40")
    int settleSeconds;

    @Option(names = "--profile", paramLabel = "NAME", description = "GC profile of jvm-profiles/ (default zgc)",
        defaultValue = "zgc")
    String profile;

    @Option(names = "--server-jvm", paramLabel = "OPTION", split = " ", description = "JVM options for the server, "
        + "after its profile's, e.g. \"-Dio.netty.leakDetection.level=paranoid\" or a JFR recording (default none)")
    List<String> serverJvm = new ArrayList<>();

    @Option(names = "--heap-dump", description = "also write the server's live heap to heap-before.hprof and "
        + "heap-after.hprof in the run directory at the two measurements, to find what holds what stayed (some "
        + "seconds each, as large as the heap)")
    boolean heapDump;

    @Option(names = "--prime", paramLabel = "N", description = "first a priming round: N messages over each "
        + "transport and a second of calls, then --settle seconds, and a measurement after it (and heap-primed.hprof "
        + "with --heap-dump), so that the report shows what the flood leaves beyond what the first message of each "
        + "kind made (default 0: none)", defaultValue = "0")
    long prime;

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new FuzzBench()).execute(args));
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
        final Path dir = harness.resultDir("fuzz-");
        final List<String> serverArgs = new ArrayList<>();
        final int tlsPort = tls > 0 ? tlsArgs(dir, serverArgs) : 0;
        final int uasPort = Sipp.freeUdpPort();
        final Scenarios.Flow flow = Scenarios.b2bua(dir, null);
        try (ServerProcess server = SystemUnderTest.SIPLINE.startOnFreePort(layout, dir, "b2bua", profile, uasPort,
            serverJvm, serverArgs, true))
        {
            return run(server, dir, layout.root(), flow, uasPort, tlsPort);
        }
    }

    private int run(final ServerProcess server, final Path dir, final Path home, final Scenarios.Flow flow,
        final int uasPort, final int tlsPort) throws Exception
    {
        final List<byte[]> seeds = SipMutator.seedMessages(home.resolve("sip-stack/src/test/resources"), "127.0.0.1");
        final Map<String, Double> m0 = metrics(server.adminPort());
        final long live0 = server.liveBytes(dir.resolve("histogram-before.txt"));
        if (heapDump)
        {
            server.heapDump(dir.resolve("heap-before.hprof"));
        }
        // The histogram stops the server for a heap walk and a full collection: the load starts once that is over
        TimeUnit.SECONDS.sleep(QUIET_SECONDS);
        final Primed primed = prime > 0 ? prime(server, dir, flow, uasPort, tlsPort) : null;
        final double seconds = udp / (double)Math.max(1, rate) + (tcp + tls) / (double)Math.max(1, streamRate);
        final int calls = Math.max(callRate, (int)(callRate * (seconds + CALLS_LEAD_SECONDS)));
        final Process uas = Sipp.start("fuzz-uas", new ArrayList<>(flow.uasArgs()), uasPort);
        final List<WireFlood.Result> floods = new ArrayList<>();
        final long[] done;
        final Map<String, Double> withCalls;
        try
        {
            final Process uac = Sipp.start("fuzz-uac", List.of("127.0.0.1:" + server.port(), "-sf",
                flow.uac().toString(), "-m", Integer.toString(calls), "-r", Integer.toString(callRate), "-l",
                Integer.toString(callRate * 20), "-recv_timeout", "8000", "-timeout", (long)(seconds + 120) + "s"));
            try
            {
                // the calls are under way when the flood comes, as a server's users are when it is attacked
                TimeUnit.SECONDS.sleep(CALLS_LEAD_SECONDS);
                // the pools as the call load alone has them: what the flood leaves is measured against this
                withCalls = metrics(server.adminPort());
                floodEach(floods, server.port(), tlsPort, new long[] {udp, tcp, tls}, 0);
                uac.waitFor((long)seconds + 180, TimeUnit.SECONDS);
            }
            finally
            {
                Sipp.stop(uac);
            }
            done = Sipp.successAndFailed("fuzz-uac");
        }
        finally
        {
            Sipp.stop(uas);
        }
        // The fuzz INVITEs the b2bua relayed live until their transactions end (Timer B/H: 64*T1 = 32 s), their
        // application sessions until they expire (3 minutes by default)
        System.out.printf("bench fuzz: waiting %d s before measuring again ...%n", settleSeconds);
        TimeUnit.SECONDS.sleep(settleSeconds);
        final boolean alive = ProcessHandle.of(server.pid()).map(ProcessHandle::isAlive).orElse(false);
        final Map<String, Double> m1 = alive ? metrics(server.adminPort()) : Map.of();
        final long live1 = alive ? server.liveBytes(dir.resolve("histogram-after.txt")) : -1;
        if (alive && heapDump)
        {
            server.heapDump(dir.resolve("heap-after.hprof"));
        }
        final long errorLines = countErrors(server.output());
        final String report = report(floods, alive, errorLines, new Snapshots(m0, withCalls, m1), live0, live1,
            calls, done) + (null == primed ? "" : primed.report(live0, live1, m1));
        Files.writeString(dir.resolve("report.md"), report);
        System.out.println(report);
        System.out.println("bench fuzz: results in " + dir);
        return alive && 0 == errorLines && 0 == done[1] ? 0 : 1;
    }

    /**
     * The floods in turn: {@code counts[0]} mutants over UDP, {@code counts[1]} over TCP, {@code counts[2]} over TLS
     * (when the server listens for it), their streams {@code stream}, {@code stream + 1} and {@code stream + 2}.
     */
    private void floodEach(final List<WireFlood.Result> floods, final int sipPort, final int tlsPort,
        final long[] counts, final int stream) throws IOException, InterruptedException
    {
        final InetSocketAddress sip = new InetSocketAddress("127.0.0.1", sipPort);
        flood(floods, sip, WireFlood.Transport.UDP, counts[0], rate, stream);
        flood(floods, sip, WireFlood.Transport.TCP, counts[1], streamRate, stream + 1);
        if (tlsPort > 0)
        {
            flood(floods, new InetSocketAddress("127.0.0.1", tlsPort), WireFlood.Transport.TLS, counts[2],
                streamRate, stream + 2);
        }
    }

    private void flood(final List<WireFlood.Result> floods, final InetSocketAddress to,
        final WireFlood.Transport transport, final long count, final int perSecond, final int stream)
        throws IOException, InterruptedException
    {
        if (count <= 0)
        {
            return;
        }
        final SipMutator mutator = new SipMutator(SipMutator.seedMessages(
            harness.home().resolve("sip-stack/src/test/resources"), "127.0.0.1"),
            seed + stream, "127.0.0.1");
        System.out.printf("bench fuzz: %s: %,d messages at %,d/s ...%n", transport, count, perSecond);
        final WireFlood.Result r = new WireFlood(mutator, to, transport, connections).run(count, perSecond);
        System.out.printf("bench fuzz: %s: sent %,d (%,d bytes) in %.1f s, reconnects %,d, send errors %,d%n",
            transport, r.sent(), r.bytes(), r.seconds(), r.reconnects(), r.sendErrors());
        floods.add(r);
    }

    /**
     * The priming round: {@link #prime} mutants over each transport (another seed than the flood's), a second of
     * calls, the settle time, then the server's heap after a full collection and {@code /metrics}.
     */
    private Primed prime(final ServerProcess server, final Path dir, final Scenarios.Flow flow, final int uasPort,
        final int tlsPort) throws Exception
    {
        final List<WireFlood.Result> floods = new ArrayList<>();
        final long[] done;
        final Process uas = Sipp.start("fuzz-prime-uas", new ArrayList<>(flow.uasArgs()), uasPort);
        try
        {
            final Process uac = Sipp.start("fuzz-prime-uac", List.of("127.0.0.1:" + server.port(), "-sf",
                flow.uac().toString(), "-m", Integer.toString(callRate), "-r", Integer.toString(callRate), "-l",
                Integer.toString(callRate * 20), "-recv_timeout", "8000", "-timeout", "120s"));
            try
            {
                floodEach(floods, server.port(), tlsPort, new long[] {prime, prime, prime}, PRIMING_SEED);
                uac.waitFor(120, TimeUnit.SECONDS);
            }
            finally
            {
                Sipp.stop(uac);
            }
            done = Sipp.successAndFailed("fuzz-prime-uac");
        }
        finally
        {
            Sipp.stop(uas);
        }
        System.out.printf("bench fuzz: primed; waiting %d s before measuring ...%n", settleSeconds);
        TimeUnit.SECONDS.sleep(settleSeconds);
        final Map<String, Double> metrics = metrics(server.adminPort());
        final long live = server.liveBytes(dir.resolve("histogram-primed.txt"));
        if (heapDump)
        {
            server.heapDump(dir.resolve("heap-primed.hprof"));
        }
        TimeUnit.SECONDS.sleep(QUIET_SECONDS);
        return new Primed(prime, settleSeconds, metrics, live, done);
    }

    /** The measurement after the priming round ({@link #prime}). */
    private record Primed(long messages, int settle, Map<String, Double> metrics, long live, long[] calls)
    {
        String report(final long live0, final long live1, final Map<String, Double> after)
        {
            final Map<String, Double> direct = byLabel(metrics, "sipline_jvm_direct_memory_used_bytes", "pool");
            final Map<String, Double> direct1 = byLabel(after, "sipline_jvm_direct_memory_used_bytes", "pool");
            return String.format("%npriming round (%,d messages over each transport, %d calls: %d successful, %d "
                + "failed; measured %d s after it): heap after full GC %,d bytes at the start, %,d after the priming, "
                + "%,d after the flood: %,d above the start, %,d above the priming; direct memory after the priming: "
                + "Netty's pools %,.0f (%,.0f after the flood), the JDK's direct buffers %,.0f (%,.0f after the "
                + "flood). The counts above include the priming's messages.%n", messages, calls[0] + calls[1],
                calls[0], calls[1], settle, live0, live, live1, live1 - live0, live1 - live, direct.getOrDefault(
                "netty", 0.0), direct1.getOrDefault("netty", 0.0), direct.getOrDefault("jdk", 0.0),
                direct1.getOrDefault("jdk", 0.0));
        }
    }

    /** The server's TLS options (a certificate made by openssl); 0 when there is none. */
    private static int tlsArgs(final Path dir, final List<String> serverArgs) throws IOException, InterruptedException
    {
        final int port = ServerTls.addArgs(dir, "fuzz", serverArgs);
        if (0 == port)
        {
            System.out.println("bench fuzz: openssl could not make a certificate: no TLS flood");
        }
        return port;
    }

    /** Every sample of {@code /metrics}, by its name and labels as written. */
    public static Map<String, Double> metrics(final int adminPort) throws IOException
    {
        final HttpURLConnection http = (HttpURLConnection)URI.create("http://127.0.0.1:" + adminPort + "/metrics")
            .toURL().openConnection();
        http.setConnectTimeout(5_000);
        http.setReadTimeout(10_000);
        final String text;
        try (InputStream in = http.getInputStream())
        {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        finally
        {
            http.disconnect();
        }
        return parse(text);
    }

    /** The server's {@code /metrics} before any traffic, with the call load just before the flood, and after it. */
    private record Snapshots(Map<String, Double> before, Map<String, Double> withCalls, Map<String, Double> after)
    {
    }

    /** Prometheus text exposition: one sample per line, {@code name{labels} value}; comments skipped. */
    static Map<String, Double> parse(final String text)
    {
        final Map<String, Double> samples = new TreeMap<>();
        for (final String line : text.split("\n"))
        {
            if (line.isBlank() || line.startsWith("#"))
            {
                continue;
            }
            final int space = line.lastIndexOf(' ');
            try
            {
                samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
            }
            catch (final NumberFormatException | StringIndexOutOfBoundsException ex)
            {
                // Not a sample line.
            }
        }
        return samples;
    }

    /** Sums the samples of {@code name} by the value of {@code label} (shards added up). */
    public static Map<String, Double> byLabel(final Map<String, Double> samples, final String name, final String label)
    {
        final Map<String, Double> sums = new TreeMap<>();
        final String key = label + "=\"";
        for (final Map.Entry<String, Double> e : samples.entrySet())
        {
            final String k = e.getKey();
            if (k.startsWith(name + "{") && k.contains(key))
            {
                final int from = k.indexOf(key) + key.length();
                sums.merge(k.substring(from, k.indexOf('"', from)), e.getValue(), Double::sum);
            }
        }
        return sums;
    }

    public static double sum(final Map<String, Double> samples, final String name)
    {
        double s = 0;
        for (final Map.Entry<String, Double> e : samples.entrySet())
        {
            if (e.getKey().equals(name) || e.getKey().startsWith(name + "{"))
            {
                s += e.getValue();
            }
        }
        return s;
    }

    private static long countErrors(final Path output) throws IOException
    {
        long n = 0;
        for (final String line : Files.readAllLines(output, StandardCharsets.ISO_8859_1))
        {
            if (line.contains(" ERROR ") || line.startsWith("ERROR") || line.contains("SEVERE"))
            {
                n++;
            }
        }
        return n;
    }

    private String report(final List<WireFlood.Result> floods, final boolean alive, final long errorLines,
        final Snapshots snapshots, final long live0, final long live1, final int calls,
        final long[] done)
    {
        final Map<String, Double> m0 = snapshots.before();
        final Map<String, Double> m1 = snapshots.after();
        final StringBuilder sb = new StringBuilder("# bench fuzz\n\n| transport | messages | bytes | seconds | "
            + "reconnects | send errors |\n|---|---:|---:|---:|---:|---:|\n");
        for (final WireFlood.Result r : floods)
        {
            sb.append(String.format("| %s | %,d | %,d | %.1f | %,d | %,d |%n", r.transport(), r.sent(), r.bytes(),
                r.seconds(), r.reconnects(), r.sendErrors()));
        }
        sb.append(String.format("%nserver alive after the flood: %s; ERROR/SEVERE lines in its log: %d%n", alive ?
            "yes" : "NO", errorLines));
        sb.append(String.format("shard listener errors: %.0f; shard transport errors: see drops; stream errors: %.0f%n",
            sum(m1, "sipline_shard_listener_errors_total") - sum(m0, "sipline_shard_listener_errors_total"),
            delta(byLabel(m0, "sipline_stream_events_total", "event"),
                byLabel(m1, "sipline_stream_events_total", "event"), "errors")));
        sb.append(String.format("call load: %d calls at %d/s: %d successful, %d failed%n", calls, callRate, done[0],
            done[1]));
        final Map<String, Double> direct0 = byLabel(m0, "sipline_jvm_direct_memory_used_bytes", "pool");
        final Map<String, Double> directCalls = byLabel(snapshots.withCalls(), "sipline_jvm_direct_memory_used_bytes",
            "pool");
        final Map<String, Double> direct1 = byLabel(m1, "sipline_jvm_direct_memory_used_bytes", "pool");
        sb.append(String.format("heap after full GC: %,d bytes before, %,d after; heap used (gauge) %,.0f -> %,.0f; "
            + "direct memory (before any traffic -> with the call load, before the flood -> after): Netty's pools "
            + "%,.0f -> %,.0f -> %,.0f bytes, the JDK's direct buffers %,.0f -> %,.0f -> %,.0f bytes (Netty's chunks "
            + "are among them when Netty allocates them as JDK buffers)%n", live0, live1,
            sum(m0, "sipline_jvm_heap_used_bytes"), sum(m1, "sipline_jvm_heap_used_bytes"),
            direct0.getOrDefault("netty", 0.0), directCalls.getOrDefault("netty", 0.0),
            direct1.getOrDefault("netty", 0.0), direct0.getOrDefault("jdk", 0.0), directCalls.getOrDefault("jdk", 0.0),
            direct1.getOrDefault("jdk", 0.0)));
        sb.append(String.format("UDP datagrams read by the server: %,.0f%n",
            sum(m1, "sipline_udp_datagrams_received_total") - sum(m0, "sipline_udp_datagrams_received_total")));
        sb.append("\n| drop reason (UDP, /metrics sipline_sip_messages_dropped_total) | count |\n|---|---:|\n");
        final Map<String, Double> d0 = byLabel(m0, "sipline_sip_messages_dropped_total", "reason");
        final Map<String, Double> d1 = byLabel(m1, "sipline_sip_messages_dropped_total", "reason");
        for (final String reason : d1.keySet())
        {
            final double n = delta(d0, d1, reason);
            if (n > 0)
            {
                sb.append(String.format("| %s | %,.0f |%n", reason, n));
            }
        }
        sb.append("\n| stream event (TCP+TLS, /metrics sipline_stream_events_total) | count |\n|---|---:|\n");
        final Map<String, Double> s0 = byLabel(m0, "sipline_stream_events_total", "event");
        final Map<String, Double> s1 = byLabel(m1, "sipline_stream_events_total", "event");
        for (final String event : s1.keySet())
        {
            sb.append(String.format("| %s | %,.0f |%n", event, delta(s0, s1, event)));
        }
        return sb.toString();
    }

    private static double delta(final Map<String, Double> before, final Map<String, Double> after, final String key)
    {
        return after.getOrDefault(key, 0.0) - before.getOrDefault(key, 0.0);
    }
}
