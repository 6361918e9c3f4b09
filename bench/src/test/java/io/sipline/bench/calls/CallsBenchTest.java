package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sipline.test.Sipp;
import picocli.CommandLine;

/**
 * The harness end to end, cheap enough for CI: the JAIN-SIP baseline as the measured system at 50 calls/s for 3 s
 * (after a 2 s warm-up) through {@link CallsBench} as {@code bin/sipline bench calls} runs it, and the numbers of
 * results.json, report.md and the chart present and consistent with what sipp counted. No figure is judged against
 * a threshold: this proves the measuring, not the measured.
 */
class CallsBenchTest
{
    @Test
    void shouldRefuseTheJainSipBaselineForTheProxy(@TempDir final Path out)
    {
        final StringWriter err = new StringWriter();
        final CommandLine cl = new CommandLine(new CallsBench()).setErr(new PrintWriter(err));
        assertEquals(2, cl.execute("--app", "proxy", "--baseline", "jainsip", "--rate", "10", "--out", out.toString()));
        assertTrue(err.toString().contains("--app proxy: the jainsip baseline is a minimal B2BUA and stands for b2bua "
            + "only"), err.toString());
        assertEquals(2, new CommandLine(new CallsBench()).setErr(new PrintWriter(new StringWriter()))
            .execute("--app", "proxy", "--system", "jainsip", "--rate", "10", "--out", out.toString()));
        final StringWriter unknown = new StringWriter();
        assertEquals(2, new CommandLine(new CallsBench()).setErr(new PrintWriter(unknown))
            .execute("--app", "registrar", "--rate", "10", "--out", out.toString()));
        assertTrue(unknown.toString().contains("--app: 'registrar' is not one of [typical-b2bua, b2bua, proxy]"),
            unknown.toString());
    }

    @Test
    void shouldRunTheTypicalB2buaByDefaultAndTakeAListOfApplications()
    {
        final CallsBench byDefault = new CallsBench();
        new CommandLine(byDefault).parseArgs("--rate", "10");
        assertEquals(List.of("typical-b2bua"), byDefault.apps);
        final CallsBench both = new CallsBench();
        new CommandLine(both).parseArgs("--app", "typical-b2bua,b2bua", "--rate", "10");
        assertEquals(List.of("typical-b2bua", "b2bua"), both.apps);
        final CallsBench repeated = new CallsBench();
        new CommandLine(repeated).parseArgs("--app", "b2bua", "--app", "proxy", "--rate", "10");
        assertEquals(List.of("b2bua", "proxy"), repeated.apps);
    }

    @Test
    void shouldMeasureEachBaselineOncePerKindOfCallAndSiplineOncePerApplication()
    {
        final List<String> apps = List.of("typical-b2bua", "b2bua", "proxy");
        assertEquals(apps, CallsBench.appsOf(SystemUnderTest.SIPLINE, apps));
        assertEquals(List.of("typical-b2bua", "proxy"), CallsBench.appsOf(SystemUnderTest.KAMAILIO, apps),
            "Kamailio once for the B2BUA calls, once for the proxied ones");
        assertEquals(List.of("b2bua"), CallsBench.appsOf(SystemUnderTest.JAINSIP, apps));
        assertEquals(List.of(), CallsBench.appsOf(SystemUnderTest.JAINSIP, List.of("typical-b2bua")),
            "the JAIN-SIP baseline is a minimal B2BUA: it does not stand for the typical one");
        assertEquals("sipline-zgc-typical-b2bua", CallsBench.directory(Series.name(SystemUnderTest.SIPLINE,
            "typical-b2bua", "zgc")));
        assertEquals("kamailio-proxy-calls", CallsBench.directory(Series.name(SystemUnderTest.KAMAILIO, "proxy",
            "-")));
    }

    @Test
    void shouldRefuseAnApplicationNamedTwiceAndTheJainSipBaselineWithoutTheMinimalB2bua(@TempDir final Path out)
    {
        assertRefused(out, "--app: 'b2bua' is named twice", "--app", "b2bua,typical-b2bua,b2bua");
        final StringWriter err = new StringWriter();
        assertEquals(2, new CommandLine(new CallsBench()).setErr(new PrintWriter(err))
            .execute("--baseline", "jainsip", "--rate", "10", "--out", out.toString()));
        assertTrue(err.toString().contains("--app typical-b2bua: the jainsip baseline is a minimal B2BUA and stands "
            + "for b2bua only (add b2bua to --app, e.g. --app typical-b2bua,b2bua)"), err.toString());
    }

    @Test
    void shouldRefuseOptionsOutOfRange(@TempDir final Path out)
    {
        assertRefused(out, "--overload-wait: 10001 is not a number of milliseconds (0-10000)", "--overload-wait",
            "10001");
        assertRefused(out, "--server-warmup: -1 is not a number of calls (0-120000)", "--server-warmup", "-1");
        assertRefused(out, "--server-shards: 0 is not a number of shards (1-256)", "--server-shards", "0");
        assertRefused(out, "--far-end-timewait: -1 is not a number of milliseconds (0-32000)", "--far-end-timewait",
            "-1");
        assertRefused(out, "--machine-pauses: 601 is not a number of seconds (0-600)", "--machine-pauses", "601");
        assertRefused(out, "--http-client: 'curl' is not h2load or jdk", "--http-client", "curl");
    }

    /** A one-rate run with {@code option value} exits with 2 and says {@code message}, before anything starts. */
    private static void assertRefused(final Path out, final String message, final String option, final String value)
    {
        final StringWriter err = new StringWriter();
        assertEquals(2, new CommandLine(new CallsBench()).setErr(new PrintWriter(err))
            .execute("--rate", "10", option, value, "--out", out.toString()));
        assertTrue(err.toString().contains(message), err.toString());
    }

    @Test
    void shouldMeasureARateThroughTheJainSipBaselineAndWriteTheResults(@TempDir final Path out) throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed (apt-get install sip-tester)");
        final CallsBench bench = new CallsBench();
        final int exit = new CommandLine(bench).execute("--system", "jainsip", "--app", "b2bua", "--profile",
            "g1-lowpause", "--rate", "50", "--duration", "3", "--warmup", "2", "--start-rate", "25", "--alloc-calls",
            "0", "--retained-calls", "0", "--machine-pauses", "1", "--out", out.toString());
        assertEquals(0, exit);
        final Report report = bench.report();
        assertEquals(1, report.series().size());
        final Series series = report.series().getFirst();
        assertEquals(SystemUnderTest.JAINSIP, series.system());
        assertEquals(List.of("warmup", "r50"), series.steps().stream().map(Step::label).toList());
        final Step step = series.steps().get(1);
        assertEquals(150, step.planned());
        assertEquals(150, step.successful() + step.failed(), "every call counted once");
        assertEquals(step.successful(), step.answered().count(), "one INVITE->200 time per successful call");
        assertTrue(step.ringing().count() > 0 && step.ringing().count() <= step.successful());
        final Latency l = step.answered();
        assertTrue(0 < l.p50() && l.p50() <= l.p90() && l.p90() <= l.p99() && l.p99() <= l.max(), l.toString());
        assertTrue(step.cpuPer1000() > 0, "the server used CPU");
        assertTrue(step.seconds() >= 2.9, "the step lasted its 150 calls at 50/s: " + step.seconds());
        assertTrue(step.gc().count() >= 0 && step.gc().maxMillis() <= step.gc().totalMillis());
        assertEquals(step.sustained() ? 50 : 0, series.maxSustained());
        assertEquals(step.sustained() ? List.of(step) : List.of(), series.confirming(), "one rate: its step or none");
        assertTrue(series.counters().lines().anyMatch(line -> line.startsWith("jainsip-b2bua: stopped (calls="
            + (25 * 2 + 150))), "the baseline's own counters at stop: " + series.counters());
        final List<String> lines = series.counters().lines().toList();
        assertTrue(lines.stream().anyMatch(line -> line.startsWith("r50: server threads over the step: shards "))
            && lines.stream().anyMatch(line -> line.startsWith("r50: safepoints over the step: ")),
            "the step's threads and safepoints: " + series.counters());

        final String json = Files.readString(out.resolve("results.json"));
        assertTrue(json.contains("\"name\": \"jainsip/g1-lowpause\", \"system\": \"jainsip\", \"app\": null, "
            + "\"baselineOf\": [\"b2bua\"], \"profile\": \"g1-lowpause\""), json);
        assertTrue(json.contains("\"machinePauses\": {\"threads\": " + Runtime.getRuntime().availableProcessors()
            + ", \"seconds\": 1.0"), json);
        assertTrue(json.contains("\"plannedCalls\": 150, \"successfulCalls\": " + step.successful()), json);
        assertTrue(json.contains("\"invite200Ms\": {\"count\": " + l.count()), json);
        assertTrue(Files.readString(out.resolve("report.md")).contains("| jainsip/g1-lowpause | "));
        assertTrue(Files.readString(out.resolve("p99.svg")).startsWith("<svg"));
        assertNotNull(Files.readString(
            out.resolve("jainsip-g1-lowpause").resolve("jainsip-g1-lowpause-r50-uac-stat.csv")));
        try (var logs = Files.list(out.resolve("jainsip-g1-lowpause")))
        {
            assertTrue(logs.anyMatch(p -> p.getFileName().toString().startsWith("gc-jainsip-g1-lowpause")),
                "the baseline's GC log is kept");
        }
    }
}
