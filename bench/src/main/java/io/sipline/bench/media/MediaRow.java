package io.sipline.bench.media;

/**
 * One step of {@code bin/sipline bench media} for one relay, and the figures the report derives from it.
 *
 * @param system         the relay's name.
 * @param load           what the generator measured.
 * @param cpuTicks       the relay process's CPU (user + system) over the window, in clock ticks.
 * @param ticksPerSecond clock ticks per second ({@code /proc}'s USER_HZ).
 * @param relayed        packets the relay says it relayed over the window; -1 when it does not say.
 * @param allocated      bytes its media threads allocated over the window; -1 when unknown.
 */
record MediaRow(String system, MediaLoad.Result load, long cpuTicks, long ticksPerSecond, long relayed,
    long allocated)
{
    /** Most loss a held step may show: 0.1 %. */
    static final double MAX_LOSS = 0.001;
    /** Most added jitter (p99) a held step may show: 5 ms. */
    static final long MAX_JITTER_NANOS = 5_000_000;

    /** @return the fraction of the window's packets that did not arrive; 1 when none was sent. */
    double loss()
    {
        return load.sent() <= 0 ? 1 : Math.max(0, 1 - (double)load.received() / load.sent());
    }

    /** @return whether the relay held the calls: under 0.1 % loss and at most 5 ms added jitter at p99. */
    boolean held()
    {
        return load.received() > 0 && loss() < MAX_LOSS && load.jitterP99() <= MAX_JITTER_NANOS;
    }

    /** @return the relay's CPU over the window, in seconds. */
    double cpuSeconds()
    {
        return (double)cpuTicks / ticksPerSecond;
    }

    /** @return CPU milliseconds per 1,000 packets that reached the other phone; NaN when none did. */
    double cpuMsPerThousand()
    {
        return load.received() <= 0 ? Double.NaN : cpuSeconds() * 1000 / (load.received() / 1000.0);
    }

    /** @return packets that reached the other phone per CPU-second of the relay; infinite when no tick was seen. */
    double packetsPerCpuSecond()
    {
        return 0 == cpuTicks ? Double.POSITIVE_INFINITY : load.received() / cpuSeconds();
    }

    /** @return bytes allocated per relayed packet; NaN when unknown. */
    double bytesPerPacket()
    {
        if (allocated < 0)
        {
            return Double.NaN;
        }
        final long packets = relayed > 0 ? relayed : load.received();
        return packets <= 0 ? Double.NaN : (double)allocated / packets;
    }

    /** @return the table row of the report. */
    String markdown()
    {
        final double ms = 1e6;
        return String.format("| %s | %,d | %,d | %.3f%% | %.2f | %.2f | %.2f | %.2f | %s | %,.0f | %s | %s |",
            system, load.calls(), load.received(), 100 * loss(), load.latencyP50() / ms, load.latencyP99() / ms,
            load.jitterP99() / ms, cpuSeconds(), Double.isNaN(cpuMsPerThousand()) ? "-"
                : String.format("%.2f", cpuMsPerThousand()), packetsPerCpuSecond(),
            Double.isNaN(bytesPerPacket()) ? "-" : String.format("%.2f", bytesPerPacket()), verdict());
    }

    /** @return "yes", or "no" with what failed. */
    String verdict()
    {
        if (held())
        {
            return "yes";
        }
        if (load.received() <= 0)
        {
            return "no (nothing relayed)";
        }
        return loss() >= MAX_LOSS ? "no (loss)" : "no (jitter)";
    }

    /** The header of the table {@link #markdown()} rows go in. */
    static final String HEADER = "| relay | calls | packets relayed | loss | added latency p50 ms | p99 ms | "
        + "added jitter p99 ms | relay CPU s | CPU ms per 1,000 packets | packets per CPU-second | "
        + "allocated bytes per packet | held |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
}
