package io.sipline.bench.overload;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import io.sipline.bench.calls.ProcFs;
import io.sipline.bench.calls.ServerProcess;
import io.sipline.bench.calls.ThreadTimes;
import io.sipline.bench.fuzz.FuzzBench;

/**
 * The server's side of an overload run, second by second: a daemon thread reads the server's {@code /metrics}, its CPU
 * time and its sockets' kernel drops once a second and writes one line per second to {@code server-timeline.csv} in
 * the run's directory (seconds counted from the surge's planned start). What it shows is what the callers cannot
 * see: how many requests the server read and refused, how long they had waited in its socket before it read them
 * (the 50th, 99th and 100th percentile of {@code sipline_sip_input_lag_seconds}, by the histogram's upper
 * bounds), how much CPU it had, by kind of thread too ({@link ThreadTimes}: the shards, the web container, the JIT
 * compilers, the collector, the rest, and how long the shards waited for a CPU), and how many datagrams the kernel
 * dropped before it could read them.
 * <p>
 * Threading: its own daemon thread writes the file; {@link #close} stops it and waits for it. A failed read of
 * {@code /metrics} ends the timeline with a line saying so; the run goes on.
 */
final class ServerTimeline
{
    private static final String LAG = "sipline_sip_input_lag_seconds_bucket";
    private static final long CLOCK_TICK_MS = 10;

    private final ServerProcess server;
    private final Path file;
    private final long surgeStartNs;
    private final int[] ports;
    private final Thread thread;
    private volatile boolean stop;

    private ServerTimeline(final ServerProcess server, final Path file, final long surgeStartNs, final int[] ports)
    {
        this.server = server;
        this.file = file;
        this.surgeStartNs = surgeStartNs;
        this.ports = ports.clone();
        this.thread = Thread.ofPlatform().daemon().name("server-timeline").unstarted(this::record);
    }

    /** Starts recording {@code server}, whose sockets are {@code ports}, into {@code dir}; null without /metrics. */
    static ServerTimeline start(final ServerProcess server, final Path dir, final long surgeStartNs, final int[] ports)
    {
        if (0 == server.adminPort())
        {
            return null;
        }
        final ServerTimeline t = new ServerTimeline(server, dir.resolve("server-timeline.csv"), surgeStartNs, ports);
        t.thread.start();
        return t;
    }

    private void record()
    {
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8)))
        {
            out.println("second,cpu_ms,requests_in,invites_in,acks_in,byes_in,responses_in,refused,"
                + "retransmissions_sent,kernel_drops,lag_p50_ms,lag_p99_ms,lag_max_ms,"
                + String.join(",", ThreadTimes.GROUPS.stream().map(g -> g.toLowerCase(Locale.ROOT) + "_ms").toList())
                + ",shards_waited_ms");
            Map<String, Double> before = FuzzBench.metrics(server.adminPort());
            long cpu0 = server.cpuTicks();
            ThreadTimes threads0 = ThreadTimes.of(server.handle());
            Map<Long, Long> drops0 = ProcFs.udpDrops(ports);
            final long second1 = TimeUnit.SECONDS.toNanos(1);
            final long start = System.nanoTime();
            // Samples on the surge's second boundaries, so that each line is one second of the callers' tables.
            long next = start - Math.floorMod(start - surgeStartNs, second1) + second1;
            while (!stop)
            {
                final long left = next - System.nanoTime();
                if (left > 0)
                {
                    TimeUnit.NANOSECONDS.sleep(left);
                }
                final long second = Math.floorDiv(next - surgeStartNs, second1) - 1;
                next += second1;
                final Map<String, Double> now = FuzzBench.metrics(server.adminPort());
                final long cpu = server.cpuTicks();
                final Map<Long, Long> drops = ProcFs.udpDrops(ports);
                final long dropped = ProcFs.dropsBetween(drops0, drops);
                final ThreadTimes threads = ThreadTimes.of(server.handle());
                out.println(line(second, before, now, (cpu - cpu0) * CLOCK_TICK_MS, dropped) + threads(threads0,
                    threads));
                out.flush();
                before = now;
                cpu0 = cpu;
                threads0 = threads;
                drops0 = drops;
            }
        }
        catch (final IOException ex)
        {
            System.out.println("bench overload: the server timeline stopped: " + ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static String line(final long second, final Map<String, Double> a, final Map<String, Double> b,
        final long cpuMs, final long drops)
    {
        final Map<String, Double> methods0 = FuzzBench.byLabel(a, "sipline_sip_requests_received_total", "method");
        final Map<String, Double> methods1 = FuzzBench.byLabel(b, "sipline_sip_requests_received_total", "method");
        final double[] lag = lagPercentiles(a, b);
        return second + "," + cpuMs + "," + delta(a, b, "sipline_sip_requests_received_total") + ","
            + delta(methods0, methods1, "INVITE") + "," + delta(methods0, methods1, "ACK") + ","
            + delta(methods0, methods1, "BYE") + "," + delta(a, b, "sipline_sip_responses_received_total") + ","
            + delta(a, b, "sipline_sip_requests_shed_total") + ","
            + delta(a, b, "sipline_sip_retransmissions_sent_total") + "," + drops + ","
            + String.format("%.2f,%.2f,%.2f", lag[0], lag[1], lag[2]);
    }

    /** Per group of the server's threads, the ms they ran in the second; then the ms the shards waited for a CPU. */
    static String threads(final ThreadTimes before, final ThreadTimes now)
    {
        final StringBuilder s = new StringBuilder(48);
        for (final String g : ThreadTimes.GROUPS)
        {
            s.append(',').append(now.ranSince(before, g) / 1_000_000);
        }
        return s.append(',').append(now.waitedSince(before, "shards") / 1_000_000).toString();
    }

    private static long delta(final Map<String, Double> a, final Map<String, Double> b, final String name)
    {
        return Math.round(FuzzBench.sum(b, name) - FuzzBench.sum(a, name));
    }

    /**
     * The 50th, 99th and 100th percentile of the read path's input lag over the second, in ms, each the upper bound of
     * the bucket it falls in (shards added up).
     */
    static double[] lagPercentiles(final Map<String, Double> a, final Map<String, Double> b)
    {
        final TreeMap<Double, Double> cumulative = new TreeMap<>();
        for (final Map.Entry<String, Double> e : b.entrySet())
        {
            final String k = e.getKey();
            if (!k.startsWith(LAG + "{") || !k.contains("path=\"read\""))
            {
                continue;
            }
            final int from = k.indexOf("le=\"") + 4;
            final String bound = k.substring(from, k.indexOf('"', from));
            final double le = "+Inf".equals(bound) ? Double.POSITIVE_INFINITY : Double.parseDouble(bound);
            cumulative.merge(le, e.getValue() - a.getOrDefault(k, 0.0), Double::sum);
        }
        final double total = cumulative.isEmpty() ? 0 : cumulative.lastEntry().getValue();
        final double[] result = new double[3];
        final double[] shares = {0.5, 0.99, 1.0};
        for (int i = 0; i < shares.length; i++)
        {
            result[i] = Double.NaN;
            for (final Map.Entry<Double, Double> e : cumulative.entrySet())
            {
                if (total > 0 && e.getValue() >= shares[i] * total)
                {
                    result[i] = e.getKey() * 1000;
                    break;
                }
            }
        }
        return result;
    }

    /** Stops recording and waits for the last line. */
    void close() throws InterruptedException
    {
        stop = true;
        thread.join(TimeUnit.SECONDS.toMillis(15)); // a second's sleep and one read of /metrics at most
    }
}
