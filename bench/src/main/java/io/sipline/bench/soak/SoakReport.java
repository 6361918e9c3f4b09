package io.sipline.bench.soak;

import java.util.List;
import java.util.Locale;

import io.sipline.bench.calls.GcLog;

/** The report of {@code bench soak}: slopes, GC pauses, each caller's totals, each sample (markdown and JSON). */
final class SoakReport
{
    private static final double MB = 1024 * 1024;

    private SoakReport()
    {
    }

    /** The samples of the second half of the run (what is left once caches, pools and registrations filled). */
    static List<Sample> secondHalf(final List<Sample> samples, final int duration)
    {
        return samples.stream().filter(s -> s.seconds() >= duration / 2.0).toList();
    }

    static String markdown(final String command, final String server, final int max, final int duration,
        final List<Sample> samples, final List<SoakBench.Caller> callers, final GcLog.Summary gc)
    {
        final StringBuilder md = new StringBuilder(8192);
        md.append("# bench soak\n\n`").append(command).append("`\n\n").append(server).append(", maximum ")
            .append(max).append(" calls/s, ").append(duration).append(" s. Machine: ")
            .append(Runtime.getRuntime().availableProcessors()).append(" cores, JDK ").append(Runtime.version())
            .append(".\n\n| figure | slope, whole run, MB/hour | slope, second half, MB/hour | first | last |\n")
            .append("|---|---|---|---|---|\n");
        final List<Sample> half = secondHalf(samples, duration);
        for (final Sample.Figure f : Sample.Figure.values())
        {
            md.append("| ").append(name(f)).append(" | ").append(mb(Sample.slopePerHour(samples, f))).append(" | ")
                .append(mb(Sample.slopePerHour(half, f))).append(" | ")
                .append(samples.isEmpty() ? "-" : mb(f.of(samples.getFirst()))).append(" MB | ")
                .append(samples.isEmpty() ? "-" : mb(f.of(samples.getLast()))).append(" MB |\n");
        }
        md.append("\nGC pauses over the run: ").append(gc.count()).append(", longest ")
            .append(String.format(Locale.ROOT, "%.3f", gc.maxMillis())).append(" ms, total ")
            .append(String.format(Locale.ROOT, "%.1f", gc.totalMillis())).append(" ms. Server retransmissions: ")
            .append(samples.isEmpty() ? "-" : samples.getLast().serverRetrans() < 0 ? "not known"
                : Long.toString(samples.getLast().serverRetrans()))
            .append(".\n\n| caller | calls/s | successful | failed | retransmissions |\n|---|---|---|---|---|\n");
        for (final SoakBench.Caller c : callers)
        {
            md.append("| ").append(c.kind()).append(" | ").append(c.rate()).append(" | ").append(c.successful())
                .append(" | ").append(c.failed()).append(" | ").append(c.retransmissions()).append(" |\n");
        }
        md.append("\n| second | heap after GC, MB | direct, MB | RSS, MB | server retransmissions | sipp ")
            .append("retransmissions | longest GC pause since the last sample, ms |\n|---|---|---|---|---|---|---|\n");
        for (final Sample s : samples)
        {
            md.append("| ").append(String.format(Locale.ROOT, "%.0f", s.seconds())).append(" | ")
                .append(mb(s.heapAfterGc())).append(" | ").append(s.direct() < 0 ? "-" : mb(s.direct())).append(" | ")
                .append(mb(s.rss())).append(" | ").append(s.serverRetrans() < 0 ? "-" : s.serverRetrans())
                .append(" | ").append(s.sippRetrans()).append(" | ")
                .append(String.format(Locale.ROOT, "%.3f", s.maxPauseMillis())).append(" |\n");
        }
        return md.toString();
    }

    static String json(final String server, final int max, final int duration, final List<Sample> samples,
        final List<SoakBench.Caller> callers, final GcLog.Summary gc)
    {
        final StringBuilder j = new StringBuilder(8192);
        j.append("{\n  \"server\": \"").append(server).append("\",\n  \"max\": ").append(max)
            .append(",\n  \"durationSeconds\": ").append(duration).append(",\n  \"slopesBytesPerHour\": {");
        final List<Sample> half = secondHalf(samples, duration);
        for (final Sample.Figure f : Sample.Figure.values())
        {
            j.append(f.ordinal() > 0 ? ", " : "").append('"').append(f.name().toLowerCase(Locale.ROOT))
                .append("\": [").append(num(Sample.slopePerHour(samples, f))).append(", ")
                .append(num(Sample.slopePerHour(half, f))).append(']');
        }
        j.append("},\n  \"gc\": {\"pauses\": ").append(gc.count()).append(", \"maxMillis\": ")
            .append(num(gc.maxMillis())).append(", \"totalMillis\": ").append(num(gc.totalMillis()))
            .append("},\n  \"callers\": [");
        for (int i = 0; i < callers.size(); i++)
        {
            final SoakBench.Caller c = callers.get(i);
            j.append(i > 0 ? ", " : "").append("{\"kind\": \"").append(c.kind()).append("\", \"rate\": ")
                .append(c.rate()).append(", \"successful\": ").append(c.successful()).append(", \"failed\": ")
                .append(c.failed()).append(", \"retransmissions\": ").append(c.retransmissions()).append('}');
        }
        j.append("],\n  \"sampleColumns\": [\"seconds\", \"heapAfterGc\", \"direct\", \"rss\", \"serverRetrans\", ")
            .append("\"sippRetrans\", \"maxPauseMillis\"],\n  \"samples\": [");
        for (int i = 0; i < samples.size(); i++)
        {
            final Sample s = samples.get(i);
            j.append(i > 0 ? ", " : "").append('[').append(num(s.seconds())).append(", ").append(s.heapAfterGc())
                .append(", ").append(s.direct()).append(", ").append(s.rss()).append(", ").append(s.serverRetrans())
                .append(", ").append(s.sippRetrans()).append(", ").append(num(s.maxPauseMillis())).append(']');
        }
        return j.append("]\n}\n").toString();
    }

    private static String name(final Sample.Figure f)
    {
        return switch (f)
        {
            case HEAP -> "heap after GC";
            case DIRECT -> "direct memory";
            case RSS -> "RSS";
        };
    }

    private static String mb(final double bytes)
    {
        return Double.isNaN(bytes) ? "-" : String.format(Locale.ROOT, "%+.2f", bytes / MB).replace("+", "");
    }

    private static String num(final double v)
    {
        return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.3f", v);
    }
}
