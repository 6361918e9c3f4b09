package io.sipline.container.naming;

import java.lang.System.Logger.Level;
import java.util.Hashtable;

import javax.naming.Context;
import javax.naming.NamingException;
import javax.naming.spi.InitialContextFactory;
import javax.naming.spi.InitialContextFactoryBuilder;
import javax.naming.spi.NamingManager;

/**
 * Decides which {@link InitialContextFactory} a {@code new InitialContext()} uses, once installed for the JVM
 * ({@link #install()}, which {@link NamingManager} allows only once): the factory named by
 * {@code java.naming.factory.initial} (environment, system property or an application's {@code jndi.properties}),
 * loaded through the thread's context class loader, when that class exists; otherwise the container's
 * {@link ContainerInitialContextFactory}. A factory class named but absent (a {@code jndi.properties} written for
 * another server) falls back to the container's, so that {@code java:comp/env} lookups still work.
 * <p>
 * Threading: stateless apart from the install-once flag; safe from any thread.
 */
public final class ContainerContextFactoryBuilder implements InitialContextFactoryBuilder
{
    private static final System.Logger LOG = System.getLogger(ContainerContextFactoryBuilder.class.getName());
    private static boolean installed;

    private ContainerContextFactoryBuilder()
    {
    }

    /**
     * Installs the builder for this JVM, once; later calls do nothing. When another builder was installed first (the
     * container embedded in a server with its own JNDI), it stays and this logs why applications may not find their
     * names.
     */
    public static synchronized void install()
    {
        if (installed)
        {
            return;
        }
        installed = true;
        try
        {
            if (!NamingManager.hasInitialContextFactoryBuilder())
            {
                NamingManager.setInitialContextFactoryBuilder(new ContainerContextFactoryBuilder());
                return;
            }
        }
        catch (final NamingException | IllegalStateException | SecurityException ex)
        {
            LOG.log(Level.WARNING, "cannot install the container's JNDI builder; java:comp/env lookups of "
                + "applications go to the JVM's own", ex);
            return;
        }
        LOG.log(Level.WARNING, "another JNDI InitialContextFactoryBuilder is installed in this JVM; java:comp/env "
            + "lookups of applications go to it");
    }

    @Override
    public InitialContextFactory createInitialContextFactory(final Hashtable<?, ?> environment)
        throws NamingException
    {
        final Object named = null == environment ? null : environment.get(Context.INITIAL_CONTEXT_FACTORY);
        if (named instanceof String className && !className.isBlank()
            && !ContainerInitialContextFactory.class.getName().equals(className))
        {
            final InitialContextFactory other = instantiate(className.strip());
            if (null != other)
            {
                return other;
            }
        }
        return new ContainerInitialContextFactory();
    }

    /** The named factory, or {@code null} when no such class exists. */
    private static InitialContextFactory instantiate(final String className) throws NamingException
    {
        final ClassLoader loader = Thread.currentThread().getContextClassLoader();
        try
        {
            final Class<?> type = Class.forName(className, true,
                null == loader ? ContainerContextFactoryBuilder.class.getClassLoader() : loader);
            return (InitialContextFactory)type.getConstructor().newInstance();
        }
        catch (final ClassNotFoundException ex)
        {
            return null;
        }
        catch (final ReflectiveOperationException | ClassCastException | LinkageError ex)
        {
            final NamingException failure = new NamingException("cannot instantiate the initial context factory "
                + className + ": " + ex);
            failure.setRootCause(ex);
            throw failure;
        }
    }
}
