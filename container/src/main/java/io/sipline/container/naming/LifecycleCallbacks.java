package io.sipline.container.naming;

import java.lang.annotation.Annotation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import javax.annotation.PostConstruct;
import javax.annotation.PreDestroy;

/**
 * The {@code @PostConstruct} and {@code @PreDestroy} methods of a servlet or listener (JSR 250 §2.5 and §2.6, which
 * JSR 289 §18 takes from the Java EE model of Servlet 3.1 §15.5.1 and §15.5.2): {@code @PostConstruct} after the
 * resources are injected and before the container calls the instance ({@code init}, the first event);
 * {@code @PreDestroy} when it is taken out of service, after {@code destroy} or the last event. Methods of any
 * visibility, superclasses first; a method overridden by a subclass is called once, as the subclass declares it.
 * A callback takes no argument, returns {@code void} and is not static; one that does not fit is refused.
 * <p>
 * Threading: stateless; called on the deploying (or undeploying) thread.
 */
public final class LifecycleCallbacks
{
    private LifecycleCallbacks()
    {
    }

    /**
     * Calls the {@code @PostConstruct} methods of {@code instance}.
     *
     * @throws IllegalStateException one line naming the class, the method and what went wrong: a method that is
     *                               not a callback, or one that threw (its exception is the cause). The instance
     *                               must then not be put into service.
     */
    public static void postConstruct(final Object instance)
    {
        call(instance, PostConstruct.class);
    }

    /**
     * Calls the {@code @PreDestroy} methods of {@code instance}.
     *
     * @throws IllegalStateException as {@link #postConstruct}; the caller logs it and goes on with the others.
     */
    public static void preDestroy(final Object instance)
    {
        call(instance, PreDestroy.class);
    }

    private static void call(final Object instance, final Class<? extends Annotation> annotation)
    {
        for (final Method m : callbacks(instance.getClass(), annotation))
        {
            final String name = "@" + annotation.getSimpleName() + " " + m.getDeclaringClass().getName() + "."
                + m.getName() + "()";
            if (0 != m.getParameterCount() || void.class != m.getReturnType() || Modifier.isStatic(m.getModifiers()))
            {
                throw new IllegalStateException(name + ": a callback takes no argument, returns void and is not "
                    + "static (JSR 250)");
            }
            try
            {
                m.setAccessible(true);
                m.invoke(instance);
            }
            catch (final InvocationTargetException e)
            {
                throw new IllegalStateException(name + " threw " + e.getCause(), e.getCause());
            }
            catch (final IllegalAccessException | RuntimeException e)
            {
                throw new IllegalStateException(name + " cannot be called: " + e, e);
            }
        }
    }

    /** The annotated methods, superclasses first, each signature once (the most derived declaration wins). */
    private static List<Method> callbacks(final Class<?> type, final Class<? extends Annotation> annotation)
    {
        final Deque<Class<?>> hierarchy = new ArrayDeque<>();
        for (Class<?> c = type; null != c && Object.class != c; c = c.getSuperclass())
        {
            hierarchy.push(c);
        }
        final List<Method> found = new ArrayList<>();
        for (final Class<?> c : hierarchy)
        {
            for (final Method m : c.getDeclaredMethods())
            {
                if (m.isAnnotationPresent(annotation) && !overriddenBelow(c, m, hierarchy))
                {
                    found.add(m);
                }
            }
        }
        return found;
    }

    /** Whether a subclass of {@code declaring} (in the hierarchy) overrides the no-argument method {@code m}. */
    private static boolean overriddenBelow(final Class<?> declaring, final Method m, final Deque<Class<?>> hierarchy)
    {
        if (Modifier.isPrivate(m.getModifiers()))
        {
            return false;
        }
        boolean below = false;
        for (final Class<?> c : hierarchy)
        {
            if (below)
            {
                try
                {
                    c.getDeclaredMethod(m.getName(), m.getParameterTypes());
                    return true;
                }
                catch (final NoSuchMethodException e)
                {
                    // not redeclared here
                }
            }
            below |= c == declaring;
        }
        return false;
    }
}
