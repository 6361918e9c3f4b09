package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The stop-the-world GC pauses of a unified JVM log written with the profiles' decorations ({@code time,uptime,level,
 * tags}): every line of a {@code gc} tag set that names a {@code Pause} and ends in its duration, e.g. G1/Parallel
 * {@code [gc] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 24M->5M(4096M) 3.456ms}, ZGC {@code [gc,phases]
 * GC(0) y: Pause Mark Start 0.009ms}, Shenandoah {@code [gc] GC(1) Pause Init Mark 0.115ms}. The statistics tables
 * ({@code gc,stats}) and start lines carry no trailing duration and are skipped. Also every safepoint of the
 * {@code safepoint} tag ({@link Safepoint}): a pause line times only the collector's work at the safepoint, while every
 * thread that reached it (the shards among them) waits from the moment it did until the last one has, which is not in
 * the pause. Immutable after {@link #read}.
 */
public final class GcLog
{
    private static final Pattern PAUSE = Pattern.compile(
        "^\\[([^\\]]+)\\].*?\\[(gc[^\\]]*)\\].* Pause .*?(\\d+(?:\\.\\d+)?)ms\\s*$");
    private static final Pattern SAFEPOINT = Pattern.compile("^\\[([^\\]]+)\\].*?\\[safepoint\\s*\\] Safepoint "
        + "\"([^\"]+)\".*Reaching safepoint: (\\d+) ns.*Total: (\\d+) ns.*$");
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ");

    /** One pause: when it ended (the line's time decoration) and how long it took. */
    public record Pause(Instant at, double millis)
    {
    }

    /**
     * One safepoint: when it was logged (as it ended), its VM operation, how long the VM waited for the last thread
     * to reach it, and its whole span, reaching included, in milliseconds.
     */
    public record Safepoint(Instant at, String operation, double reachingMillis, double totalMillis)
    {
    }

    /** Pauses counted over a window: how many, their sum and the longest, in milliseconds. */
    public record Summary(int count, double totalMillis, double maxMillis)
    {
    }

    private final List<Pause> pauses;
    private final List<Safepoint> safepoints;

    private GcLog(final List<Pause> pauses, final List<Safepoint> safepoints)
    {
        this.pauses = pauses;
        this.safepoints = safepoints;
    }

    /** Reads {@code log} and its rotated siblings ({@code log.0} ... ); a missing log has no pauses. */
    public static GcLog read(final Path log) throws IOException
    {
        final List<Pause> pauses = new ArrayList<>();
        final List<Safepoint> safepoints = new ArrayList<>();
        if (null == log || null == log.getParent() || !Files.isDirectory(log.getParent()))
        {
            return new GcLog(pauses, safepoints);
        }
        final String name = log.getFileName().toString();
        final List<Path> files;
        try (Stream<Path> all = Files.list(log.getParent()))
        {
            files = all.filter(p -> p.getFileName().toString().startsWith(name)).sorted().toList();
        }
        for (final Path file : files)
        {
            try (Stream<String> lines = Files.lines(file))
            {
                lines.forEach(line ->
                {
                    parse(line, pauses);
                    parseSafepoint(line, safepoints);
                });
            }
        }
        return new GcLog(pauses, safepoints);
    }

    static void parse(final String line, final List<Pause> into)
    {
        final Matcher m = PAUSE.matcher(line);
        if (!m.matches() || m.group(2).contains("stats") || m.group(2).contains("start"))
        {
            return;
        }
        try
        {
            into.add(new Pause(OffsetDateTime.parse(m.group(1), TIME).toInstant(), Double.parseDouble(m.group(3))));
        }
        catch (final DateTimeParseException | NumberFormatException notAPause)
        {
            // a line that only looks like one: not counted
        }
    }

    static void parseSafepoint(final String line, final List<Safepoint> into)
    {
        final Matcher m = SAFEPOINT.matcher(line);
        if (!m.matches())
        {
            return;
        }
        try
        {
            into.add(new Safepoint(OffsetDateTime.parse(m.group(1), TIME).toInstant(), m.group(2),
                Long.parseLong(m.group(3)) / 1e6, Long.parseLong(m.group(4)) / 1e6));
        }
        catch (final DateTimeParseException | NumberFormatException notOne)
        {
            // a line that only looks like one: not counted
        }
    }

    /**
     * One line on the safepoints logged within {@code [from, to]}: how many, their whole spans summed, and the longest
     * span and the longest wait for the last thread, each with its operation.
     */
    public String safepointsBetween(final Instant from, final Instant to)
    {
        int count = 0;
        double total = 0;
        Safepoint longest = null;
        Safepoint slowest = null;
        for (final Safepoint p : safepoints)
        {
            if (p.at().isBefore(from) || p.at().isAfter(to))
            {
                continue;
            }
            count++;
            total += p.totalMillis();
            longest = null == longest || p.totalMillis() > longest.totalMillis() ? p : longest;
            slowest = null == slowest || p.reachingMillis() > slowest.reachingMillis() ? p : slowest;
        }
        return 0 == count ? "safepoints over the step: none" : String.format("safepoints over the step: %d, %.1f ms "
            + "in all, longest %.2f ms (%s), longest to reach %.2f ms (%s)", count, total, longest.totalMillis(),
            longest.operation(), slowest.reachingMillis(), slowest.operation());
    }

    /** Every pause that ended within {@code [from, to]}. */
    public Summary between(final Instant from, final Instant to)
    {
        int count = 0;
        double total = 0;
        double max = 0;
        for (final Pause p : pauses)
        {
            if (!p.at().isBefore(from) && !p.at().isAfter(to))
            {
                count++;
                total += p.millis();
                max = Math.max(max, p.millis());
            }
        }
        return new Summary(count, total, max);
    }

    /** All pauses read. */
    public List<Pause> pauses()
    {
        return List.copyOf(pauses);
    }
}
