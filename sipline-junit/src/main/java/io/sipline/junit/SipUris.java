package io.sipline.junit;

import java.net.InetSocketAddress;
import java.util.Locale;

/**
 * Where a SIP URI points: its host and port (RFC 3261 §19.1.1; 5060 for sip, 5061 for sips when the port is
 * absent). Names are resolved by the system resolver; SRV and NAPTR (RFC 3263) are not looked up, as a test on
 * loopback names its addresses.
 * <p>
 * Threading: stateless.
 */
final class SipUris
{
    private SipUris()
    {
    }

    /**
     * @param uri a {@code sip:} or {@code sips:} URI, e.g. {@code sip:bob@127.0.0.1:5080;transport=udp}.
     * @throws IllegalArgumentException when it is not one.
     */
    static InetSocketAddress hostPort(final String uri)
    {
        final String lower = uri.toLowerCase(Locale.ROOT);
        final boolean secure = lower.startsWith("sips:");
        if (!secure && !lower.startsWith("sip:"))
        {
            throw new IllegalArgumentException("not a sip: or sips: URI: " + uri);
        }
        String rest = uri.substring(secure ? 5 : 4);
        final int at = rest.lastIndexOf('@');
        if (at >= 0)
        {
            rest = rest.substring(at + 1);
        }
        int end = rest.length();
        for (final char c : new char[] {';', '?', '>'})
        {
            final int i = rest.indexOf(c);
            if (i >= 0 && i < end)
            {
                end = i;
            }
        }
        final String hostPort = rest.substring(0, end);
        final String host;
        String port = null;
        if (hostPort.startsWith("["))
        {
            final int close = hostPort.indexOf(']');
            host = hostPort.substring(1, close);
            if (hostPort.length() > close + 1 && ':' == hostPort.charAt(close + 1))
            {
                port = hostPort.substring(close + 2);
            }
        }
        else
        {
            final int colon = hostPort.indexOf(':');
            host = colon < 0 ? hostPort : hostPort.substring(0, colon);
            port = colon < 0 ? null : hostPort.substring(colon + 1);
        }
        if (host.isEmpty())
        {
            throw new IllegalArgumentException("no host in " + uri);
        }
        return new InetSocketAddress(host, null == port ? (secure ? 5061 : 5060) : Integer.parseInt(port));
    }
}
