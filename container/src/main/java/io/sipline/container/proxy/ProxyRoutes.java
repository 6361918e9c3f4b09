package io.sipline.container.proxy;

import java.nio.charset.StandardCharsets;

import io.sipline.container.message.HeaderText;
import io.sipline.container.message.MessageHeaders;
import io.sipline.container.message.SipServletRequestImpl;
import io.sipline.sip.message.HeaderName;

/**
 * The Route rules of a proxy (RFC 3261 §16.4, §16.6 step 6) and the key a record-routing proxy writes in its
 * Record-Route URI ({@value #ROUTE_PARAMETER}), by which the container finds the proxy's session when a subsequent
 * request comes back through the Route made from it.
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
        return null != uri && namesUs(uri, 0, host, port);
    }

    /**
     * Whether the URI in {@code value} from {@code from} (a bare URI, or a name-addr whose URI is inside angle
     * brackets) names {@code host}:{@code port}; no String is made.
     */
    static boolean namesUs(final String value, final int from, final String host, final int port)
    {
        final int open = value.indexOf('<', from);
        final int uriStart = open >= 0 ? open + 1 : from;
        final int colon = value.indexOf(':', uriStart);
        if (colon < 0)
        {
            return false;
        }
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
            return false;
        }
        int p = 5060;
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
                return false;
            }
        }
        return p == port;
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
        final MessageHeaders h = request.headers();
        final int top = h.find(HeaderName.ROUTE, 0);
        if (top < 0)
        {
            return null;
        }
        final String value = h.value(top);
        if (!namesUs(value, 0, host, port))
        {
            return null;
        }
        h.removeAt(top);
        request.poppedRoute(value);
        return value;
    }

    /**
     * §16.4: the top Route, which carried the key of one of our proxy sessions and so is ours, is removed and kept as
     * the request's popped Route, read from the received bytes only if the application asks for it.
     */
    public static void popKeyedRoute(final SipServletRequestImpl request)
    {
        final MessageHeaders h = request.headers();
        final int top = h.find(HeaderName.ROUTE, 0);
        if (top < 0)
        {
            return;
        }
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
