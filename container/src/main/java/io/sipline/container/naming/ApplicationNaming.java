package io.sipline.container.naming;

import java.util.Collection;
import java.util.Objects;

import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipSessionsUtil;
import javax.servlet.sip.TimerService;

/**
 * The naming of one running application: made when it starts ({@link #start}), which installs the container's JNDI
 * builder for the JVM if needed and makes the application's {@code java:comp/env} the one its threads see; injects
 * its servlets and listeners ({@link #inject}); {@link #close()} when it stops, after its last callback.
 * <p>
 * Threading: started, used and closed on the deploying thread; the names it publishes are read by any thread.
 */
public final class ApplicationNaming implements AutoCloseable
{
    private final ClassLoader loader;
    private final NamingBindings bindings;
    private final ResourceInjector injector;

    private ApplicationNaming(final ClassLoader loader, final NamingBindings bindings)
    {
        this.loader = loader;
        this.bindings = bindings;
        this.injector = new ResourceInjector(bindings);
    }

    /**
     * @param application  the application name.
     * @param loader       the application's class loader: code it loads, and threads whose context class loader it
     *                     is, see these names.
     * @param sipFactory   the application's factory.
     * @param timerService the application's timer service.
     * @param sessionsUtil the application's session lookup.
     * @param envEntries   the {@code env-entry} values of its descriptors.
     * @return the application's naming, published.
     * @throws IllegalArgumentException when two env entries, or an env entry and a container name, share a name.
     */
    public static ApplicationNaming start(final String application, final ClassLoader loader,
        final SipFactory sipFactory, final TimerService timerService, final SipSessionsUtil sessionsUtil,
        final Collection<EnvEntry> envEntries)
    {
        Objects.requireNonNull(loader, "loader");
        final NamingBindings bindings =
            NamingBindings.forApplication(application, sipFactory, timerService, sessionsUtil, envEntries);
        ContainerContextFactoryBuilder.install();
        ApplicationContexts.register(loader, bindings);
        return new ApplicationNaming(loader, bindings);
    }

    /**
     * @param instance a servlet or listener of the application, before the container first calls it.
     * @throws InjectionException naming the class, member and reason when a {@code @Resource} cannot be satisfied.
     */
    public void inject(final Object instance) throws InjectionException
    {
        injector.inject(instance);
    }

    /** @return the names the application sees under {@code java:comp/env}. */
    public NamingBindings bindings()
    {
        return bindings;
    }

    /** Withdraws the names: the application's threads see none afterwards. */
    @Override
    public void close()
    {
        ApplicationContexts.unregister(loader, bindings);
    }
}
