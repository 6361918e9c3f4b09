package io.sipline.sip.transport.dns;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The answers of one shard's DNS lookups, each kept for as long as its records' TTL allows (RFC 1035 §3.2.1, the
 * smallest TTL of the answer; RFC 2181 §5.2 has all records of a set share one) and never longer: a lookup after the
 * expiry goes to the network again. Empty answers (no such name, no such record) are kept for the negative TTL the
 * caller gives (RFC 2308 §5: the SOA minimum of the authority section, else a default).
 *
 * <p>Not thread-safe; owned by one shard's loop. Time comes from an injected nanosecond clock, so that tests can move
 * it. Entries of names looked up once stay until looked up again after expiry or until {@link #purgeExpired()}.
 */
final class DnsCache
{
    private final LongSupplier nanoClock;
    private final HashMap<String, Entry> entries = new HashMap<>();
    private long hits;
    private long misses;

    DnsCache(final LongSupplier nanoClock)
    {
        this.nanoClock = nanoClock;
    }

    /** The cached values of a (name, type), or null when absent or expired. */
    List<Object> get(final String name, final int type)
    {
        final String key = key(name, type);
        final Entry e = entries.get(key);
        if (null == e || nanoClock.getAsLong() - e.expiresAtNs >= 0)
        {
            if (null != e)
            {
                entries.remove(key);
            }
            misses++;
            return null;
        }
        hits++;
        return e.values;
    }

    /** Keeps values for {@code ttlSeconds} (0 keeps nothing). */
    void put(final String name, final int type, final List<Object> values, final long ttlSeconds)
    {
        if (ttlSeconds <= 0)
        {
            return;
        }
        final long expiresAtNs = nanoClock.getAsLong() + ttlSeconds * 1_000_000_000L;
        entries.put(key(name, type), new Entry(List.copyOf(values), expiresAtNs));
    }

    /** Drops every expired entry. */
    void purgeExpired()
    {
        final long now = nanoClock.getAsLong();
        entries.values().removeIf(e -> now - e.expiresAtNs >= 0);
    }

    int size()
    {
        return entries.size();
    }

    long hits()
    {
        return hits;
    }

    long misses()
    {
        return misses;
    }

    private static String key(final String name, final int type)
    {
        return type + " " + lower(name);
    }

    /** DNS names compare without case (RFC 4343); a trailing dot is the same name. */
    static String lower(final String name)
    {
        final String n = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
        return n.toLowerCase(Locale.ROOT);
    }

    private record Entry(List<Object> values, long expiresAtNs)
    {
    }
}
