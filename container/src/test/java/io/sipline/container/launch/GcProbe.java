package io.sipline.container.launch;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * The tiny main that {@link JvmProfilesTest} runs in a child JVM started with one of the {@code jvm-profiles}: it
 * makes some short-lived garbage while keeping a few objects alive, asks the collector for a collection with
 * {@link System#gc()}, and prints one line naming the collectors the JVM reports. Reaching the end, exit code 0,
 * proves that the profile's JVM booted, allocated and served a collection request.
 *
 * <p>Single-threaded; holds no state between runs.
 */
final class GcProbe
{
    /** Start of the line printed when the probe has finished; the test looks for it in the child's output. */
    static final String DONE = "GcProbe done";

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

        System.gc();

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
            + collectors + "]");
    }
}
