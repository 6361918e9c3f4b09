package io.sipline.sip.transport.dns;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AddressedEnvelope;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.DnsSection;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsServerAddressStreamProvider;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.resolver.dns.SequentialDnsServerAddressStreamProvider;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.Future;
import io.sipline.sip.message.SipUriFlyweight;

/**
 * RFC 3263 §4 next-hop location for one shard: from a SIP or SIPS URI's host, port and transport parameter to the
 * ordered list of {@link SipTarget}s to try, with Netty's DNS client ({@link DnsNameResolver#query}) on the shard's
 * own event loop and a TTL-respecting cache of every answer ({@link DnsCache}).
 * <pre>
 *  host is an IP literal            no DNS: transport = param, else UDP (sip) / TLS (sips); port = given, else default
 *  port given                       A + AAAA of host, that port                                   (§4.1, §4.2)
 *  transport given, no port         SRV _sip._udp / _sip._tcp / _sips._tcp of host, else A + AAAA (§4.2)
 *  neither                          NAPTR of host (SIP+D2U, SIP+D2T, SIPS+D2T; order, preference)  (§4.1)
 *                                     -> SRV of each replacement;
 *                                   no NAPTR: SRV of each transport we support, in the order UDP, TCP (TLS for sips);
 *                                   no SRV: A + AAAA, default port, UDP (TLS for sips)
 *  SRV answers                      by priority, then weighted random within a priority (RFC 2782), each target's
 *                                   A + AAAA records in that order
 * </pre>
 * A query that fails (timeout, server failure) counts as an empty answer for that step and is not cached; an empty
 * answer is cached for the negative TTL (RFC 2308 §5: the SOA's minimum, capped by its TTL, else
 * {@link #NEGATIVE_TTL_DEFAULT_SECONDS}).
 *
 * <p>Not thread-safe; owned by one shard: {@link #locate} and the callbacks run on its event loop (the resolver's).
 * A lookup allocates (lists, futures, strings), per new destination, not per message: the caller keeps the targets.
 */
public final class SipLocator implements AutoCloseable
{
    /** RFC 3263 §4.1 NAPTR services this stack can use. */
    private static final String D2U = "SIP+D2U";
    private static final String D2T = "SIP+D2T";
    private static final String SIPS_D2T = "SIPS+D2T";
    /** How long "no such record" is believed when the answer carries no SOA. */
    public static final long NEGATIVE_TTL_DEFAULT_SECONDS = 30;
    /** RFC 3261 §19.1.2. */
    public static final int SIP_PORT = 5060;
    public static final int SIPS_PORT = 5061;

    private static final int TYPE_A = 1;
    private static final int TYPE_AAAA = 28;
    private static final int TYPE_SRV = 33;
    private static final int TYPE_NAPTR = 35;

    /** Called with the targets in the order to try (empty when nothing was found), on the shard's loop. */
    @FunctionalInterface
    public interface Callback
    {
        void located(List<SipTarget> targets);
    }

    private final EventLoop loop;
    private final DnsNameResolver resolver;
    private final DnsCache cache;
    private final Random random;
    private long queries;

    /**
     * @param servers   DNS servers to ask (in order); null or empty: the system's ({@code /etc/resolv.conf}).
     * @param nanoClock the cache's clock ({@code System::nanoTime} outside tests).
     * @param random    picks among SRV records of equal priority by weight (RFC 2782).
     */
    public SipLocator(final EventLoop loop, final boolean epoll, final List<InetSocketAddress> servers,
        final long queryTimeoutMillis, final LongSupplier nanoClock, final Random random)
    {
        this.loop = loop;
        final DnsServerAddressStreamProvider provider = null == servers || servers.isEmpty() ?
            DnsServerAddressStreamProviders.platformDefault() :
            new SequentialDnsServerAddressStreamProvider(servers.toArray(new InetSocketAddress[0]));
        this.resolver = new DnsNameResolverBuilder(loop)
            .datagramChannelFactory(() -> epoll ? new EpollDatagramChannel() : new NioDatagramChannel())
            .nameServerProvider(provider)
            .queryTimeoutMillis(queryTimeoutMillis)
            .recursionDesired(true)
            .build();
        this.cache = new DnsCache(nanoClock);
        this.random = random;
    }

    /** Queries sent to the network (cache misses that went out). */
    public long queries()
    {
        return queries;
    }

    /** Answers served from the cache. */
    public long cacheHits()
    {
        return cache.hits();
    }

    /**
     * Finds where to send a request for a parsed SIP or SIPS URI (RFC 3263 §4): its {@code maddr} parameter when it
     * has one (§4: "the target ... is the maddr"; an IP literal or a host name, located like any host), else its
     * host; with its port and {@code transport} parameter. On the shard's loop.
     *
     * @param uri borrowed for the call: read at once, never kept.
     * @throws IllegalArgumentException when the URI is not a valid SIP or SIPS URI with a host.
     */
    public void locate(final SipUriFlyweight uri, final Callback callback)
    {
        if (!uri.isValid() || !(uri.isSip() || uri.isSips()) || uri.hostStart() < 0)
        {
            throw new IllegalArgumentException("not a SIP or SIPS URI with a host");
        }
        final byte[] b = uri.buffer();
        final boolean maddr = uri.maddrParamStart() >= 0 && uri.maddrParamEnd() > uri.maddrParamStart();
        final String host = maddr ? ascii(b, uri.maddrParamStart(), uri.maddrParamEnd()) :
            ascii(b, uri.hostStart(), uri.hostEnd());
        final String transport = uri.transportParamStart() >= 0 && uri.transportParamEnd() > uri.transportParamStart() ?
            ascii(b, uri.transportParamStart(), uri.transportParamEnd()) : null;
        locate(host, uri.port(), transport, uri.isSips(), callback);
    }

    private static String ascii(final byte[] b, final int start, final int end)
    {
        return new String(b, start, end - start, StandardCharsets.US_ASCII);
    }

    /**
     * Finds where to send a request for a URI (RFC 3263 §4). On the shard's loop.
     *
     * @param host      the URI's host (or maddr): a name, an IPv4 literal or an IPv6 reference (brackets allowed).
     * @param port      the URI's port, or -1 when it has none.
     * @param transport the URI's transport parameter ("udp", "tcp", "tls", any case), or null.
     * @param sips      a SIPS URI (TLS only, §4.1).
     */
    public void locate(final String host, final int port, final String transport, final boolean sips,
        final Callback callback)
    {
        final String wanted = null == transport ? null : normalise(transport, sips);
        final String name = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (NetUtil.isValidIpV4Address(name) || NetUtil.isValidIpV6Address(name))
        {
            // §4.1/§4.2: a numeric host needs no DNS.
            final String t = null != wanted ? wanted : sips ? "TLS" : "UDP";
            final List<SipTarget> one = new ArrayList<>(1);
            one.add(new SipTarget(t, new InetSocketAddress(literal(name), port > 0 ? port : defaultPort(t))));
            callback.located(one);
            return;
        }
        if (port > 0)
        {
            final String t = null != wanted ? wanted : sips ? "TLS" : "UDP";
            addresses(name, addresses -> callback.located(targets(t, addresses, port)));
            return;
        }
        if (null != wanted)
        {
            srvThenAddresses(List.of(wanted), name, sips, callback);
            return;
        }
        lookup(name, TYPE_NAPTR, records -> onNaptr(name, sips, records, callback));
    }

    private void onNaptr(final String name, final boolean sips, final List<Object> records, final Callback callback)
    {
        final List<Naptr> usable = new ArrayList<>();
        for (final Object o : records)
        {
            final Naptr n = (Naptr)o;
            if ("s".equalsIgnoreCase(n.flags) && null != transportOf(n.service, sips))
            {
                usable.add(n);
            }
        }
        if (usable.isEmpty())
        {
            // §4.1: no NAPTR: SRV for each transport we support.
            srvThenAddresses(sips ? List.of("TLS") : List.of("UDP", "TCP"), name, sips, callback);
            return;
        }
        usable.sort((a, b) -> a.order != b.order ? Integer.compare(a.order, b.order) :
            Integer.compare(a.preference, b.preference));
        final List<SipTarget> all = new ArrayList<>();
        naptrStep(usable, 0, sips, all, callback);
    }

    private void naptrStep(final List<Naptr> naptrs, final int i, final boolean sips, final List<SipTarget> all,
        final Callback callback)
    {
        if (i == naptrs.size())
        {
            callback.located(all);
            return;
        }
        final Naptr n = naptrs.get(i);
        final String transport = transportOf(n.service, sips);
        lookup(n.replacement, TYPE_SRV, srvs -> srvTargets(transport, 0, orderSrv(srvs), all,
            () -> naptrStep(naptrs, i + 1, sips, all, callback)));
    }

    /** SRV for each transport in turn (§4.1 without NAPTR, §4.2 with a transport); none at all: A/AAAA. */
    private void srvThenAddresses(final List<String> transports, final String name, final boolean sips,
        final Callback callback)
    {
        final List<SipTarget> all = new ArrayList<>();
        srvStep(transports, 0, name, sips, all, callback);
    }

    private void srvStep(final List<String> transports, final int i, final String name, final boolean sips,
        final List<SipTarget> all, final Callback callback)
    {
        if (i == transports.size())
        {
            if (!all.isEmpty())
            {
                callback.located(all);
                return;
            }
            // §4.2: no SRV records: the host's addresses, the transport's default port.
            final String t = transports.size() == 1 ? transports.get(0) : sips ? "TLS" : "UDP";
            addresses(name, addresses -> callback.located(targets(t, addresses, defaultPort(t))));
            return;
        }
        final String transport = transports.get(i);
        final String service = ("TLS".equals(transport) ? "_sips._tcp." : "TCP".equals(transport) ? "_sip._tcp." :
            "_sip._udp.") + name;
        lookup(service, TYPE_SRV, srvs -> srvTargets(transport, 0, orderSrv(srvs), all,
            () -> srvStep(transports, i + 1, name, sips, all, callback)));
    }

    /** Resolves each SRV target in order into {@code all}, then runs {@code then}. */
    private void srvTargets(final String transport, final int i, final List<Srv> ordered, final List<SipTarget> all,
        final Runnable then)
    {
        if (i == ordered.size())
        {
            then.run();
            return;
        }
        final Srv srv = ordered.get(i);
        addresses(srv.target, addresses ->
        {
            all.addAll(targets(transport, addresses, srv.port));
            srvTargets(transport, i + 1, ordered, all, then);
        });
    }

    /** RFC 2782: ascending priority; within one, repeatedly pick by running weight sum against a random number. */
    private List<Srv> orderSrv(final List<Object> records)
    {
        final List<Srv> left = new ArrayList<>();
        for (final Object o : records)
        {
            final Srv s = (Srv)o;
            if (!".".equals(s.target) && !s.target.isEmpty())
            {
                left.add(s);
            }
        }
        left.sort((a, b) -> Integer.compare(a.priority, b.priority));
        final List<Srv> ordered = new ArrayList<>(left.size());
        int from = 0;
        while (from < left.size())
        {
            int to = from;
            while (to < left.size() && left.get(to).priority == left.get(from).priority)
            {
                to++;
            }
            final List<Srv> group = new ArrayList<>(left.subList(from, to));
            // Zero weights first, so that they have a (small) chance when others are heavier (RFC 2782).
            group.sort((a, b) -> Integer.compare(a.weight == 0 ? 0 : 1, b.weight == 0 ? 0 : 1));
            while (!group.isEmpty())
            {
                int sum = 0;
                for (final Srv s : group)
                {
                    sum += s.weight;
                }
                final int pick = sum == 0 ? 0 : random.nextInt(sum + 1);
                int running = 0;
                int chosen = 0;
                for (int k = 0; k < group.size(); k++)
                {
                    running += group.get(k).weight;
                    if (running >= pick)
                    {
                        chosen = k;
                        break;
                    }
                }
                ordered.add(group.remove(chosen));
            }
            from = to;
        }
        return ordered;
    }

    /** A then AAAA records of a name. */
    private void addresses(final String name, final Consumer<List<InetAddress>> then)
    {
        lookup(name, TYPE_A, a -> lookup(name, TYPE_AAAA, aaaa ->
        {
            final List<InetAddress> all = new ArrayList<>(a.size() + aaaa.size());
            for (final Object o : a)
            {
                all.add((InetAddress)o);
            }
            for (final Object o : aaaa)
            {
                all.add((InetAddress)o);
            }
            then.accept(all);
        }));
    }

    private static List<SipTarget> targets(final String transport, final List<InetAddress> addresses, final int port)
    {
        final List<SipTarget> out = new ArrayList<>(addresses.size());
        for (final InetAddress a : addresses)
        {
            out.add(new SipTarget(transport, new InetSocketAddress(a, port)));
        }
        return out;
    }

    /** One (name, type) from the cache, else from the network (cached for the answer's TTL). */
    private void lookup(final String name, final int type, final Consumer<List<Object>> then)
    {
        final List<Object> cached = cache.get(name, type);
        if (null != cached)
        {
            then.accept(cached);
            return;
        }
        queries++;
        final Future<AddressedEnvelope<DnsResponse, InetSocketAddress>> future =
            resolver.query(new DefaultDnsQuestion(name, DnsRecordType.valueOf(type)));
        future.addListener(f ->
        {
            List<Object> values = List.of();
            if (f.isSuccess())
            {
                @SuppressWarnings("unchecked")
                final AddressedEnvelope<DnsResponse, InetSocketAddress> envelope =
                    (AddressedEnvelope<DnsResponse, InetSocketAddress>)f.getNow();
                try
                {
                    final long[] ttl = {Long.MAX_VALUE};
                    values = decode(envelope.content(), type, ttl);
                    cache.put(name, type, values, values.isEmpty() ? negativeTtl(envelope.content()) :
                        ttl[0] == Long.MAX_VALUE ? 0 : ttl[0]);
                }
                finally
                {
                    envelope.release(); // the resolver's response: ours to release, once, here
                }
            }
            then.accept(values);
        });
    }

    /** The answer records of the asked type, decoded; {@code ttl[0]} becomes their smallest TTL. */
    private static List<Object> decode(final DnsResponse response, final int type, final long[] ttl)
    {
        final int count = response.count(DnsSection.ANSWER);
        final List<Object> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final DnsRecord record = response.recordAt(DnsSection.ANSWER, i);
            if (record.type().intValue() != type || !(record instanceof DnsRawRecord raw))
            {
                continue; // a CNAME in the chain, or another type
            }
            final Object value = decodeValue(raw.content(), type);
            if (null != value)
            {
                out.add(value);
                ttl[0] = Math.min(ttl[0], record.timeToLive());
            }
        }
        return out;
    }

    private static Object decodeValue(final ByteBuf rdata, final int type)
    {
        final ByteBuf b = rdata.duplicate();
        try
        {
            switch (type)
            {
                case TYPE_A, TYPE_AAAA ->
                {
                    final int length = TYPE_A == type ? 4 : 16;
                    if (b.readableBytes() != length)
                    {
                        return null;
                    }
                    final byte[] address = new byte[length];
                    b.readBytes(address);
                    return InetAddress.getByAddress(address);
                }
                case TYPE_SRV ->
                {
                    final int priority = b.readUnsignedShort();
                    final int weight = b.readUnsignedShort();
                    final int port = b.readUnsignedShort();
                    final String target = domainName(b);
                    return null == target ? null : new Srv(priority, weight, port, target);
                }
                case TYPE_NAPTR ->
                {
                    final int order = b.readUnsignedShort();
                    final int preference = b.readUnsignedShort();
                    final String flags = characterString(b);
                    final String service = characterString(b);
                    characterString(b); // regexp: SIP uses replacement only (RFC 3263 §4.1)
                    final String replacement = domainName(b);
                    return null == replacement ? null : new Naptr(order, preference, flags, service, replacement);
                }
                default ->
                {
                    return null;
                }
            }
        }
        catch (final IndexOutOfBoundsException | UnknownHostException malformed)
        {
            return null; // a record we cannot read is skipped, never thrown at the shard
        }
    }

    /** RFC 1035 §3.3 character-string. */
    private static String characterString(final ByteBuf b)
    {
        final int length = b.readUnsignedByte();
        return b.readCharSequence(length, StandardCharsets.US_ASCII).toString();
    }

    /**
     * An uncompressed domain name (RFC 1035 §3.1; SRV targets and NAPTR replacements are never compressed, RFC 2782,
     * RFC 3403 §4.1); null for a compression pointer.
     */
    private static String domainName(final ByteBuf b)
    {
        final StringBuilder sb = new StringBuilder();
        while (true)
        {
            final int length = b.readUnsignedByte();
            if (0 == length)
            {
                return sb.isEmpty() ? "." : sb.toString();
            }
            if ((length & 0xC0) != 0)
            {
                return null;
            }
            if (!sb.isEmpty())
            {
                sb.append('.');
            }
            sb.append(b.readCharSequence(length, StandardCharsets.US_ASCII));
        }
    }

    /** RFC 2308 §5: the SOA's minimum field, capped by the SOA's own TTL; else the default. */
    private static long negativeTtl(final DnsResponse response)
    {
        for (int i = 0; i < response.count(DnsSection.AUTHORITY); i++)
        {
            final DnsRecord record = response.recordAt(DnsSection.AUTHORITY, i);
            if (record.type() == DnsRecordType.SOA && record instanceof DnsRawRecord raw)
            {
                final ByteBuf b = raw.content().duplicate();
                try
                {
                    if (null != domainName(b) && null != domainName(b) && b.readableBytes() >= 20)
                    {
                        final long minimum = b.getUnsignedInt(b.readerIndex() + 16);
                        return Math.min(minimum, record.timeToLive());
                    }
                }
                catch (final IndexOutOfBoundsException malformed)
                {
                    return NEGATIVE_TTL_DEFAULT_SECONDS;
                }
            }
        }
        return NEGATIVE_TTL_DEFAULT_SECONDS;
    }

    private static String transportOf(final String service, final boolean sips)
    {
        if (SIPS_D2T.equalsIgnoreCase(service))
        {
            return "TLS";
        }
        if (sips)
        {
            return null; // §4.1: a SIPS URI uses SIPS+D2T only
        }
        return D2U.equalsIgnoreCase(service) ? "UDP" : D2T.equalsIgnoreCase(service) ? "TCP" : null;
    }

    private static String normalise(final String transport, final boolean sips)
    {
        final String t = transport.toUpperCase(java.util.Locale.ROOT);
        return sips && "TCP".equals(t) ? "TLS" : t;
    }

    private static int defaultPort(final String transport)
    {
        return "TLS".equals(transport) ? SIPS_PORT : SIP_PORT;
    }

    private static InetAddress literal(final String text)
    {
        return InetAddress.ofLiteral(text);
    }

    /** The loop this locator runs on. */
    public EventLoop loop()
    {
        return loop;
    }

    /** Closes the resolver's socket. On the loop, or any thread after the loop stopped. */
    @Override
    public void close()
    {
        resolver.close();
    }

    private record Srv(int priority, int weight, int port, String target)
    {
    }

    private record Naptr(int order, int preference, String flags, String service, String replacement)
    {
    }
}
