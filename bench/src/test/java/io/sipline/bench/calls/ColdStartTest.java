package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sipline.test.Launcher;
import picocli.CommandLine;

/**
 * The cold-start command's options, its report from measured seconds, and the launcher's part: its help, and the
 * AOT cache that {@code bin/sipline aot} refuses to make from a class path it did not build.
 */
class ColdStartTest
{
    @Test
    void shouldMeasureWithoutAndWithTheAotCacheByDefaultAndRefuseUnknownVariants(@TempDir final Path out)
    {
        final ColdStart byDefault = new ColdStart();
        new CommandLine(byDefault).parseArgs("--rate", "100");
        assertEquals(List.of(new ColdStart.Variant("no-aot", false, false), new ColdStart.Variant("aot", true, false)),
            byDefault.checkedVariants());
        assertEquals("typical-b2bua", byDefault.app);
        assertEquals(30, byDefault.duration);
        final ColdStart warm = new ColdStart();
        new CommandLine(warm).parseArgs("--rate", "100", "--variants", "aot+warmup,NO-AOT");
        assertEquals(List.of(new ColdStart.Variant("aot+warmup", true, true),
            new ColdStart.Variant("no-aot", false, false)), warm.checkedVariants());

        assertRefused(out, "--variants: 'jit' is not one of aot, no-aot, aot+warmup, no-aot+warmup", "--variants",
            "aot,jit");
        assertRefused(out, "--variants: 'aot' is named twice", "--variants", "aot,aot");
        assertRefused(out, "--app: 'registrar' is not one of [typical-b2bua, b2bua, proxy]", "--app", "registrar");
        final StringWriter err = new StringWriter();
        assertEquals(2, new CommandLine(new ColdStart()).setErr(new PrintWriter(err)).execute("--out",
            out.toString()));
        assertTrue(err.toString().contains("Missing required option: '--rate=R'"), err.toString());
    }

    private static void assertRefused(final Path out, final String message, final String option, final String value)
    {
        final StringWriter err = new StringWriter();
        assertEquals(2, new CommandLine(new ColdStart()).setErr(new PrintWriter(err))
            .execute("--rate", "10", option, value, "--out", out.toString()));
        assertTrue(err.toString().contains(message), err.toString());
    }

    @Test
    void shouldReportEachVariantSecondBySecond()
    {
        final ColdStart bench = new ColdStart();
        new CommandLine(bench).parseArgs("--rate", "200", "--duration", "3");
        final Step step = new Step("cold", 200, 600, 560, 40, 75, 0, 0, 3.5, 160, Latency.NONE, Latency.NONE,
            ServerLatency.NOT_MEASURED, ServerLatency.NOT_MEASURED, ServerLatency.NOT_MEASURED,
            ServerLatency.NOT_MEASURED, ServerLatency.NOT_MEASURED, new GcLog.Summary(0, 0, 0), 0.2, 0.9, 1.5,
            Instant.EPOCH, Instant.EPOCH);
        bench.add(new ColdStart.Result(new ColdStart.Variant("no-aot", false, false), 1.25, step, List.of(
            new SippSeconds.Second(0, 200, 20, 0, 60), new SippSeconds.Second(1, 200, 150, 0, 15),
            new SippSeconds.Second(2, 200, 200, 40, 0), new SippSeconds.Second(3, 0, 190, 0, 0)), ""));
        bench.add(new ColdStart.Result(new ColdStart.Variant("aot", true, false), 0.75, step, List.of(
            new SippSeconds.Second(0, 200, 150, 0, 0), new SippSeconds.Second(1, 200, 200, 0, 0),
            new SippSeconds.Second(2, 200, 200, 0, 0)), "sipline: AOT cache /r/target/aot/sipline-zgc.aot"));

        final String md = bench.markdown();
        assertTrue(md.contains("| no-aot | 1.3 | 600 | 560 | 40 | 75 | 2 | 1 | none |"), md);
        assertTrue(md.contains("| aot | 0.8 | 600 | 560 | 40 | 75 | 0 | 0 | sipline: AOT cache "
            + "/r/target/aot/sipline-zgc.aot |"), md);
        assertTrue(md.contains("### no-aot\n\n| second | offered | completed | failed | retransmissions |\n"
            + "|---|---|---|---|---|\n| 0 | 200 | 20 | 0 | 60 |\n| 1 | 200 | 150 | 0 | 15 |"), md);
        final String json = bench.json();
        assertTrue(json.contains("{\"variant\": \"aot\", \"aotCache\": true, \"serverWarmupCalls\": 0, "
            + "\"readySeconds\": 0.750, \"plannedCalls\": 600, \"successfulCalls\": 560, \"failedCalls\": 40, "
            + "\"retransmissions\": 75, \"aotSaid\": \"sipline: AOT cache /r/target/aot/sipline-zgc.aot\", "
            + "\"perSecond\": [[0, 200, 150, 0, 0], [1, 200, 200, 0, 0], [2, 200, 200, 0, 0]]"), json);
    }

    @Test
    void shouldKeepOnlyTheLinesAboutTheAotCacheFromTheServersOutput(@TempDir final Path dir) throws IOException
    {
        final Path output = Files.writeString(dir.resolve("server.out"), String.join("\n",
            "sipline: AOT cache /r/target/aot/sipline-zgc.aot", "sipline: profile zgc, GC log /x.log",
            "[0.015s][warning][aot] Unable to use AOT cache.", "sipline: ready") + "\n");
        assertEquals("sipline: AOT cache /r/target/aot/sipline-zgc.aot\n[0.015s][warning][aot] Unable to use AOT "
            + "cache.", ColdStart.aotLines(output));
        assertEquals("", ColdStart.aotLines(dir.resolve("none.out")));
    }

    @Test
    void shouldDocumentTheAotCommandAndRefuseToMakeACacheFromAClassPathTheLauncherDidNotBuild()
        throws IOException, InterruptedException
    {
        assumeTrue(Launcher.available(), "bin/sipline needs bash");
        final Launcher.Run help = Launcher.run("aot", "--help");
        assertEquals(0, help.exitCode(), help.output());
        assertTrue(help.output().contains("SIPLINE_AOT=off"), help.output());
        assertTrue(help.output().contains("target/aot/sipline-NAME.aot"), help.output());
        final Launcher.Run refused = Launcher.run("aot");
        assertEquals(2, refused.exitCode(), refused.output());
        assertTrue(refused.output().contains("aot: SIPLINE_CLASSPATH is set; the cache is made from the launcher's "
            + "own build"), refused.output());
        final Launcher.Run bench = Launcher.run("bench", "coldstart", "--help");
        assertEquals(0, bench.exitCode(), bench.output());
        assertTrue(bench.output().contains("--variants"), bench.output());
    }
}
