package io.sipline.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.sipline.test.Launcher;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code bin/sipline bench cluster --help} prints every option of {@link ClusterBench} (the launcher run with this
 * test's class path: nothing is built), and the grid counters are read from a node's {@code /metrics} text.
 */
class ClusterBenchTest
{
    @Test
    void shouldPrintEveryOptionThroughTheLauncher() throws IOException, InterruptedException
    {
        assumeTrue(Launcher.available(), "bin/sipline needs bash");
        final List<String> names = new CommandLine(new ClusterBench()).getCommandSpec().options().stream()
            .map(OptionSpec::names).flatMap(Stream::of).toList();
        assertTrue(names.containsAll(List.of("--pairs", "--alloc-calls", "--max-steps", "--out", "--help")),
            names::toString);
        final Launcher.Run run = Launcher.run("bench", "cluster", "--help");
        assertEquals(0, run.exitCode(), run.output());
        for (final String name : names)
        {
            assertTrue(run.output().contains(name), name + " missing:\n" + run.output());
        }
        assertTrue(Launcher.run("bench", "--help").output().contains("cluster "), "listed among the benchmarks");
    }

    @Test
    void shouldReadTheGridCountersAndTheirGrowthFromMetrics()
    {
        final String before = """
            # HELP sipline_grid_bytes_written_total Bytes ...
            # TYPE sipline_grid_bytes_written_total counter
            sipline_grid_bytes_written_total 1000.0
            sipline_grid_snapshots_written_total 4.0
            sipline_grid_bytes_sent_total 2500.0
            sipline_grid_sessions_removed_total 2.0
            sipline_sip_requests_total{method="INVITE"} 7.0
            """;
        final String after = before.replace(" 1000.0", " 7000.0").replace(" 4.0", " 16.0").replace(" 2500.0",
            " 1.25E4");
        final GridCounters grown = GridCounters.parse(after).since(GridCounters.parse(before));
        assertEquals(new GridCounters(12, 6000, 10_000), grown);
        assertEquals(new GridCounters(12, 6000, -1), GridCounters.parse(after.replaceAll("(?m)^sipline_grid_bytes_sent"
            + ".*$", "")).since(GridCounters.parse(before)), "no transport count: none grown");
        assertEquals(GridCounters.NONE, GridCounters.parse("sipline_sip_requests_total{method=\"INVITE\"} 7.0\n"));
    }
}
