package io.sipline.sip.stack;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.sipline.sip.message.SipMessage;

/**
 * The INVITEs a stack's shards handed to another shard than their Call-ID's, because they target a dialog or an
 * application session that lives there ({@link ShardRouting#targetedShard}: Replaces, Join, an encoded Request-URI), so
 * that their CANCEL finds the same shard. A CANCEL copies the Request-URI, Call-ID, From, To, CSeq number and top Via
 * of its INVITE (RFC 3261 §9.1) but none of the headers that moved it, and RFC 3261 §9.2 matches it to the INVITE's
 * server transaction by the top Via branch: without this it would follow its Call-ID to a shard with no such
 * transaction and get 481.
 *
 * <p>Keyed by Call-ID and top Via branch. An entry lives {@link #KEEP_NS} (64*T1, the longest an INVITE server
 * transaction can be cancelled: Timer C of a proxy is longer, but a CANCEL later than the transaction's end gets 481
 * from the right shard too). Stale entries are swept at most once a second, by whichever shard records a moved INVITE;
 * at {@link #MAX_ENTRIES} a new one is not kept (its CANCEL then gets 481, as before), and counted.
 *
 * <p>Cost on the hot path: nothing for a request that was not moved; one {@code isEmpty()} for a CANCEL while no INVITE
 * is moved. A moved INVITE, and a CANCEL while some are, make the key (one String).
 *
 * <p>Thread-safe: shared by every shard of the stack; a {@link ConcurrentHashMap}, whose reads take no lock.
 */
final class MovedInvites
{
    /** 64*T1 with T1 = 500 ms (RFC 3261 §17.2.1, Timer H; the longest life of an INVITE server transaction). */
    static final long KEEP_NS = TimeUnit.SECONDS.toNanos(32);
    /** The most moved INVITEs kept at once (about 100 B each). */
    static final int MAX_ENTRIES = 65_536;
    private static final long SWEEP_EVERY_NS = TimeUnit.SECONDS.toNanos(1);

    /** The shard an INVITE went to, and when. */
    private record Moved(int shard, long atNs)
    {
    }

    private final ConcurrentHashMap<String, Moved> byKey = new ConcurrentHashMap<>();
    private final AtomicLong nextSweepNs;
    private final AtomicLong notKept = new AtomicLong();

    /** @param nowNs the clock's time now ({@link System#nanoTime()} in production): the first sweep is due then. */
    MovedInvites(final long nowNs)
    {
        nextSweepNs = new AtomicLong(nowNs);
    }

    /** Notes that {@code invite} (parsed, a request outside a dialog) was handed to {@code shard}. */
    void moved(final SipMessage invite, final int shard, final long nowNs)
    {
        final String key = key(invite);
        if (null == key)
        {
            return;
        }
        sweep(nowNs);
        if (byKey.size() >= MAX_ENTRIES && !byKey.containsKey(key))
        {
            notKept.incrementAndGet();
            return;
        }
        byKey.put(key, new Moved(shard, nowNs));
    }

    /**
     * @return the shard the INVITE this CANCEL cancels was handed to, or -1 when it was not moved (or too long ago).
     */
    int shardOf(final SipMessage cancel, final long nowNs)
    {
        if (byKey.isEmpty())
        {
            return -1;
        }
        final String key = key(cancel);
        final Moved m = null == key ? null : byKey.get(key);
        return null == m || nowNs - m.atNs > KEEP_NS ? -1 : m.shard;
    }

    /** How many moved INVITEs are remembered now. */
    int size()
    {
        return byKey.size();
    }

    /** How many moved INVITEs were not remembered because {@link #MAX_ENTRIES} were. */
    long notKept()
    {
        return notKept.get();
    }

    private void sweep(final long nowNs)
    {
        final long next = nextSweepNs.get();
        if (nowNs - next < 0 || !nextSweepNs.compareAndSet(next, nowNs + SWEEP_EVERY_NS))
        {
            return;
        }
        for (final Iterator<Moved> it = byKey.values().iterator(); it.hasNext(); )
        {
            if (nowNs - it.next().atNs > KEEP_NS)
            {
                it.remove();
            }
        }
    }

    /** Call-ID and top Via branch; null when either is missing. */
    private static String key(final SipMessage m)
    {
        final String branch = m.topViaBranch();
        final String callId = m.callId();
        return null == branch || null == callId ? null : callId + '\n' + branch;
    }
}
