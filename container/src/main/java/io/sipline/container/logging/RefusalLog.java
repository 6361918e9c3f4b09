package io.sipline.container.logging;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The log of refused and failed messages, rate-limited: every interval it reads the counters the shards keep anyway
 * (the totals of {@code /metrics}) and logs one line per class whose count grew, with how many in the interval and
 * in all: {@code refused 12 messages (parse_bad_header) in the last 10 s, 40 in all: malformed header}. A flood of
 * bad messages makes one line per class per interval; the shards never log, nor allocate, for it.
 *
 * <p>Threading: {@link #report} runs on the log's own daemon thread (or a test's); the counters it reads are the
 * shards' and are read without a lock.
 */
public final class RefusalLog implements AutoCloseable
{
    /** The logger of these lines. */
    public static final String LOGGER = "io.sipline.container.refusals";
    /** {@code -Dsipline.log.refusals.seconds}: the interval, 10 s by default. */
    public static final String INTERVAL_PROPERTY = "sipline.log.refusals.seconds";
    static final long DEFAULT_SECONDS = 10;

    /** Where a line goes: the logger, or a test's list. */
    @FunctionalInterface
    public interface Sink
    {
        void log(Level level, String line);
    }

    private final Supplier<Map<String, Long>> counts;
    private final Map<String, String> meanings;
    private final Duration interval;
    private final Sink sink;
    private final Map<String, Long> last = new HashMap<>();
    private ScheduledExecutorService timer;

    /**
     * @param counts   the totals so far by class ({@code parse_bad_header}, {@code no_application}, ...), read once
     *                 per interval.
     * @param meanings a few words per class, for the line; a class without is logged by its name.
     * @param interval the shortest time between two lines of a class.
     * @param sink     where the lines go.
     */
    public RefusalLog(final Supplier<Map<String, Long>> counts, final Map<String, String> meanings,
        final Duration interval, final Sink sink)
    {
        this.counts = counts;
        this.meanings = Map.copyOf(meanings);
        this.interval = interval;
        this.sink = sink;
    }

    /** A log to {@value #LOGGER} at WARNING, every {@code -D}{@value #INTERVAL_PROPERTY} seconds (default 10). */
    public static RefusalLog toLogger(final Supplier<Map<String, Long>> counts, final Map<String, String> meanings)
    {
        final Logger logger = System.getLogger(LOGGER);
        return new RefusalLog(counts, meanings, Duration.ofSeconds(Long.getLong(INTERVAL_PROPERTY, DEFAULT_SECONDS)),
            logger::log);
    }

    /** Reads the counters now (the baseline: what came before the start is not logged) and every interval after. */
    public synchronized RefusalLog start()
    {
        last.putAll(counts.get());
        timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("sipline-refusal-log")
            .unstarted(r));
        timer.scheduleAtFixedRate(this::report, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /** One pass: a line for each class whose count grew since the last pass. */
    synchronized void report()
    {
        for (final Map.Entry<String, Long> e : counts.get().entrySet())
        {
            final long total = e.getValue();
            final Long before = last.put(e.getKey(), total);
            final long n = total - (null == before ? 0 : before);
            if (n <= 0)
            {
                continue;
            }
            final String meaning = meanings.get(e.getKey());
            final boolean error = e.getKey().endsWith("error");
            sink.log(Level.WARNING, (error ? "failed " : "refused ") + n + (1 == n ? " message (" : " messages (")
                + e.getKey() + ") in the last " + interval.toSeconds() + " s, " + total + " in all"
                + (null == meaning ? "" : ": " + meaning));
        }
    }

    /** Stops the timer after a last pass, so that what came in the last interval is not lost. */
    @Override
    public synchronized void close()
    {
        if (null != timer)
        {
            timer.shutdownNow();
            timer = null;
            report();
        }
    }
}
