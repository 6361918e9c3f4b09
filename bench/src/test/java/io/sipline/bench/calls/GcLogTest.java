package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pauses read from GC log lines as JDK 25 writes them for every collector of jvm-profiles/ (copied from real logs). */
class GcLogTest
{
    private static final String[] LOG = {
        "[2026-11-22T10:51:08.994+0000][0.975s][info][gc,start    ] GC(0) Pause Young (Allocation Failure)",
        "[2026-11-22T10:51:09.015+0000][0.996s][info][gc          ] GC(0) Pause Young (Allocation Failure) "
            + "65M->3M(245M) 21.697ms",
        "[2026-11-22T10:51:10.015+0000][0.718s][info][gc          ] GC(0) Pause Young (Normal) (G1 Evacuation Pause) "
            + "13M->3M(256M) 20.224ms",
        "[2026-11-22T10:51:10.016+0000][0.718s][info][gc,phases   ] GC(0)   Pre Evacuate Collection Set: 0.1ms",
        "[2026-11-22T10:51:12.114+0000][1.109s][info][gc          ] GC(0) Pause Init Mark (Young) 0.054ms",
        "[2026-11-22T10:51:12.124+0000][1.119s][info][gc,start    ] GC(0) Pause Final Mark (Young)",
        "[2026-11-22T10:51:12.130+0000][0.658s][info][gc,phases   ] GC(0) Y: Pause Mark Start (Major) 0.016ms",
        "[2026-11-22T10:51:12.140+0000][0.700s][info][gc,phases   ] GC(0) Y: Concurrent Mark 3.452ms",
        "[2026-11-22T10:51:28.916+0000][4.245s][info][gc,stats    ]       Young Pause: Pause Mark Start    "
            + "0.000 / 0.000         0.000 / 0.000       ms",
        "[2026-11-22T10:51:29.000+0000][4.300s][info][safepoint   ] Safepoint \"ZMarkEnd\", Time since last: 1 ns, "
            + "Reaching safepoint: 2 ns, Cleanup: 3 ns, At safepoint: 4 ns, Total: 9 ns",
    };

    @Test
    void shouldCountTheStopTheWorldPausesOfEveryCollectorOnly()
    {
        final List<GcLog.Pause> pauses = new ArrayList<>();
        for (final String line : LOG)
        {
            GcLog.parse(line, pauses);
        }
        assertEquals(List.of(21.697, 20.224, 0.054, 0.016), pauses.stream().map(GcLog.Pause::millis).toList());
        assertEquals(Instant.parse("2026-11-22T10:51:09.015Z"), pauses.getFirst().at());
    }

    @Test
    void shouldSumPausesWithinAWindowAcrossRotatedFiles(@TempDir final Path dir) throws Exception
    {
        final Path log = dir.resolve("gc.log");
        Files.write(log, List.of(LOG[1], LOG[2]));
        Files.write(dir.resolve("gc.log.0"), List.of(LOG[4], LOG[6]));
        final GcLog gc = GcLog.read(log);
        final GcLog.Summary all = gc.between(Instant.parse("2026-11-22T10:00:00Z"),
            Instant.parse("2026-11-22T11:00:00Z"));
        assertEquals(4, all.count());
        assertEquals(21.697 + 20.224 + 0.054 + 0.016, all.totalMillis(), 1e-9);
        assertEquals(21.697, all.maxMillis());
        final GcLog.Summary late = gc.between(Instant.parse("2026-11-22T10:51:10Z"),
            Instant.parse("2026-11-22T10:51:12.120Z"));
        assertEquals(new GcLog.Summary(2, 20.224 + 0.054, 20.224), late);
        assertEquals(0, GcLog.read(dir.resolve("absent.log")).pauses().size());
    }
}
