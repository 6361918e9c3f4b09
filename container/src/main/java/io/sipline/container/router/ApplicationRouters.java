package io.sipline.container.router;

import java.util.Iterator;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Supplier;

import javax.servlet.sip.ar.SipApplicationRouter;
import javax.servlet.sip.ar.spi.SipApplicationRouterProvider;

/**
 * Finds the application router to use (JSR 289 §15.4.2, "Application Router Packaging and Deployment"): the provider
 * class named by the {@value #PROVIDER_PROPERTY} system property if set, else the first
 * {@link SipApplicationRouterProvider} registered in {@code META-INF/services/} on the given class loader, else the
 * fallback (our {@link DefaultApplicationRouter}).
 * <p>
 * A provider that is named or registered but cannot be instantiated is an error (the server must not silently route
 * with another router than the one its operator installed).
 * <p>
 * Threading: stateless; called once at start.
 */
public final class ApplicationRouters
{
    /** System property naming the {@link SipApplicationRouterProvider} class. */
    public static final String PROVIDER_PROPERTY = SipApplicationRouterProvider.class.getName();

    /**
     * The router chosen and where it came from, for the server's start-up line.
     *
     * @param router the router (not yet initialised).
     * @param origin {@code "property"}, {@code "service"} or {@code "default"}, followed by the provider class.
     */
    public record Selection(SipApplicationRouter router, String origin)
    {
    }

    private ApplicationRouters()
    {
    }

    /**
     * @param loader   the class loader to search (the container's, extended with the router's jars).
     * @param fallback supplies the default router when no provider is found.
     * @return the selection.
     * @throws IllegalStateException when a named or registered provider cannot be loaded or returns no router.
     */
    public static Selection load(final ClassLoader loader, final Supplier<SipApplicationRouter> fallback)
    {
        return load(loader, System.getProperty(PROVIDER_PROPERTY), fallback);
    }

    /**
     * @param loader            the class loader to search.
     * @param providerClassName the provider class to use, or {@code null} to use {@code META-INF/services}.
     * @param fallback          supplies the default router when no provider is found.
     * @return the selection.
     * @throws IllegalStateException when a named or registered provider cannot be loaded or returns no router.
     */
    public static Selection load(
        final ClassLoader loader, final String providerClassName, final Supplier<SipApplicationRouter> fallback)
    {
        if (null != providerClassName && !providerClassName.isBlank())
        {
            final String name = providerClassName.strip();
            final SipApplicationRouterProvider provider;
            try
            {
                final Class<?> type = Class.forName(name, true, loader);
                provider = (SipApplicationRouterProvider) type.getDeclaredConstructor().newInstance();
            }
            catch (final ReflectiveOperationException | ClassCastException | LinkageError ex)
            {
                throw new IllegalStateException(
                    PROVIDER_PROPERTY + "=" + name + ": cannot instantiate the application router provider: " + ex, ex);
            }
            return new Selection(routerOf(provider), "property " + name);
        }
        try
        {
            final Iterator<SipApplicationRouterProvider> providers =
                ServiceLoader.load(SipApplicationRouterProvider.class, loader).iterator();
            if (providers.hasNext())
            {
                final SipApplicationRouterProvider provider = providers.next();
                return new Selection(routerOf(provider), "service " + provider.getClass().getName());
            }
        }
        catch (final ServiceConfigurationError ex)
        {
            throw new IllegalStateException("META-INF/services/" + SipApplicationRouterProvider.class.getName()
                + ": " + ex.getMessage(), ex);
        }
        final SipApplicationRouter router = fallback.get();
        return new Selection(router, "default " + router.getClass().getName());
    }

    private static SipApplicationRouter routerOf(final SipApplicationRouterProvider provider)
    {
        final SipApplicationRouter router = provider.getSipApplicationRouter();
        if (null == router)
        {
            throw new IllegalStateException(provider.getClass().getName() + ".getSipApplicationRouter() returned null");
        }
        return router;
    }
}
