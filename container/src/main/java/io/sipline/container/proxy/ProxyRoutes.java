package io.sipline.container.proxy;

import javax.servlet.sip.ServletParseException;

import io.sipline.container.address.SipAddresses;
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

    private ProxyRoutes()
    {
    }

    /** The session key a Route value (name-addr) or a bare URI of ours carries, or null. */
    public static String key(final String routeOrUri)
    {
        if (null == routeOrUri || !routeOrUri.contains(ROUTE_PARAMETER))
        {
            return null;
        }
        final String uri = routeOrUri.indexOf('<') >= 0 ? HeaderText.uri(routeOrUri) : routeOrUri; // name-addr or URI
        final String key = HeaderText.uriParam(uri, HeaderText.hostStart(uri), ROUTE_PARAMETER);
        return null == key || key.isEmpty() ? null : key;
    }

    /** Whether a URI names {@code host}:{@code port} (the default port 5060 when it gives none). */
    public static boolean isOurs(final String uri, final String host, final int port)
    {
        if (null == uri)
        {
            return false;
        }
        final int start = HeaderText.hostStart(uri);
        final int end;
        if (start < uri.length() && uri.charAt(start) == '[')
        {
            final int close = uri.indexOf(']', start);
            end = close < 0 ? uri.length() : close + 1;
        }
        else
        {
            end = HeaderText.firstOf(uri, start, ":;?>");
        }
        final String h = uri.substring(start, end);
        int p = 5060;
        if (end < uri.length() && uri.charAt(end) == ':')
        {
            try
            {
                p = Integer.parseInt(uri.substring(end + 1, HeaderText.firstOf(uri, end + 1, ";?>")));
            }
            catch (final NumberFormatException e)
            {
                return false;
            }
        }
        return p == port && h.equalsIgnoreCase(host);
    }

    /**
     * §16.4: a strict router before us put our Record-Route URI in the Request-URI; the real one is the last Route,
     * which becomes the Request-URI again.
     *
     * @return whether the Request-URI was replaced.
     */
    public static boolean restoreRequestUri(final SipServletRequestImpl request)
    {
        if (null == key(request.requestUriText()))
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
        if (!isOurs(HeaderText.uri(value), host, port))
        {
            return null;
        }
        h.removeAt(top);
        try
        {
            request.poppedRoute(SipAddresses.parseAddress(value));
        }
        catch (final ServletParseException e)
        {
            request.poppedRoute(null);
        }
        return value;
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
