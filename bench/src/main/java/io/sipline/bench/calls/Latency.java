package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Response-time percentiles of one step, in milliseconds, from the {@code 180 <us>} / {@code 200 <us>} lines the
 * timed scenario logs (see {@link Scenarios}): nearest-rank percentiles over every call, no histogram buckets; and the
 * p99 of each second of the step ({@code p99PerSecond}: each run of {@code callsPerSecond} successive lines, in the
 * order sipp logged them, i.e. of the responses' arrival; a last run shorter than half a second is left out), which
 * shows whether a step's p99 is a steady figure or a few bad seconds. Immutable (the array is not copied: do not
 * change it).
 */
public record Latency(int count, double p50, double p90, double p99, double max, double[] p99PerSecond)
{
    /** No sample: every figure NaN. */
    public static final Latency NONE = new Latency(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /** Percentiles with no per-second figures. */
    public Latency(final int count, final double p50, final double p90, final double p99, final double max)
    {
        this(count, p50, p90, p99, max, new double[0]);
    }

    /** The median of the per-second p99s (NaN without them). */
    public double medianSecondP99()
    {
        return 0 == p99PerSecond.length ? Double.NaN : rank(sortedCopy(p99PerSecond), 0.50);
    }

    /** The index of the second with the highest p99 (-1 without them). */
    public int worstSecond()
    {
        int worst = -1;
        for (int i = 0; i < p99PerSecond.length; i++)
        {
            if (worst < 0 || p99PerSecond[i] > p99PerSecond[worst])
            {
                worst = i;
            }
        }
        return worst;
    }

    /**
     * The two latencies of a sipp log file: {@code {INVITE->180, INVITE->200}}, per second at
     * {@code callsPerSecond}.
     */
    public static Latency[] read(final Path sippLog, final int callsPerSecond) throws IOException
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
        return new Latency[] {of(Arrays.copyOf(ringing, r), callsPerSecond),
            of(Arrays.copyOf(answered, a), callsPerSecond)};
    }

    /**
     * Percentiles of {@code millis} (in the order logged; sorted in place) and its p99 per run of
     * {@code perSecond}.
     */
    static Latency of(final double[] millis, final int perSecond)
    {
        if (0 == millis.length || perSecond <= 0)
        {
            return of(millis);
        }
        final int seconds = (millis.length + perSecond / 2) / perSecond;
        final double[] p99s = new double[seconds];
        for (int i = 0; i < seconds; i++)
        {
            final int from = i * perSecond;
            final double[] second = Arrays.copyOfRange(millis, from, Math.min(millis.length, from + perSecond));
            Arrays.sort(second);
            p99s[i] = rank(second, 0.99);
        }
        final Latency all = of(millis);
        return new Latency(all.count, all.p50, all.p90, all.p99, all.max, p99s);
    }

    private static double[] sortedCopy(final double[] values)
    {
        final double[] c = values.clone();
        Arrays.sort(c);
        return c;
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
