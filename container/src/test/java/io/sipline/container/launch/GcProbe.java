package io.sipline.container.launch;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

import com.sun.management.HotSpotDiagnosticMXBean;

import io.sipline.container.os.GcThreadScheduling;
import io.sipline.container.os.ProcTaskPolicy;

/**
 * The tiny main that {@link JvmProfilesTest} runs in a child JVM started with one of the {@code jvm-profiles}: it
 * makes some short-lived garbage while keeping a few objects alive, asks the collector for a collection with
 * {@link System#gc()}, and prints one line naming the collectors the JVM reports and whether its object headers are
 * compact. Reaching the end, exit code 0, proves that the profile's JVM booted, allocated and served a collection
 * request.
 *
 * <p>Single-threaded; holds no state between runs.
 */
final class GcProbe
{
    /** Start of the line printed when the probe has finished; the test looks for it in the child's output. */
    static final String DONE = "GcProbe done";
    /** Start of the line printed for each ZGC concurrent thread, with its scheduling policy. */
    static final String THREAD_LINE = "GcProbe gc thread";
    /** In the line {@link #DONE}: followed by the JVM's value of -XX:UseCompactObjectHeaders. */
    static final String COMPACT_HEADERS = "compact object headers ";

    private static final int CHUNK_BYTES = 1024;
    private static final int CHUNK_COUNT = 64 * 1024;
    private static final int KEPT_COUNT = 256;

    private GcProbe()
    {
    }

    /**
     * Allocates about 64 MiB in 1 KiB arrays, keeping the last 256 reachable, then calls {@link System#gc()} and
     * prints a summary line.
     *
     * @param args ignored.
     */
    public static void main(final String[] args)
    {
        final byte[][] kept = new byte[KEPT_COUNT][];
        long allocatedBytes = 0;
        for (int i = 0; i < CHUNK_COUNT; i++)
        {
            final byte[] chunk = new byte[CHUNK_BYTES];
            chunk[i % CHUNK_BYTES] = (byte)i;
            kept[i % KEPT_COUNT] = chunk;
            allocatedBytes += chunk.length;
        }

        // What bin/sipline's server does first: the scheduling of the GC threads that the profile asks for
        final PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        GcThreadScheduling.start(null, out, new PrintWriter(System.err, true, StandardCharsets.UTF_8));

        System.gc();
        printZgcThreadPolicies(out);

        final StringBuilder collectors = new StringBuilder();
        for (final GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans())
        {
            if (!collectors.isEmpty())
            {
                collectors.append(", ");
            }
            collectors.append(bean.getName()).append('=').append(bean.getCollectionCount());
        }

        int keptBytes = 0;
        for (final byte[] chunk : kept)
        {
            keptBytes += chunk.length;
        }
        System.out.println(DONE + ": allocated " + allocatedBytes + " B, kept " + keptBytes + " B, collectors ["
            + collectors + "], " + COMPACT_HEADERS + ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
            .getVMOption("UseCompactObjectHeaders").getValue());
    }

    /**
     * One line per ZGC concurrent thread of this process with its scheduling policy, read from the kernel's
     * {@code /proc/self/task/<tid>/stat} (field 41, {@code policy}; 0 = SCHED_OTHER, 5 = SCHED_IDLE): "{@value
     * #THREAD_LINE} NAME policy N".
     */
    private static void printZgcThreadPolicies(final PrintWriter out)
    {
        final Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks))
        {
            return;
        }
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks))
        {
            for (final Path task : dir)
            {
                final String name = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).strip();
                if (GcThreadScheduling.isZgcConcurrentThread(name))
                {
                    out.println(THREAD_LINE + " " + name + " policy " + ProcTaskPolicy.of(task));
                }
            }
        }
        catch (final IOException e)
        {
            out.println(THREAD_LINE + " unreadable: " + e);
        }
    }
}
