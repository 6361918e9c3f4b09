package io.sipline.container.proxy;

import java.nio.charset.StandardCharsets;

import io.sipline.container.api.HeaderText;
import io.sipline.container.api.MessageHeaders;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.sip.message.HeaderName;

/**
 * Loop detection of a proxy (RFC 3261 §16.3 step 4, §16.6 step 8). Every branch a proxy sends carries, after the
 * shard-encoded branch id and a dot, a hash of what identifies the request as this proxy received it: Request-URI,
 * From tag, To tag, Call-ID, CSeq number, Proxy-Require and Proxy-Authorization. A request that comes back with one
 * of our Vias whose hash equals the hash of the request as it arrives now has looped (482); one whose Request-URI
 * or other parts changed is spiralling and goes on.
 * <p>
 * Threading: stateless.
 */
public final class LoopDetection
{
    private LoopDetection()
    {
    }

    /**
     * The eight hex digits of the request as received (the suffix of our Via branches). From and To are hashed whole
     * (a proxy changes neither; their tags are what §16.6 step 8 names), straight from the header bytes.
     */
    public static String hash(final SipServletRequestImpl request)
    {
        return hex(mixAll(request), false);
    }

    /**
     * What a proxy's Via branches for {@code request} end with (RFC 3261 §16.6 step 8): a dot and {@link #hash}, as
     * one String.
     */
    public static String branchSuffix(final SipServletRequestImpl request)
    {
        return hex(mixAll(request), true);
    }

    private static int mixAll(final SipServletRequestImpl request)
    {
        final MessageHeaders h = request.headers();
        int x = (request.mixRequestUri(0x2545F491) ^ 0xFF) * 0x01000193;
        x = mixHeader(x, h, h.find(HeaderName.FROM, 0));
        x = mixHeader(x, h, h.find(HeaderName.TO, 0));
        x = mixHeader(x, h, h.find(HeaderName.CALL_ID, 0));
        x = (x ^ (int)request.cseqNumber()) * 0x01000193;
        x = mixHeader(x, h, h.find("Proxy-Require", 0));
        x = mixHeader(x, h, h.find("Proxy-Authorization", 0));
        return x;
    }

    /** The eight hex digits of {@code x}, after a dot when {@code dotted}. */
    private static String hex(final int x, final boolean dotted)
    {
        final int at = dotted ? 1 : 0;
        final byte[] hex = new byte[8 + at];
        hex[0] = '.';
        int v = x;
        for (int i = 7; i >= 0; i--)
        {
            hex[at + i] = HEX[v & 0xF];
            v >>>= 4;
        }
        return new String(hex, StandardCharsets.US_ASCII);
    }

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private static int mixHeader(final int seed, final MessageHeaders h, final int i)
    {
        return ((i < 0 ? seed : h.mixValue(i, seed)) ^ 0xFF) * 0x01000193; // a separator between the parts
    }

    /**
     * §16.3 step 4: whether the request carries a Via of ours ({@code host}:{@code port} as sent-by) whose branch
     * ends with the hash of the request as it is now.
     */
    public static boolean looped(final SipServletRequestImpl request, final String host, final int port)
    {
        return looped(request, host, new int[] {port});
    }

    /**
     * §16.3 step 4: whether the request carries a Via of ours ({@code host} on one of our listening {@code ports},
     * UDP, TCP, TLS, -1 where we do not listen: a branch we sent over TCP names our TCP port) whose branch ends with
     * the hash of the request as it is now.
     */
    public static boolean looped(final SipServletRequestImpl request, final String host, final int[] ports)
    {
        final MessageHeaders h = request.headers();
        String hash = null;
        for (int i = h.find(HeaderName.VIA, 0); i >= 0; i = h.find(HeaderName.VIA, i + 1))
        {
            final String via = h.value(i);
            if (!sentByAny(via, host, ports))
            {
                continue;
            }
            final String branch = HeaderText.param(via, "branch");
            final int dot = null == branch ? -1 : branch.lastIndexOf('.');
            if (dot < 0)
            {
                continue;
            }
            if (null == hash)
            {
                hash = hash(request);
            }
            if (branch.regionMatches(true, dot + 1, hash, 0, hash.length()) && branch.length() - dot - 1 == 8)
            {
                return true;
            }
        }
        return false;
    }

    private static boolean sentByAny(final String via, final String host, final int[] ports)
    {
        for (int i = 0; i < ports.length; i++)
        {
            if (ports[i] > 0 && sentBy(via, host, ports[i]))
            {
                return true;
            }
        }
        return false;
    }

    /** Whether a Via value ({@code SIP/2.0/UDP host:port;...}) names {@code host}:{@code port} as its sent-by. */
    static boolean sentBy(final String via, final String host, final int port)
    {
        int p = via.indexOf('/');
        p = p < 0 ? -1 : via.indexOf('/', p + 1);
        if (p < 0)
        {
            return false;
        }
        p++;
        while (p < via.length() && via.charAt(p) != ' ' && via.charAt(p) != '\t')
        {
            p++; // the transport
        }
        while (p < via.length() && (via.charAt(p) == ' ' || via.charAt(p) == '\t'))
        {
            p++;
        }
        final int end = HeaderText.firstOf(via, p, ";, \t");
        final String sentBy = via.substring(p, end);
        final int colon = sentBy.lastIndexOf(':');
        final boolean hasPort = colon > 0 && sentBy.indexOf(']', colon) < 0;
        final String viaHost = hasPort ? sentBy.substring(0, colon) : sentBy;
        final int viaPort;
        try
        {
            viaPort = hasPort ? Integer.parseInt(sentBy.substring(colon + 1)) : 5060;
        }
        catch (final NumberFormatException e)
        {
            return false;
        }
        return viaPort == port && viaHost.equalsIgnoreCase(host);
    }
}
