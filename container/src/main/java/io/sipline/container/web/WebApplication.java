package io.sipline.container.web;

import java.nio.file.Path;
import java.util.Locale;

import org.apache.tomcat.InstanceManager;
import org.apache.tomcat.SimpleInstanceManager;
import org.eclipse.jetty.ee8.apache.jsp.JettyJasperInitializer;
import org.eclipse.jetty.ee8.servlet.ServletContainerInitializerHolder;
import org.eclipse.jetty.ee8.webapp.WebAppContext;
import org.eclipse.jetty.server.Handler;

import io.sipline.container.deploy.ApplicationClassLoader;
import io.sipline.container.deploy.DeployedApplication;
import io.sipline.container.deploy.DeploymentException;
import io.sipline.container.dispatch.RunningApplicationImpl;
import io.sipline.container.factory.SipFactoryImpl;

/**
 * The web half of one deployed application: a Jetty {@link WebAppContext} at {@code /<WAR name>} over the WAR (the
 * engine extracts its own copy, so the file may be replaced while it serves), whose class loader is the application's
 * {@link ApplicationClassLoader} (one loader for both halves: a static field is one object). The engine reads
 * {@code WEB-INF/web.xml} (servlets, filters, listeners, welcome files, error pages, session-config) and serves
 * static resources and JSPs (Jasper, each compiled on its first request); {@link WebAnnotations} adds the annotated
 * classes and the converged filter. Once started, the SIP half's {@code ServletContext} moves its attributes into
 * this context's ({@link RunningApplicationImpl#attachWeb}). An HTTP servlet that throws answers 500 for that request
 * only (the engine's error handling).
 * <p>
 * Threading: made, started and stopped on the deploying thread; serves on the engine's threads.
 */
final class WebApplication
{
    private final String contextPath;
    private final WebAppContext context;

    private WebApplication(final String contextPath, final WebAppContext context)
    {
        this.contextPath = contextPath;
        this.context = context;
    }

    /**
     * Starts the web half of {@code deployed}, whose SIP half {@code running} runs, and serves it in {@code server}.
     *
     * @throws DeploymentException one line naming the WAR and why the web half cannot start.
     */
    static WebApplication start(final WebServer server, final DeployedApplication deployed,
        final RunningApplicationImpl running, final SipFactoryImpl.ShardPicker shards) throws DeploymentException
    {
        final Path source = deployed.source();
        final String path = "/" + warName(source);
        final WebAnnotations annotations = WebAnnotations.scan(source).with(new SessionBinding(running, shards));
        final WebAppContext context = new WebAppContext();
        context.setContextPath(path);
        context.setDisplayName(deployed.name());
        context.setWar(source.toAbsolutePath().toString());
        context.setClassLoader(deployed.classLoader());
        context.setParentLoaderPriority(true); // should the engine wrap the loader, the SIP half's classes come first
        context.setThrowUnavailableOnStartupException(true); // a servlet or listener that fails refuses the WAR
        context.setLogUrlOnStart(false);
        context.addServletContainerInitializer(new ServletContainerInitializerHolder(annotations));
        // JSPs (the engine's default descriptor maps *.jsp to Jasper): its initializer and the instance manager
        context.addServletContainerInitializer(new ServletContainerInitializerHolder(new JettyJasperInitializer()));
        context.setAttribute(InstanceManager.class.getName(), new SimpleInstanceManager());
        context.getObjectFactory().addDecorator(new WebInjection(running)); // @Resource in servlets, filters, listeners
        final javax.servlet.ServletContext sip = running.servletContext();
        for (final String name : java.util.Collections.list(sip.getAttributeNames()))
        {
            context.setAttribute(name, sip.getAttribute(name)); // seen by web listeners and servlets' init too
        }
        final Handler handler = context.get();
        handler.setServer(server.server());
        final Thread thread = Thread.currentThread();
        final ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(deployed.classLoader()); // listeners and load-on-startup servlets run now
        try
        {
            handler.start();
            if (!context.isAvailable())
            {
                final Throwable why = context.getUnavailableException();
                throw new DeploymentException(source.toString(), DeploymentException.NO_LINE, "web half cannot start: "
                    + (null == why ? "the context is unavailable" : ApplicationClassLoader.oneLine(why)), why);
            }
        }
        catch (final DeploymentException e)
        {
            stopQuietly(handler);
            throw e;
        }
        catch (final Exception | LinkageError e)
        {
            stopQuietly(handler);
            throw new DeploymentException(source.toString(), DeploymentException.NO_LINE,
                "web half cannot start: " + rootLine(e), e);
        }
        finally
        {
            thread.setContextClassLoader(previous);
        }
        running.attachWeb(context.getServletContext());
        server.add(handler, path, deployed.name());
        return new WebApplication(path, context);
    }

    /** The context path, {@code /<WAR name>}. */
    String contextPath()
    {
        return contextPath;
    }

    /** Stops serving and stops the context (its listeners' {@code contextDestroyed}, servlets' {@code destroy}). */
    void stop(final WebServer server)
    {
        final Handler handler = context.get();
        server.remove(handler, contextPath);
        stopQuietly(handler);
    }

    /** The WAR's file name without {@code .war}, or the directory's name. */
    static String warName(final Path source)
    {
        final Path file = source.toAbsolutePath().normalize().getFileName();
        final String name = null == file ? "root" : file.toString();
        return name.toLowerCase(Locale.ROOT).endsWith(".war") ? name.substring(0, name.length() - 4) : name;
    }

    private static String rootLine(final Throwable e)
    {
        Throwable t = e;
        while (null != t.getCause() && t.getCause() != t) // the engine's wrappers say less than what they wrap
        {
            t = t.getCause();
        }
        return ApplicationClassLoader.oneLine(t);
    }

    private static void stopQuietly(final Handler handler)
    {
        try
        {
            handler.stop();
        }
        catch (final Exception e)
        {
            System.getLogger("io.sipline.container.web").log(System.Logger.Level.WARNING,
                "stopping a web context", e);
        }
    }
}
