package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sipline.bench.machine.MachinePauses;

/** What report.md and results.json say about a confirmed maximum and about a saturated machine. */
class ReportTest
{
    private static Step step(final String label, final int rate, final boolean held, final double machineCores)
    {
        final int planned = rate * 10;
        return new Step(label, rate, planned, held ? planned : planned - 1, held ? 0 : 1, 0, 0, 0, 10.0, rate,
            Latency.NONE, Latency.NONE, ServerLatency.NOT_MEASURED, ServerLatency.NOT_MEASURED,
            ServerLatency.NOT_MEASURED, ServerLatency.NOT_MEASURED, ServerLatency.NOT_MEASURED,
            new GcLog.Summary(0, 0, 0), 0.2, 0.9, machineCores, Instant.EPOCH, Instant.EPOCH);
    }

    private static Report report(final Path dir, final Series s)
    {
        final Report report = new Report(dir, "bin/sipline bench calls --find-max", List.of("b2bua"), true, 10, 0);
        report.add(s);
        return report;
    }

    @Test
    void shouldSayPlainlyWhenTheMachineWasSaturatedAtTheMax(@TempDir final Path dir)
    {
        final int cores = Runtime.getRuntime().availableProcessors();
        final Step search = step("r6400", 6400, true, 0.80 * cores);
        final Step confirm = step("confirm-r6400", 6400, true, 0.96 * cores);
        final Series s = new Series(SystemUnderTest.SIPLINE, "b2bua", "zgc",
            "uac-timed.xml", List.of(search, confirm), 6400,
            6400, List.of(search, confirm), null, "");
        assertTrue(s.saturatedAtMax(cores), "the busier confirming step counts");
        assertEquals(confirm, s.best());

        final String md = report(dir, s).markdown();
        assertTrue(md.contains("| sipline/zgc | b2bua | 6400 | r6400, confirm-r6400 | "), md);
        assertTrue(md.contains("- sipline/zgc b2bua: the machine was saturated at the max"), md);
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
        final Series s = new Series(SystemUnderTest.SIPLINE, "b2bua", "zgc",
            "uac-timed.xml",
            List.of(once, failed, down, confirm), 5760, 6400, List.of(down, confirm), null, "");
        assertFalse(s.saturatedAtMax(cores));

        final String md = report(dir, s).markdown();
        assertTrue(md.contains("- sipline/zgc b2bua: the machine was not saturated at the max"), md);
        assertTrue(md.contains("6400 calls/s held once in the search but not again on a fresh server."), md);
    }

    @Test
    void shouldPutSippAloneAtTheSameRateBesideTheFiguresAt80(@TempDir final Path dir)
    {
        final int cores = Runtime.getRuntime().availableProcessors();
        final Step confirm = step("confirm-r5000", 5000, true, 0.7 * cores);
        final Step at80 = step("at80", 4000, true, 0.6 * cores);
        final Step floor = new Step(CallsBench.FLOOR_STEP, 4000, 40000, 40000, 0, 0, 0, 0, 10.0, 4000,
            new Latency(40000, 2.17, 2.56, 4.76, 506.96), Latency.NONE, ServerLatency.NOT_MEASURED,
            ServerLatency.NOT_MEASURED, ServerLatency.NOT_MEASURED, ServerLatency.NOT_MEASURED,
            ServerLatency.NOT_MEASURED, new GcLog.Summary(0, 0, 0), Double.NaN, 0, 0.5 * cores, Instant.EPOCH,
            Instant.EPOCH);
        final Series s = new Series(SystemUnderTest.SIPLINE, "b2bua", "zgc",
            "uac-timed.xml", List.of(confirm, at80, floor),
            5000, 5000, List.of(confirm), at80, "");

        final Report report = report(dir, s);
        report.add(new LockCheck("sipline/zgc b2bua", "at80", 0, 3));
        final String md = report.markdown();
        assertTrue(md.contains("Contended monitor enters during at80 (JFR `jdk.JavaMonitorEnter`, threshold 0): 0 on "
            + "the shard threads, 3 on other threads."), md);
        assertTrue(report.json().contains("{\"series\": \"sipline/zgc b2bua\", \"step\": \"at80\", "
            + "\"contendedMonitorEntersOnShardThreads\": 0, \"contendedMonitorEntersOnOtherThreads\": 3}"));
        assertTrue(md.contains("sipp alone (its caller straight to its far end, no server running) at the same 4000 "
            + "calls/s: INVITE→180 p50/p90/p99/max 2.17 / 2.56 / 4.76 / 506.96 ms"), md);
        assertTrue(md.contains("| " + CallsBench.FLOOR_STEP + " | 4000 |"), md);
        assertTrue(md.contains("(sipp alone, no server) |"), md);
    }

    @Test
    void shouldNotJudgeSaturationWhenTheMachineCountsLessThanTheServerAlone(@TempDir final Path dir)
    {
        // step() gives the server 0.9 cores; the machine's /proc/stat says 0.03 (seen on a Firecracker VM).
        final int cores = Runtime.getRuntime().availableProcessors();
        final Step search = step("r1800", 1800, true, 0.03);
        final Step confirm = step("confirm-r1800", 1800, true, 0.96 * cores);
        final Series s = new Series(SystemUnderTest.KAMAILIO, "b2bua", "zgc",
            "uac-timed.xml", List.of(search, confirm), 1800,
            1800, List.of(search, confirm), null, "");
        assertTrue(s.machineCountBelowServer());
        assertFalse(s.saturatedAtMax(cores), "no verdict from a count that is not believed");

        final String md = report(dir, s).markdown();
        assertTrue(md.contains("| kamailio | baseline of b2bua | 1800 | r1800, confirm-r1800 | n/a | "), md);
        assertTrue(md.contains("- kamailio: whether the machine was saturated at the max is not known"), md);
        assertTrue(report(dir, s).json().contains("\"machineCountBelowServer\": true"));
    }

    @Test
    void shouldSayWhenNoRateHeldTwice(@TempDir final Path dir)
    {
        final Step once = step("r400", 400, true, 0.5);
        final Series s = new Series(SystemUnderTest.JAINSIP, "b2bua", "zgc",
            "uac-timed.xml", List.of(once), 0, 400, List.of(),
            null, "");
        final String md = report(dir, s).markdown();
        assertTrue(md.contains("- jainsip/zgc: no rate was sustained twice (400 calls/s held once, not again)."), md);
        assertTrue(Double.isNaN(s.machineCoresAtMax()));
    }

    @Test
    void shouldPutTheServersOwnFiguresAfterSippsAsBucketBoundsAndNaWhenAScrapeFailed(@TempDir final Path dir)
    {
        final Latency sipp = new Latency(8000, 1.50, 2.50, 6.30, 40.10);
        final ServerLatency ringing = new ServerLatency(ServerLatency.State.MEASURED, 8000, 0.15, 0.3, 1.25, 20.0);
        final ServerLatency answered = new ServerLatency(ServerLatency.State.MEASURED, 8000, 0.2, 0.35, 2.25, 50.0);
        final ServerLatency lag = new ServerLatency(ServerLatency.State.MEASURED, 50000, 0.05, 0.1, 0.5, 2.0);
        final ServerLatency farEnd = new ServerLatency(ServerLatency.State.MEASURED, 8000, 0.1, 0.25, 0.75, 10.0);
        final Step at80 = new Step("at80", 800, 8000, 8000, 0, 0, 0, 0, 10.0, 800, sipp, sipp, ringing, answered,
            farEnd, lag, lag, new GcLog.Summary(0, 0, 0), 0.2, 0.9, 1.5, Instant.EPOCH, Instant.EPOCH);
        final Step failed = new Step("r1000", 1000, 10000, 10000, 0, 0, 0, 0, 10.0, 1000, sipp, sipp,
            ServerLatency.FAILED, ServerLatency.FAILED, ServerLatency.FAILED, ServerLatency.FAILED,
            ServerLatency.FAILED, new GcLog.Summary(0, 0, 0), 0.2, 0.9, 1.5, Instant.EPOCH,
            Instant.EPOCH);
        final Step untimed = new Step("r0100", 100, 1000, 1000, 0, 0, 0, 0, 10.0, 100, sipp, sipp,
            new ServerLatency(ServerLatency.State.MEASURED, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN),
            ServerLatency.NOT_MEASURED, ServerLatency.NOT_MEASURED, ServerLatency.NOT_MEASURED,
            ServerLatency.NOT_MEASURED, new GcLog.Summary(0, 0, 0), 0.2, 0.9, 1.5, Instant.EPOCH, Instant.EPOCH);
        final Series s = new Series(SystemUnderTest.SIPLINE, "b2bua", "zgc",
            "uac-timed.xml", List.of(untimed, failed, at80),
            1000, 1000, List.of(failed), at80, "");
        final Report report = report(dir, s);
        final String md = report.markdown();

        final String figures = "1.50 / 2.50 / 6.30 / 40.10 | 1.50 / 2.50 / 6.30 / 40.10 | "
            + "<= 0.15 / <= 0.30 / <= 1.25 / <= 20.00 | <= 0.20 / <= 0.35 / <= 2.25 / <= 50.00 | "
            + "<= 0.10 / <= 0.25 / <= 0.75 / <= 10.00 | ";
        // a step's row has the per-second p99s after sipp's INVITE->180 (none here: "-"); the summary has not
        assertTrue(md.contains("| at80 | 800 | 800.0 | 0 | 0 | 0 | 0 | " + figures.replaceFirst(" \\| ", " | - | ")
            + "<= 0.05 / <= 0.10 / <= 0.50 / <= 2.00 | <= 0.05 / <= 0.10 / <= 0.50 / <= 2.00 | "), md);
        assertTrue(md.contains("| sipline/zgc | b2bua | 1000 | r1000 | "), md);
        assertTrue(md.contains(" | " + figures + "6.30 | "), "summary at 80%, then sipp's p99 at max: " + md);
        assertTrue(md.contains("| r1000 | 1000 | 1000.0 | 0 | 0 | 0 | 0 | 1.50 / 2.50 / 6.30 / 40.10 | - | "
            + "1.50 / 2.50 / 6.30 / 40.10 | n/a | n/a | n/a | n/a | n/a | "), md);
        assertTrue(md.contains("| r0100 | 100 | 100.0 | 0 | 0 | 0 | 0 | 1.50 / 2.50 / 6.30 / 40.10 | - | "
            + "1.50 / 2.50 / 6.30 / 40.10 | none timed | - | - | - | - | "), md);
        assertTrue(md.contains("server INVITE→180 p50/p90/p99/max ms (bucket bounds) | "), md);
        assertTrue(md.contains("What it leaves out: sipp's own send and receive delays on the caller side"), md);
        assertTrue(md.contains("far end INVITE→180 as the server saw it p50/p90/p99/max ms (bucket bounds) | "), md);

        final String json = report.json();
        assertTrue(json.contains("\"serverInvite180Ms\": {\"scrape\": \"ok\", \"bucketUpperBounds\": true, "
            + "\"count\": 8000, \"p50\": 0.1500, \"p90\": 0.3000, \"p99\": 1.2500, \"max\": 20.0000}"), json);
        assertTrue(json.contains("\"serverInvite2xxMs\": {\"scrape\": \"failed\"}"), json);
        assertTrue(json.contains("\"farEndInvite180Ms\": {\"scrape\": \"ok\", \"bucketUpperBounds\": true, "
            + "\"count\": 8000, \"p50\": 0.1000, \"p90\": 0.2500, \"p99\": 0.7500, \"max\": 10.0000}"), json);
        assertTrue(json.contains("\"inputLagHandoverMs\": {\"scrape\": \"ok\", \"bucketUpperBounds\": true, "
            + "\"count\": 50000, \"p50\": 0.0500, \"p90\": 0.1000, \"p99\": 0.5000, \"max\": 2.0000}"), json);
        assertTrue(json.contains("\"serverInvite2xxMs\": null"), json);
    }

    @Test
    void shouldReportEachApplicationAsItsOwnSeriesBesideTheBaselinesThatStandForIt(@TempDir final Path dir)
    {
        final Step typical = step("r3000", 3000, true, 1.2);
        final Step minimal = step("r4000", 4000, true, 1.2);
        final Step kamailio = step("r1500", 1500, true, 1.0);
        final Step jainsip = step("r1000", 1000, true, 1.0);
        final Report report = new Report(dir, "bin/sipline bench calls --app typical-b2bua,b2bua",
            List.of("typical-b2bua", "b2bua"), false, 10, 0);
        report.add(new Series(SystemUnderTest.SIPLINE, "typical-b2bua", "zgc", "uac-timed.xml", List.of(typical),
            3000, 3000, List.of(typical), null, ""));
        report.add(new Series(SystemUnderTest.SIPLINE, "b2bua", "zgc",
            "uac-timed.xml", List.of(minimal), 4000,
            4000, List.of(minimal), null, ""));
        report.add(new Series(SystemUnderTest.JAINSIP, "b2bua", "zgc",
            "uac-timed.xml", List.of(jainsip), 1000,
            1000, List.of(jainsip), null, ""));
        report.add(new Series(SystemUnderTest.KAMAILIO, "typical-b2bua", "-", "uac-timed.xml", List.of(kamailio),
            1500, 1500, List.of(kamailio), null, ""));
        report.add(new Footprint(SystemUnderTest.SIPLINE, "typical-b2bua", "allocated", "epsilon", 10_000,
            135_000_000));
        report.add(new Footprint(SystemUnderTest.SIPLINE, "b2bua", "allocated", "epsilon", 10_000, 40_000_000));

        final String md = report.markdown();
        assertTrue(md.contains("| system | application | sustained calls/s |"), md);
        assertTrue(md.contains("| sipline/zgc | typical-b2bua | 3000 | r3000 | "), md);
        assertTrue(md.contains("| sipline/zgc | b2bua | 4000 | r4000 | "), md);
        assertTrue(md.contains("| jainsip/zgc | baseline of b2bua | 1000 | r1000 | "), md);
        assertTrue(md.contains("| kamailio | baseline of typical-b2bua, b2bua | 1500 | r1500 | "), md);
        assertTrue(md.contains(" | 13,500 | n/a |\n"), "the typical application's own allocation figure: " + md);
        assertTrue(md.contains("Applications, each its own series: `typical-b2bua` (`examples/typical-b2bua`"), md);
        assertTrue(md.contains("### sipline/zgc typical-b2bua (uac-timed.xml)"), md);

        final String typicalRatios = section(md, "Ratios of sipline/zgc typical-b2bua");
        assertTrue(typicalRatios.contains("| sipline/zgc b2bua | 0.75x | "), typicalRatios);
        assertTrue(typicalRatios.contains("| kamailio | 2.00x | "), typicalRatios);
        assertFalse(typicalRatios.contains("| jainsip/zgc |"), "the JAIN-SIP B2BUA stands for b2bua only");
        final String minimalRatios = section(md, "Ratios of sipline/zgc b2bua");
        assertTrue(minimalRatios.contains("| sipline/zgc typical-b2bua | 1.33x | "), minimalRatios);
        assertTrue(minimalRatios.contains("| jainsip/zgc | 4.00x | "), minimalRatios);
        assertTrue(minimalRatios.contains("| kamailio | 2.67x | "), minimalRatios);
        assertTrue(minimalRatios.contains(" | 3.38x | n/a |"), "allocated B/call, theirs / ours: " + minimalRatios);

        final String json = report.json();
        assertTrue(json.contains("\"apps\": [\"typical-b2bua\", \"b2bua\"]"), json);
        assertTrue(json.contains("{\"name\": \"sipline/zgc typical-b2bua\", \"system\": \"sipline\", "
            + "\"app\": \"typical-b2bua\", \"baselineOf\": [], \"profile\": \"zgc\""), json);
        assertTrue(json.contains("{\"name\": \"kamailio\", \"system\": \"kamailio\", \"app\": null, "
            + "\"baselineOf\": [\"typical-b2bua\", \"b2bua\"], \"profile\": \"-\""), json);
        assertTrue(json.contains("{\"system\": \"sipline\", \"app\": \"b2bua\", \"kind\": \"allocated\", "
            + "\"profile\": \"epsilon\", \"calls\": 10000, \"bytes\": 40000000, \"bytesPerCall\": 4000.0000}"),
            json);
    }

    /** The lines of {@code md} from the one starting with {@code start} to the next blank line after a table. */
    private static String section(final String md, final String start)
    {
        final int from = md.indexOf("\n" + start);
        assertTrue(from >= 0, start + " missing: " + md);
        final int to = md.indexOf("|\n\n", from);
        return md.substring(from, to < 0 ? md.length() : to + 2);
    }

    @Test
    void shouldPutTheMachinePausesBesideTheMethodWhenTheyWereMeasured(@TempDir final Path dir)
    {
        final Step one = step("r400", 400, true, 0.5);
        final Series s = new Series(SystemUnderTest.SIPLINE, "b2bua", "zgc",
            "uac-timed.xml", List.of(one), 400, 400,
            List.of(one), null, "");
        final Report without = report(dir, s);
        assertFalse(without.markdown().contains("Machine pauses"));
        assertTrue(without.json().contains("\"machinePauses\": null,"), without.json());

        final Report with = report(dir, s);
        with.machinePauses(new MachinePauses.Result(2, 10_000_000_000L, 9, 30_470_000, 6, 75_000_000, 29_880_000, 0,
            false));
        final String md = with.markdown();
        assertTrue(md.contains("Machine pauses, measured before the steps with nothing else running (`bin/sipline "
            + "bench pauses`): 2 threads spinning on the clock for 10.0 s: every core stopped at once 6 times for >= 1 "
            + "ms (75.0 ms in all, the longest 29.88 ms); one core or more 9 times (the longest 30.47 ms)."), md);
        assertTrue(with.json().contains("\"machinePauses\": {\"threads\": 2, \"seconds\": 10.0000, \"gapMs\": 1.0000, "
            + "\"everyCoreAtOnce\": 6, \"everyCoreAtOnceTotalMs\": 75.0000, \"everyCoreAtOnceLongestMs\": 29.8800, "
            + "\"anyCore\": 9, \"anyCoreLongestMs\": 30.4700, \"harnessGcs\": 0, \"overflowed\": false}"),
            with.json());
    }
}
