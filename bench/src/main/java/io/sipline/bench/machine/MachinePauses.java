package io.sipline.bench.machine;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * How long this machine stops running our threads on its own, with nothing else to do: the floor under any latency
 * figure measured on it. One thread per core spins on {@link System#nanoTime()} for a while; a gap of at least
 * {@link #GAP_NS} between two reads of one thread is a pause of that core (an interrupt, another process, or on a
 * virtual machine the host not running the virtual CPU). Pauses of every core at once (the intersection of all the
 * threads' gaps) are the machine stopping as a whole, which no scheduling inside it can hide (on a virtual machine, the
 * host may stop every virtual CPU at once while all of them are busy, and hardly ever while one is).
 *
 * <p>While the threads spin they allocate nothing (the gaps go to arrays made beforehand), so the JVM has no reason to
 * stop them for a GC; a safepoint for another reason would show as a pause of every core, and {@link Result#gcs}
 * says whether a GC ran meanwhile. The caller's thread waits; the probe's threads end with it.
 */
public final class MachinePauses
{
    /** The shortest gap counted as a pause: 1 ms (a read of the clock takes tens of nanoseconds). */
    public static final long GAP_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Gaps kept per thread; more are counted but not placed (see {@link Result#overflowed}). */
    static final int MAX_GAPS = 100_000;

    private MachinePauses()
    {
    }

    /**
     * What a probe saw.
     *
     * @param threads       spinning threads (one per core unless asked otherwise).
     * @param nanos         how long they spun.
     * @param gaps          pauses of one core or more ({@code >= GAP_NS}, every thread's counted).
     * @param longestGapNs  the longest of them.
     * @param together      pauses of every core at once ({@code >= GAP_NS}).
     * @param togetherNs    their total.
     * @param longestTogetherNs the longest of them.
     * @param gcs           collections of this JVM while the threads spun (0 expected; see the class).
     * @param overflowed    true when a thread had more gaps than it could place ({@link #MAX_GAPS}).
     */
    public record Result(int threads, long nanos, int gaps, long longestGapNs, int together, long togetherNs,
        long longestTogetherNs, long gcs, boolean overflowed)
    {
        /** One line for a report: "2 threads spinning on the clock for 10.0 s: every core stopped at once ...". */
        public String describe()
        {
            final StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "%d thread%s spinning on the clock for %.1f s: ", threads, 1 == threads ? "" : "s", nanos / 1e9));
            b.append(1 == threads ? "its core stopped " : "every core stopped at once ").append(times(together))
                .append(String.format(Locale.ROOT, " for >= 1 ms (%.1f ms in all, the longest %.2f ms)",
                    togetherNs / 1e6, longestTogetherNs / 1e6));
            if (threads > 1)
            {
                b.append("; one core or more ").append(times(gaps))
                    .append(String.format(Locale.ROOT, " (the longest %.2f ms)", longestGapNs / 1e6));
            }
            if (gcs > 0)
            {
                b.append("; ").append(gcs)
                    .append(" GC of the harness's JVM meanwhile (its pauses count as the machine's)");
            }
            return overflowed ? b.append("; more gaps than the probe could place").toString() : b.toString();
        }

        private static String times(final long n)
        {
            return n + (1 == n ? " time" : " times");
        }
    }

    /**
     * Spins {@code threads} threads for {@code nanos}, then returns the pauses they saw. {@code threads} is usually
     * {@link Runtime#availableProcessors()}: every core busy, as under load.
     */
    public static Result measure(final int threads, final long nanos) throws InterruptedException
    {
        if (threads < 1 || nanos <= 0)
        {
            throw new IllegalArgumentException("threads " + threads + ", nanos " + nanos);
        }
        final long[][] starts = new long[threads][MAX_GAPS];
        final long[][] ends = new long[threads][MAX_GAPS];
        final int[] counts = new int[threads];
        final boolean[] overflow = new boolean[threads];
        final CountDownLatch ready = new CountDownLatch(threads);
        final CountDownLatch go = new CountDownLatch(1);
        final List<Thread> spinners = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++)
        {
            final int t = i;
            final Thread spinner = new Thread(() ->
            {
                ready.countDown();
                try
                {
                    go.await();
                }
                catch (final InterruptedException e)
                {
                    return;
                }
                spin(nanos, starts[t], ends[t], counts, overflow, t);
            }, "machine-pauses-" + i);
            spinner.setDaemon(true);
            spinners.add(spinner);
            spinner.start();
        }
        ready.await();
        final long gcsBefore = gcCount();
        final long began = System.nanoTime();
        go.countDown();
        for (final Thread spinner : spinners)
        {
            spinner.join();
        }
        final long spun = System.nanoTime() - began;
        final long gcs = gcCount() - gcsBefore;
        int gaps = 0;
        long longest = 0;
        boolean overflowed = false;
        for (int t = 0; t < threads; t++)
        {
            gaps += counts[t];
            overflowed |= overflow[t];
            for (int g = 0; g < Math.min(counts[t], MAX_GAPS); g++)
            {
                longest = Math.max(longest, ends[t][g] - starts[t][g]);
            }
        }
        final long[][] together = together(starts, ends, counts);
        long total = 0;
        long longestTogether = 0;
        for (final long[] p : together)
        {
            total += p[1] - p[0];
            longestTogether = Math.max(longestTogether, p[1] - p[0]);
        }
        return new Result(threads, spun, gaps, longest, together.length, total, longestTogether, gcs, overflowed);
    }

    /** One thread's loop: every gap of at least {@link #GAP_NS} between two clock reads, as [start, end]. */
    private static void spin(final long nanos, final long[] starts, final long[] ends, final int[] counts,
        final boolean[] overflow, final int t)
    {
        long previous = System.nanoTime();
        final long end = previous + nanos;
        int n = 0;
        while (previous < end)
        {
            final long now = System.nanoTime();
            if (now - previous >= GAP_NS)
            {
                if (n < starts.length)
                {
                    starts[n] = previous;
                    ends[n] = now;
                }
                n++;
            }
            previous = now;
        }
        counts[t] = n;
        overflow[t] = n > starts.length;
    }

    /**
     * The intervals, at least {@link #GAP_NS} long, in which every thread was inside one of its gaps: each thread's
     * gaps are disjoint and in time order, so a sweep over all their ends finds where all of them overlap.
     *
     * @param starts per thread, the starts of its gaps (the first {@code counts[t]} used).
     * @param ends   per thread, the matching ends.
     * @return {start, end} pairs in time order.
     */
    static long[][] together(final long[][] starts, final long[][] ends, final int[] counts)
    {
        final int threads = starts.length;
        int events = 0;
        for (int t = 0; t < threads; t++)
        {
            events += 2 * Math.min(counts[t], starts[t].length);
        }
        // Each event: time and +1 (a gap begins) or -1 (one ends); at equal times the ends first, so that two gaps
        // that only touch do not count as overlapping.
        final long[] times = new long[events];
        final int[] deltas = new int[events];
        int e = 0;
        for (int t = 0; t < threads; t++)
        {
            for (int g = 0; g < Math.min(counts[t], starts[t].length); g++)
            {
                times[e] = starts[t][g];
                deltas[e++] = 1;
                times[e] = ends[t][g];
                deltas[e++] = -1;
            }
        }
        final Integer[] order = new Integer[events];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, (a, b) -> times[a] != times[b] ? Long.compare(times[a], times[b])
            : Integer.compare(deltas[a], deltas[b]));
        final List<long[]> out = new ArrayList<>();
        int inside = 0;
        long from = 0;
        for (final int i : order)
        {
            inside += deltas[i];
            if (inside == threads && deltas[i] > 0)
            {
                from = times[i];
            }
            else if (inside == threads - 1 && deltas[i] < 0 && times[i] - from >= GAP_NS)
            {
                out.add(new long[] {from, times[i]});
            }
        }
        return out.toArray(new long[0][]);
    }

    private static long gcCount()
    {
        long n = 0;
        for (final var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans())
        {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    /** {@code bin/sipline bench pauses [SECONDS]}: see {@link Probe}. */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new Probe()).execute(args));
    }

    /**
     * The command line of {@code bin/sipline bench pauses}: the probe alone, with every core busy and then with one,
     * for SECONDS each, printed one line each.
     */
    @Command(name = "sipline bench pauses", mixinStandardHelpOptions = true,
        description = {"How long this machine stops every core at once on its own: one thread per core spins on the "
            + "clock, SECONDS with every core busy and then SECONDS with one; prints how often and how long the cores "
            + "stopped (gaps of at least 1 ms). On a virtual machine these stops are the host's doing, and they are "
            + "the floor under any latency figure measured there (bin/sipline bench calls runs the same probe "
            + "before its steps)."})
    static final class Probe implements Callable<Integer>
    {
        @Parameters(index = "0", arity = "0..1", paramLabel = "SECONDS", defaultValue = "10",
            description = "seconds of each half of the probe, 1-9999 (default ${DEFAULT-VALUE})")
        int seconds;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws InterruptedException
        {
            if (seconds < 1 || seconds > 9999)
            {
                throw new CommandLine.ParameterException(spec.commandLine(),
                    "SECONDS: " + seconds + " is not a number of seconds (1-9999)");
            }
            final int cores = Runtime.getRuntime().availableProcessors();
            final PrintWriter out = spec.commandLine().getOut();
            out.println("every core busy: " + measure(cores, TimeUnit.SECONDS.toNanos(seconds)).describe());
            if (cores > 1)
            {
                out.println("one core busy:   " + measure(1, TimeUnit.SECONDS.toNanos(seconds)).describe());
            }
            out.flush();
            return 0;
        }
    }
}
