package io.sipline.container.dispatch;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The dialogs a shard ended for a stray 2xx ({@link StrayTwoHundreds}), so that a retransmission of the same 2xx gets
 * its ACK again but no second BYE. A dialog is remembered for a while after its last 2xx ({@code memoryNs}: 64*T1,
 * as long as the UAS retransmits a 2xx that gets no ACK, RFC 3261 §13.3.1.4), and at most {@link #REMEMBERED}
 * of them, the least recently seen going first; {@link #trim} (once a second, from the shard's tick) forgets the
 * ones past their time, and the map's table once none is left, so a quiet shard keeps nothing of a burst of strays.
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop.
 */
final class EndedDialogs
{
    /** The most dialogs remembered at once. */
    static final int REMEMBERED = 256;
    static final long TRIM_PERIOD_NS = 1_000_000_000L;

    private final long memoryNs;
    /** By Call-ID and To tag, the time of the dialog's last 2xx; the least recently seen first. */
    private Map<String, Long> seen = newMap();
    private long nextTrimNs;

    /** @param memoryNs how long a dialog is remembered after its last 2xx. */
    EndedDialogs(final long memoryNs)
    {
        this.memoryNs = memoryNs;
    }

    private static Map<String, Long> newMap()
    {
        return new LinkedHashMap<>(64, 0.75f, true)
        {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(final Map.Entry<String, Long> eldest)
            {
                return size() > REMEMBERED;
            }
        };
    }

    /**
     * Notes a 2xx of the dialog {@code key} at {@code nowNs}.
     *
     * @return true when the dialog was not remembered (its first 2xx, or one after it was forgotten).
     */
    boolean remember(final String key, final long nowNs)
    {
        return null == seen.put(key, nowNs);
    }

    /**
     * Once a second (earlier calls return at once): forgets the dialogs whose last 2xx is older than the memory, and
     * the map's table, which a burst grew, once none is left. Allocates nothing when none is remembered.
     */
    void trim(final long nowNs)
    {
        if (seen.isEmpty() || nowNs - nextTrimNs < 0)
        {
            return;
        }
        nextTrimNs = nowNs + TRIM_PERIOD_NS;
        final long oldest = nowNs - memoryNs;
        final Iterator<Long> times = seen.values().iterator(); // the least recently seen first
        while (times.hasNext() && times.next() - oldest < 0)
        {
            times.remove();
        }
        if (seen.isEmpty())
        {
            seen = newMap();
        }
    }

    /** Dialogs remembered now. */
    int size()
    {
        return seen.size();
    }
}
