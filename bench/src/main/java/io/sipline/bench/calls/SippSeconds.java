package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A step second by second, from sipp's statistics files ({@code -trace_stat -fd 1}: one line a second, each with
 * cumulative {@code (C)} columns, fields separated by {@code ;}, {@code CurrentTime} ending in the epoch seconds).
 * Second {@code n} holds what the caller's counters grew by between its line {@code n} and line {@code n + 1} (line
 * 0 is written as the caller starts, with every count 0); the far end's retransmissions go to the second of the
 * caller's clock in which the far end wrote them. Stateless; any thread.
 */
public final class SippSeconds
{
    /** What one second of a step did: INVITEs sent, calls completed, calls failed, retransmissions of both ends. */
    public record Second(int second, long offered, long completed, long failed, long retransmissions)
    {
    }

    private SippSeconds()
    {
    }

    /**
     * The seconds of a step from the caller's statistics {@code uac} and the far end's {@code uas} (either may be
     * missing: then no second, or no far-end retransmissions).
     */
    public static List<Second> read(final Path uac, final Path uas) throws IOException
    {
        final Table caller = Table.read(uac);
        final Table far = Table.read(uas);
        final List<Second> seconds = new ArrayList<>();
        if (caller.rows.size() < 2)
        {
            return seconds;
        }
        final double start = caller.time(0);
        final long[] farRetrans = new long[caller.rows.size() - 1];
        for (int i = 1; i < far.rows.size(); i++)
        {
            final double t = far.time(i) - start;
            final int s = Math.clamp((long)Math.ceil(t) - 1, 0, farRetrans.length - 1);
            farRetrans[s] += far.delta(i, "Retransmissions(C)");
        }
        for (int i = 1; i < caller.rows.size(); i++)
        {
            seconds.add(new Second(i - 1, caller.delta(i, "OutgoingCall(C)"), caller.delta(i, "SuccessfulCall(C)"),
                caller.delta(i, "FailedCall(C)"), caller.delta(i, "Retransmissions(C)") + farRetrans[i - 1]));
        }
        return seconds;
    }

    /** The first second that completed at least {@code calls} calls and every second after it did too; -1: none. */
    public static int firstSecondAtLeast(final List<Second> seconds, final double calls)
    {
        int first = -1;
        // The last line is a partial second (sipp writes one as it exits): it neither starts nor breaks a run.
        for (int i = 0; i < seconds.size() - 1; i++)
        {
            if (seconds.get(i).completed() >= calls)
            {
                first = first < 0 ? seconds.get(i).second() : first;
            }
            else
            {
                first = -1;
            }
        }
        return first;
    }

    /** A statistics file: its header and its lines, split on {@code ;}. */
    private record Table(List<String> head, List<String[]> rows)
    {
        static Table read(final Path file) throws IOException
        {
            if (null == file || !Files.isRegularFile(file))
            {
                return new Table(List.of(), List.of());
            }
            final List<String> lines = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
            if (lines.isEmpty())
            {
                return new Table(List.of(), List.of());
            }
            final List<String[]> rows = new ArrayList<>();
            for (final String line : lines.subList(1, lines.size()))
            {
                if (!line.isBlank())
                {
                    rows.add(line.split(";", -1));
                }
            }
            return new Table(List.of(lines.getFirst().split(";", -1)), rows);
        }

        /** The line's CurrentTime in epoch seconds (its last blank-separated field). */
        double time(final int row)
        {
            final String v = rows.get(row)[head.indexOf("CurrentTime")].strip();
            return Double.parseDouble(v.substring(v.lastIndexOf(v.contains("\t") ? '\t' : ' ') + 1));
        }

        /** How much cumulative {@code column} grew from line {@code row - 1} to line {@code row}; 0 when absent. */
        long delta(final int row, final String column)
        {
            final int c = head.indexOf(column);
            if (c < 0)
            {
                return 0;
            }
            return value(rows.get(row), c) - value(rows.get(row - 1), c);
        }

        private static long value(final String[] row, final int column)
        {
            return column < row.length && !row[column].isBlank() ? Long.parseLong(row[column].strip()) : 0;
        }
    }
}
