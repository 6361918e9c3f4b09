package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.sipline.test.Sipp;

/**
 * Drives one step of load through a running server: starts sipp's far end (the flow's uas scenario, on the
 * server's target port, {@code -m calls}), then sipp's uac with the flow's timed scenario at the rate, bounded in
 * calls ({@code -m}), in time
 * ({@code -timeout}, {@code -recv_timeout}) and concurrency ({@code -l}); reads both sipp statistics, the server's
 * CPU and socket drops before and after, and copies sipp's files into the run directory. sipp is run and read through
 * {@link Sipp} (test-support), the same code the end-to-end tests use. A server with an admin port is scraped right
 * before the caller starts and right after it ends, for its own INVITE response times ({@link ServerLatency}).
 * Every sipp process is stopped by its handle.
 * The harness's main thread.
 */
public final class LoadDriver
{
    /** sipp's socket buffers: the loopback maximum of this machine (net.core.rmem_max). */
    private static final String SIPP_BUFFER = "4194304";
    /** A call whose next response does not come within this is failed (bounds a step against a stalled server). */
    private static final String RECV_TIMEOUT_MS = "8000";

    private final Path dir;
    private final int uasPort;
    private final List<String> uacOptions;
    private final Scenarios.Flow flow;

    /**
     * Steps write into {@code dir}; the far end listens on {@code uasPort}, where the server relays; the calls follow
     * {@code flow}; the caller runs with {@code uacOptions} added (e.g. {@link Scenarios#KAMAILIO_UAC_OPTIONS}).
     */
    public LoadDriver(final Path dir, final int uasPort, final List<String> uacOptions, final Scenarios.Flow flow)
    {
        this.dir = dir;
        this.uasPort = uasPort;
        this.uacOptions = List.copyOf(uacOptions);
        this.flow = flow;
    }

    public int uasPort()
    {
        return uasPort;
    }

    /**
     * Runs {@code calls} calls at {@code rate} calls/s, each held {@code holdMs} after the ACK, and returns the step.
     *
     * @param name unique within the run: names sipp's directory and the copied files.
     */
    public Step run(final CallPath server, final String name, final String label, final int rate,
        final int calls, final long holdMs) throws IOException, InterruptedException
    {
        final String uacName = name + "-uac";
        final String uasName = name + "-uas";
        final Path callLog = dir.resolve(uacName + "-calls.log");
        Files.deleteIfExists(callLog);
        forget(uacName);
        forget(uasName);
        Process uas = null;
        Process uac = null;
        try
        {
            uas = Sipp.start(uasName, uasArgs("-m", Integer.toString(calls)), uasPort);
            awaitBound(uas, uasPort);
            // The server's own response-time histograms, read right before the caller starts and right after it
            // ends (outside the step's CPU and GC windows: a scrape is the server's work, not the calls').
            final ServerLatency.Scrape times0 = scrape(server);
            final long cpu0 = server.cpuTicks();
            final long busy0 = ProcFs.machineBusyTicks();
            final int[] dropPorts = IntStream.concat(IntStream.of(server.socketPorts()), IntStream.of(uasPort))
                .toArray();
            final Map<Long, Long> drops0 = ProcFs.udpDrops(dropPorts);
            final Instant from = Instant.now();
            final long t0 = System.nanoTime();
            final double expectedSeconds = calls / (double)rate + holdMs / 1000.0;
            final long timeout = (long)expectedSeconds + 60;
            final List<String> args = new ArrayList<>(List.of("127.0.0.1:" + server.port(),
                "-sf", flow.uac().toString(), "-m", Integer.toString(calls), "-r", Integer.toString(rate),
                "-rp", "1000", "-d", Long.toString(holdMs),
                "-l", Long.toString(Math.max(1000, (long)(rate * (holdMs / 1000.0 + 10)))),
                "-timeout", timeout + "s", "-timeout_error", "-recv_timeout", RECV_TIMEOUT_MS,
                "-buff_size", SIPP_BUFFER, "-trace_logs", "-log_file", callLog.toString()));
            args.addAll(uacOptions);
            uac = Sipp.start(uacName, args);
            if (!uac.waitFor(timeout + 30, TimeUnit.SECONDS))
            {
                Sipp.stop(uac);
            }
            final double seconds = (System.nanoTime() - t0) / 1e9;
            final Instant to = Instant.now();
            final long cpu = server.cpuTicks() - cpu0;
            final long busy = ProcFs.machineBusyTicks() - busy0;
            final ServerLatency.Scrape times1 = scrape(server);
            // The far end ends by itself after its last BYE; one that misses calls is stopped.
            uas.waitFor(5, TimeUnit.SECONDS);
            final long drops = ProcFs.dropsBetween(drops0, ProcFs.udpDrops(dropPorts));
            Sipp.stop(uas);
            final long[] done = Sipp.successAndFailed(uacName);
            final long successful = Math.max(0, done[0]);
            final long failed = done[1] < 0 ? calls : done[1];
            final long retrans = Math.max(0, Sipp.statistic(uacName, "Retransmissions(C)"))
                + Math.max(0, Sipp.statistic(uasName, "Retransmissions(C)"));
            keep(uacName);
            keep(uasName);
            final long unexpected =
                count(dir.resolve(uacName + "-errors.log"), "Continuing call on unexpected message");
            final Latency[] latency = Latency.read(callLog, rate);
            final GcLog.Summary gc = GcLog.read(server.gcLog()).between(from, to);
            final double cpuPer1000 = 0 == successful ? Double.NaN :
                cpu / (double)ProcFs.CLOCK_TICKS_PER_SECOND * 1000.0 / successful;
            final double tick = ProcFs.CLOCK_TICKS_PER_SECOND;
            return new Step(label, rate, calls, successful, failed, retrans, drops, unexpected, seconds,
                successful / seconds,
                latency[0], latency[1], ServerLatency.between(times0, times1, "180"),
                ServerLatency.between(times0, times1, "2xx"),
                ServerLatency.between(times0, times1, ServerLatency.CLIENT_METRIC, "180"),
                ServerLatency.between(times0, times1, ServerLatency.INPUT_LAG_METRIC, "read"),
                ServerLatency.between(times0, times1, ServerLatency.INPUT_LAG_METRIC, "handover"), gc, cpuPer1000,
                cpu / tick / seconds,
                busy / tick / seconds, from, to);
        }
        finally
        {
            Sipp.stop(uac);
            Sipp.stop(uas);
        }
    }

    /**
     * Starts {@code calls} calls at {@code rate} held {@code holdMs} each and returns the running uac and uas (for
     * the retained-heap run: the caller measures while they are held, then stops both).
     */
    public Process[] hold(final ServerProcess server, final String name, final int rate, final int calls,
        final long holdMs) throws IOException, InterruptedException
    {
        forget(name + "-uac");
        forget(name + "-uas");
        final Process uas = Sipp.start(name + "-uas", uasArgs(), uasPort);
        try
        {
            awaitBound(uas, uasPort);
            final Process uac = Sipp.start(name + "-uac", List.of("127.0.0.1:" + server.port(), "-sf",
                flow.uac().toString(), "-m", Integer.toString(calls), "-r", Integer.toString(rate), "-d",
                Long.toString(holdMs), "-l", Integer.toString(calls + 10), "-recv_timeout", RECV_TIMEOUT_MS,
                "-buff_size", SIPP_BUFFER));
            return new Process[] {uac, uas};
        }
        catch (final IOException | RuntimeException ex)
        {
            Sipp.stop(uas);
            throw ex;
        }
    }

    /**
     * The server's histograms now: null when it has none, {@link ServerLatency.Scrape#FAILED} (said on the console)
     * when the scrape fails, so that the step reports "n/a" and goes on.
     */
    private static ServerLatency.Scrape scrape(final CallPath server)
    {
        try
        {
            return server.scrapeServerTimes();
        }
        catch (final IOException | RuntimeException ex)
        {
            System.out.println("bench calls: scraping the server's /metrics failed: " + ex);
            return ServerLatency.Scrape.FAILED;
        }
    }

    /** The far end's arguments: its scenario, {@code more}, and the socket buffers. */
    private List<String> uasArgs(final String... more)
    {
        final List<String> args = new ArrayList<>(flow.uasArgs());
        args.addAll(List.of(more));
        args.addAll(List.of("-buff_size", SIPP_BUFFER));
        return args;
    }

    /** Copies sipp's statistics and screen of {@code name} into the run directory. */
    public void keep(final String name) throws IOException
    {
        for (final String f : new String[] {"stat.csv", "screen.log", "errors.log"})
        {
            final Path from = Path.of("target", "sipp", name, f);
            if (Files.isRegularFile(from))
            {
                Files.copy(from, dir.resolve(name + "-" + f), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** How many times {@code what} occurs in {@code file} (0 when there is no file). */
    private static long count(final Path file, final String what) throws IOException
    {
        if (!Files.isRegularFile(file))
        {
            return 0;
        }
        final String text = Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1);
        long n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + what.length()))
        {
            n++;
        }
        return n;
    }

    /** Removes what an earlier run of the same name left in sipp's directory, so nothing stale is read. */
    private static void forget(final String name) throws IOException
    {
        for (final String f : new String[] {"stat.csv", "screen.log", "errors.log"})
        {
            Files.deleteIfExists(Path.of("target", "sipp", name, f));
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
