package io.sipline.bench.cluster;

import java.io.IOException;

import io.sipline.bench.calls.ServerLatency;

/**
 * The grid counters of a Sipline node at one moment, from its {@code /metrics}: snapshots the grid confirmed
 * written, bytes of keys and values handed to the grid, and bytes its transport sent to the other members (-1 when
 * the node does not export them). Immutable.
 *
 * @param snapshots {@code sipline_grid_snapshots_written_total}
 * @param written   {@code sipline_grid_bytes_written_total}
 * @param sent      {@code sipline_grid_bytes_sent_total}, or -1
 */
record GridCounters(long snapshots, long written, long sent)
{
    /** A node outside a grid: nothing written. */
    static final GridCounters NONE = new GridCounters(0, 0, -1);

    /** Scrapes the node's admin port {@code adminPort}; {@link #NONE} when it exports no grid counter. */
    static GridCounters scrape(final int adminPort) throws IOException
    {
        return parse(ServerLatency.metricsText(adminPort));
    }

    /** Reads the counters from a Prometheus text exposition. */
    static GridCounters parse(final String text)
    {
        long snapshots = 0;
        long written = 0;
        long sent = -1;
        for (final String line : text.split("\n"))
        {
            final int space = line.indexOf(' ');
            if (!line.startsWith("sipline_grid_") || space < 0)
            {
                continue; // another metric, its labels maybe holding blanks, or a comment
            }
            final String name = line.substring(0, space);
            final long value = Math.round(Double.parseDouble(line.substring(space + 1).strip().split(" ")[0]));
            switch (name)
            {
                case "sipline_grid_snapshots_written_total" -> snapshots = value;
                case "sipline_grid_bytes_written_total" -> written = value;
                case "sipline_grid_bytes_sent_total" -> sent = value;
                default ->
                {
                }
            }
        }
        return new GridCounters(snapshots, written, sent);
    }

    /** What was counted from {@code before} to this scrape. */
    GridCounters since(final GridCounters before)
    {
        return new GridCounters(snapshots - before.snapshots, written - before.written,
            sent < 0 || before.sent < 0 ? -1 : sent - before.sent);
    }
}
