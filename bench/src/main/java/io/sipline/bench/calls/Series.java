package io.sipline.bench.calls;

import java.util.List;

/**
 * The load steps of one system under one profile, in the order they ran (the warm-up first, not judged), with the
 * highest sustained rate found ({@code 0} when none was, or when only one rate was asked and it failed), the step
 * that sustained it, and the step at 80% of it ({@code null} when not run). Immutable.
 */
public record Series(SystemUnderTest system, String profile, String scenario, List<Step> steps, int maxSustained,
    Step best, Step at80)
{
    /** {@code system/profile}, e.g. {@code jainsip/zgc}, or {@code kamailio}. */
    public String name()
    {
        return system.jvm() ? system.label() + "/" + profile : system.label();
    }
}
