package io.sipline.sip.message;

import static io.sipline.sip.message.SipUriFlyweight.HOST_IPV4;
import static io.sipline.sip.message.SipUriFlyweight.HOST_IPV6;
import static io.sipline.sip.message.SipUriFlyweight.HOST_NAME;
import static io.sipline.sip.message.SipUriFlyweight.HOST_NONE;

/**
 * The host grammar of URIs: RFC 3261 §25.1 {@code host} (hostname, IPv4address, IPv6reference), with RFC 5954 §4.1's
 * corrected IPv6 and IPv4 forms and RFC 5118's tolerated variants, and the canonical IPv6 groups that the RFC 3261
 * §19.1.4 comparison needs. Static and allocation-free except for the rare RFC 5118 §4.9 repair.
 *
 * <p>Stateless and thread-safe; spans are borrowed for the call.
 */
final class UriHosts
{
    private UriHosts()
    {
    }

    /**
     * Classifies a span that must be exactly one RFC 3261 §25.1 {@code host}.
     *
     * @return {@link SipUriFlyweight#HOST_NAME}, {@link SipUriFlyweight#HOST_IPV4}, {@link SipUriFlyweight#HOST_IPV6}
     *         (brackets included in the span) or {@link SipUriFlyweight#HOST_NONE} when the span is not a host.
     */
    static int hostType(final byte[] buf, final int start, final int end)
    {
        if (start >= end)
        {
            return HOST_NONE;
        }
        if (buf[start] == '[')
        {
            return end - start >= 2 && buf[end - 1] == ']' && isIpv6(buf, start + 1, end - 1) ? HOST_IPV6 : HOST_NONE;
        }
        if (ipv4Value(buf, start, end) >= 0)
        {
            return HOST_IPV4;
        }
        return isHostname(buf, start, end) ? HOST_NAME : HOST_NONE;
    }

    /**
     * RFC 3261 §25.1 {@code hostname = *( domainlabel "." ) toplabel [ "." ]}; labels are alphanumerics with inner
     * hyphens, and the top label starts with a letter.
     */
    static boolean isHostname(final byte[] buf, final int start, final int end)
    {
        int last = end;
        if (last > start && buf[last - 1] == '.')
        {
            last--;
        }
        if (last <= start)
        {
            return false;
        }
        int labelStart = start;
        for (int p = start; p <= last; p++)
        {
            if (p == last || buf[p] == '.')
            {
                if (p == labelStart || !UriChars.isAlphanum(buf[labelStart]) || !UriChars.isAlphanum(buf[p - 1]))
                {
                    return false;
                }
                if (p == last && !Ascii.isAlpha(buf[labelStart]))
                {
                    return false;
                }
                labelStart = p + 1;
            }
            else if (!UriChars.isAlphanum(buf[p]) && buf[p] != '-')
            {
                return false;
            }
        }
        return true;
    }

    /**
     * RFC 3261 §25.1 {@code IPv4address}, with each octet in 0..255 (RFC 5954 §4.1).
     *
     * @return the address as an unsigned 32-bit value, or -1 when the span is not an IPv4 address.
     */
    static long ipv4Value(final byte[] buf, final int start, final int end)
    {
        long value = 0;
        int p = start;
        for (int octet = 0; octet < 4; octet++)
        {
            if (octet > 0)
            {
                if (p >= end || buf[p] != '.')
                {
                    return -1;
                }
                p++;
            }
            final int digitsStart = p;
            int v = 0;
            while (p < end && p - digitsStart < 3 && Ascii.isDigit(buf[p]))
            {
                v = v * 10 + (buf[p] - '0');
                p++;
            }
            if (p == digitsStart || v > 255)
            {
                return -1;
            }
            value = (value << 8) | v;
        }
        return p == end ? value : -1;
    }

    /**
     * RFC 3261 §25.1 {@code IPv6address} as corrected by RFC 5954 §4.1 (the RFC 4291 §2.2 text forms): eight
     * groups of 1 to 4 hex digits, at most one {@code ::} standing for one or more zero groups, and an optional
     * IPv4 address as the last 32 bits. The span excludes the brackets.
     */
    static boolean isIpv6(final byte[] buf, final int start, final int end)
    {
        if (ipv6Walk(buf, start, end, -1) >= 0)
        {
            return true;
        }
        // RFC 5118 §4.9: the RFC 3261 ABNF lets three colons through before an embedded IPv4 address
        // ("2001:db8:::192.0.2.1"); such messages exist, and are to be accepted as "::". Rare: a copy is fine here.
        for (int i = start; i + 3 < end; i++)
        {
            if (buf[i] == ':' && buf[i + 1] == ':' && buf[i + 2] == ':' && Ascii.isDigit(buf[i + 3])
                && Ascii.indexOf(buf, i + 3, end, (byte)':') < 0 && Ascii.indexOf(buf, i + 3, end, (byte)'.') > 0)
            {
                final byte[] fixed = new byte[end - start - 1];
                System.arraycopy(buf, start, fixed, 0, i - start);
                System.arraycopy(buf, i + 1, fixed, i - start, end - i - 1);
                return ipv6Walk(fixed, 0, fixed.length, -1) >= 0;
            }
        }
        return false;
    }

    /**
     * Group {@code k} (0..7, most significant first) of a valid IPv6 address (no brackets): the 16-bit value a
     * canonical form would show, so that {@code 2001:db8::1} and {@code 2001:0DB8:0:0::1} compare equal.
     */
    static int ipv6Group(final byte[] buf, final int start, final int end, final int k)
    {
        final int shape = ipv6Walk(buf, start, end, -1);
        if (shape < 0)
        {
            return -1;
        }
        final int before = shape >> 4;
        final int after = shape & 0xF;
        if (k < before)
        {
            return ipv6Walk(buf, start, end, k);
        }
        if (k >= 8 - after)
        {
            return ipv6Walk(buf, start, end, before + k - (8 - after));
        }
        return 0;
    }

    /**
     * Walks an IPv6 address. With {@code target < 0}, validates it and returns its shape: (groups written before
     * "::") &lt;&lt; 4 | (groups written after it), with 8 before and 0 after when there is no "::"; -1 when the
     * address is malformed. With {@code target >= 0}, returns the value of the {@code target}-th group as written
     * (an IPv4 tail counts as two groups).
     */
    private static int ipv6Walk(final byte[] buf, final int start, final int end, final int target)
    {
        int listed = 0;
        int before = -1;
        int p = start;
        if (end - start >= 2 && buf[p] == ':' && buf[p + 1] == ':')
        {
            before = 0;
            p += 2;
            if (p == end)
            {
                return 0; // "::" alone: shape 0 before, 0 after
            }
        }
        else if (p >= end || buf[p] == ':')
        {
            return -1;
        }
        while (true)
        {
            final int groupStart = p;
            int value = 0;
            while (p < end && p - groupStart < 4 && Ascii.isHexDigit(buf[p]))
            {
                value = (value << 4) | Ascii.hexValue(buf[p]);
                p++;
            }
            if (p < end && buf[p] == '.')
            {
                // IPv6address = hexpart [ ":" IPv4address ]: the last 32 bits, written as a dotted quad
                final long v4 = ipv4Value(buf, groupStart, end);
                if (v4 < 0 || listed + 2 > 8)
                {
                    return -1;
                }
                if (target == listed)
                {
                    return (int)(v4 >>> 16);
                }
                if (target == listed + 1)
                {
                    return (int)(v4 & 0xFFFF);
                }
                listed += 2;
                break;
            }
            if (p == groupStart || (p < end && Ascii.isHexDigit(buf[p])))
            {
                return -1; // empty group, or more than 4 hex digits
            }
            if (target == listed)
            {
                return value;
            }
            listed++;
            if (listed > 8)
            {
                return -1;
            }
            if (p == end)
            {
                break;
            }
            if (buf[p] != ':')
            {
                return -1;
            }
            p++;
            if (p < end && buf[p] == ':')
            {
                if (before >= 0)
                {
                    return -1; // a second "::"
                }
                before = listed;
                p++;
                if (p == end)
                {
                    break;
                }
            }
            else if (p == end)
            {
                return -1; // a trailing single ':'
            }
        }
        if (target >= 0)
        {
            return -1;
        }
        if (before < 0)
        {
            return listed == 8 ? 8 << 4 : -1;
        }
        return listed <= 7 ? (before << 4) | (listed - before) : -1; // "::" stands for at least one group
    }
}
