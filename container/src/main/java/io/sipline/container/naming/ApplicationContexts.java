package io.sipline.container.naming;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which application's names a JNDI lookup sees: the {@link NamingBindings} of each running application, by its class
 * loader. The current application is the one whose loader is the thread's context class loader or one of its
 * parents (the container sets it whenever it calls application code: servlets, listeners, timers); failing that,
 * the first application class on the thread's stack (an application's own thread whose context class loader was
 * replaced). A thread with neither runs no application code and sees no {@code java:comp/env}.
 * <p>
 * Threading: thread-safe; registered and removed on the deploying thread, read by any thread that looks a name up.
 * Never on a message's path.
 */
final class ApplicationContexts
{
    private static final Map<ClassLoader, NamingBindings> BY_LOADER = new ConcurrentHashMap<>();
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private ApplicationContexts()
    {
    }

    /** Makes {@code bindings} the names of the code {@code loader} loads (replacing a previous registration). */
    static void register(final ClassLoader loader, final NamingBindings bindings)
    {
        BY_LOADER.put(Objects.requireNonNull(loader, "loader"), Objects.requireNonNull(bindings, "bindings"));
    }

    /** Forgets {@code bindings}, unless another registration replaced it since. */
    static void unregister(final ClassLoader loader, final NamingBindings bindings)
    {
        BY_LOADER.remove(loader, bindings);
    }

    /**
     * @return the names of the application the current thread runs code of, or {@code null} when it runs none.
     */
    static NamingBindings current()
    {
        if (BY_LOADER.isEmpty())
        {
            return null;
        }
        for (ClassLoader l = Thread.currentThread().getContextClassLoader(); null != l; l = l.getParent())
        {
            final NamingBindings found = BY_LOADER.get(l);
            if (null != found)
            {
                return found;
            }
        }
        return WALKER.walk(frames -> frames
            .map(frame -> frame.getDeclaringClass().getClassLoader())
            .filter(Objects::nonNull)
            .map(BY_LOADER::get)
            .filter(Objects::nonNull)
            .findFirst())
            .orElse(null);
    }
}
