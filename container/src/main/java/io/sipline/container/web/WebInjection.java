package io.sipline.container.web;

import org.eclipse.jetty.util.Decorator;

import io.sipline.container.dispatch.RunningApplicationImpl;
import io.sipline.container.naming.InjectionException;
import io.sipline.container.naming.LifecycleCallbacks;

/**
 * Resource injection and lifecycle callbacks for the web half of one application (JSR 289 §18 on the model of
 * Servlet 3.1 §15.5): every servlet, filter and listener the engine makes from the application's classes gets its
 * {@code @Resource} fields and setters set from the application's names ({@code SipFactory}, {@code TimerService},
 * {@code SipSessionsUtil}, env entries), as the SIP half's objects do, then its {@code @PostConstruct} methods
 * called; {@code @PreDestroy} when the engine takes it out of service. The engine's own objects are left alone.
 * <p>
 * Threading: called by the engine on the thread that makes or destroys the object (the deploying thread, or an HTTP
 * thread for a servlet made on its first request); holds no mutable state.
 */
final class WebInjection implements Decorator
{
    private final RunningApplicationImpl application;

    WebInjection(final RunningApplicationImpl application)
    {
        this.application = application;
    }

    /**
     * @throws IllegalStateException one line naming the class, the member and why, when a {@code @Resource} cannot
     *         be satisfied or a {@code @PostConstruct} fails: the engine refuses the object (at start, the WAR).
     */
    @Override
    public <T> T decorate(final T instance)
    {
        if (!ours(instance))
        {
            return instance;
        }
        try
        {
            application.inject(instance);
        }
        catch (final InjectionException e)
        {
            throw new IllegalStateException(e.getMessage(), e);
        }
        LifecycleCallbacks.postConstruct(instance);
        return instance;
    }

    @Override
    public void destroy(final Object instance)
    {
        if (!ours(instance))
        {
            return;
        }
        try
        {
            LifecycleCallbacks.preDestroy(instance);
        }
        catch (final IllegalStateException e)
        {
            application.servletContext().log(e.getMessage(), e);
        }
    }

    private boolean ours(final Object instance)
    {
        return null != instance && instance.getClass().getClassLoader() == application.classLoader();
    }
}
