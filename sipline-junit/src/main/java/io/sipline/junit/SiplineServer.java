package io.sipline.junit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.ar.SipApplicationRouter;

import io.sipline.container.deploy.DeployedApplication;
import io.sipline.container.deploy.DeploymentException;
import io.sipline.container.deploy.DeploymentListener;
import io.sipline.container.dispatch.ContainerServer;
import io.sipline.container.dispatch.RunningApplicationImpl;
import io.sipline.container.router.ApplicationRouters;
import io.sipline.container.router.DarConfiguration;
import io.sipline.container.router.DarConfigurationException;
import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.container.web.ConvergedDeployment;
import io.sipline.container.web.WebServer;
import io.sipline.sip.stack.SipStackConfig;
import io.sipline.sip.transport.UdpBindException;

/**
 * A Sipline container running in the test's JVM on a free UDP port of 127.0.0.1, as {@link SiplineExtension}
 * starts it for a {@link SiplineTest} class: the stack and servlet container of {@code bin/sipline run}
 * ({@link ContainerServer}), its application router (JSR 289 §15.4.1: a {@code SipApplicationRouterProvider} on the
 * test class path, else the default router with the class's DAR; without a DAR, the single deployed application
 * receives every initial request), and the applications deployed through
 * {@link #deployment}. Applications deployed while a test method runs are undeployed when it ends; those of the
 * annotation, or deployed from {@code @BeforeAll}, when the class ends. With {@link SiplineTest#http()} the web
 * halves of converged applications (JSR 289 §13) are served on a free loopback TCP port ({@link #httpUri}), as
 * {@code bin/sipline run --http-port} serves them.
 * <p>
 * Threading: deploy and close from the test's thread; the container runs on its own shard threads.
 */
public final class SiplineServer implements AutoCloseable
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    private final ContainerServer container;
    private final WebServer web;
    private final DeploymentListener deployer;
    private final Path workDir;
    private final List<DeployedApplication> classScoped = new ArrayList<>();
    private final List<DeployedApplication> testScoped = new ArrayList<>();
    private boolean inTest;
    private int assembled;

    private SiplineServer(final ContainerServer container, final WebServer web, final Path workDir)
    {
        this.container = container;
        this.web = web;
        this.deployer = null == web ? container.registry() : new ConvergedDeployment(container.registry(), web);
        this.workDir = workDir;
    }

    /**
     * Starts a container with {@code shards} shards on a free loopback port.
     *
     * @param dar the default application router's configuration (JSR 289 Appendix C), or {@code null}.
     * @throws IllegalStateException when the DAR is malformed or no port can be bound, saying why.
     */
    public static SiplineServer start(final int shards, final Path dar)
    {
        return start(shards, dar, false);
    }

    /**
     * Starts a container with {@code shards} shards on a free loopback port and, when {@code http}, a web engine for
     * the applications' HTTP halves on a free loopback TCP port.
     *
     * @param dar the default application router's configuration (JSR 289 Appendix C), or {@code null}.
     * @throws IllegalStateException when the DAR is malformed or no port can be bound, saying why.
     */
    public static SiplineServer start(final int shards, final Path dar, final boolean http)
    {
        final SipApplicationRouter router = ApplicationRouters.load(SiplineServer.class.getClassLoader(), () ->
        {
            try
            {
                return null == dar ? new DefaultApplicationRouter()
                    : new DefaultApplicationRouter(DarConfiguration.load(dar));
            }
            catch (final DarConfigurationException e)
            {
                throw new IllegalStateException("DAR " + dar + ": " + e.getMessage(), e);
            }
        }).router();
        router.init();
        final SipStackConfig config = new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(shards);
        try
        {
            final Path work = Files.createTempDirectory("sipline-junit");
            final ContainerServer container = ContainerServer.start(config, router);
            return new SiplineServer(container, http ? startWeb(container) : null, work);
        }
        catch (final UdpBindException e)
        {
            throw new IllegalStateException("cannot start the container: " + e.getMessage(), e);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot create a work directory", e);
        }
    }

    private static WebServer startWeb(final ContainerServer container)
    {
        try
        {
            return WebServer.start(new InetSocketAddress(LOOPBACK, 0));
        }
        catch (final Exception e)
        {
            container.close();
            throw new IllegalStateException("cannot start the web engine: " + e.getMessage(), e);
        }
    }

    /** The container's UDP address. */
    public InetSocketAddress address()
    {
        return container.localAddresses().getFirst();
    }

    public int port()
    {
        return address().getPort();
    }

    /** {@code sip:user@127.0.0.1:port}: a URI that reaches the container. */
    public String uri(final String user)
    {
        return "sip:" + user + "@" + LOOPBACK.getHostAddress() + ":" + port();
    }

    /**
     * {@code http://127.0.0.1:port} followed by {@code path}, e.g. {@code httpUri("/click-to-call/calls")}: the web
     * half of the application deployed from {@code click-to-call.war} is served at {@code /click-to-call}.
     *
     * @throws IllegalStateException when the class's {@link SiplineTest#http()} is false.
     */
    public URI httpUri(final String path)
    {
        if (null == web)
        {
            throw new IllegalStateException("no web engine: use @SiplineTest(http = true)");
        }
        return URI.create("http://" + LOOPBACK.getHostAddress() + ":" + web.address().getPort() + path);
    }

    /** A deployment of a WAR file or an exploded application directory, to configure and {@code deploy()}. */
    public Deployment deployment(final Path warOrDirectory)
    {
        return new Deployment(this, warOrDirectory, null);
    }

    /**
     * A deployment assembled from a build's output: {@code classes} (e.g. {@code target/classes}) as
     * {@code WEB-INF/classes} and the files of {@code webapp} (e.g. {@code src/main/webapp}, with
     * {@code WEB-INF/sip.xml}; it may be absent when the servlets are annotated).
     */
    public Deployment deployment(final Path classes, final Path webapp)
    {
        return new Deployment(this, classes, webapp);
    }

    /** The names of the deployed applications. */
    public Set<String> applications()
    {
        return container.registry().applications().keySet();
    }

    /** The {@link SipFactory} of a deployed application, to create requests as the application would. */
    public SipFactory sipFactory(final String application)
    {
        final RunningApplicationImpl running = container.registry().application(application);
        if (null == running)
        {
            throw new IllegalArgumentException("no application " + application + "; deployed: " + applications());
        }
        return (SipFactory)running.servletContext().getAttribute(SipServlet.SIP_FACTORY);
    }

    /** The container itself (its stack, counters and registry), for what this class does not offer. */
    public ContainerServer container()
    {
        return container;
    }

    /** A new empty directory for an assembled application. */
    Path newApplicationDirectory()
    {
        synchronized (this)
        {
            return workDir.resolve("app-" + ++assembled);
        }
    }

    /** Starts {@code application}; it is undeployed at the end of the running test, else of the class. */
    void start(final DeployedApplication application) throws DeploymentException
    {
        deployer.onDeployed(application);
        synchronized (this)
        {
            (inTest ? testScoped : classScoped).add(application);
        }
    }

    /** A test method starts. */
    void testStarted()
    {
        synchronized (this)
        {
            inTest = true;
        }
    }

    /** A test method ended: undeploys what it deployed, newest first. */
    void testFinished()
    {
        final List<DeployedApplication> ending;
        synchronized (this)
        {
            inTest = false;
            ending = new ArrayList<>(testScoped.reversed());
            testScoped.clear();
        }
        undeploy(ending);
    }

    private void undeploy(final List<DeployedApplication> applications)
    {
        RuntimeException failure = null;
        for (final DeployedApplication application : applications)
        {
            deployer.onUndeployed(application);
            try
            {
                application.close();
            }
            catch (final IOException e)
            {
                failure = null == failure ? new UncheckedIOException("undeploying " + application.name(), e) : failure;
            }
        }
        if (null != failure)
        {
            throw failure;
        }
    }

    /** Undeploys every application, stops the container and deletes the assembled applications. */
    @Override
    public void close()
    {
        final List<DeployedApplication> ending;
        synchronized (this)
        {
            ending = new ArrayList<>(testScoped.reversed());
            ending.addAll(classScoped.reversed());
            testScoped.clear();
            classScoped.clear();
        }
        try
        {
            undeploy(ending);
        }
        finally
        {
            if (null != web)
            {
                web.close();
            }
            container.close();
            deleteTree(workDir);
        }
    }

    private static void deleteTree(final Path root)
    {
        try (Stream<Path> paths = Files.walk(root))
        {
            for (final Path p : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot delete " + root, e);
        }
    }
}
