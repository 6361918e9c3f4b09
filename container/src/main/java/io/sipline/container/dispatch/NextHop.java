package io.sipline.container.dispatch;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;

import io.sipline.container.message.HeaderText;
import io.sipline.container.message.SipServletRequestImpl;
import io.sipline.sip.message.HeaderName;

/**
 * Where a request goes (RFC 3261 §8.1.2, §12.2.1.1): the URI of the top Route when there is one, else the
 * Request-URI; its {@code maddr} parameter, host and port (5060 for sip, 5061 for sips by default). Host names are
 * resolved with the JDK resolver and cached per shard (RFC 3263 NAPTR/SRV selection is the transport's later work).
 * <p>
 * Threading: one instance per shard, used on it only.
 */
final class NextHop
{
    private final Map<String, InetAddress> resolved = new HashMap<>();
    /** Destinations by URI text: in-dialog requests reuse the remote target's String, so a hit allocates nothing. */
    private final Map<String, InetSocketAddress> byUri = new HashMap<>();

    /**
     * @return the destination, or null when the URI has no usable host or the host does not resolve.
     */
    InetSocketAddress of(final SipServletRequestImpl request)
    {
        final String route = request.headers().get(HeaderName.ROUTE);
        final String uri = null != route ? HeaderText.uri(route) : request.requestUriText();
        return of(uri);
    }

    InetSocketAddress of(final String uri)
    {
        if (null == uri)
        {
            return null;
        }
        final InetSocketAddress known = byUri.get(uri);
        if (null != known)
        {
            return known;
        }
        final InetSocketAddress found = parse(uri);
        if (null != found && byUri.size() < 10_000)
        {
            byUri.put(uri, found);
        }
        return found;
    }

    private InetSocketAddress parse(final String uri)
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
        int p = colon + 1;
        final int at = uri.indexOf('@', p);
        final int paramsAt = HeaderText.firstOf(uri, p, ";?>");
        if (at >= 0 && at < paramsAt)
        {
            p = at + 1;
        }
        String host;
        int port = "sips".equals(scheme) ? 5061 : 5060;
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
        }
        final String maddr = HeaderText.uriParam(uri, end, "maddr");
        if (null != maddr && !maddr.isEmpty())
        {
            host = maddr;
        }
        final InetAddress address = resolve(host);
        return null == address || port <= 0 || port > 65535 ? null : new InetSocketAddress(address, port);
    }

    private InetAddress resolve(final String host)
    {
        InetAddress a = resolved.get(host);
        if (null == a)
        {
            try
            {
                a = InetAddress.getByName(host);
            }
            catch (final UnknownHostException | SecurityException e)
            {
                return null;
            }
            if (resolved.size() < 10_000)
            {
                resolved.put(host, a);
            }
        }
        return a;
    }
}
