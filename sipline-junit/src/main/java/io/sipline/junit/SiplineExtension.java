package io.sipline.junit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit 5 extension behind {@link SiplineTest}: starts a {@link SiplineServer} before the class with the
 * annotation's applications and DAR, stops it after the class, undeploys what a test method deployed when it ends,
 * and resolves {@link SiplineServer} and {@link UserAgent} parameters. Agents are closed when the method (or, for
 * {@code @BeforeAll} and constructors, the class) that received them ends.
 * <p>
 * Threading: JUnit's; one server per test class, kept in the class's extension store.
 */
public final class SiplineExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver
{
    private static final ExtensionContext.Namespace NAMESPACE =
        ExtensionContext.Namespace.create(SiplineExtension.class);
    private static final String SERVER = "server";
    private static final String AGENTS = "agents";

    /** The agents made for one extension context, closed with it. */
    private static final class Agents
    {
        private final List<UserAgent> open = new ArrayList<>();

        void closeAll()
        {
            for (final UserAgent agent : open.reversed())
            {
                agent.close();
            }
            open.clear();
        }
    }

    @Override
    public void beforeAll(final ExtensionContext context)
    {
        if (null != context.getStore(NAMESPACE).get(SERVER, SiplineServer.class))
        {
            return; // a @Nested class runs in its enclosing class's container
        }
        final SiplineTest settings = AnnotationSupport.findAnnotation(context.getRequiredTestClass(), SiplineTest.class)
            .orElseThrow(() -> new ExtensionConfigurationException(
                "SiplineExtension needs @SiplineTest on " + context.getRequiredTestClass().getName()));
        final SiplineServer server = SiplineServer.start(settings.shards(),
            settings.dar().isEmpty() ? null : Path.of(settings.dar()), settings.http());
        context.getStore(NAMESPACE).put(SERVER, server);
        try
        {
            if (!settings.classes().isEmpty())
            {
                server.deployment(Path.of(settings.classes()), Path.of(settings.webapp())).deploy();
            }
            for (final String war : settings.war())
            {
                server.deployment(Path.of(war)).deploy();
            }
        }
        catch (final RuntimeException e)
        {
            context.getStore(NAMESPACE).remove(SERVER);
            server.close();
            throw e;
        }
    }

    @Override
    public void afterAll(final ExtensionContext context)
    {
        closeAgents(context);
        final SiplineServer server = context.getStore(NAMESPACE).remove(SERVER, SiplineServer.class);
        if (null != server)
        {
            server.close();
        }
    }

    @Override
    public void beforeEach(final ExtensionContext context)
    {
        server(context).testStarted();
    }

    @Override
    public void afterEach(final ExtensionContext context)
    {
        try
        {
            closeAgents(context);
        }
        finally
        {
            server(context).testFinished();
        }
    }

    @Override
    public boolean supportsParameter(final ParameterContext parameter, final ExtensionContext context)
    {
        final Class<?> type = parameter.getParameter().getType();
        return SiplineServer.class == type || UserAgent.class == type;
    }

    @Override
    public Object resolveParameter(final ParameterContext parameter, final ExtensionContext context)
    {
        final SiplineServer server = server(context);
        if (SiplineServer.class == parameter.getParameter().getType())
        {
            return server;
        }
        final String name = parameter.getParameter().isNamePresent() ? parameter.getParameter().getName()
            : "ua" + parameter.getIndex();
        final UserAgent agent = UserAgent.open(name).outboundProxy(server.address());
        final ExtensionContext.Store store = context.getStore(NAMESPACE);
        Agents agents = store.get(AGENTS, Agents.class);
        if (null == agents || !store.getOrDefault(AGENTS + "-owner", String.class, "").equals(context.getUniqueId()))
        {
            agents = new Agents(); // a store answers from its parents too: each context keeps its own agents
            store.put(AGENTS, agents);
            store.put(AGENTS + "-owner", context.getUniqueId());
        }
        agents.open.add(agent);
        return agent;
    }

    private static void closeAgents(final ExtensionContext context)
    {
        final ExtensionContext.Store store = context.getStore(NAMESPACE);
        if (context.getUniqueId().equals(store.get(AGENTS + "-owner", String.class)))
        {
            final Agents agents = store.remove(AGENTS, Agents.class);
            store.remove(AGENTS + "-owner");
            if (null != agents)
            {
                agents.closeAll();
            }
        }
    }

    private static SiplineServer server(final ExtensionContext context)
    {
        final SiplineServer server = context.getStore(NAMESPACE).get(SERVER, SiplineServer.class);
        if (null == server)
        {
            throw new ParameterResolutionException("no Sipline container: annotate the class with @SiplineTest");
        }
        return server;
    }
}
