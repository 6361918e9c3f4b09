package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Response-time percentiles of one step, in milliseconds, from the {@code 180 <us>} / {@code 200 <us>} lines the
 * timed scenario logs (see {@link Scenarios}): nearest-rank percentiles over every call, no histogram buckets.
 * Immutable.
 */
public record Latency(int count, double p50, double p90, double p99, double max)
{
    /** No sample: every figure NaN. */
    public static final Latency NONE = new Latency(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /** The two latencies of a sipp log file: {@code {INVITE->180, INVITE->200}}. */
    public static Latency[] read(final Path sippLog) throws IOException
    {
        if (!Files.isRegularFile(sippLog))
        {
            return new Latency[] {NONE, NONE};
        }
        final List<String> lines = Files.readAllLines(sippLog);
        final double[] ringing = new double[lines.size()];
        final double[] answered = new double[lines.size()];
        int r = 0;
        int a = 0;
        for (final String line : lines)
        {
            final int space = line.indexOf(' ');
            if (space < 0)
            {
                continue;
            }
            final double micros;
            try
            {
                micros = Double.parseDouble(line.substring(space + 1).trim());
            }
            catch (final NumberFormatException notOurs)
            {
                continue;
            }
            switch (line.substring(0, space))
            {
                case "180" -> ringing[r++] = micros / 1000.0;
                case "200" -> answered[a++] = micros / 1000.0;
                default ->
                {
                }
            }
        }
        return new Latency[] {of(Arrays.copyOf(ringing, r)), of(Arrays.copyOf(answered, a))};
    }

    /** Percentiles of {@code millis} (sorted in place). */
    public static Latency of(final double[] millis)
    {
        if (0 == millis.length)
        {
            return NONE;
        }
        Arrays.sort(millis);
        return new Latency(millis.length, rank(millis, 0.50), rank(millis, 0.90), rank(millis, 0.99),
            millis[millis.length - 1]);
    }

    private static double rank(final double[] sorted, final double p)
    {
        final int index = (int)Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
