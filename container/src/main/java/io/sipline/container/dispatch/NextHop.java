package io.sipline.container.dispatch;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import io.netty.resolver.DefaultHostsFileEntriesResolver;
import io.netty.resolver.ResolvedAddressTypes;
import io.netty.util.NetUtil;
import io.sipline.container.api.HeaderText;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.transport.dns.SipLocator;

/**
 * Where a request goes (RFC 3261 §8.1.2, §12.2.1.1): the URI of the top Route when there is one, else the
 * Request-URI; its {@code maddr} parameter or host, its port and transport parameter, as a {@link Hop}. A numeric
 * host, or a name the hosts file lists, is the destination at once (5060 for sip, 5061 for sips by default: RFC 3263
 * §4.2, no DNS); any other host name is for the shard's {@link SipLocator} to locate (RFC 3263 NAPTR, SRV, A/AAAA with
 * its TTL cache), which {@link ContainerShardImpl} asks asynchronously on the shard's loop.
 * <p>
 * Threading: one instance per shard, used on it only.
 */
final class NextHop
{
    /**
     * Names the system's hosts file lists ({@code localhost}, ...), read once when the class loads (off the shards):
     * they are found there as the JDK resolver found them before, without DNS; every other name goes to RFC 3263.
     */
    private static final DefaultHostsFileEntriesResolver HOSTS = new DefaultHostsFileEntriesResolver();

    /**
     * A parsed next hop.
     *
     * @param host      the name to locate (maddr or host, without IPv6 brackets), or null when {@code numeric} is set.
     * @param port      the URI's port, or -1 when it has none.
     * @param transport the URI's transport parameter, or null.
     * @param sips      a SIPS URI.
     * @param numeric   the destination of a numeric host or of a name the hosts file lists, or null.
     */
    record Hop(String host, int port, String transport, boolean sips, InetSocketAddress numeric)
    {
    }

    /** Hops by URI text: in-dialog requests reuse the remote target's String, so a hit allocates nothing. */
    private final Map<String, Hop> byUri = new HashMap<>();
    /**
     * Hops by the wire bytes of a Request-URI object (one the application set, or parsed from text): looked up
     * with {@link #probe} over the object's bytes, so that a hit makes no String of the URI.
     */
    private final Map<WireKey, Hop> byWire = new HashMap<>();
    private final WireKey probe = new WireKey(null);

    /** The URI a request is sent towards: its top Route's, else its Request-URI. */
    static String uriOf(final SipServletRequestImpl request)
    {
        final String route = request.headers().get(HeaderName.ROUTE);
        return null != route ? HeaderText.uri(route) : request.requestUriText();
    }

    /**
     * The next hop of a request (null as {@link #of(String)}): a strict router's next hop when it has one, else the
     * URI of {@link #uriOf}; a Request-URI object's is found by its bytes.
     */
    Hop of(final SipServletRequestImpl request)
    {
        if (null != request.nextHopUri())
        {
            return of(request.nextHopUri());
        }
        final byte[] wire = request.headers().find(HeaderName.ROUTE, 0) < 0 ? request.requestUriWire() : null;
        if (null == wire)
        {
            return of(uriOf(request));
        }
        probe.wire = wire;
        final Hop known = byWire.get(probe);
        probe.wire = null;
        if (null != known)
        {
            return known;
        }
        final Hop found = parse(new String(wire, StandardCharsets.ISO_8859_1));
        if (null != found && byWire.size() < 10_000)
        {
            byWire.put(new WireKey(wire), found); // the object's bytes are never written: kept, not copied
        }
        return found;
    }

    /**
     * @return the next hop of a SIP or SIPS URI, or null when the URI has no usable host or port.
     */
    Hop of(final String uri)
    {
        if (null == uri)
        {
            return null;
        }
        final Hop known = byUri.get(uri);
        if (null != known)
        {
            return known;
        }
        final Hop found = parse(uri);
        if (null != found && byUri.size() < 10_000)
        {
            byUri.put(uri, found);
        }
        return found;
    }

    /** A URI's wire bytes as a map key, equal by content. */
    private static final class WireKey
    {
        private byte[] wire;

        WireKey(final byte[] wire)
        {
            this.wire = wire;
        }

        @Override
        public boolean equals(final Object o)
        {
            return o instanceof WireKey other && Arrays.equals(wire, other.wire);
        }

        @Override
        public int hashCode()
        {
            return Arrays.hashCode(wire);
        }
    }

    private static Hop parse(final String uri)
    {
        final int colon = uri.indexOf(':');
        if (colon < 0)
        {
            return null;
        }
        final String scheme = uri.substring(0, colon).toLowerCase(java.util.Locale.ROOT);
        if (!"sip".equals(scheme) && !"sips".equals(scheme))
        {
            return null;
        }
        final boolean sips = "sips".equals(scheme);
        int p = colon + 1;
        final int at = uri.indexOf('@', p);
        final int paramsAt = HeaderText.firstOf(uri, p, ";?>");
        if (at >= 0 && at < paramsAt)
        {
            p = at + 1;
        }
        String host;
        int port = -1;
        int end;
        if (p < uri.length() && uri.charAt(p) == '[')
        {
            end = uri.indexOf(']', p);
            if (end < 0)
            {
                return null;
            }
            host = uri.substring(p + 1, end);
            end++;
        }
        else
        {
            end = HeaderText.firstOf(uri, p, ":;?>");
            host = uri.substring(p, end);
        }
        if (end < uri.length() && uri.charAt(end) == ':')
        {
            final int portEnd = HeaderText.firstOf(uri, end + 1, ";?>");
            try
            {
                port = Integer.parseInt(uri.substring(end + 1, portEnd));
            }
            catch (final NumberFormatException e)
            {
                return null;
            }
            if (port <= 0 || port > 65535)
            {
                return null;
            }
        }
        final String maddr = HeaderText.uriParam(uri, end, "maddr");
        if (null != maddr && !maddr.isEmpty())
        {
            host = maddr.startsWith("[") && maddr.endsWith("]") ? maddr.substring(1, maddr.length() - 1) : maddr;
        }
        if (host.isEmpty())
        {
            return null;
        }
        final String transport = HeaderText.uriParam(uri, end, "transport");
        final int p2 = port > 0 ? port : sips ? SipLocator.SIPS_PORT : SipLocator.SIP_PORT;
        if (NetUtil.isValidIpV4Address(host) || NetUtil.isValidIpV6Address(host))
        {
            return new Hop(null, port, transport, sips,
                new InetSocketAddress(InetAddress.ofLiteral(host), p2)); // RFC 3263 §4.2: no DNS for a numeric host
        }
        final InetAddress listed = HOSTS.address(host, ResolvedAddressTypes.IPV4_PREFERRED);
        if (null != listed)
        {
            return new Hop(null, port, transport, sips, new InetSocketAddress(listed, p2)); // the hosts file: no DNS
        }
        return new Hop(host, port, transport, sips, null);
    }
}
