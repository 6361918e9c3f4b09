package io.sipline.bench.calls;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the bytes of Java heap in use from the text of {@code jcmd PID GC.heap_info}, whose layout depends on the
 * collector: Epsilon prints its one space as {@code [bottom, top, end)} addresses (used = top - bottom, exact to the
 * byte); G1, ZGC and Parallel print top-level lines with {@code used NK} (Parallel: one per generation, summed);
 * Shenandoah prints {@code NK used} on an indented line. Stateless; any thread.
 */
public final class HeapInfo
{
    private static final Pattern EPSILON = Pattern.compile(
        "space \\d+K, +\\d+% used \\[0x([0-9a-f]+), 0x([0-9a-f]+), 0x[0-9a-f]+\\)");
    private static final Pattern USED_AFTER = Pattern.compile("used (\\d+)([KMG])");
    private static final Pattern USED_BEFORE = Pattern.compile("(\\d+)([KMG]) used");
    private static final Pattern TOTAL = Pattern.compile("(?m)^Total\\s+(\\d+)\\s+(\\d+)\\s*$");

    private HeapInfo()
    {
    }

    /**
     * The heap in use, in bytes.
     *
     * @throws IllegalArgumentException quoting the text when no known layout matches.
     */
    public static long usedBytes(final String heapInfo)
    {
        if (heapInfo.contains("Epsilon Heap"))
        {
            final Matcher m = EPSILON.matcher(heapInfo);
            if (m.find())
            {
                return Long.parseUnsignedLong(m.group(2), 16) - Long.parseUnsignedLong(m.group(1), 16);
            }
        }
        long used = 0;
        boolean found = false;
        for (final String line : heapInfo.split("\n"))
        {
            if (line.isEmpty() || Character.isWhitespace(line.charAt(0)))
            {
                continue;
            }
            final Matcher m = USED_AFTER.matcher(line);
            if (m.find())
            {
                used += bytes(m.group(1), m.group(2));
                found = true;
            }
        }
        if (found)
        {
            return used;
        }
        final Matcher m = USED_BEFORE.matcher(heapInfo);
        if (m.find())
        {
            return bytes(m.group(1), m.group(2));
        }
        throw new IllegalArgumentException("no heap size in GC.heap_info output: " + heapInfo.strip());
    }

    /**
     * The bytes of live objects from the {@code Total} line of {@code jcmd PID GC.class_histogram}, which collects
     * first and then walks only the reachable objects: exact for every collector, unlike the heap in use after a
     * full GC (Parallel's compaction keeps dead objects in its dense prefix, tens of MB that vary run to run).
     *
     * @throws IllegalArgumentException when there is no {@code Total} line.
     */
    public static long liveBytes(final String histogram)
    {
        final Matcher m = TOTAL.matcher(histogram);
        if (!m.find())
        {
            throw new IllegalArgumentException("no Total line in GC.class_histogram output");
        }
        return Long.parseLong(m.group(2));
    }

    private static long bytes(final String value, final String unit)
    {
        final long n = Long.parseLong(value);
        return switch (unit)
        {
            case "K" -> n << 10;
            case "M" -> n << 20;
            default -> n << 30;
        };
    }
}
