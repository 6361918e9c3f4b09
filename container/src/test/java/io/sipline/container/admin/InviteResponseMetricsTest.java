package io.sipline.container.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sipline.sip.transaction.InviteResponse;
import io.sipline.sip.transaction.ResponseTimeHistogram;

/**
 * {@code sipline_sip_invite_response_seconds} in the Prometheus text format: two shards' histograms as the
 * transaction layers fill them, exposed per shard and response kind with cumulative {@code le} buckets, count, sum
 * in seconds, the max gauge and the untimed counter.
 */
class InviteResponseMetricsTest
{
    private static String scrape(final PrometheusRegistry registry) throws Exception
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldExposeEachShardsHistogramsWithCumulativeBuckets() throws Exception
    {
        final ResponseTimeHistogram[][] h = new ResponseTimeHistogram[2][InviteResponse.values().length];
        for (final ResponseTimeHistogram[] shard : h)
        {
            for (int i = 0; i < shard.length; i++)
            {
                shard[i] = new ResponseTimeHistogram();
            }
        }
        final ResponseTimeHistogram ringing0 = h[0][InviteResponse.RINGING.ordinal()];
        ringing0.record(40_000L); // le 0.00005
        ringing0.record(1_180_000L); // le 0.0012
        ringing0.record(1_200_000L); // le 0.0012 (on the bound)
        ringing0.record(30_000_000L); // le 0.05
        h[1][InviteResponse.SUCCESS.ordinal()].record(4_300_000L); // le 0.0045
        h[1][InviteResponse.SUCCESS.ordinal()].recordUntimed();

        final PrometheusRegistry registry = new PrometheusRegistry();
        SipMetrics.registerInviteResponseTimes(registry, () -> 2, (k, kind) -> h[k][kind.ordinal()],
            SipMetrics.ResponseTimeNames.SERVER);
        final String text = scrape(registry);

        final String ringing = "sipline_sip_invite_response_seconds_bucket{response=\"180\",shard=\"0\",le=\"";
        assertTrue(text.contains("# TYPE sipline_sip_invite_response_seconds histogram\n"), text);
        assertTrue(text.contains(ringing + "5.0E-5\"} 1\n"), text);
        assertTrue(text.contains(ringing + "0.00115\"} 1\n"), text);
        assertTrue(text.contains(ringing + "0.0012\"} 3\n"), text);
        assertTrue(text.contains(ringing + "0.01\"} 3\n"), text);
        assertTrue(text.contains(ringing + "0.05\"} 4\n"), text);
        assertTrue(text.contains(ringing + "+Inf\"} 4\n"), text);
        assertTrue(text.contains("sipline_sip_invite_response_seconds_count{response=\"180\",shard=\"0\"} 4\n"), text);
        assertTrue(text.contains("sipline_sip_invite_response_seconds_sum{response=\"180\",shard=\"0\"} 0.03242\n"),
            text);
        assertTrue(text.contains("sipline_sip_invite_response_seconds_bucket{response=\"2xx\",shard=\"1\","
            + "le=\"0.0045\"} 1\n"), text);
        assertTrue(text.contains("sipline_sip_invite_response_seconds_bucket{response=\"2xx\",shard=\"1\","
            + "le=\"0.00425\"} 0\n"), text);
        assertTrue(text.contains("sipline_sip_invite_response_seconds_count{response=\"2xx\",shard=\"0\"} 0\n"), text);
        assertTrue(text.contains("sipline_sip_invite_response_seconds_count{response=\"3xx-6xx\",shard=\"1\"} 0\n"),
            text);
        assertTrue(text.contains("sipline_sip_invite_response_max_seconds{response=\"180\",shard=\"0\"} 0.03\n"),
            text);
        assertTrue(text.contains("sipline_sip_invite_responses_untimed_total{response=\"2xx\",shard=\"1\"} 1.0\n"),
            text);
        // 88 buckets for each of 2 shards x 3 kinds
        final long buckets = text.lines().filter(l -> l.startsWith("sipline_sip_invite_response_seconds_bucket{"))
            .count();
        assertEquals(2L * 3 * ResponseTimeHistogram.BUCKETS, buckets);
        assertEquals(List.of(), text.lines().filter(l -> l.contains("_bucket{") && l.endsWith(" -1")).toList());

        // The client side (the next hop answering this server's INVITEs): the same shape under its own names.
        final PrometheusRegistry client = new PrometheusRegistry();
        SipMetrics.registerInviteResponseTimes(client, () -> 2, (k, kind) -> h[k][kind.ordinal()],
            SipMetrics.ResponseTimeNames.CLIENT);
        final String clientText = scrape(client);
        assertTrue(clientText.contains("# TYPE sipline_sip_invite_client_response_seconds histogram\n"), clientText);
        assertTrue(clientText.contains("sipline_sip_invite_client_response_seconds_count{response=\"180\",shard=\"0\"}"
            + " 4\n"), clientText);
        assertTrue(clientText.contains("sipline_sip_invite_client_response_max_seconds{response=\"180\",shard=\"0\"}"
            + " 0.03\n"), clientText);
        assertTrue(clientText.contains(
            "sipline_sip_invite_client_responses_untimed_total{response=\"2xx\",shard=\"1\"} 1.0\n"), clientText);
        assertEquals(0, clientText.lines().filter(l -> l.startsWith("sipline_sip_invite_response_")).count());
    }

    @Test
    void shouldExportTheInputLagByPath() throws Exception
    {
        final ResponseTimeHistogram read = new ResponseTimeHistogram();
        final ResponseTimeHistogram handover = new ResponseTimeHistogram();
        read.record(30_000L); // le 5.0E-5
        handover.record(1_180_000L); // le 0.0012
        handover.record(1_180_000L);
        final PrometheusRegistry registry = new PrometheusRegistry();
        SipMetrics.registerInputLag(registry, () -> 1, (k, v) -> 0 == v ? read : handover);
        final String text = scrape(registry);
        assertTrue(text.contains("# TYPE sipline_sip_input_lag_seconds histogram\n"), text);
        assertTrue(text.contains("sipline_sip_input_lag_seconds_count{path=\"read\",shard=\"0\"} 1\n"), text);
        assertTrue(text.contains("sipline_sip_input_lag_seconds_count{path=\"handover\",shard=\"0\"} 2\n"), text);
        assertTrue(text.contains(
            "sipline_sip_input_lag_seconds_bucket{path=\"handover\",shard=\"0\",le=\"0.0012\"} 2\n"), text);
    }
}
