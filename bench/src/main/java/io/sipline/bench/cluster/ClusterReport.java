package io.sipline.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

import io.sipline.bench.calls.AllocationRun;
import io.sipline.bench.calls.MaxSearch;
import io.sipline.bench.calls.Step;

/**
 * The results of {@code bench cluster} as {@code report.md}: the per-call steps pair by pair with the mean of each
 * variant and the ratio distributable / not distributable, the allocation runs with their ratio, and the calls/s
 * searches with the ratio behind the front / alone. Written again after each result, so that an interrupted run
 * keeps what it measured. Not thread-safe; the harness's main thread.
 */
final class ClusterReport
{
    /** One per-call step: the node's step and what it wrote to the grid over it. */
    record PerCall(boolean distributable, int pair, Step step, GridCounters grid)
    {
        double perCall(final long total)
        {
            return total < 0 || 0 == step.successful() ? Double.NaN : total / (double)step.successful();
        }
    }

    /** One allocation run. */
    record Allocated(boolean distributable, AllocationRun.Result result)
    {
    }

    private final Path dir;
    private final String command;
    private final int rate;
    private final int calls;
    private final Instant started = Instant.now();
    private final List<PerCall> perCall = new ArrayList<>();
    private final List<Allocated> allocated = new ArrayList<>();
    private MaxSearch.Result<Step> alone;
    private MaxSearch.Result<Step> fronted;

    ClusterReport(final Path dir, final String command, final int rate, final int calls)
    {
        this.dir = dir;
        this.command = command;
        this.rate = rate;
        this.calls = calls;
    }

    void add(final PerCall p)
    {
        perCall.add(p);
    }

    void add(final Allocated a)
    {
        allocated.add(a);
    }

    void add(final boolean behindFront, final MaxSearch.Result<Step> r)
    {
        if (behindFront)
        {
            fronted = r;
        }
        else
        {
            alone = r;
        }
    }

    void write() throws IOException
    {
        Files.writeString(dir.resolve("report.md"), text());
    }

    String text()
    {
        final StringBuilder md = new StringBuilder("# bench cluster\n\n`").append(command).append("`, started ")
            .append(started).append(", written ").append(Instant.now()).append("\n\n");
        if (!perCall.isEmpty())
        {
            md.append("## Per call: examples/b2bua not distributable against distributable, ").append(calls)
                .append(" calls at ").append(rate).append("/s, alternated\n\n")
                .append("| step | variant | calls ok / failed | node CPU s per 1,000 calls | snapshots per call | ")
                .append("bytes handed to the grid per call | bytes sent by the grid transport per call |\n")
                .append("|---|---|---:|---:|---:|---:|---:|\n");
            for (final PerCall p : perCall)
            {
                md.append("| ").append(p.pair()).append(" | ").append(variant(p.distributable())).append(" | ")
                    .append(p.step().successful()).append(" / ").append(p.step().failed()).append(" | ")
                    .append(f(p.step().cpuPer1000(), 3)).append(" | ").append(f(p.perCall(p.grid().snapshots()), 2))
                    .append(" | ").append(f(p.perCall(p.grid().written()), 0)).append(" | ")
                    .append(f(p.perCall(p.grid().sent()), 0)).append(" |\n");
            }
            final double base = mean(false, p -> p.step().cpuPer1000());
            final double dist = mean(true, p -> p.step().cpuPer1000());
            md.append("\nMean node CPU s per 1,000 calls: not distributable ").append(f(base, 3))
                .append(", distributable ").append(f(dist, 3)).append(": ratio **").append(f(dist / base, 2))
                .append("**. Bytes handed to the grid per call (distributable): ")
                .append(f(mean(true, p -> p.perCall(p.grid().written())), 0)).append("; sent by its transport: ")
                .append(f(mean(true, p -> p.perCall(p.grid().sent())), 0)).append(".\n\n");
        }
        if (!allocated.isEmpty())
        {
            md.append("## Allocated bytes per call (epsilon, TLABs off)\n\n| variant | calls | bytes per call |\n")
                .append("|---|---:|---:|\n");
            for (final Allocated a : allocated)
            {
                md.append("| ").append(variant(a.distributable())).append(" | ")
                    .append(a.result().step().successful()).append(" | ").append(f(a.result().perCall(), 0))
                    .append(" |\n");
            }
            if (2 == allocated.size())
            {
                md.append("\nRatio distributable / not distributable: **").append(f(allocated.get(1).result()
                    .perCall() / allocated.get(0).result().perCall(), 2)).append("**\n");
            }
            md.append('\n');
        }
        if (null != alone || null != fronted)
        {
            md.append("## Calls/s of one distributable node: alone against behind Kamailio (cluster/kamailio/")
                .append("kamailio.cfg)\n\n| path | highest rate sustained twice | CPU s per 1,000 calls at it | ")
                .append("steps |\n|---|---:|---:|---|\n");
            row(md, "sipp to the node", "node", alone);
            row(md, "sipp to the front to the node, both legs through the front", "node + Kamailio", fronted);
            if (null != alone && null != fronted && alone.max() > 0)
            {
                md.append("\nRatio behind the front / alone: **").append(f(fronted.max() / (double)alone.max(), 2))
                    .append("**\n");
            }
        }
        return md.toString();
    }

    private static void row(final StringBuilder md, final String path, final String cpu,
        final MaxSearch.Result<Step> r)
    {
        if (null == r)
        {
            return;
        }
        final List<String> steps = new ArrayList<>();
        for (final Step s : r.steps())
        {
            steps.add(s.label() + (s.sustained() ? " ok" : " failed"));
        }
        md.append("| ").append(path).append(" | ").append(r.max()).append(" | ")
            .append(null == r.best() ? "-" : f(r.best().cpuPer1000(), 3) + " (" + cpu + ")").append(" | ")
            .append(String.join(", ", steps)).append(" |\n");
    }

    private double mean(final boolean distributable, final ToDoubleFunction<PerCall> figure)
    {
        return perCall.stream().filter(p -> p.distributable() == distributable).mapToDouble(figure).average()
            .orElse(Double.NaN);
    }

    private static String variant(final boolean distributable)
    {
        return distributable ? "distributable" : "not distributable";
    }

    private static String f(final double v, final int decimals)
    {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }
}
