package io.sipline.container.web;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.sipline.container.deploy.DeployedApplication;
import io.sipline.container.deploy.DeploymentException;
import io.sipline.container.deploy.DeploymentListener;
import io.sipline.container.dispatch.ApplicationRegistry;
import io.sipline.container.dispatch.RunningApplicationImpl;

/**
 * Deploys both halves of each application together (JSR 289 §13): the SIP half through the
 * {@link ApplicationRegistry}, then the web half in the {@link WebServer}. A web half that cannot start refuses the
 * application with one line naming the WAR and why, and its SIP half is stopped again, so that nothing of it is left
 * running. Undeploying (a deleted or replaced WAR, the server stopping) stops the web half first, then the SIP half.
 * <p>
 * Threading: the deploying thread, as {@link DeploymentListener} says.
 */
public final class ConvergedDeployment implements DeploymentListener
{
    private final ApplicationRegistry registry;
    private final WebServer server;
    private final Map<DeployedApplication, WebApplication> web = new ConcurrentHashMap<>();

    /**
     * @param registry the SIP half's registry.
     * @param server   the running web engine.
     */
    public ConvergedDeployment(final ApplicationRegistry registry, final WebServer server)
    {
        this.registry = registry;
        this.server = server;
    }

    @Override
    public void onDeployed(final DeployedApplication application) throws DeploymentException
    {
        registry.onDeployed(application);
        final RunningApplicationImpl running = registry.application(application.name());
        try
        {
            web.put(application, WebApplication.start(server, application, running, registry));
        }
        catch (final DeploymentException | RuntimeException | LinkageError e)
        {
            registry.onUndeployed(application);
            throw e;
        }
    }

    @Override
    public void onUndeployed(final DeployedApplication application)
    {
        final WebApplication half = web.remove(application);
        if (null != half)
        {
            half.stop(server);
        }
        registry.onUndeployed(application);
    }

    /** The context path the application's web half is served at, or null when it has none (tests, the banner). */
    public String contextPath(final DeployedApplication application)
    {
        final WebApplication half = web.get(application);
        return null == half ? null : half.contextPath();
    }
}
