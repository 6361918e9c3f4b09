package io.sipline.bench.overload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * One of sipp's once-a-second files: its statistics ({@code -trace_stat}, columns such as {@code SuccessfulCall(C)})
 * or its message counts ({@code -trace_counts}, a column per scenario message and kind, e.g. {@code 0_INVITE_Sent},
 * {@code 4_503_Recv}, {@code 7_BYE_Retrans}), both cumulative, separated by {@code ;}, with {@code CurrentTime} ending
 * in the epoch seconds. {@link #perSecond} spreads what each line added over the seconds of a shared clock, so that
 * several sipp processes started at different moments add up second by second. Immutable.
 */
public final class SippCsv
{
    private final List<String> head;
    private final List<String[]> rows;

    private SippCsv(final List<String> head, final List<String[]> rows)
    {
        this.head = head;
        this.rows = rows;
    }

    /** The file, or an empty table when it is missing or empty. */
    public static SippCsv read(final Path file) throws IOException
    {
        if (null == file || !Files.isRegularFile(file))
        {
            return new SippCsv(List.of(), List.of());
        }
        final List<String> lines = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
        if (lines.isEmpty())
        {
            return new SippCsv(List.of(), List.of());
        }
        final List<String[]> rows = new ArrayList<>();
        for (final String line : lines.subList(1, lines.size()))
        {
            if (!line.isBlank())
            {
                rows.add(line.split(";", -1));
            }
        }
        return new SippCsv(List.of(lines.getFirst().split(";", -1)), rows);
    }

    /** The counts file sipp wrote in {@code dir} ({@code <scenario>_<pid>_counts.csv}), or null. */
    public static Path countsFile(final Path dir) throws IOException
    {
        if (!Files.isDirectory(dir))
        {
            return null;
        }
        try (var files = Files.list(dir))
        {
            return files.filter(p -> p.getFileName().toString().endsWith("_counts.csv")).findFirst().orElse(null);
        }
    }

    public boolean isEmpty()
    {
        return rows.isEmpty();
    }

    /** The column names. */
    public List<String> head()
    {
        return head;
    }

    /** The first column whose name satisfies {@code which}, or null. */
    public String column(final Predicate<String> which)
    {
        return head.stream().filter(which).findFirst().orElse(null);
    }

    /** Every column whose name satisfies {@code which}. */
    public List<String> columns(final Predicate<String> which)
    {
        return head.stream().filter(which).toList();
    }

    /** The last line's value of {@code columns} added up (0 for a missing column or file). */
    public long last(final List<String> columns)
    {
        return rows.isEmpty() ? 0 : sum(rows.size() - 1, columns);
    }

    /** The last line's value of {@code column}. */
    public long last(final String column)
    {
        return null == column ? 0 : last(List.of(column));
    }

    /** The epoch seconds of the first line, or NaN. */
    public double startTime()
    {
        return rows.isEmpty() ? Double.NaN : time(0);
    }

    /**
     * What {@code columns} (added up) grew by in each second of the clock that starts at epoch {@code origin}: the
     * growth between two lines goes to the second that holds the middle of the two (second {@code -1} is the one
     * before {@code origin}). Keys are seconds, in order; seconds without a line are absent.
     */
    public Map<Integer, Long> perSecond(final List<String> columns, final double origin)
    {
        final Map<Integer, Long> out = new TreeMap<>();
        for (int i = 1; i < rows.size(); i++)
        {
            final double middle = (time(i - 1) + time(i)) / 2;
            final int second = (int)Math.floor(middle - origin);
            out.merge(second, sum(i, columns) - sum(i - 1, columns), Long::sum);
        }
        return out;
    }

    /** The line's CurrentTime in epoch seconds (its last blank-separated field). */
    double time(final int row)
    {
        final String v = rows.get(row)[head.indexOf("CurrentTime")].strip();
        return Double.parseDouble(v.substring(v.lastIndexOf(v.contains("\t") ? '\t' : ' ') + 1));
    }

    private long sum(final int row, final List<String> columns)
    {
        long s = 0;
        for (final String c : columns)
        {
            final int i = head.indexOf(c);
            final String[] r = rows.get(row);
            if (i >= 0 && i < r.length && !r[i].isBlank())
            {
                s += Long.parseLong(r[i].strip());
            }
        }
        return s;
    }
}
