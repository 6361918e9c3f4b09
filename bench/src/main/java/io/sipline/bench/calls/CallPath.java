package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Where {@link LoadDriver} sends sipp's calls and what it reads of it around a step: a server between the caller and
 * the far end ({@link ServerProcess}), or the far end itself ({@link FarEnd}: sipp alone, the floor of the
 * measurement on this machine). The harness's main thread.
 */
public interface CallPath
{
    /** The UDP port on 127.0.0.1 that the caller sends to. */
    int port();

    /** CPU used so far by what stands between caller and far end, in clock ticks (0 when nothing does). */
    long cpuTicks();

    /** The UDP ports of its sockets, whose kernel drops count (the far end's own are counted by the driver). */
    int[] socketPorts();

    /** Its GC log, or null. */
    Path gcLog();

    /**
     * The server's own INVITE response-time histograms now, from its {@code /metrics} ({@link ServerLatency}); null
     * when it has none (no admin port: the baselines, sipp alone).
     *
     * @throws IOException when the scrape fails (the step then says "n/a").
     */
    default ServerLatency.Scrape scrapeServerTimes() throws IOException
    {
        return null;
    }

    /**
     * Nothing between sipp's caller and its far end: the caller sends straight to the far end's port. A step on it
     * measures sipp alone at a rate, so that a server's latency can be read against what sipp itself adds on the
     * same cores.
     */
    record FarEnd(int port) implements CallPath
    {
        @Override
        public long cpuTicks()
        {
            return 0;
        }

        @Override
        public int[] socketPorts()
        {
            return new int[0];
        }

        @Override
        public Path gcLog()
        {
            return null;
        }
    }
}
