package io.sipline.media.ice;

import java.lang.management.ManagementFactory;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The exact bytes of the live objects on the heap, for retained-size tests: the sum of the JVM's class histogram
 * ({@code GC.class_histogram}, which runs a full GC and counts what is reachable), without the filler objects a GC
 * leaves in regions it does not compact. Unlike {@code totalMemory() - freeMemory()}, which also counts dead objects
 * left in place by a full GC that skips dense regions, two readings of the same live set give the same number.
 *
 * <p>Taken until two readings in a row agree (objects held only by pending references go at the next GC), at most
 * {@link #MAX_READINGS} times. Test code only; allocates the histogram text.
 */
final class LiveHeap
{
    static final int MAX_READINGS = 8;

    private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+\\d+\\s+(\\d+)\\s+(\\S+)", Pattern.MULTILINE);

    private LiveHeap()
    {
    }

    /** @return the bytes of the live objects once stable. */
    static long bytes()
    {
        long previous = reading();
        for (int i = 1; i < MAX_READINGS; i++)
        {
            final long current = reading();
            if (current == previous)
            {
                return current;
            }
            previous = current;
        }
        return previous;
    }

    private static long reading()
    {
        final String histogram;
        try
        {
            final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            histogram = (String) server.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"),
                "gcClassHistogram", new Object[] {new String[0]}, new String[] {String[].class.getName()});
        }
        catch (final JMException ex)
        {
            throw new IllegalStateException("GC.class_histogram unavailable", ex);
        }
        long bytes = 0;
        final Matcher row = ROW.matcher(histogram);
        while (row.find())
        {
            if (!row.group(2).contains("jdk.internal.vm.Filler")) // FillerObject, and [Ljdk.internal.vm.FillerElement;
            {
                bytes += Long.parseLong(row.group(1));
            }
        }
        return bytes;
    }
}
