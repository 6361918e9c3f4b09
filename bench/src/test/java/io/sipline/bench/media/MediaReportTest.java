package io.sipline.bench.media;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MediaReportTest
{
    private static MediaLoad.Result load(final int calls, final long sent, final long received, final long jitter)
    {
        return new MediaLoad.Result(calls, sent, received, 100_000, 400_000, 900_000, jitter, 50_000, 0, 0);
    }

    @Test
    void shouldDeriveLossCpuAndAllocationPerPacket()
    {
        // 100 calls, 20 s: 100 * 2 * 50 * 20 = 200,000 packets sent, 199,900 received; 150 ticks = 1.5 CPU-s.
        final MediaRow r = new MediaRow("Sipline", load(100, 200_000, 199_900, 1_000_000), 150, 100, 199_900,
            0);
        assertEquals(0.0005, r.loss(), 1e-12);
        assertTrue(r.held());
        assertEquals(1.5, r.cpuSeconds(), 1e-12);
        assertEquals(1.5 * 1000 / 199.9, r.cpuMsPerThousand(), 1e-9);
        assertEquals(199_900 / 1.5, r.packetsPerCpuSecond(), 1e-6);
        assertEquals(0.0, r.bytesPerPacket());
        assertTrue(Double.isNaN(new MediaRow("rtpengine", r.load(), 150, 100, -1, -1).bytesPerPacket()));
        assertEquals(2.0, new MediaRow("Sipline", r.load(), 150, 100, 1000, 2000).bytesPerPacket());
    }

    @Test
    void shouldNotHoldAtTheLossOrJitterLimit()
    {
        assertFalse(new MediaRow("x", load(1, 100_000, 99_900, 0), 1, 100, -1, -1).held(), "0.1 % loss");
        assertTrue(new MediaRow("x", load(1, 100_000, 99_901, 5_000_000), 1, 100, -1, -1).held(), "5 ms jitter");
        assertFalse(new MediaRow("x", load(1, 100_000, 100_000, 5_000_001), 1, 100, -1, -1).held(),
            "over 5 ms jitter");
        assertFalse(new MediaRow("x", load(1, 0, 0, 0), 1, 100, -1, -1).held(), "nothing sent");
        assertEquals(1.0, new MediaRow("x", load(1, 0, 0, 0), 1, 100, -1, -1).loss());
        assertEquals("no (loss)", new MediaRow("x", load(1, 100_000, 99_900, 0), 1, 100, -1, -1).verdict());
        assertEquals("no (jitter)", new MediaRow("x", load(1, 100, 100, 5_000_001), 1, 100, -1, -1).verdict());
        assertEquals("no (nothing relayed)", new MediaRow("x", load(1, 100, 0, 0), 1, 100, -1, -1).verdict());
        assertEquals("yes", new MediaRow("x", load(1, 100, 100, 0), 1, 100, -1, -1).verdict());
    }

    @Test
    void shouldPickTheLargestHeldStepAndCompareAtTheLargestCommonOne()
    {
        final List<MediaRow> rows = List.of(
            new MediaRow("Sipline", load(50, 1000, 1000, 0), 10, 100, -1, -1),
            new MediaRow("rtpengine", load(50, 1000, 1000, 0), 20, 100, -1, -1),
            new MediaRow("Sipline", load(100, 2000, 2000, 0), 10, 100, -1, -1),
            new MediaRow("rtpengine", load(100, 2000, 2000, 0), 40, 100, -1, -1),
            new MediaRow("Sipline", load(200, 4000, 4000, 0), 20, 100, -1, -1),
            new MediaRow("rtpengine", load(200, 4000, 3000, 0), 40, 100, -1, -1));
        final Map<String, MediaRow> best = MediaReport.bestHeld(rows);
        assertEquals(200, best.get("Sipline").load().calls());
        assertEquals(100, best.get("rtpengine").load().calls());
        assertArrayEquals(new double[] {100, 4.0}, MediaReport.ratioAtLargestCommonStep(rows, "Sipline",
            "rtpengine"), 1e-9);
        assertNull(MediaReport.ratioAtLargestCommonStep(rows.subList(0, 1), "Sipline", "rtpengine"));
        final String md = MediaReport.markdown("cmd", rows);
        assertTrue(md.contains("- Sipline: most calls held 200;"), md);
        assertTrue(md.contains("At 100 calls, both held: Sipline relays 4.00 times"), md);
    }

    @Test
    void shouldCompareAtEveryStepBothRanHeldOrNot()
    {
        final List<MediaRow> rows = List.of(
            new MediaRow("Sipline", load(50, 1000, 1000, 6_000_000), 10, 100, -1, -1),
            new MediaRow("rtpengine", load(50, 1000, 1000, 9_000_000), 20, 100, -1, -1),
            new MediaRow("Sipline", load(200, 4000, 4000, 0), 20, 100, -1, -1),
            new MediaRow("rtpengine", load(200, 4000, 3000, 0), 40, 100, -1, -1),
            new MediaRow("Sipline", load(400, 8000, 0, 0), 20, 100, -1, -1),
            new MediaRow("rtpengine", load(400, 8000, 8000, 0), 40, 100, -1, -1),
            new MediaRow("Sipline", load(800, 16000, 16000, 0), 20, 100, -1, -1));
        final List<double[]> each = MediaReport.ratioAtEachStep(rows, "Sipline", "rtpengine");
        assertEquals(2, each.size(), "400: Sipline relayed nothing; 800: rtpengine did not run");
        assertArrayEquals(new double[] {50, 2.0}, each.get(0), 1e-9);
        assertArrayEquals(new double[] {200, 20_000.0 / 7_500}, each.get(1), 1e-9);
        final String md = MediaReport.markdown("cmd", rows);
        assertTrue(md.contains("- Sipline: held no step.") || md.contains("- Sipline: most calls held 800;"), md);
        assertTrue(md.contains("at each step both ran (held or not): 50 calls 2.00; 200 calls 2.67."), md);
    }

    @Test
    void shouldReportARelayThatHeldNothing()
    {
        final List<MediaRow> rows = List.of(new MediaRow("rtpengine", load(50, 1000, 0, 0), 1, 100, -1, -1));
        assertTrue(MediaReport.bestHeld(rows).containsKey("rtpengine"));
        assertTrue(MediaReport.markdown("cmd", rows).contains("- rtpengine: held no step."));
    }
}
