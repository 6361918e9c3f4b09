package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A running system under test, started by {@link SystemUnderTest#start}: its process (stopped by this handle only,
 * with its descendants), UDP port, output log, and for a JVM its GC log; reads its CPU time, its kernel socket drops
 * and (JVM) its heap through {@code jcmd}. Owned by the harness's main thread.
 */
public final class ServerProcess implements AutoCloseable, CallPath
{
    private static final Path JCMD = Path.of(System.getProperty("java.home"), "bin", "jcmd");

    private final SystemUnderTest system;
    private final String profile;
    private final Process process;
    private final int port;
    /** The admin HTTP port on 127.0.0.1 serving {@code /metrics}, or 0 when the system has none. */
    private final int adminPort;
    private final Path output;
    private Path gcLog;

    ServerProcess(final SystemUnderTest system, final String profile, final Process process, final int port,
        final int adminPort, final Path output, final Path gcLog)
    {
        this.system = system;
        this.profile = profile;
        this.process = process;
        this.port = port;
        this.adminPort = adminPort;
        this.output = output;
        this.gcLog = gcLog;
    }

    public SystemUnderTest system()
    {
        return system;
    }

    /** The profile the JVM runs with ({@code -} for Kamailio). */
    public String profile()
    {
        return profile;
    }

    @Override
    public int port()
    {
        return port;
    }

    public long pid()
    {
        return process.pid();
    }

    /** The process, for reading its threads ({@link ThreadTimes}). */
    public ProcessHandle handle()
    {
        return process.toHandle();
    }

    /** The admin port serving {@code /metrics} on 127.0.0.1, or 0 (the baselines). */
    public int adminPort()
    {
        return adminPort;
    }

    /** Scrapes {@code /metrics} on the admin port; null when there is none. */
    @Override
    public ServerLatency.Scrape scrapeServerTimes() throws IOException
    {
        return 0 == adminPort ? null : ServerLatency.Scrape.fetch(adminPort);
    }

    /** The GC log, or null (Kamailio). */
    @Override
    public Path gcLog()
    {
        return gcLog;
    }

    void gcLog(final Path log)
    {
        gcLog = log;
    }

    /** The process's stdout and stderr. */
    public Path output()
    {
        return output;
    }

    /** utime + stime of the server and its children, in clock ticks. */
    @Override
    public long cpuTicks()
    {
        return ProcFs.cpuTicks(process.toHandle());
    }

    /** The server's UDP port: its listening sockets and the connected ones it opens there for busy peers. */
    @Override
    public int[] socketPorts()
    {
        return new int[] {port};
    }

    /**
     * Waits until the server's UDP socket is bound and, when {@code marker} is not null, its output holds
     * {@code marker}; fails with the tail of its output when it exits first or {@code timeoutSeconds} pass.
     */
    void awaitReady(final String marker, final long timeoutSeconds) throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true)
        {
            if (!process.isAlive())
            {
                throw new IOException(system.label() + " exited with " + process.exitValue() + " before it was ready:\n"
                    + tail(20));
            }
            final boolean bound = ProcFs.udpSockets(port)[0] > 0;
            if (bound && (null == marker || Files.readString(output, StandardCharsets.ISO_8859_1).contains(marker)))
            {
                return;
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IOException(system.label() + " not ready after " + timeoutSeconds + " s:\n" + tail(20));
            }
            process.waitFor(100, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Lets {@code seconds} pass for the server's timers (transactions ending), returning early only if the server
     * exits, which is then an error.
     */
    void keepRunning(final long seconds) throws IOException, InterruptedException
    {
        if (process.waitFor(seconds, TimeUnit.SECONDS))
        {
            throw new IOException(system.label() + " exited with " + process.exitValue() + ":\n" + tail(20));
        }
    }

    /** Waits (at most 15 s) until the server uses less than a fifth of a core, so one step's tail is not the next's. */
    public void settle() throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        long last = cpuTicks();
        while (System.nanoTime() - deadline < 0)
        {
            TimeUnit.MILLISECONDS.sleep(500);
            final long now = cpuTicks();
            if (now - last < ProcFs.CLOCK_TICKS_PER_SECOND / 10)
            {
                return;
            }
            last = now;
        }
    }

    /** The Java heap in use, in bytes, from {@code jcmd PID GC.heap_info}. */
    public long heapUsed() throws IOException, InterruptedException
    {
        return HeapInfo.usedBytes(jcmd("GC.heap_info"));
    }

    /**
     * Bytes of live objects, from {@code jcmd PID GC.class_histogram} (a full collection, then a heap walk); the
     * histogram itself is written to {@code keep}, so that a retained figure can be explained class by class.
     */
    public long liveBytes(final Path keep) throws IOException, InterruptedException
    {
        final String histogram = jcmd("GC.class_histogram");
        Files.writeString(keep, histogram, StandardCharsets.UTF_8);
        return HeapInfo.liveBytes(histogram);
    }

    /** Writes the server's live objects (after a full collection) to {@code file}, an HPROF heap dump. */
    public void heapDump(final Path file) throws IOException, InterruptedException
    {
        jcmd("GC.heap_dump " + file.toAbsolutePath());
    }

    /**
     * Starts the JFR recording of {@link LockCheck#RECORDING} (read with {@link #locks}). The harness starts it with
     * the server, before the warm-up: starting JFR attaches to the JVM, loads and initializes the recorder and reaches
     * a safepoint, which took the first second of a step when it ran just before the step.
     */
    public void startLocks() throws IOException, InterruptedException
    {
        jcmd("JFR.start name=sipline-locks " + LockCheck.RECORDING);
    }

    /**
     * Writes what the recording {@link #startLocks} began holds so far to {@code file} (the recording goes on) and
     * counts its events that started within {@code [from, to]}, the step.
     */
    public LockCheck locks(final Path file, final String series, final String step, final Instant from,
        final Instant to) throws IOException, InterruptedException
    {
        jcmd("JFR.dump name=sipline-locks filename=" + file);
        return LockCheck.read(file, series, step, from, to);
    }

    private String jcmd(final String command) throws IOException, InterruptedException
    {
        if (!system.jvm())
        {
            throw new IllegalStateException(system.label() + " is not a JVM");
        }
        final Process p = new ProcessBuilder(JCMD.toString(), Long.toString(process.pid()), command)
            .redirectErrorStream(true).start();
        try
        {
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS) || 0 != p.exitValue())
            {
                throw new IOException("jcmd " + process.pid() + " " + command + " failed: " + out);
            }
            return out;
        }
        finally
        {
            p.destroyForcibly();
        }
    }

    /** The last {@code lines} lines of the server's output. */
    public String tail(final int lines)
    {
        try
        {
            final List<String> all = Files.readAllLines(output, StandardCharsets.ISO_8859_1);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        }
        catch (final IOException ex)
        {
            return "(no output: " + ex + ")";
        }
    }

    /**
     * The last line of the output with {@code ": stopped ("}: the counters Sipline ({@code sipline: stopped (all
     * shards: datagrams ..., dropped ...)}) or the JAIN-SIP baseline print when stopped; empty when there is none.
     */
    public String stopLine()
    {
        final String[] lines = tail(50).split("\n");
        for (int i = lines.length - 1; i >= 0; i--)
        {
            if (lines[i].contains(": stopped ("))
            {
                return lines[i].strip();
            }
        }
        return "";
    }

    /**
     * SIGTERM, up to 20 s for a clean stop, then SIGKILL to the process and whatever it forked. Interrupted while it
     * waits, it kills at once and keeps the thread's interrupt status.
     */
    @Override
    public void close()
    {
        final List<ProcessHandle> children = new ArrayList<>(process.descendants().toList());
        process.destroy();
        try
        {
            if (!process.waitFor(20, TimeUnit.SECONDS))
            {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException e)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        for (final ProcessHandle child : children)
        {
            if (child.isAlive())
            {
                child.destroyForcibly();
                child.onExit().completeOnTimeout(child, 10, TimeUnit.SECONDS).join();
            }
        }
    }
}
