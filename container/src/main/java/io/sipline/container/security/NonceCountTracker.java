package io.sipline.container.security;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Replay protection for {@code qop=auth} (RFC 2617 §3.2.2: "the server can detect request replays by maintaining
 * its own copy of this count"): per nonce in use, the highest {@code nc} accepted and a 64-bit window of the
 * {@code nc} values below it already accepted, so requests overtaking each other (UDP, parallel transactions) are
 * accepted once each and a repeated or too old {@code nc} is refused. State exists only for nonces that have
 * authenticated a request (never for nonces merely issued, nor for wrong credentials).
 * <p>
 * <b>Memory bound.</b> At most {@code maxEntries} nonces are tracked (plus, for a moment, one per thread racing
 * past the check). An entry is a {@link Long} key, a {@code Window} and a map node: about 100 bytes, so the default
 * 65,536 entries stay under 7 MB. Expired entries (issued more than the lifetime ago) are swept at least once per
 * lifetime and whenever the map is full; if it is still full, the oldest eighth is evicted at once (so the cost
 * of eviction, a pass and a sort, is spread over the next maxEntries / 8 nonces). Every removal raises a
 * floor to the removed entry's issue time, and a nonce issued at or before the floor that has no entry is answered
 * {@link Check#FORGOTTEN} (the authenticator makes that {@code stale=true}: the client retries with a new nonce),
 * so forgetting an entry never re-opens its counts to replay.
 * <p>
 * Threading: thread-safe; each window is updated under its own monitor, sweeps under this tracker's.
 */
final class NonceCountTracker
{
    /** The outcome of {@link #accept}. */
    enum Check
    {
        /** A new nonce count for this nonce. */
        ACCEPTED,
        /** This count was accepted before, or is more than 63 below the highest one. */
        REPLAYED,
        /** The nonce's state may have been removed: the client must take a new nonce. */
        FORGOTTEN
    }

    private static final int WINDOW_BITS = 64;

    private final int maxEntries;
    private final long lifetimeMs;
    private final Map<Long, Window> windows = new ConcurrentHashMap<>();
    private volatile long floorMs = Long.MIN_VALUE;
    private volatile long nextSweepMs;

    /**
     * @param maxEntries the most nonces tracked (at least 1).
     * @param lifetimeMs the nonce lifetime.
     * @param nowMs      the current time.
     */
    NonceCountTracker(final int maxEntries, final long lifetimeMs, final long nowMs)
    {
        if (maxEntries < 1 || lifetimeMs < 1)
        {
            throw new IllegalArgumentException("maxEntries and lifetimeMs must be positive");
        }
        this.maxEntries = maxEntries;
        this.lifetimeMs = lifetimeMs;
        this.nextSweepMs = nowMs + lifetimeMs;
    }

    /**
     * @param id       the nonce id.
     * @param issuedMs the nonce's issue time (from the verified nonce).
     * @param nc       the nonce count, at least 1.
     * @param nowMs    the current time.
     * @return whether the count is new.
     */
    Check accept(final long id, final long issuedMs, final long nc, final long nowMs)
    {
        if (nowMs - nextSweepMs >= 0)
        {
            sweep(nowMs, false);
        }
        Window window = windows.get(id);
        if (null == window)
        {
            if (issuedMs <= floorMs || nowMs - issuedMs >= lifetimeMs)
            {
                return Check.FORGOTTEN;
            }
            if (windows.size() >= maxEntries)
            {
                sweep(nowMs, true);
            }
            window = windows.computeIfAbsent(id, key -> new Window(issuedMs));
        }
        return window.accept(nc) ? Check.ACCEPTED : Check.REPLAYED;
    }

    /**
     * @return the number of nonces tracked.
     */
    int size()
    {
        return windows.size();
    }

    private synchronized void sweep(final long nowMs, final boolean makeRoom)
    {
        nextSweepMs = nowMs + lifetimeMs;
        for (final Iterator<Window> it = windows.values().iterator(); it.hasNext(); )
        {
            final Window window = it.next();
            if (nowMs - window.issuedMs >= lifetimeMs)
            {
                raiseFloor(window.issuedMs);
                it.remove();
            }
        }
        if (makeRoom && windows.size() >= maxEntries)
        {
            // The oldest eighth at once: one pass and a sort per maxEntries / 8 new nonces, not a scan per nonce.
            final long[] issued = new long[windows.size()];
            int n = 0;
            for (final Window window : windows.values())
            {
                if (n == issued.length)
                {
                    break;
                }
                issued[n++] = window.issuedMs;
            }
            Arrays.sort(issued, 0, n);
            final long cutoff = issued[Math.max(1, n / 8) - 1];
            raiseFloor(cutoff);
            windows.values().removeIf(window -> window.issuedMs <= cutoff);
        }
    }

    /** Raised before the removal, so a caller that no longer finds the entry already sees the new floor. */
    private void raiseFloor(final long issuedMs)
    {
        if (issuedMs > floorMs)
        {
            floorMs = issuedMs;
        }
    }

    /** The counts seen for one nonce. */
    private static final class Window
    {
        private final long issuedMs;
        private long highest;
        private long seen;

        Window(final long issuedMs)
        {
            this.issuedMs = issuedMs;
        }

        synchronized boolean accept(final long nc)
        {
            if (nc > highest)
            {
                final long shift = nc - highest;
                seen = shift >= WINDOW_BITS ? 0 : seen << shift;
                seen |= 1;
                highest = nc;
                return true;
            }
            final long behind = highest - nc;
            if (behind >= WINDOW_BITS)
            {
                return false;
            }
            final long bit = 1L << behind;
            if (0 != (seen & bit))
            {
                return false;
            }
            seen |= bit;
            return true;
        }
    }
}
