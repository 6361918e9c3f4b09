package io.sipline.bench.calls;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server's own INVITE response times over one step, in milliseconds, from two scrapes of its {@code /metrics}
 * (before sipp's caller starts and after it ends): the deltas of the {@code sipline_sip_invite_response_seconds}
 * buckets, summed over the shards, for one {@code response} ({@code 180} or {@code 2xx}). Each figure is the upper
 * bound of the bucket the percentile (nearest rank) falls in, so it reads "at most x ms"; {@code max} is the upper
 * bound of the highest non-empty bucket. What it measures: from the kernel's receive timestamp of the INVITE on the
 * server's socket to the moment the server handed its first 180 (first 2xx) to its socket. What it leaves out: sipp's
 * own delays on the caller side (sending the INVITE late after reading its clock, reading the response late), which
 * sipp's own figure includes. Immutable.
 *
 * @param state  whether there is a figure: {@link State#NOT_MEASURED} (no admin port: a baseline, sipp alone),
 *               {@link State#SCRAPE_FAILED} (a scrape failed or did not fit: "n/a", never 0), else
 *               {@link State#MEASURED} (with {@code count} possibly 0 when no response was timed).
 * @param count  responses timed during the step.
 */
public record ServerLatency(State state, long count, double p50, double p90, double p99, double max)
{
    /** Whether a step has this figure. */
    public enum State
    {
        MEASURED, NOT_MEASURED, SCRAPE_FAILED
    }

    /** No server figure for this step (not a Sipline server). */
    public static final ServerLatency NOT_MEASURED =
        new ServerLatency(State.NOT_MEASURED, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    /** A scrape failed: the step says "n/a". */
    public static final ServerLatency FAILED =
        new ServerLatency(State.SCRAPE_FAILED, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /** The histogram's name on {@code /metrics}. */
    static final String METRIC = "sipline_sip_invite_response_seconds";
    /**
     * The client side's histogram: the next hop (sipp's uas) answering the server's INVITEs, as the server saw it,
     * from the moment its socket took the INVITE to the kernel's receive timestamp of the response.
     */
    static final String CLIENT_METRIC = "sipline_sip_invite_client_response_seconds";
    /**
     * Per message, from its arrival (the kernel's receive timestamp) to the moment its shard began to handle it, by
     * {@code path}: {@code read} (from the shard's own socket) or {@code handover} (read by another shard).
     */
    static final String INPUT_LAG_METRIC = "sipline_sip_input_lag_seconds";
    private static final List<String> BUCKETS = List.of(METRIC + "_bucket", CLIENT_METRIC + "_bucket",
        INPUT_LAG_METRIC + "_bucket");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:\\\\.|[^\"\\\\])*)\"");
    private static final int TIMEOUT_MS = 5_000;

    /** The Prometheus text {@code GET http://127.0.0.1:port/metrics} answers. */
    public static String metricsText(final int port) throws IOException
    {
        final HttpURLConnection http =
            (HttpURLConnection)URI.create("http://127.0.0.1:" + port + "/metrics").toURL().openConnection();
        http.setConnectTimeout(TIMEOUT_MS);
        http.setReadTimeout(TIMEOUT_MS);
        try
        {
            if (200 != http.getResponseCode())
            {
                throw new IOException("GET /metrics on port " + port + ": HTTP " + http.getResponseCode());
            }
            try (InputStream in = http.getInputStream())
            {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        finally
        {
            http.disconnect();
        }
    }

    /**
     * One scrape of the histograms ({@link #METRIC}, {@link #CLIENT_METRIC}, {@link #INPUT_LAG_METRIC}): per histogram
     * and {@code response} (or {@code path}) label, the cumulative count of each {@code le} bound (seconds,
     * {@code +Inf} as infinity) summed over the shards.
     * {@link #FAILED} stands for a scrape that failed.
     */
    public static final class Scrape
    {
        /** A scrape that failed. */
        public static final Scrape FAILED = new Scrape(Map.of());

        private final Map<String, NavigableMap<Double, Long>> cumulative;

        private Scrape(final Map<String, NavigableMap<Double, Long>> cumulative)
        {
            this.cumulative = cumulative;
        }

        /**
         * Reads the {@code _bucket} lines of both histograms of a Prometheus text exposition.
         *
         * @throws IOException when a bucket line does not parse.
         */
        public static Scrape parse(final String text) throws IOException
        {
            final Map<String, NavigableMap<Double, Long>> sums = new HashMap<>();
            for (final String line : text.split("\n"))
            {
                final String bucket = BUCKETS.stream().filter(b -> line.startsWith(b + "{")).findFirst().orElse(null);
                if (null == bucket)
                {
                    continue;
                }
                final int close = line.lastIndexOf('}');
                if (close < 0)
                {
                    throw new IOException("not a sample line: " + line);
                }
                String response = null;
                String le = null;
                final Matcher m = LABEL.matcher(line.substring(bucket.length() + 1, close));
                while (m.find())
                {
                    switch (m.group(1))
                    {
                        case "response", "path" -> response = m.group(2); // the histogram's one kind label
                        case "le" -> le = m.group(2);
                        default ->
                        {
                        }
                    }
                }
                if (null == response || null == le)
                {
                    throw new IOException("a bucket without response (or path) or le: " + line);
                }
                final double bound;
                final double value;
                try
                {
                    bound = "+Inf".equals(le) ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
                    value = Double.parseDouble(line.substring(close + 1).strip().split(" ")[0]);
                }
                catch (final NumberFormatException ex)
                {
                    throw new IOException("not a bucket line: " + line, ex);
                }
                final String histogram = bucket.substring(0, bucket.length() - "_bucket".length());
                sums.computeIfAbsent(key(histogram, response), r -> new TreeMap<>())
                    .merge(bound, Math.round(value), Long::sum);
            }
            return new Scrape(sums);
        }

        /** GETs {@code http://127.0.0.1:port/metrics} and parses it. */
        public static Scrape fetch(final int port) throws IOException
        {
            return parse(metricsText(port));
        }

        /** The cumulative counts of one histogram's response kind, by bound; null when the scrape has none. */
        NavigableMap<Double, Long> of(final String histogram, final String response)
        {
            return cumulative.get(key(histogram, response));
        }

        private static String key(final String histogram, final String response)
        {
            return histogram + " " + response;
        }
    }

    /**
     * The server side's figures ({@link #METRIC}) of the responses of one kind timed between two scrapes.
     *
     * @param before   null when the path has no such figures ({@link #NOT_MEASURED}).
     * @param response {@code 180} or {@code 2xx}.
     */
    public static ServerLatency between(final Scrape before, final Scrape after, final String response)
    {
        return between(before, after, METRIC, response);
    }

    /**
     * The figures of one histogram ({@link #METRIC} or {@link #CLIENT_METRIC}) for the responses of one kind timed
     * between two scrapes.
     */
    public static ServerLatency between(final Scrape before, final Scrape after, final String histogram,
        final String response)
    {
        if (null == before || null == after)
        {
            return NOT_MEASURED;
        }
        if (Scrape.FAILED == before || Scrape.FAILED == after)
        {
            return FAILED;
        }
        final NavigableMap<Double, Long> b = before.of(histogram, response);
        final NavigableMap<Double, Long> a = after.of(histogram, response);
        if (null == b || null == a || !a.keySet().equals(b.keySet()) || !a.containsKey(Double.POSITIVE_INFINITY))
        {
            return FAILED; // not the same histogram twice (no server figures, or another server)
        }
        final double[] bounds = new double[a.size()];
        final long[] cumulative = new long[a.size()];
        int i = 0;
        long previous = 0;
        for (final Map.Entry<Double, Long> e : a.entrySet())
        {
            final long delta = e.getValue() - b.get(e.getKey());
            if (delta < previous)
            {
                return FAILED; // a count went down (a restart) or the buckets are not cumulative
            }
            bounds[i] = e.getKey();
            cumulative[i++] = delta;
            previous = delta;
        }
        final long total = cumulative[cumulative.length - 1];
        if (0 == total)
        {
            return new ServerLatency(State.MEASURED, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        return new ServerLatency(State.MEASURED, total, rank(bounds, cumulative, 0.50), rank(bounds, cumulative, 0.90),
            rank(bounds, cumulative, 0.99), rank(bounds, cumulative, 1.0));
    }

    /** The upper bound (ms) of the bucket holding the nearest-rank {@code p} percentile. */
    private static double rank(final double[] bounds, final long[] cumulative, final double p)
    {
        final long total = cumulative[cumulative.length - 1];
        final long rank = Math.max(1, (long)Math.ceil(p * total));
        for (int i = 0; i < bounds.length; i++)
        {
            if (cumulative[i] >= rank)
            {
                return bounds[i] * 1000.0;
            }
        }
        return Double.POSITIVE_INFINITY;
    }
}
