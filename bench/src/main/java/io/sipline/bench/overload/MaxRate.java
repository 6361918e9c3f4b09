package io.sipline.bench.overload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.sipline.bench.calls.LoadDriver;
import io.sipline.bench.calls.MaxSearch;
import io.sipline.bench.calls.Scenarios;
import io.sipline.bench.calls.ServerProcess;
import io.sipline.bench.calls.Step;
import io.sipline.bench.calls.SystemUnderTest;
import io.sipline.test.Sipp;

/**
 * The maximum sustained rate of a system, found as {@code bench calls --find-max} finds it ({@link MaxSearch}: a
 * rate counts once sustained twice, each step judged by {@link Step#sustained()}), with the steps of
 * {@link LoadDriver}: a fresh server after a failed step, a warm-up at half the first rate on each fresh server.
 * Every server is stopped by its handle. The harness's main thread.
 *
 * @param layout      where the repository and the JDK are
 * @param app         the example Sipline deploys
 * @param profile     the JVM's GC profile
 * @param serverArgs  options of {@code bin/sipline run} (Sipline only)
 * @param stepSeconds seconds per step
 * @param maxSteps    bound on the steps of each phase of the search
 * @param warmup      seconds of warm-up on each fresh server
 */
public record MaxRate(SystemUnderTest.Layout layout, String app, String profile, List<String> serverArgs,
    int stepSeconds, int maxSteps, int warmup)
{
    /** The highest rate of {@code system} sustained twice, searched from {@code first} calls/s; 0 when none. */
    public int find(final Path runDir, final Scenarios.Flow flow, final SystemUnderTest system, final int first)
        throws IOException, InterruptedException
    {
        final String tag = system.label();
        final Path dir = Files.createDirectories(runDir.resolve(tag + "-max"));
        final int uasPort = Sipp.freeUdpPort();
        final LoadDriver driver = new LoadDriver(dir, uasPort,
            SystemUnderTest.KAMAILIO == system ? Scenarios.KAMAILIO_UAC_OPTIONS : List.of(), flow);
        final ServerProcess[] server = new ServerProcess[1];
        final int[] started = new int[1];
        final int warmRate = first / 2 + 1;
        try
        {
            final MaxSearch.Result<Step> found = new MaxSearch<Step>(first, maxSteps, Step::sustained)
                .find((label, rate, fresh) ->
                {
                    if (fresh && null != server[0])
                    {
                        server[0].close();
                        server[0] = null;
                    }
                    if (null == server[0])
                    {
                        server[0] = system.startOnFreePort(layout, dir, app, system.jvm() ? profile : "-", uasPort,
                            List.of(), SystemUnderTest.SIPLINE == system ? serverArgs : List.of(), false);
                        if (warmup > 0)
                        {
                            driver.run(server[0], tag + "-warmup" + started[0]++, "warmup", warmRate,
                                warmRate * warmup, 0);
                        }
                    }
                    final Step step = driver.run(server[0], tag + "-" + label, label, rate, rate * stepSeconds, 0);
                    // the server's CPU says whether a rate is limited by its cores (a CPU quota full) or not
                    System.out.printf("bench: %s %s: %d calls/s: %d of %d completed, %d failed, %d retransmissions, "
                        + "%d dropped, server CPU %.3f s per 1,000 calls (%.2f cores): %s%n", tag, label, rate,
                        step.successful(), step.planned(), step.failed(), step.retransmissions(), step.drops(),
                        step.cpuPer1000(), step.serverCores(), step.sustained() ? "sustained" : "not sustained");
                    if (!step.sustained())
                    {
                        server[0].close();
                        server[0] = null;
                    }
                    return step;
                });
            System.out.printf("bench: %s: maximum sustained twice: %d calls/s%n", tag, found.max());
            return found.max();
        }
        finally
        {
            if (null != server[0])
            {
                server[0].close();
            }
        }
    }
}
