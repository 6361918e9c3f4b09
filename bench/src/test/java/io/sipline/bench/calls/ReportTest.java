package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What report.md and results.json say about a confirmed maximum and about a saturated machine. */
class ReportTest
{
    private static Step step(final String label, final int rate, final boolean held, final double machineCores)
    {
        final int planned = rate * 10;
        return new Step(label, rate, planned, held ? planned : planned - 1, held ? 0 : 1, 0, 0, 0, 10.0, rate,
            Latency.NONE, Latency.NONE, new GcLog.Summary(0, 0, 0), 0.2, 0.9, machineCores, Instant.EPOCH,
            Instant.EPOCH);
    }

    private static Report report(final Path dir, final Series s)
    {
        final Report report = new Report(dir, "bin/sipline bench calls --find-max", "b2bua", true, 10, 0);
        report.add(s);
        return report;
    }

    @Test
    void shouldSayPlainlyWhenTheMachineWasSaturatedAtTheMax(@TempDir final Path dir)
    {
        final int cores = Runtime.getRuntime().availableProcessors();
        final Step search = step("r6400", 6400, true, 0.80 * cores);
        final Step confirm = step("confirm-r6400", 6400, true, 0.96 * cores);
        final Series s = new Series(SystemUnderTest.SIPLINE, "zgc", "uac-timed.xml", List.of(search, confirm), 6400,
            6400, List.of(search, confirm), null, "");
        assertTrue(s.saturatedAtMax(cores), "the busier confirming step counts");
        assertEquals(confirm, s.best());

        final String md = report(dir, s).markdown();
        assertTrue(md.contains("| sipline/zgc | 6400 | r6400, confirm-r6400 | "), md);
        assertTrue(md.contains("- sipline/zgc: the machine was saturated at the max"), md);
        assertTrue(md.contains("6400 calls/s is a limit of sipp and the server together on this machine, not of the "
            + "server alone."), md);
        final String json = report(dir, s).json();
        assertTrue(json.contains("\"confirmingSteps\": [\"r6400\", \"confirm-r6400\"]"), json);
        assertTrue(json.contains("\"machineSaturatedAtMax\": true"), json);
    }

    @Test
    void shouldNameARateHeldOnceAboveTheConfirmedMaximum(@TempDir final Path dir)
    {
        final int cores = Runtime.getRuntime().availableProcessors();
        final Step once = step("r6400", 6400, true, 0.7 * cores);
        final Step failed = step("confirm-r6400", 6400, false, 0.9 * cores);
        final Step down = step("down-r5760", 5760, true, 0.7 * cores);
        final Step confirm = step("confirm-r5760", 5760, true, 0.7 * cores);
        final Series s = new Series(SystemUnderTest.SIPLINE, "zgc", "uac-timed.xml",
            List.of(once, failed, down, confirm), 5760, 6400, List.of(down, confirm), null, "");
        assertFalse(s.saturatedAtMax(cores));

        final String md = report(dir, s).markdown();
        assertTrue(md.contains("- sipline/zgc: the machine was not saturated at the max"), md);
        assertTrue(md.contains("6400 calls/s held once in the search but not again on a fresh server."), md);
    }

    @Test
    void shouldPutSippAloneAtTheSameRateBesideTheFiguresAt80(@TempDir final Path dir)
    {
        final int cores = Runtime.getRuntime().availableProcessors();
        final Step confirm = step("confirm-r5000", 5000, true, 0.7 * cores);
        final Step at80 = step("at80", 4000, true, 0.6 * cores);
        final Step floor = new Step(CallsBench.FLOOR_STEP, 4000, 40000, 40000, 0, 0, 0, 0, 10.0, 4000,
            new Latency(40000, 2.17, 2.56, 4.76, 506.96), Latency.NONE, new GcLog.Summary(0, 0, 0), Double.NaN, 0, 0.5 * cores,
            Instant.EPOCH, Instant.EPOCH);
        final Series s = new Series(SystemUnderTest.SIPLINE, "zgc", "uac-timed.xml", List.of(confirm, at80, floor),
            5000, 5000, List.of(confirm), at80, "");

        final Report report = report(dir, s);
        report.add(new LockCheck("sipline/zgc", "at80", 0, 3));
        final String md = report.markdown();
        assertTrue(md.contains("Contended monitor enters during at80 (JFR `jdk.JavaMonitorEnter`, threshold 0): 0 on "
            + "the shard threads, 3 on other threads."), md);
        assertTrue(report.json().contains("{\"series\": \"sipline/zgc\", \"step\": \"at80\", "
            + "\"contendedMonitorEntersOnShardThreads\": 0, \"contendedMonitorEntersOnOtherThreads\": 3}"));
        assertTrue(md.contains("sipp alone (its caller straight to its far end, no server running) at the same 4000 "
            + "calls/s: INVITE→180 p50/p90/p99/max 2.17 / 2.56 / 4.76 / 506.96 ms"), md);
        assertTrue(md.contains("| " + CallsBench.FLOOR_STEP + " | 4000 |"), md);
        assertTrue(md.contains("(sipp alone, no server) |"), md);
    }

    @Test
    void shouldSayWhenNoRateHeldTwice(@TempDir final Path dir)
    {
        final Step once = step("r400", 400, true, 0.5);
        final Series s = new Series(SystemUnderTest.JAINSIP, "zgc", "uac-timed.xml", List.of(once), 0, 400, List.of(),
            null, "");
        final String md = report(dir, s).markdown();
        assertTrue(md.contains("- jainsip/zgc: no rate was sustained twice (400 calls/s held once, not again)."), md);
        assertTrue(Double.isNaN(s.machineCoresAtMax()));
    }
}
