package io.sipline.sip.stack;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * {@code AllocationBreakdown file.jfr from to transactions [frames]}: the bytes the shard threads
 * ({@code sipline-shard-*}) allocated between two instants of a JFR recording, per class and per allocation site,
 * divided by the number of transactions of that window. Made for runs with {@code -XX:-UseTLAB} and the event
 * {@code jdk.ObjectAllocationOutsideTLAB} enabled with its stack trace: without a TLAB every allocation is such an
 * event, so the figures are exact (TLAB sampling, {@code jdk.ObjectAllocationSample}, only estimates them). The sites
 * are the first {@code frames} (3) frames of the stack outside {@code java.*} and {@code jdk.*}, with the JDK frame
 * that allocated.
 */
public final class AllocationBreakdown
{
    private AllocationBreakdown()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[0]);
        final Instant from = Instant.parse(args[1]);
        final Instant to = Instant.parse(args[2]);
        final double transactions = Double.parseDouble(args[3]);
        final int frames = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        final Map<String, long[]> byClass = new HashMap<>();
        final Map<String, long[]> bySite = new HashMap<>();
        long total = 0;
        for (final RecordedEvent e : RecordingFile.readAllEvents(file))
        {
            if (!"jdk.ObjectAllocationOutsideTLAB".equals(e.getEventType().getName())
                && !"jdk.ObjectAllocationInNewTLAB".equals(e.getEventType().getName()))
            {
                continue;
            }
            if (null == e.getThread() || null == e.getThread().getJavaName()
                || !e.getThread().getJavaName().startsWith("sipline-shard-"))
            {
                continue;
            }
            if (e.getStartTime().isBefore(from) || e.getStartTime().isAfter(to))
            {
                continue;
            }
            final long size = e.getLong("allocationSize");
            final String type = e.getClass("objectClass").getName();
            total += size;
            add(byClass, type, size);
            add(bySite, type + " <- " + site(e, frames), size);
        }
        System.out.printf("total %.1f B/tx (%d bytes)%n", total / transactions, total);
        print("by class", byClass, transactions);
        print("by site", bySite, transactions);
    }

    private static String site(final RecordedEvent e, final int frames)
    {
        if (null == e.getStackTrace())
        {
            return "?";
        }
        final StringBuilder sb = new StringBuilder();
        int n = 0;
        boolean first = true;
        for (final RecordedFrame f : e.getStackTrace().getFrames())
        {
            final String type = f.getMethod().getType().getName();
            final boolean jdk = type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.");
            if (jdk && !first)
            {
                continue;
            }
            if (sb.length() > 0)
            {
                sb.append(" < ");
            }
            sb.append(type.substring(type.lastIndexOf('.') + 1)).append('.').append(f.getMethod().getName())
                .append(':').append(f.getLineNumber());
            first = false;
            if (!jdk && ++n == frames)
            {
                break;
            }
        }
        return sb.toString();
    }

    private static void add(final Map<String, long[]> map, final String key, final long size)
    {
        final long[] v = map.computeIfAbsent(key, k -> new long[2]);
        v[0] += size;
        v[1]++;
    }

    private static void print(final String title, final Map<String, long[]> map, final double transactions)
    {
        System.out.println(title + ":");
        final List<Map.Entry<String, long[]>> entries = new ArrayList<>(map.entrySet());
        entries.sort((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]));
        for (final Map.Entry<String, long[]> entry : entries)
        {
            final double perTx = entry.getValue()[0] / transactions;
            if (perTx < 0.05)
            {
                break;
            }
            System.out.printf("  %8.1f B/tx %8.3f obj/tx  %s%n", perTx, entry.getValue()[1] / transactions,
                entry.getKey());
        }
    }
}
