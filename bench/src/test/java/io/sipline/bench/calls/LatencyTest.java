package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The percentiles of a step from sipp's per-call log, over the whole step and second by second. */
class LatencyTest
{
    @Test
    void shouldGiveEachSecondItsOwnP99SoThatOneBadSecondShows(@TempDir final Path dir) throws Exception
    {
        // 3 s at 100 calls/s: 180s of 1 ms, but in the second second 5 of them take 30 ms; the 200s 2 ms throughout.
        final List<String> lines = new ArrayList<>();
        for (int i = 0; i < 300; i++)
        {
            lines.add("180 " + (i >= 100 && i < 105 ? 30_000 : 1_000) + ".000000");
            lines.add("200 2000.000000");
        }
        lines.add("not a timing line");
        final Path log = Files.write(dir.resolve("uac-calls.log"), lines);

        final Latency[] l = Latency.read(log, 100);
        final Latency ringing = l[0];
        assertEquals(300, ringing.count());
        assertEquals(1.0, ringing.p50());
        assertEquals(30.0, ringing.p99(), "5 of 300 above it: the whole step's p99 is the bad second's");
        assertArrayEquals(new double[] {1.0, 30.0, 1.0}, ringing.p99PerSecond());
        assertEquals(1.0, ringing.medianSecondP99());
        assertEquals(1, ringing.worstSecond());
        assertEquals("1.00 / 30.00 (1)", Report.perSecond(ringing));
        assertArrayEquals(new double[] {2.0, 2.0, 2.0}, l[1].p99PerSecond());
    }

    @Test
    void shouldKeepALastPartialSecondOnlyWhenItIsAtLeastHalfOne()
    {
        final double[] millis = new double[250];
        java.util.Arrays.fill(millis, 1.0);
        millis[240] = 9.0;
        assertEquals(3, Latency.of(millis.clone(), 100).p99PerSecond().length, "50 of 100: kept");
        assertEquals(9.0, Latency.of(millis.clone(), 100).p99PerSecond()[2]);
        assertEquals(2, Latency.of(java.util.Arrays.copyOf(millis, 249), 100).p99PerSecond().length, "49: left out");
        assertEquals(0, Latency.NONE.p99PerSecond().length);
        assertTrue(Double.isNaN(Latency.NONE.medianSecondP99()));
        assertEquals(-1, Latency.NONE.worstSecond());
        assertEquals("-", Report.perSecond(Latency.NONE));
    }
}
