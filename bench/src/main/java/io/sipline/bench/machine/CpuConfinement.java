package io.sipline.bench.machine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the server under test and its load generators off each other's cores, as if the load came from another
 * machine: the server runs on the first CPU with a share of it (a cgroup CPU quota over a short period, so the
 * server is a slower machine rather than one that stops for long), and the harness with every sipp it starts runs on
 * the other CPUs. On a machine whose cores the callers share with the server, callers offering a multiple of the
 * server's maximum take the CPU the server needs; confined, a surge measures the server's overload control alone.
 *
 * <p>The quota is a cgroup of the {@code cpu} controller ({@code cpu.cfs_quota_us} of v1 under
 * {@code /sys/fs/cgroup/cpu}, or {@code cpu.max} of v2), made by {@link #create}, joined by each server through
 * {@link #wrap} (a shell that writes its own pid into the group and execs {@code taskset -c 0} and the command, so
 * the server's JVM and every process it forks inherit both), and removed by {@link #close}. {@link #pinHarness} moves
 * every thread of this JVM to the other CPUs with {@code taskset -a -p}; processes started afterwards inherit that.
 * Needs root (or a delegated cgroup) and two CPUs or more; {@link #create} says what is missing.
 *
 * <p>Not threadsafe; made and closed by the harness's main thread.
 */
public final class CpuConfinement implements AutoCloseable
{
    /** The quota's shortest period: a server at its quota waits at most a couple of milliseconds at a time. */
    public static final int MIN_PERIOD_US = 2000;
    /** The kernel's smallest quota per period (it refuses less with EINVAL). */
    static final int MIN_QUOTA_US = 1000;
    private static final Path V1 = Path.of("/sys/fs/cgroup/cpu");
    private static final Path V2 = Path.of("/sys/fs/cgroup");

    private final Path group;
    private final boolean v2;
    private final int percent;
    private final int period;
    private final int cpus;

    private CpuConfinement(final Path group, final boolean v2, final int percent, final int period, final int cpus)
    {
        this.group = group;
        this.v2 = v2;
        this.percent = percent;
        this.period = period;
        this.cpus = cpus;
    }

    /** The quota's period for {@code percent}: {@link #MIN_PERIOD_US}, longer where its quota would be too small. */
    static int periodUs(final int percent)
    {
        return Math.max(MIN_PERIOD_US, (MIN_QUOTA_US * 100 + percent - 1) / percent);
    }

    /** The quota per {@link #periodUs} for {@code percent}. */
    static int quotaUs(final int percent)
    {
        return periodUs(percent) * percent / 100;
    }

    /**
     * Makes the cgroup that holds every server at {@code percent} of CPU 0.
     *
     * @throws IOException with what is missing (fewer than two CPUs, no writable cpu controller, no taskset).
     */
    public static CpuConfinement create(final int percent) throws IOException
    {
        if (percent < 1 || percent > 100)
        {
            throw new IllegalArgumentException("server CPU share " + percent + "% is not 1 to 100");
        }
        final int cpus = Runtime.getRuntime().availableProcessors();
        if (cpus < 2)
        {
            throw new IOException("confining the server needs two CPUs or more; this JVM sees " + cpus);
        }
        if (!Files.isExecutable(Path.of("/usr/bin/taskset")))
        {
            throw new IOException("confining the server needs taskset (apt-get install util-linux)");
        }
        final boolean v2 = !Files.exists(V1.resolve("cpu.cfs_quota_us"));
        final Path group = (v2 ? V2 : V1).resolve("sipline-bench-" + ProcessHandle.current().pid());
        final int period = periodUs(percent);
        final int quota = quotaUs(percent);
        try
        {
            Files.createDirectories(group);
            if (v2)
            {
                Files.writeString(group.resolve("cpu.max"), quota + " " + period);
            }
            else
            {
                Files.writeString(group.resolve("cpu.cfs_period_us"), Integer.toString(period));
                Files.writeString(group.resolve("cpu.cfs_quota_us"), Integer.toString(quota));
            }
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            try
            {
                Files.deleteIfExists(group);
            }
            catch (final IOException ignored)
            {
                // the message below says what failed first
            }
            throw new IOException("confining the server needs a writable cgroup cpu controller (" + group
                + ", as root): " + ex.getMessage(), ex);
        }
        return new CpuConfinement(group, v2, percent, period, cpus);
    }

    /** The CPUs of the harness and its sipp processes: every one but the server's, {@code 1-(n-1)}. */
    String loadCpus()
    {
        return 2 == cpus ? "1" : "1-" + (cpus - 1);
    }

    /** Moves every thread of this JVM (and so each process it starts from now on) to {@link #loadCpus}. */
    public void pinHarness() throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder("/usr/bin/taskset", "-a", "-p", "-c", loadCpus(),
            Long.toString(ProcessHandle.current().pid())).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.SECONDS) || 0 != p.exitValue())
        {
            p.destroyForcibly();
            throw new IOException("taskset could not move the harness to CPUs " + loadCpus() + ": " + out.strip());
        }
    }

    /** {@code command}, run in the quota's cgroup on CPU 0 (see the class). */
    public List<String> wrap(final List<String> command)
    {
        final List<String> wrapped = new ArrayList<>(List.of("/bin/sh", "-c",
            "echo $$ > \"$0\" && exec /usr/bin/taskset -c 0 \"$@\"", group.resolve("cgroup.procs").toString()));
        wrapped.addAll(command);
        return wrapped;
    }

    /** One line for a report. */
    public String describe()
    {
        return String.format(Locale.ROOT, "server confined to %d%% of CPU 0 (cgroup %s quota %d us per %d us), the "
            + "harness and every sipp to CPU %s", percent, v2 ? "v2 cpu.max" : "v1 cpu", period * percent / 100,
            period, loadCpus());
    }

    /**
     * Removes the cgroup, waiting up to two seconds for the last server in it to be gone (a cgroup with processes
     * cannot be removed).
     */
    @Override
    public void close() throws IOException
    {
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                Files.deleteIfExists(group);
                return;
            }
            catch (final IOException ex)
            {
                if (attempt >= 20)
                {
                    throw new IOException("cgroup " + group + " still holds a process; remove it with rmdir", ex);
                }
                try
                {
                    Thread.sleep(100); // a killed server's exit is asynchronous
                }
                catch (final InterruptedException ie)
                {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while removing " + group, ie);
                }
            }
        }
    }
}
