package io.sipline.bench.media;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class HistogramTest
{
    @Test
    void shouldAnswerPercentilesWithTheUpperBucketEdge()
    {
        final Histogram h = new Histogram();
        assertEquals(0, h.percentile(0.99));
        for (int i = 1; i <= 100; i++)
        {
            h.record(i * 100_000L + 1); // 0.1 ms .. 10 ms, each just past a bucket edge
        }
        assertEquals(100, h.count());
        assertEquals(5_010_000, h.percentile(0.5), "the 50th value, 5.0 ms + 1 ns, is in the bucket ending 5.01 ms");
        assertEquals(9_910_000, h.percentile(0.99));
        assertEquals(10_000_001, h.percentile(1.0), "the top rank is capped at the maximum");
        assertEquals(10_000_001, h.max());
    }

    @Test
    void shouldKeepWhatIsPastTheLastBucketAsTheMaximum()
    {
        final Histogram h = new Histogram();
        h.record(-5);
        h.record(3_000_000_000L);
        assertEquals(Histogram.BUCKET_NANOS, h.percentile(0.5), "a negative duration counts as 0");
        assertEquals(3_000_000_000L, h.percentile(0.99));
        final Histogram sum = new Histogram();
        sum.add(h);
        sum.add(h);
        assertEquals(4, sum.count());
        sum.clear();
        assertEquals(0, sum.count());
        assertEquals(0, sum.max());
    }
}
