package io.sipline.container.deploy;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EventListener;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import javax.servlet.sip.SipServlet;

/**
 * Deploys one application: opens the WAR or exploded directory, loads and checks its deployment model
 * ({@link DeploymentDescriptors#load}), builds its {@link ApplicationClassLoader}, loads every servlet and listener
 * class it names, checks each servlet extends {@link SipServlet} (JSR 289 §2.1) and each listener is an
 * {@link EventListener} (JSR 289 §10.2: every SIP and servlet listener interface extends it), and constructs one
 * instance of each through its public no-argument constructor (Servlet 3.1 §2.3.1), with the application's loader
 * as the thread's context class loader. Nothing else is called on the instances: {@code @Resource} injection and
 * {@code init(ServletConfig)} need the {@code SipFactory} and {@code ServletContext}, which dispatch provides later.
 * <p>
 * Every failure is one {@link DeploymentException} with a one-line message naming the file, the line or class, and
 * why, e.g. {@code app.war!/WEB-INF/sip.xml:12: servlet 'proxy': class com.x.Foo not found} or
 * {@code app.war: com.x.Foo does not extend javax.servlet.sip.SipServlet}; the class loader of a failed deployment
 * is closed before the exception leaves.
 * <p>
 * Threading: stateless apart from its configuration; {@link #deploy} may run on any thread, and concurrently for
 * different applications.
 */
public final class ApplicationDeployer
{
    private final ClassLoader containerLoader;
    private final Path workRoot;

    /**
     * A deployer whose applications see the API through this class's loader and extract WARs to the system
     * temporary directory.
     */
    public ApplicationDeployer()
    {
        this(ApplicationDeployer.class.getClassLoader(), null);
    }

    /**
     * @param containerLoader the parent of every application loader, which supplies the API classes.
     * @param workRoot        where WARs are extracted, or {@code null} for the system temporary directory.
     */
    public ApplicationDeployer(final ClassLoader containerLoader, final Path workRoot)
    {
        this.containerLoader = Objects.requireNonNull(containerLoader, "containerLoader");
        this.workRoot = workRoot;
    }

    /**
     * @param path a {@code .war} file or an exploded application directory.
     * @return the deployed application; close it to undeploy.
     * @throws DeploymentException the one-line reason the application cannot be deployed.
     */
    public DeployedApplication deploy(final Path path) throws DeploymentException
    {
        SipApplicationDescriptor descriptor = null;
        ApplicationClassLoader loader = null;
        try (ApplicationArchive archive = ApplicationArchive.open(path))
        {
            descriptor = DeploymentDescriptors.load(archive);
            loader = ApplicationClassLoader.create(archive, descriptor.appName(), containerLoader, workRoot);
        }
        catch (final DeploymentException ex)
        {
            closeAfterFailure(loader, ex); // the archive failed to close after the loader was built
            throw ex;
        }
        final Thread thread = Thread.currentThread();
        final ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader); // static initialisers and constructors are application code
        try
        {
            final Map<String, SipServlet> servlets = new LinkedHashMap<>();
            for (final ServletDefinition servlet : descriptor.servlets().values())
            {
                final String where = where(path, servlet.source());
                final String what = "servlet '" + servlet.name() + "': ";
                final Class<?> type = load(loader, servlet.className(), where, servlet.line(), what);
                if (!SipServlet.class.isAssignableFrom(type))
                {
                    throw new DeploymentException(where, servlet.line(),
                        what + type.getName() + " does not extend " + SipServlet.class.getName());
                }
                servlets.put(servlet.name(), (SipServlet) instantiate(type, where, servlet.line(), what));
            }
            final List<EventListener> listeners = new ArrayList<>();
            for (final ListenerDefinition listener : descriptor.listeners())
            {
                final String where = where(path, listener.source());
                final String what = "listener: ";
                final Class<?> type = load(loader, listener.className(), where, listener.line(), what);
                if (!EventListener.class.isAssignableFrom(type))
                {
                    throw new DeploymentException(where, listener.line(), what + type.getName()
                        + " implements no listener interface (java.util.EventListener)");
                }
                listeners.add((EventListener) instantiate(type, where, listener.line(), what));
            }
            return new DeployedApplication(descriptor.appName(), descriptor, loader, servlets, listeners, path);
        }
        catch (final DeploymentException | RuntimeException | Error ex)
        {
            closeAfterFailure(loader, ex);
            throw ex;
        }
        finally
        {
            thread.setContextClassLoader(previous);
        }
    }

    private static void closeAfterFailure(final ApplicationClassLoader loader, final Throwable failure)
    {
        if (null == loader)
        {
            return;
        }
        try
        {
            loader.close();
        }
        catch (final IOException closing)
        {
            failure.addSuppressed(closing);
        }
    }

    private static String where(final Path path, final String declaredIn)
    {
        // a sip.xml source already names the archive; an annotated class's origin does too
        return null == declaredIn || declaredIn.isEmpty() ? path.toString() : declaredIn;
    }

    private static Class<?> load(
        final ClassLoader loader, final String className, final String where, final int line, final String what)
        throws DeploymentException
    {
        try
        {
            return Class.forName(className, false, loader);
        }
        catch (final ClassNotFoundException ex)
        {
            throw new DeploymentException(where, line, what + "class " + className + " not found", ex);
        }
        catch (final LinkageError ex)
        {
            throw new DeploymentException(where, line,
                what + "class " + className + " cannot be loaded: " + ApplicationClassLoader.oneLine(ex), ex);
        }
    }

    private static Object instantiate(final Class<?> type, final String where, final int line, final String what)
        throws DeploymentException
    {
        if (Modifier.isAbstract(type.getModifiers()) || type.isInterface())
        {
            throw new DeploymentException(where, line, what + type.getName() + " is abstract");
        }
        final Constructor<?> constructor;
        try
        {
            constructor = type.getConstructor();
        }
        catch (final NoSuchMethodException ex)
        {
            throw new DeploymentException(where, line, what + type.getName()
                + " has no public no-argument constructor", ex);
        }
        if (!Modifier.isPublic(type.getModifiers()))
        {
            throw new DeploymentException(where, line, what + type.getName() + " is not public");
        }
        try
        {
            return constructor.newInstance();
        }
        catch (final InvocationTargetException ex)
        {
            throw new DeploymentException(where, line, what + "the constructor of " + type.getName() + " threw "
                + ApplicationClassLoader.oneLine(ex.getCause()), ex.getCause());
        }
        catch (final ReflectiveOperationException | LinkageError ex)
        {
            throw new DeploymentException(where, line, what + type.getName() + " cannot be instantiated: "
                + ApplicationClassLoader.oneLine(ex), ex);
        }
    }
}
