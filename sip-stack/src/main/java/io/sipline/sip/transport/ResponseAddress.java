package io.sipline.sip.transport;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import io.sipline.sip.message.ViaFlyweight;

/**
 * Where a server sends a response over UDP: a pure function of the request's top Via and the address the request
 * came from (RFC 3261 §18.2.2 with RFC 3581 §4; why never the sent-by host: see {@link #select}).
 *
 * <pre>
 *  top Via of the request                       response goes to                        rule
 *  -------------------------------------------  --------------------------------------  -------------------------
 *  maddr=IP literal                             maddr : (sent-by port, else 5060)        RFC 3261 §18.2.2, 2nd case
 *  maddr=host name                              unresolved maddr : (sent-by port, else 5060), located by the caller
 *  rport (with or without a value), no maddr    source address : source port             RFC 3581 §4
 *  otherwise                                    source address : (sent-by port, else 5060)  RFC 3261 §18.2.2, 3rd case
 * </pre>
 *
 * <p>A {@code maddr} host name is returned as an <em>unresolved</em> {@link InetSocketAddress}: the transaction layer
 * has the shard's RFC 3263 locator find its address (A/AAAA, RFC 3263 §4.2) before the response goes out; this
 * function itself never asks DNS. A sent-by port of 0 gives {@code null}, and the caller drops the response.
 *
 * <p>Stateless; thread-safe. Allocates only when the destination differs from {@code source} (a new
 * {@link InetSocketAddress} for another port, or the parsed maddr).
 */
public final class ResponseAddress
{
    /** RFC 3261 §18.2.2, §19.1.2: the port when sent-by has none, for UDP (and TCP). */
    public static final int DEFAULT_SIP_PORT = 5060;

    private ResponseAddress()
    {
    }

    /**
     * Picks the destination of a response sent over UDP.
     *
     * <p>Why the source address and never the sent-by host: on receipt the server transport adds {@code received}
     * with the source address whenever sent-by differs from it (RFC 3261 §18.2.1), so "the address in received" of
     * §18.2.2 is always the source address, and when no {@code received} was needed sent-by already names that
     * address. A {@code received} that the client wrote itself is overwritten by the same rule, so it is ignored
     * here; a {@code rport} value the client wrote is likewise replaced by the source port (RFC 3581 §4).
     *
     * @param topVia the request's top Via, wrapped and well formed (borrowed).
     * @param source the address and port the request came from (borrowed; returned as is when it is the answer).
     * @return the destination, {@code source} itself in the RFC 3581 case, or {@code null} when there is no usable
     *         destination (sent-by port 0).
     */
    public static InetSocketAddress select(final ViaFlyweight topVia, final InetSocketAddress source)
    {
        final int sentByPort = topVia.port();
        final int maddr = topVia.maddrIndex();
        final int maddrStart = maddr < 0 ? -1 : topVia.paramValueStart(maddr);
        final int maddrEnd = maddr < 0 ? -1 : topVia.paramValueEnd(maddr);
        if (maddrStart >= 0 && maddrEnd > maddrStart)
        {
            // RFC 3261 §18.2.2: maddr wins, with the sent-by port; RFC 3581 §4 applies only without maddr.
            final int port = sentByPort < 0 ? DEFAULT_SIP_PORT : sentByPort;
            final InetAddress group = literal(topVia.buffer(), maddrStart, maddrEnd);
            if (null != group)
            {
                return 0 == sentByPort ? null : new InetSocketAddress(group, port);
            }
            final String host = hostName(topVia.buffer(), maddrStart, maddrEnd);
            if (null != host)
            {
                return 0 == sentByPort ? null : InetSocketAddress.createUnresolved(host, port);
            }
        }
        if (topVia.rportIndex() >= 0)
        {
            // RFC 3581 §4: back to the source IP address and port the request came from.
            return source;
        }
        if (0 == sentByPort)
        {
            return null;
        }
        final int port = sentByPort < 0 ? DEFAULT_SIP_PORT : sentByPort;
        return port == source.getPort() ? source : new InetSocketAddress(source.getAddress(), port);
    }

    /** The maddr value {@code b[start, end)} as an IP literal (IPv6 with or without brackets), or null. */
    private static InetAddress literal(final byte[] b, final int start, final int end)
    {
        int s = start;
        int e = end;
        if (b[s] == '[' && b[e - 1] == ']')
        {
            s++;
            e--;
        }
        if (!looksNumeric(b, s, e))
        {
            return null;
        }
        try
        {
            return InetAddress.ofLiteral(new String(b, s, e - s, java.nio.charset.StandardCharsets.US_ASCII));
        }
        catch (final IllegalArgumentException notALiteral)
        {
            return null;
        }
    }

    /**
     * The maddr value {@code b[start, end)} as a host name (RFC 3261 §25.1 hostname: alphanumerics, '-' and '.'), or
     * null when it is not one (an IP literal is handled by {@link #literal}).
     */
    private static String hostName(final byte[] b, final int start, final int end)
    {
        for (int i = start; i < end; i++)
        {
            final byte c = b[i];
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.'))
            {
                return null;
            }
        }
        return new String(b, start, end - start, java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** True when the span holds only what an IPv4 or IPv6 literal can: hex digits, dots and colons. */
    private static boolean looksNumeric(final byte[] b, final int start, final int end)
    {
        if (start >= end)
        {
            return false;
        }
        boolean colon = false;
        for (int i = start; i < end; i++)
        {
            final byte c = b[i];
            if (c == ':')
            {
                colon = true;
            }
            else if (!(c >= '0' && c <= '9' || c == '.' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'))
            {
                return false;
            }
        }
        // A dotted name of hex letters only ("cafe.de") is a host name, not IPv4: IPv4 needs digits and dots only.
        if (!colon)
        {
            for (int i = start; i < end; i++)
            {
                if (b[i] != '.' && (b[i] < '0' || b[i] > '9'))
                {
                    return false;
                }
            }
        }
        return true;
    }
}
