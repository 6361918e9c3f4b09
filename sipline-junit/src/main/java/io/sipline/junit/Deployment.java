package io.sipline.junit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

import io.sipline.container.deploy.ApplicationDeployer;
import io.sipline.container.deploy.DeployedApplication;
import io.sipline.container.deploy.DeploymentException;
import io.sipline.container.deploy.ServletDefinition;
import io.sipline.container.deploy.SipApplicationDescriptor;

/**
 * One application to deploy into a {@link SiplineServer}, with the context parameters and servlet init parameters a
 * test sets in place of those of its {@code sip.xml} (e.g. the address of the test's callee):
 * <pre>{@code
 * sipline.deployment(Path.of("target/b2bua.war")).contextParam("target", bob.uri()).deploy();
 * }</pre>
 * The application is read and checked by the container's own deployer ({@link ApplicationDeployer}), as
 * {@code bin/sipline run --deploy} would.
 * <p>
 * Threading: the test's thread.
 */
public final class Deployment
{
    private final SiplineServer server;
    private final Path path;
    private final Path webapp;
    private final Map<String, String> contextParams = new LinkedHashMap<>();
    private final Map<String, Map<String, String>> initParams = new LinkedHashMap<>();

    Deployment(final SiplineServer server, final Path path, final Path webapp)
    {
        this.server = server;
        this.path = path;
        this.webapp = webapp;
    }

    /** Sets a context parameter ({@code ServletContext.getInitParameter}), replacing the descriptor's. */
    public Deployment contextParam(final String name, final String value)
    {
        contextParams.put(name, value);
        return this;
    }

    /** Sets an init parameter of the servlet named {@code servlet}, replacing the descriptor's. */
    public Deployment initParam(final String servlet, final String name, final String value)
    {
        initParams.computeIfAbsent(servlet, s -> new LinkedHashMap<>()).put(name, value);
        return this;
    }

    /**
     * Deploys and starts the application.
     *
     * @return its name ({@code app-name}).
     * @throws IllegalStateException with the container's one-line reason when it cannot be deployed.
     */
    public String deploy()
    {
        final Path source = null == webapp ? path : assemble();
        DeployedApplication application;
        try
        {
            application = new ApplicationDeployer().deploy(source);
        }
        catch (final DeploymentException e)
        {
            throw new IllegalStateException("cannot deploy " + path + ": " + e.getMessage(), e);
        }
        try
        {
            application = configured(application);
            server.start(application);
            return application.name();
        }
        catch (final DeploymentException | RuntimeException e)
        {
            try
            {
                application.close();
            }
            catch (final IOException closing)
            {
                e.addSuppressed(closing);
            }
            throw new IllegalStateException("cannot start " + application.name() + ": " + e.getMessage(), e);
        }
    }

    /** The application with this deployment's parameters in its descriptor. */
    private DeployedApplication configured(final DeployedApplication application)
    {
        if (contextParams.isEmpty() && initParams.isEmpty())
        {
            return application;
        }
        final SipApplicationDescriptor descriptor = application.descriptor();
        final SipApplicationDescriptor.Builder builder = descriptor.toBuilder();
        contextParams.forEach(builder::putContextParam);
        initParams.forEach((name, params) ->
        {
            final ServletDefinition s = descriptor.servlets().get(name);
            if (null == s)
            {
                throw new IllegalArgumentException("no servlet '" + name + "' in " + application.name()
                    + "; servlets: " + descriptor.servlets().keySet());
            }
            final Map<String, String> merged = new LinkedHashMap<>(s.initParams());
            merged.putAll(params);
            builder.putServlet(new ServletDefinition(s.name(), s.className(), s.displayName(), s.description(),
                merged, s.loadOnStartup(), s.origin(), s.source(), s.line()));
        });
        return new DeployedApplication(application.name(), builder.build(), application.classLoader(),
            application.servlets(), application.listeners(), application.source());
    }

    /** An exploded application: {@code webapp}'s files, and the classes under {@code WEB-INF/classes}. */
    private Path assemble()
    {
        if (!Files.isDirectory(path))
        {
            throw new IllegalStateException(path.toAbsolutePath() + " is not a directory of classes: compile the "
                + "application first (mvn test compiles it before the tests)");
        }
        final Path dir = server.newApplicationDirectory();
        try
        {
            if (Files.isDirectory(webapp))
            {
                copyTree(webapp, dir);
            }
            copyTree(path, dir.resolve("WEB-INF").resolve("classes"));
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot assemble " + path + " and " + webapp + " in " + dir, e);
        }
        return dir;
    }

    private static void copyTree(final Path from, final Path to) throws IOException
    {
        try (Stream<Path> paths = Files.walk(from))
        {
            for (final Path p : paths.toList())
            {
                final Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p))
                {
                    Files.createDirectories(target);
                }
                else
                {
                    Files.copy(p, target);
                }
            }
        }
    }
}
