package io.sipline.bench.calls;

import java.util.List;

/**
 * The load steps of one system under one profile, in the order they ran (the warm-up first, not judged), with the
 * highest sustained rate found ({@code 0} when none was, or when only one rate was asked and it failed), the step
 * that sustained it, the step at 80% of it ({@code null} when not run), and the line the server printed when it
 * stopped ({@code sipline: stopped (...)} with its transport counters, dropped messages included; empty when none).
 * Immutable.
 */
public record Series(SystemUnderTest system, String profile, String scenario, List<Step> steps, int maxSustained,
    Step best, Step at80, String counters)
{
    /** The same series with the counters the server printed when it stopped (its own dropped-message counts). */
    public Series withCounters(final String stopLine)
    {
        return new Series(system, profile, scenario, steps, maxSustained, best, at80, stopLine);
    }

    /** {@code system/profile}, e.g. {@code jainsip/zgc}, or {@code kamailio}. */
    public String name()
    {
        return system.jvm() ? system.label() + "/" + profile : system.label();
    }
}
