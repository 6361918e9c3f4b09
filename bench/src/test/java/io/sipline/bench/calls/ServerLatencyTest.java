package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.Locale;

import org.junit.jupiter.api.Test;

/**
 * The server's own response times of a step from two {@code /metrics} scrapes: bucket deltas summed over the shards,
 * percentiles (nearest rank) and max as the upper bound of the bucket they fall in, and "n/a" (never 0) for a scrape
 * that failed or does not fit.
 */
class ServerLatencyTest
{
    /** The bounds of a small histogram (the server's has 88; the computation does not depend on how many). */
    private static final String[] LE = {"5.0E-5", "1.0E-4", "0.0012", "0.00225", "0.05", "+Inf"};

    /**
     * A scrape as the server writes it: for each shard, the cumulative counts of {@link #LE} for 180 and 2xx, with
     * the other metrics around them.
     */
    private static String exposition(final long[][] ringingPerShard, final long[][] answeredPerShard)
    {
        final StringBuilder b = new StringBuilder("# HELP sipline_sip_invite_response_seconds Server INVITE response "
            + "time\n# TYPE sipline_sip_invite_response_seconds histogram\n");
        for (int k = 0; k < ringingPerShard.length; k++)
        {
            lines(b, k, "180", ringingPerShard[k]);
            lines(b, k, "2xx", answeredPerShard[k]);
            lines(b, k, "3xx-6xx", new long[LE.length]);
        }
        b.append("sipline_sip_invite_response_max_seconds{response=\"180\",shard=\"0\"} 0.03\n");
        b.append("sipline_udp_datagrams_received_total{shard=\"0\"} 1.0E7\n");
        return b.toString();
    }

    private static void lines(final StringBuilder b, final int shard, final String response, final long[] counts)
    {
        long sum = 0;
        for (int i = 0; i < LE.length; i++)
        {
            sum += counts[i];
            b.append(String.format(Locale.ROOT, "sipline_sip_invite_response_seconds_bucket{response=\"%s\","
                + "shard=\"%d\",le=\"%s\"} %d%n", response, shard, LE[i], sum));
        }
        b.append(String.format(Locale.ROOT, "sipline_sip_invite_response_seconds_count{response=\"%s\",shard=\"%d\"} "
            + "%d%n", response, shard, sum));
    }

    @Test
    void shouldTakeTheBucketDeltasOverShardsAndGiveUpperBounds() throws IOException
    {
        // per bucket (not cumulative); before the step shard 0 had answered 10 calls already, in the 2.25 ms bucket
        final ServerLatency.Scrape before = ServerLatency.Scrape.parse(exposition(
            new long[][] {{0, 0, 10, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
            new long[][] {{0, 0, 0, 10, 0, 0}, {0, 0, 0, 0, 0, 0}}));
        // during it: 180s: 40 + 50 <= 0.05 ms, 5 + 4 in 1.2 ms, 1 in 50 ms (100 in all);
        // 2xx: 98 in 2.25 ms, 2 past 50 ms
        final ServerLatency.Scrape after = ServerLatency.Scrape.parse(exposition(
            new long[][] {{40, 0, 15, 0, 1, 0}, {50, 0, 4, 0, 0, 0}},
            new long[][] {{0, 0, 0, 60, 0, 1}, {0, 0, 0, 48, 0, 1}}));

        final ServerLatency ringing = ServerLatency.between(before, after, "180");
        assertEquals(ServerLatency.State.MEASURED, ringing.state());
        assertEquals(100, ringing.count());
        assertEquals(0.05, ringing.p50(), 1e-9, "rank 50 of 100: 90 calls at most 0.05 ms");
        assertEquals(0.05, ringing.p90(), 1e-9, "rank 90");
        assertEquals(1.2, ringing.p99(), 1e-9, "rank 99: in the 1.2 ms bucket");
        assertEquals(50.0, ringing.max(), 1e-9);

        final ServerLatency answered = ServerLatency.between(before, after, "2xx");
        assertEquals(100, answered.count(), "the 10 answered before the step are not counted");
        assertEquals(2.25, answered.p50(), 1e-9);
        assertEquals(2.25, answered.p90(), 1e-9);
        assertEquals(Double.POSITIVE_INFINITY, answered.p99(), "rank 99 is past the last finite bound");
        assertEquals(Double.POSITIVE_INFINITY, answered.max());
        assertEquals("<= 2.25 / <= 2.25 / > 10000 / > 10000", Report.serverLatency(answered));
        assertEquals("<= 0.05 / <= 0.05 / <= 1.20 / <= 50.00", Report.serverLatency(ringing));

        final ServerLatency none = ServerLatency.between(before, before, "180");
        assertEquals(ServerLatency.State.MEASURED, none.state());
        assertEquals(0, none.count());
        assertEquals("none timed", Report.serverLatency(none));
    }

    @Test
    void shouldReadTheClientSidesHistogramApartFromTheServerSides() throws IOException
    {
        // The server side: every 180 within 0.05 ms; the client side (the far end answering the server's INVITEs,
        // the same shape under its own name): 99 in 1.2 ms, 1 in 50 ms. Neither may leak into the other.
        final String server = exposition(new long[][] {{100, 0, 0, 0, 0, 0}}, new long[][] {{0, 0, 0, 0, 0, 0}});
        final String client = exposition(new long[][] {{0, 0, 99, 0, 1, 0}}, new long[][] {{0, 0, 0, 0, 0, 0}})
            .replace(ServerLatency.METRIC, ServerLatency.CLIENT_METRIC);
        final String zero = exposition(new long[][] {new long[LE.length]}, new long[][] {new long[LE.length]});
        final ServerLatency.Scrape before = ServerLatency.Scrape.parse(zero + zero.replace(ServerLatency.METRIC,
            ServerLatency.CLIENT_METRIC));
        final ServerLatency.Scrape after = ServerLatency.Scrape.parse(server + client);

        final ServerLatency farEnd = ServerLatency.between(before, after, ServerLatency.CLIENT_METRIC, "180");
        assertEquals(100, farEnd.count());
        assertEquals("<= 1.20 / <= 1.20 / <= 1.20 / <= 50.00", Report.serverLatency(farEnd));
        assertEquals("<= 0.05 / <= 0.05 / <= 0.05 / <= 0.05",
            Report.serverLatency(ServerLatency.between(before, after, "180")));
        // A server without the client side's histogram (an older one): "n/a" for it, the server side still read.
        final ServerLatency.Scrape old = ServerLatency.Scrape.parse(server);
        assertSame(ServerLatency.FAILED, ServerLatency.between(old, old, ServerLatency.CLIENT_METRIC, "180"));
        assertEquals(0, ServerLatency.between(old, old, "180").count());
    }

    @Test
    void shouldReadTheInputLagByPath() throws IOException
    {
        final String lag = """
            sipline_sip_input_lag_seconds_bucket{path="read",shard="0",le="5.0E-5"} 3
            sipline_sip_input_lag_seconds_bucket{path="read",shard="0",le="+Inf"} 4
            sipline_sip_input_lag_seconds_bucket{path="handover",shard="0",le="5.0E-5"} 0
            sipline_sip_input_lag_seconds_bucket{path="handover",shard="0",le="+Inf"} 2
            sipline_sip_input_lag_seconds_bucket{path="read",shard="1",le="5.0E-5"} 1
            sipline_sip_input_lag_seconds_bucket{path="read",shard="1",le="+Inf"} 1
            """;
        final ServerLatency.Scrape before = ServerLatency.Scrape.parse(lag.replaceAll("} \\d+", "} 0"));
        final ServerLatency.Scrape after = ServerLatency.Scrape.parse(lag);
        final ServerLatency read = ServerLatency.between(before, after, ServerLatency.INPUT_LAG_METRIC, "read");
        assertEquals(5, read.count(), "both shards");
        assertEquals(0.05, read.p50(), 1e-9);
        assertEquals(Double.POSITIVE_INFINITY, read.max());
        assertEquals(2, ServerLatency.between(before, after, ServerLatency.INPUT_LAG_METRIC, "handover").count());
    }

    @Test
    void shouldSayNaNeverZeroWhenAScrapeFailedOrDoesNotFit() throws IOException
    {
        final ServerLatency.Scrape ok = ServerLatency.Scrape.parse(exposition(
            new long[][] {{1, 0, 0, 0, 0, 0}}, new long[][] {{1, 0, 0, 0, 0, 0}}));
        assertSame(ServerLatency.FAILED, ServerLatency.between(ServerLatency.Scrape.FAILED, ok, "180"));
        assertSame(ServerLatency.FAILED, ServerLatency.between(ok, ServerLatency.Scrape.FAILED, "2xx"));
        assertEquals("n/a", Report.serverLatency(ServerLatency.FAILED));
        // a server restarted between the scrapes: its counts went down
        final ServerLatency.Scrape reset = ServerLatency.Scrape.parse(exposition(
            new long[][] {{0, 0, 0, 0, 0, 0}}, new long[][] {{0, 0, 0, 0, 0, 0}}));
        assertSame(ServerLatency.FAILED, ServerLatency.between(ok, reset, "180"));
        // a server without the histogram (an older build)
        final ServerLatency.Scrape without = ServerLatency.Scrape.parse("sipline_shard_up{shard=\"0\"} 1.0\n");
        assertSame(ServerLatency.FAILED, ServerLatency.between(without, without, "180"));
        // no admin port at all: no figure, not a failure
        assertSame(ServerLatency.NOT_MEASURED, ServerLatency.between(null, null, "180"));
        assertEquals("-", Report.serverLatency(ServerLatency.NOT_MEASURED));
        assertThrows(IOException.class, () -> ServerLatency.Scrape.parse(
            "sipline_sip_invite_response_seconds_bucket{response=\"180\",shard=\"0\",le=\"x\"} 1\n"));
    }

    @Test
    void shouldFailTheScrapeOfAPortWhereNothingListens() throws IOException
    {
        final int port = SystemUnderTest.freeTcpPort();
        assertThrows(IOException.class, () -> ServerLatency.Scrape.fetch(port));
    }
}
