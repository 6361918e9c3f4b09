package io.sipline.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The soak, bounded: 20 s of answered, failing and CANCELled calls through the JAIN-SIP RI B2BUA (the baseline of
 * {@code bench calls}, which runs without a build of the server), sampled every 5 s; and the slope arithmetic.
 */
class SoakBenchTest
{
    @Test
    void shouldFitTheLeastSquaresSlopePerHour()
    {
        final List<Sample> line = List.of(new Sample(0, 1000, 10, 5000, 0, 0, 0.1),
            new Sample(10, 1100, 10, 5000, 0, 0, 0.1), new Sample(20, 1200, 10, 4000, 0, 0, 0.1));
        assertEquals(36_000, Sample.slopePerHour(line, Sample.Figure.HEAP), 1e-6, "10 B/s is 36,000 B/hour");
        assertEquals(0, Sample.slopePerHour(line, Sample.Figure.DIRECT), 1e-9);
        assertEquals(-180_000, Sample.slopePerHour(line, Sample.Figure.RSS), 1e-6);
        assertTrue(Double.isNaN(Sample.slopePerHour(line.subList(0, 1), Sample.Figure.HEAP)));
        assertTrue(Double.isNaN(Sample.slopePerHour(List.of(new Sample(0, 1, -1, 1, 0, 0, 0),
            new Sample(1, 1, -1, 1, 0, 0, 0)), Sample.Figure.DIRECT)), "direct memory not known");
    }

    @Test
    void shouldReadTheHeapAfterTheLastRequestedCollectionFromTheGcLog()
    {
        assertEquals(224L << 20, SoakBench.lastSystemGc(List.of(
            "[2026-11-29T06:11:59.788+0000][49.773s][info][gc          ] GC(3) Major Collection (System.gc()) "
                + "454M(11%)->224M(5%) 1.433s",
            "[2026-11-29T06:12:00.100+0000][50.100s][info][gc          ] GC(4) Minor Collection (Allocation Rate) "
                + "600M(15%)->300M(7%) 0.100s")), "a collection the JVM started itself is not the requested one");
        assertEquals(3L << 30, SoakBench.lastSystemGc(List.of("[gc] GC(9) Pause Full (System.gc()) 5G->3G(8G) 9ms")));
        assertEquals(-1, SoakBench.lastSystemGc(List.of("[gc] GC(1) Major Collection (Warmup) 10M(1%)->5M(1%)")));
    }

    @Test
    void shouldSoakTheJainSipB2buaForTwentySecondsAndSampleItsMemory(@TempDir final Path out) throws Exception
    {
        Assumptions.assumeTrue(io.sipline.test.Sipp.available(), "sipp is not installed (apt-get install sip-tester)");
        final SoakBench bench = new SoakBench();
        final int exit = new CommandLine(bench).execute("--system", "jainsip", "--app", "b2bua", "--profile",
            "g1-lowpause", "--max-rate", "40", "--duration", "20", "--sample", "5", "--register-share", "0",
            "--hold", "500", "--fail-share", "0.25", "--cancel-share", "0.25", "--out", out.toString());
        assertEquals(0, exit);
        assertEquals(3, bench.samples().size(), "a sample every 5 s of 20, while the load runs");
        for (final Sample s : bench.samples())
        {
            assertTrue(s.heapAfterGc() > 0 && s.rss() > s.heapAfterGc() / 4, s.toString());
            assertEquals(-1, s.direct(), "the baseline has no /metrics");
        }
        final Map<String, SoakBench.Caller> callers = bench.callers().stream()
            .collect(Collectors.toMap(SoakBench.Caller::kind, c -> c));
        assertEquals(Map.of("answered", 10, "busy", 5, "cancel", 5, "far end", 0), callers.entrySet().stream()
            .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().rate())), "half of 40/s, a quarter each "
            + "failing and CANCELled");
        assertEquals(200, callers.get("answered").successful() + callers.get("answered").failed());
        assertEquals(100, callers.get("busy").successful(), "every 486 came back and was ACKed");
        assertEquals(100, callers.get("cancel").successful(), "every CANCEL answered 200, the INVITE 487");
        assertTrue(callers.get("answered").successful() >= 195, callers.toString());
        assertTrue(Double.isFinite(Sample.slopePerHour(bench.samples(), Sample.Figure.HEAP)));
        final String md = Files.readString(out.resolve("soak.md"));
        assertTrue(md.contains("| heap after GC | ") && md.contains("| cancel | 5 | 100 | 0 |"), md);
        assertTrue(Files.readString(out.resolve("soak.json")).contains("\"slopesBytesPerHour\": {\"heap\": ["));
    }
}
