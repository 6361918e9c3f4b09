package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a server's CPU went over a step, by kind of thread, and how long its threads waited for a core: the kernel's
 * per-thread scheduler statistics ({@code /proc/PID/task/TID/schedstat}: nanoseconds on a CPU, nanoseconds runnable
 * but waiting in the run queue, and times run) summed by the thread's name ({@code comm}). A shard that waits for a
 * core holds its messages in the socket meanwhile, which the server's own response times count from the kernel's
 * receive time: the wait of the shards is the part of those times that the machine's other work adds.
 * <p>
 * Immutable; {@link #of} reads the process and its descendants on the calling thread (the harness's main thread).
 *
 * @param groups by group name ({@link #group}), in a fixed order: {@code {runNanos, waitNanos, slices}}.
 */
public record ThreadTimes(Map<String, long[]> groups)
{
    /** The groups, in the order they are written. */
    public static final List<String> GROUPS = List.of("shards", "web", "JIT", "GC", "other");

    /**
     * The group of a thread by its {@code comm} (a thread's name, cut to 15 bytes); the VM thread, which runs the
     * safepoint operations, counts with the collector's threads.
     */
    static String group(final String comm)
    {
        if (comm.startsWith("sipline-shard"))
        {
            return "shards";
        }
        if (comm.startsWith("sipline-http"))
        {
            return "web";
        }
        if (comm.contains("CompilerThre"))
        {
            return "JIT";
        }
        if (comm.startsWith("ZWorker") || comm.startsWith("ZDriver") || comm.startsWith("ZDirector")
            || comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.startsWith("Shenandoah")
            || comm.startsWith("VM Thread"))
        {
            return "GC";
        }
        return "other";
    }

    /** The threads of {@code process} and of its descendants now. */
    public static ThreadTimes of(final ProcessHandle process)
    {
        final Map<String, long[]> groups = new LinkedHashMap<>();
        GROUPS.forEach(g -> groups.put(g, new long[3]));
        read(Path.of("/proc", Long.toString(process.pid()), "task"), groups);
        process.descendants().forEach(d -> read(Path.of("/proc", Long.toString(d.pid()), "task"), groups));
        return new ThreadTimes(groups);
    }

    private static void read(final Path tasks, final Map<String, long[]> into)
    {
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks))
        {
            for (final Path task : dir)
            {
                add(task, into);
            }
        }
        catch (final IOException gone)
        {
            // the process ended, or has no schedstat (a kernel without CONFIG_SCHEDSTATS): nothing to add
        }
    }

    private static void add(final Path task, final Map<String, long[]> into)
    {
        try
        {
            final String comm = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).strip();
            final String[] f = Files.readString(task.resolve("schedstat"), StandardCharsets.US_ASCII).strip()
                .split(" ");
            final long[] sums = into.get(group(comm));
            for (int i = 0; i < 3; i++)
            {
                sums[i] += Long.parseLong(f[i]);
            }
        }
        catch (final IOException | RuntimeException gone)
        {
            // the thread ended between the listing and the read: its last interval is not counted
        }
    }

    /** Nanoseconds the threads of {@code group} ran on a CPU between {@code before} and this. */
    public long ranSince(final ThreadTimes before, final String group)
    {
        return Math.max(0, groups.get(group)[0] - before.groups.get(group)[0]);
    }

    /** Nanoseconds the threads of {@code group} waited in a run queue for a CPU between {@code before} and this. */
    public long waitedSince(final ThreadTimes before, final String group)
    {
        return Math.max(0, groups.get(group)[1] - before.groups.get(group)[1]);
    }

    /**
     * One line over the {@code seconds} from {@code before} to this: per group the cores it used and the milliseconds
     * per second its threads waited for a core, and for the shards the mean wait per time they ran.
     */
    String since(final ThreadTimes before, final double seconds)
    {
        final StringBuilder line = new StringBuilder("server threads over the step:");
        for (final String g : GROUPS)
        {
            final long[] now = groups.get(g);
            final long[] then = before.groups.get(g);
            final double run = Math.max(0, now[0] - then[0]) / 1e9 / seconds;
            final double wait = Math.max(0, now[1] - then[1]) / 1e6 / seconds;
            final long slices = Math.max(0, now[2] - then[2]);
            line.append(String.format(" %s %.3f cores, waited %.1f ms/s", g, run, wait));
            if ("shards".equals(g))
            {
                line.append(String.format(" (%.0f us per run)",
                    0 == slices ? 0.0 : Math.max(0, now[1] - then[1]) / 1e3 / slices));
            }
            line.append(';');
        }
        line.setLength(line.length() - 1);
        return line.toString();
    }
}
