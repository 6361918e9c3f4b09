package io.sipline.bench.calls;

import java.util.List;

/**
 * The load steps of one system under one profile with one application ({@code app}: the example Sipline deployed;
 * for a baseline, which deploys nothing, the first application of the run it stands for), in the order they ran
 * (warm-ups included, not judged), with the highest rate sustained twice and never failed ({@code maxSustained}, 0
 * when none; see {@link MaxSearch}), the highest rate sustained at least once ({@code heldOnce}, which may be above
 * it), the steps that sustained the maximum ({@code confirming}), the step at 80% of it ({@code null} when not run),
 * and the lines the servers printed when they stopped ({@code sipline: stopped (...)} with their transport counters,
 * dropped messages included; empty when none). With a single {@code --rate} the one step confirms its rate when it is
 * sustained. Immutable.
 */
public record Series(SystemUnderTest system, String app, String profile, String scenario, List<Step> steps,
    int maxSustained, int heldOnce, List<Step> confirming, Step at80, String counters)
{
    /** A machine this busy, in cores per available core, is saturated (1.9 of 2 cores). */
    static final double SATURATED = 0.95;
    /** How far the machine's busy cores may fall below the server's own before they are not believed. */
    static final double MACHINE_SLACK_CORES = 0.1;

    public Series
    {
        steps = List.copyOf(steps);
        confirming = List.copyOf(confirming);
    }

    /** The same series with the counters the servers printed when they stopped (their own dropped-message counts). */
    public Series withCounters(final String stopLines)
    {
        return new Series(system, app, profile, scenario, steps, maxSustained, heldOnce, confirming, at80, stopLines);
    }

    /** The last step that sustained the maximum: its figures are those "at max"; null when there is no maximum. */
    public Step best()
    {
        return confirming.isEmpty() ? null : confirming.getLast();
    }

    /** The busiest the whole machine was (in cores) over the steps that sustained the maximum; NaN when none. */
    public double machineCoresAtMax()
    {
        double busiest = Double.NaN;
        for (final Step s : confirming)
        {
            busiest = Double.isNaN(busiest) ? s.machineCores() : Math.max(busiest, s.machineCores());
        }
        return busiest;
    }

    /**
     * Whether the whole machine was saturated at the maximum (at least {@link #SATURATED} of {@code cores} busy in
     * one of the confirming steps): the maximum is then a limit of sipp and the server together on this machine, not
     * of the server alone.
     */
    public boolean saturatedAtMax(final int cores)
    {
        final double busy = machineCoresAtMax();
        return !Double.isNaN(busy) && busy >= SATURATED * cores && !machineCountBelowServer();
    }

    /**
     * Whether the machine's busy time, in a step that sustained the maximum, was less than the server process alone
     * used (its utime+stime): then {@code /proc/stat} does not count what runs here (seen on a Firecracker VM, 0.03
     * cores for the machine while Kamailio used 0.37), and neither the machine column nor the saturation verdict
     * can be given. A tenth of a core of slack covers the two readings' different clocks.
     */
    public boolean machineCountBelowServer()
    {
        for (final Step s : confirming)
        {
            if (s.machineCores() + MACHINE_SLACK_CORES < s.serverCores())
            {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code system/profile app} for the system that deploys the application ({@code sipline/zgc typical-b2bua});
     * {@code system/profile} for a baseline ({@code jainsip/zgc}, {@code kamailio}), with {@code (proxy calls)} when
     * it stood for a proxy.
     */
    public String name()
    {
        return name(system, app, profile);
    }

    /** {@link #name()} of a series of {@code system} running {@code app} under {@code profile}. */
    public static String name(final SystemUnderTest system, final String app, final String profile)
    {
        final String base = system.jvm() ? system.label() + "/" + profile : system.label();
        return system.deploys() ? base + " " + app : SystemUnderTest.proxy(app) ? base + " (proxy calls)" : base;
    }

    /**
     * Whether this series and {@code other} measured the same kind of call (both B2BUA calls, or both proxied) so
     * that their figures compare: a baseline that stands for this series' application, or the same system with
     * another application.
     */
    public boolean comparesWith(final Series other)
    {
        if (SystemUnderTest.proxy(app) != SystemUnderTest.proxy(other.app) || this.equals(other))
        {
            return false;
        }
        return other.system == system ? other.profile.equals(profile) && !other.app.equals(app)
            : !other.system.deploys() && other.system.plays(app);
    }
}
