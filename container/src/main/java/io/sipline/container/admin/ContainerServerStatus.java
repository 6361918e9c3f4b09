package io.sipline.container.admin;

import java.util.ArrayList;
import java.util.List;

import io.sipline.container.dispatch.ContainerServer;
import io.sipline.container.dispatch.RunningApplication;

/**
 * The {@link ContainerStatus} of a running {@link ContainerServer}, from what it exposes: the registry's applications
 * (an application is in the registry only once {@code RunningApplication.start()} returned, so each is started) and
 * the total of live application sessions (a racy sum over the shards' session tables). Sessions per application and
 * servlet times are not exposed by dispatch yet: they report -1 (omitted from {@code /metrics}) and nothing.
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
        for (final RunningApplication app : server.registry().applications().values())
        {
            list.add(new Application(app.name(), true, -1));
        }
        return list;
    }

    @Override
    public long sessionsActiveTotal()
    {
        return server.applicationSessions();
    }
}
