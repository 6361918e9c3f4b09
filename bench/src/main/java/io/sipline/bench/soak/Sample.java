package io.sipline.bench.soak;

import java.util.List;

/**
 * One sample of a soak run, and the least-squares slope of a series of them. Immutable.
 *
 * @param seconds         since the load started
 * @param heapAfterGc     heap after a requested collection ({@code jcmd GC.run}), bytes
 * @param direct          direct memory in use, bytes ({@code sipline_jvm_direct_memory_used_bytes}); -1: not known
 * @param rss             resident set of the server process, bytes ({@code /proc/PID/status} VmRSS)
 * @param serverRetrans   retransmissions the server's transactions sent so far
 *                        ({@code sipline_sip_retransmissions_sent}); -1: not known
 * @param sippRetrans     retransmissions the sipp callers and far end counted so far
 * @param maxPauseMillis  the longest GC pause since the previous sample
 */
public record Sample(double seconds, long heapAfterGc, long direct, long rss, long serverRetrans, long sippRetrans,
    double maxPauseMillis)
{
    /** Which figure of a sample a slope is of. */
    public enum Figure
    {
        HEAP, DIRECT, RSS;

        double of(final Sample s)
        {
            return switch (this)
            {
                case HEAP -> s.heapAfterGc;
                case DIRECT -> s.direct;
                case RSS -> s.rss;
            };
        }
    }

    /**
     * The least-squares slope of {@code figure} over {@code samples}, in bytes per hour; NaN with fewer than two
     * samples, or when any sample lacks the figure.
     */
    public static double slopePerHour(final List<Sample> samples, final Figure figure)
    {
        if (samples.size() < 2 || samples.stream().anyMatch(s -> figure.of(s) < 0))
        {
            return Double.NaN;
        }
        final double n = samples.size();
        final double mx = samples.stream().mapToDouble(Sample::seconds).sum() / n;
        final double my = samples.stream().mapToDouble(figure::of).sum() / n;
        double sxy = 0;
        double sxx = 0;
        for (final Sample s : samples)
        {
            sxy += (s.seconds - mx) * (figure.of(s) - my);
            sxx += (s.seconds - mx) * (s.seconds - mx);
        }
        return 0 == sxx ? Double.NaN : sxy / sxx * 3600;
    }
}
