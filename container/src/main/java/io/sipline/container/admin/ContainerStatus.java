package io.sipline.container.admin;

import java.util.List;

/**
 * What the admin port asks the servlet container at each {@code /health} and {@code /metrics} request: the deployed
 * applications, whether each is started, their active sessions and their servlet time histograms. A read-only view
 * that the container's dispatch implements ({@link ContainerServerStatus} does it from what
 * {@code io.sipline.container.dispatch.ContainerServer} exposes today).
 *
 * <p>Called on the admin server's thread, once per request; implementations read racily or take snapshots, never
 * block a shard, and may allocate (scrape time, not the SIP hot path).
 */
public interface ContainerStatus
{
    /** A container with no applications (the stack alone). */
    ContainerStatus NONE = List::of;

    /** The deployed applications, in a stable order. */
    List<Application> applications();

    /** Application sessions alive over every application and shard, or -1 when unknown. */
    default long sessionsActiveTotal()
    {
        return -1;
    }

    /** Servlet call times per application; empty when the container does not measure them. */
    default List<ServletTimes> servletTimes()
    {
        return List.of();
    }

    /** The container's own event counters (any order); empty when the container does not count them. */
    default List<Event> events()
    {
        return List.of();
    }

    /**
     * One container event counter, served as {@code sipline_container_events_total{event}}.
     *
     * @param event its label value (snake case).
     * @param count how many times it happened since start.
     */
    record Event(String event, long count)
    {
    }

    /**
     * One deployed application.
     *
     * @param name           its name (the {@code application} label).
     * @param started        true once its servlets and listeners are initialised and it takes requests.
     * @param sessionsActive its live application sessions over every shard, or -1 when unknown.
     */
    record Application(String name, boolean started, long sessionsActive)
    {
    }

    /**
     * A classic histogram of one application's servlet call times.
     *
     * @param application          the application's name.
     * @param upperBoundsSeconds   bucket upper bounds, increasing, the last one {@code +Inf}.
     * @param counts               calls per bucket (not cumulative), as many as bounds.
     * @param sumSeconds           the sum of every call's time.
     */
    record ServletTimes(String application, double[] upperBoundsSeconds, long[] counts, double sumSeconds)
    {
        public ServletTimes
        {
            if (upperBoundsSeconds.length != counts.length || 0 == counts.length
                || upperBoundsSeconds[upperBoundsSeconds.length - 1] != Double.POSITIVE_INFINITY)
            {
                throw new IllegalArgumentException("servlet times of " + application
                    + ": one count per bound, and the last bound +Inf");
            }
        }
    }
}
