package io.sipline.sip.transport;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Logs each distinct error once: the first time a given exception type is thrown from a given place, with its stack;
 * every later occurrence only bumps the shard's error counter ({@link ShardCounters#errors()}). Nothing is logged per
 * packet, so a peer that keeps sending what trips the same bug cannot flood the log.
 *
 * <p>Two errors are the same when they have the same class and the same top stack frame (the message is left out: it
 * often holds an address or a length that differs every time).
 *
 * <p>Thread-safe: shared by the shards of a transport. Runs only on the error path, where allocating a key is fine.
 */
final class DistinctErrors
{
    private static final Logger LOG = System.getLogger("io.sipline.sip.transport");

    private final Set<String> seen = ConcurrentHashMap.newKeySet();

    /**
     * Logs the error unless one like it was already logged.
     *
     * @return true when it was logged (the first of its kind).
     */
    boolean record(final String where, final Throwable error)
    {
        final StackTraceElement[] stack = error.getStackTrace();
        final String key = error.getClass().getName() + '@' + (stack.length > 0 ? stack[0].toString() : "?");
        if (!seen.add(key))
        {
            return false;
        }
        LOG.log(Level.WARNING, where + ": " + error + " (logged once; later occurrences are only counted)", error);
        return true;
    }

    /** How many distinct errors were logged. */
    int distinct()
    {
        return seen.size();
    }
}
