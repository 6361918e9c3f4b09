package io.sipline.container.admin;

import java.util.ArrayList;
import java.util.List;

import io.sipline.container.dispatch.ApplicationStats;
import io.sipline.container.dispatch.ContainerServer;
import io.sipline.container.dispatch.RunningApplicationImpl;

/**
 * The {@link ContainerStatus} of a running {@link ContainerServer}, from what it exposes: the registry's applications
 * (an application is in the registry only once {@code RunningApplicationImpl.start()} returned, so each is started) and
 * the total of live application sessions (a racy sum over the shards' session tables), and per application its live
 * sessions and servlet call times ({@link io.sipline.container.dispatch.ApplicationStats}, summed over the shards).
 *
 * <p>Stateless; any thread (the admin server's).
 */
public final class ContainerServerStatus implements ContainerStatus
{
    private final ContainerServer server;

    public ContainerServerStatus(final ContainerServer server)
    {
        this.server = server;
    }

    @Override
    public List<Application> applications()
    {
        final List<Application> list = new ArrayList<>();
        for (final RunningApplicationImpl app : server.registry().applications().values())
        {
            list.add(new Application(app.name(), true, app.stats().sessions()));
        }
        return list;
    }

    @Override
    public List<ServletTimes> servletTimes()
    {
        final List<ServletTimes> list = new ArrayList<>();
        for (final RunningApplicationImpl app : server.registry().applications().values())
        {
            list.add(new ServletTimes(app.name(), ApplicationStats.UPPER_BOUNDS_SECONDS.clone(), app.stats().counts(),
                app.stats().sumSeconds()));
        }
        return list;
    }

    /**
     * The container-wide counters of {@link io.sipline.container.dispatch.ContainerShardImpl.Counters}: servlet calls
     * that threw, calls slower than the watchdog's limit, initial requests no application took, late 2xx ACKed and
     * ended with BYE (RFC 3261 §13.2.2.4), and initial requests the application router sent to an external route
     * (JSR 289 §15.4.1).
     */
    @Override
    public List<Event> events()
    {
        final io.sipline.container.dispatch.ContainerShardImpl.Counters c = server.counters();
        return List.of(new Event("servlet_error", c.servletErrors.get()), new Event("slow_call", c.slowCalls.get()),
            new Event("no_application", c.noApplication.get()), new Event("stray_2xx", c.stray2xx.get()),
            new Event("routed_out", c.routedOut.get()), new Event("overloaded", c.overloaded.get()));
    }

    @Override
    public long sessionsActiveTotal()
    {
        return server.applicationSessions();
    }
}
