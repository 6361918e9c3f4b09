package io.sipline.container.api;

/**
 * The application's class loader as the thread's context class loader while the container calls its listeners
 * outside a servlet call (session expiry and invalidation on the shard's timer, an application session made or
 * changed for an HTTP thread, servlet timers), as it is during servlet calls: JNDI lookups, {@code ServiceLoader}
 * and libraries that load by the context class loader then find the application's classes and names.
 * <pre>{@code
 * final ClassLoader previous = ListenerLoader.enter(application);
 * try { ...listeners... } finally { ListenerLoader.exit(previous); }
 * }</pre>
 * <p>
 * Threading: any thread; changes only the calling thread's context class loader. Allocates nothing.
 */
final class ListenerLoader
{
    /** What {@link #enter} returns when the loader was already the application's: nothing to restore. */
    private static final ClassLoader UNCHANGED = new ClassLoader(null)
    {
    };

    private ListenerLoader()
    {
    }

    /** Makes {@code application}'s loader the context class loader; returns what to give {@link #exit}. */
    static ClassLoader enter(final RunningApplication application)
    {
        final ClassLoader own = application.classLoader();
        final Thread thread = Thread.currentThread();
        final ClassLoader previous = thread.getContextClassLoader();
        if (null == own || own == previous)
        {
            return UNCHANGED;
        }
        thread.setContextClassLoader(own);
        return previous;
    }

    /** Restores the context class loader {@link #enter} replaced. */
    static void exit(final ClassLoader previous)
    {
        if (UNCHANGED != previous)
        {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }
}
