package io.sipline.container.proxy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import io.sipline.container.api.HeaderText;
import io.sipline.container.api.MessageHeaders;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.HeaderName;

/**
 * The Route rules of a proxy (RFC 3261 §16.4, §16.6 step 6) and the key a record-routing proxy writes in its
 * Record-Route URI ({@value #ROUTE_PARAMETER}), by which the container finds the proxy's session when a subsequent
 * request comes back through the Route made from it. A proxy whose request changed transport wrote two Record-Route
 * entries with the same key (RFC 5658 double record-routing, one per side); both are ours and both are popped.
 * <p>
 * Threading: stateless.
 */
public final class ProxyRoutes
{
    /** The URI parameter of our Record-Route that names the proxy session (a shard-encoded tag). */
    public static final String ROUTE_PARAMETER = "sipline-px";
    /** {@link #ROUTE_PARAMETER} as bytes, to look for it in a received message without making a String. */
    public static final byte[] ROUTE_PARAMETER_BYTES = ROUTE_PARAMETER.getBytes(StandardCharsets.US_ASCII);

    private ProxyRoutes()
    {
    }

    /** The session key a Route value (name-addr) or a bare URI of ours carries, or null. */
    public static String key(final String routeOrUri)
    {
        return HeaderText.routeUriParam(routeOrUri, ROUTE_PARAMETER);
    }

    /** Whether a URI names {@code host}:{@code port} (the default port 5060 when it gives none). */
    public static boolean isOurs(final String uri, final String host, final int port)
    {
        return null != uri && namesUs(uri, 0, host, port, port, port);
    }

    /**
     * Whether a URI names {@code host} on one of our listening ports (UDP, TCP, TLS; -1 for a transport we do not
     * listen on), the default port 5060 (5061 for {@code sips:}) when it gives none.
     */
    public static boolean isOurs(final String uri, final String host, final int[] ports)
    {
        return null != uri && namesUs(uri, 0, host, ports);
    }

    private static boolean namesUs(final String value, final int from, final String host, final int[] ports)
    {
        final int p = portNamingUs(value, from, host);
        for (final int ours : ports)
        {
            if (p > 0 && p == ours)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the URI in {@code value} from {@code from} (a bare URI, or a name-addr whose URI is inside angle
     * brackets) names {@code host} on port {@code p1}, {@code p2} or {@code p3}; no String is made.
     */
    static boolean namesUs(final String value, final int from, final String host, final int p1, final int p2,
        final int p3)
    {
        final int p = portNamingUs(value, from, host);
        return p > 0 && (p == p1 || p == p2 || p == p3);
    }

    /** The port of the URI in {@code value} from {@code from} when its host is {@code host}, else -1. */
    private static int portNamingUs(final String value, final int from, final String host)
    {
        final int open = value.indexOf('<', from);
        final int uriStart = open >= 0 ? open + 1 : from;
        final int colon = value.indexOf(':', uriStart);
        if (colon < 0)
        {
            return -1;
        }
        final boolean sips = colon - uriStart == 4 && value.regionMatches(true, uriStart, "sips", 0, 4);
        final int paramsAt = HeaderText.firstOf(value, colon + 1, ";?>");
        final int at = value.indexOf('@', colon + 1);
        final int start = at >= 0 && at < paramsAt ? at + 1 : colon + 1;
        final int end;
        if (start < value.length() && value.charAt(start) == '[')
        {
            final int close = value.indexOf(']', start);
            end = close < 0 ? value.length() : close + 1;
        }
        else
        {
            end = HeaderText.firstOf(value, start, ":;?>");
        }
        if (end - start != host.length() || !value.regionMatches(true, start, host, 0, host.length()))
        {
            return -1;
        }
        int p = sips ? 5061 : 5060; // RFC 3263 §4.2: the default port of the scheme
        if (end < value.length() && value.charAt(end) == ':')
        {
            p = 0;
            int i = end + 1;
            for (; i < value.length() && Character.isDigit(value.charAt(i)) && p < 100_000; i++)
            {
                p = p * 10 + (value.charAt(i) - '0');
            }
            if (i == end + 1)
            {
                return -1;
            }
        }
        return p;
    }

    /**
     * §16.4: a strict router before us put our Record-Route URI in the Request-URI; the real one is the last Route,
     * which becomes the Request-URI again.
     *
     * @return whether the Request-URI was replaced.
     */
    public static boolean restoreRequestUri(final SipServletRequestImpl request)
    {
        if (!request.requestUriContains(ROUTE_PARAMETER_BYTES) || null == key(request.requestUriText()))
        {
            return false;
        }
        final MessageHeaders h = request.headers();
        int last = -1;
        for (int i = h.find(HeaderName.ROUTE, 0); i >= 0; i = h.find(HeaderName.ROUTE, i + 1))
        {
            last = i;
        }
        if (last < 0)
        {
            return false;
        }
        final String uri = HeaderText.uri(h.value(last));
        h.removeAt(last);
        request.replaceRequestUri(uri);
        return true;
    }

    /**
     * §16.4: when the top Route names us, it is removed and kept as the request's popped Route (JSR 289 §15.5).
     *
     * @return the popped value, or null when the top Route is not ours.
     */
    public static String popOwnRoute(final SipServletRequestImpl request, final String host, final int port)
    {
        return popOwnRoute(request, host, new int[] {port});
    }

    /**
     * §16.4: when the top Route names us (our host on one of our listening {@code ports}: UDP, TCP, TLS), it is
     * removed and kept as the request's popped Route (JSR 289 §15.5); the Route under it goes too when it is our
     * other entry of a double record-route (the same {@value #ROUTE_PARAMETER} key, RFC 5658).
     *
     * @return the popped value, or null when the top Route is not ours.
     */
    public static String popOwnRoute(final SipServletRequestImpl request, final String host, final int[] ports)
    {
        final MessageHeaders h = request.headers();
        final int top = h.find(HeaderName.ROUTE, 0);
        if (top < 0)
        {
            return null;
        }
        final String value = h.value(top);
        if (!namesUs(value, 0, host, ports))
        {
            return null;
        }
        final int second = h.find(HeaderName.ROUTE, top + 1);
        final boolean both = second >= 0 && sameKey(h, top, second);
        h.removeAt(top);
        if (both)
        {
            h.removeAt(second - 1);
        }
        request.poppedRoute(value);
        return value;
    }

    /**
     * §16.4: the top Route, which carried the key of one of our proxy sessions and so is ours, is removed and kept as
     * the request's popped Route, read from the received bytes only if the application asks for it. When the Route
     * under it carries the same key, it is our other entry of a double record-route (RFC 5658 §4: the proxy wrote
     * one for each side when the request changed transport) and is removed too; the popped Route stays the first.
     * A dialog whose proxy did not change transport has one entry: nothing more is read then but the next Route's
     * bytes, in place.
     */
    public static void popKeyedRoute(final SipServletRequestImpl request)
    {
        final MessageHeaders h = request.headers();
        final int top = h.find(HeaderName.ROUTE, 0);
        if (top < 0)
        {
            return;
        }
        final int second = h.find(HeaderName.ROUTE, top + 1);
        final boolean both = second >= 0 && sameKey(h, top, second);
        final long span = h.valueSpan(top);
        if (span < 0)
        {
            request.poppedRoute(h.value(top));
        }
        else
        {
            request.poppedRouteSpan(span);
        }
        h.removeAt(top);
        if (both)
        {
            h.removeAt(second - 1);
        }
    }

    /**
     * Whether Route entries {@code a} and {@code b} carry the same {@value #ROUTE_PARAMETER} key: compared in the
     * received bytes when both are there (no String), else as text.
     */
    static boolean sameKey(final MessageHeaders h, final int a, final int b)
    {
        final long spanA = h.valueSpan(a);
        final long spanB = h.valueSpan(b);
        if (spanA >= 0 && spanB >= 0)
        {
            final byte[] bytes = h.bytes();
            final long keyA = keySpan(bytes, (int)(spanA >>> 32), (int)spanA);
            final long keyB = keyA < 0 ? -1 : keySpan(bytes, (int)(spanB >>> 32), (int)spanB);
            return keyB >= 0 && Arrays.equals(bytes, (int)(keyA >>> 32), (int)keyA, bytes, (int)(keyB >>> 32),
                (int)keyB);
        }
        final String keyA = key(h.value(a));
        return null != keyA && keyA.equals(key(h.value(b)));
    }

    /**
     * The value of {@code ;sipline-px=} within {@code [start, end)} of {@code b}, packed as {@code start << 32 | end},
     * or -1 when there is none.
     */
    public static long keySpan(final byte[] b, final int start, final int end)
    {
        final int at = Ascii.indexOf(b, start, end, ROUTE_PARAMETER_BYTES);
        if (at <= start || b[at - 1] != ';' || at + ROUTE_PARAMETER_BYTES.length >= end
            || b[at + ROUTE_PARAMETER_BYTES.length] != '=')
        {
            return -1;
        }
        final int from = at + ROUTE_PARAMETER_BYTES.length + 1;
        int to = from;
        while (to < end && b[to] != ';' && b[to] != '>' && b[to] != '?' && b[to] != ',' && b[to] > ' ')
        {
            to++;
        }
        return to == from ? -1 : (long)from << 32 | to;
    }

    /**
     * §16.6 step 6: when the next hop (the top Route) is a strict router (no {@code lr}), the Request-URI goes to the
     * end of the Route set and the top Route's URI becomes the Request-URI; the request is still sent to that
     * router.
     */
    public static void forStrictNextHop(final SipServletRequestImpl request)
    {
        final MessageHeaders h = request.headers();
        final int top = h.find(HeaderName.ROUTE, 0);
        if (top < 0)
        {
            return;
        }
        final String uri = HeaderText.uri(h.value(top));
        if (null != HeaderText.uriParam(uri, HeaderText.hostStart(uri), "lr"))
        {
            return;
        }
        h.add("Route", "<" + request.requestUriText() + ">");
        h.removeAt(top);
        request.replaceRequestUri(uri);
        request.nextHopUri(uri);
    }
}
