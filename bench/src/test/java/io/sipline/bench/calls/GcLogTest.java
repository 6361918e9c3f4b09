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

    @Test
    void shouldSayHowLongSafepointsTookToReachAndInAll()
    {
        final List<GcLog.Safepoint> safepoints = new ArrayList<>();
        for (final String line : LOG)
        {
            GcLog.parseSafepoint(line, safepoints);
        }
        GcLog.parseSafepoint("[2026-11-29T21:47:28.723+0000][70.821s][info][safepoint   ] Safepoint "
            + "\"ZMarkStartYoungAndOld\", Time since last: 43192479121 ns, Reaching safepoint: 129943760 ns, At "
            + "safepoint: 93661 ns, Leaving safepoint: 9718539 ns, Total: 139755960 ns, Threads: 2 runnable, 89 total",
            safepoints);
        assertEquals(List.of("ZMarkEnd", "ZMarkStartYoungAndOld"),
            safepoints.stream().map(GcLog.Safepoint::operation).toList());
        assertEquals(129.94376, safepoints.get(1).reachingMillis(), 1e-9);
        assertEquals(139.75596, safepoints.get(1).totalMillis(), 1e-9);
        assertEquals(Instant.parse("2026-11-29T21:47:28.723Z"), safepoints.get(1).at());
    }

    @Test
    void shouldSumTheSafepointsOfAWindow(@TempDir final Path dir) throws Exception
    {
        final Path log = dir.resolve("gc.log");
        Files.write(log, List.of(LOG[9], "[2026-11-22T10:51:30.000+0000][5.3s][info][safepoint   ] Safepoint "
            + "\"Cleanup\", Time since last: 1 ns, Reaching safepoint: 3000000 ns, At safepoint: 500000 ns, "
            + "Total: 4000000 ns"));
        final GcLog gc = GcLog.read(log);
        assertEquals("safepoints over the step: 2, 4.0 ms in all, longest 4.00 ms (Cleanup), longest to reach 3.00 ms "
            + "(Cleanup)", gc.safepointsBetween(Instant.parse("2026-11-22T10:51:00Z"),
            Instant.parse("2026-11-22T10:52:00Z")));
        assertEquals("safepoints over the step: none", gc.safepointsBetween(Instant.parse("2026-11-22T11:00:00Z"),
            Instant.parse("2026-11-22T11:01:00Z")));
    }
}
