package io.sipline.container.dispatch;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The log of the container's dispatch: a distinct problem is logged once per kind, process-wide, so that a fault that
 * repeats with every message does not flood the log (the counters say how often it happened).
 * <p>
 * Threading: threadsafe (any shard, the watchdog, an application's thread).
 */
final class ShardLog
{
    static final Logger LOG = System.getLogger("io.sipline.container.dispatch");
    /** Distinct problems already logged (one line per kind, process-wide). */
    private static final ConcurrentHashMap<String, Boolean> LOGGED = new ConcurrentHashMap<>();

    private ShardLog()
    {
    }

    /** Logs {@code message} (and {@code e}, may be null) at WARNING the first time {@code kind} comes. */
    static void logOnce(final String kind, final String message, final Throwable e)
    {
        if (firstTime(kind))
        {
            LOG.log(Level.WARNING, message + " (logged once per kind)", e);
        }
    }

    /** Whether {@code kind} comes for the first time (then it never does again). */
    static boolean firstTime(final String kind)
    {
        return null == LOGGED.putIfAbsent(kind, Boolean.TRUE);
    }
}
