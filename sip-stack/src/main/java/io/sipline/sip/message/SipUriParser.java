package io.sipline.sip.message;

import static io.sipline.sip.message.SipUriFlyweight.ERR_CHAR;
import static io.sipline.sip.message.SipUriFlyweight.ERR_EMPTY_HOST;
import static io.sipline.sip.message.SipUriFlyweight.ERR_EMPTY_USER;
import static io.sipline.sip.message.SipUriFlyweight.ERR_ESCAPE;
import static io.sipline.sip.message.SipUriFlyweight.ERR_HEADER_EQUALS;
import static io.sipline.sip.message.SipUriFlyweight.ERR_HEADER_NAME;
import static io.sipline.sip.message.SipUriFlyweight.ERR_HOST;
import static io.sipline.sip.message.SipUriFlyweight.ERR_IPV6;
import static io.sipline.sip.message.SipUriFlyweight.ERR_IPV6_UNTERMINATED;
import static io.sipline.sip.message.SipUriFlyweight.ERR_MADDR;
import static io.sipline.sip.message.SipUriFlyweight.ERR_OPAQUE;
import static io.sipline.sip.message.SipUriFlyweight.ERR_PARAM_NAME;
import static io.sipline.sip.message.SipUriFlyweight.ERR_PARAM_TOKEN;
import static io.sipline.sip.message.SipUriFlyweight.ERR_PARAM_VALUE;
import static io.sipline.sip.message.SipUriFlyweight.ERR_PASSWORD;
import static io.sipline.sip.message.SipUriFlyweight.ERR_PORT;
import static io.sipline.sip.message.SipUriFlyweight.ERR_SCHEME;
import static io.sipline.sip.message.SipUriFlyweight.ERR_TEL_CONTEXT;
import static io.sipline.sip.message.SipUriFlyweight.ERR_TEL_NUMBER;
import static io.sipline.sip.message.SipUriFlyweight.ERR_TEL_PARAM;
import static io.sipline.sip.message.SipUriFlyweight.ERR_TOO_MANY_HEADERS;
import static io.sipline.sip.message.SipUriFlyweight.ERR_TOO_MANY_PARAMS;
import static io.sipline.sip.message.SipUriFlyweight.ERR_TTL;
import static io.sipline.sip.message.SipUriFlyweight.ERR_USER;
import static io.sipline.sip.message.SipUriFlyweight.HOST_IPV4;
import static io.sipline.sip.message.SipUriFlyweight.HOST_IPV6;
import static io.sipline.sip.message.SipUriFlyweight.HOST_NAME;
import static io.sipline.sip.message.SipUriFlyweight.HOST_NONE;
import static io.sipline.sip.message.SipUriFlyweight.SCHEME_OTHER;
import static io.sipline.sip.message.SipUriFlyweight.SCHEME_SIP;
import static io.sipline.sip.message.SipUriFlyweight.SCHEME_SIPS;
import static io.sipline.sip.message.SipUriFlyweight.SCHEME_TEL;
import static io.sipline.sip.message.UriChars.C_HNV;
import static io.sipline.sip.message.UriChars.C_HOST;
import static io.sipline.sip.message.UriChars.C_PARAM;
import static io.sipline.sip.message.UriChars.C_PASSWORD;
import static io.sipline.sip.message.UriChars.C_RESERVED;
import static io.sipline.sip.message.UriChars.C_SCHEME;
import static io.sipline.sip.message.UriChars.C_SEPARATOR;
import static io.sipline.sip.message.UriChars.C_UNRESERVED;
import static io.sipline.sip.message.UriChars.C_URIC_NO_SEMI;
import static io.sipline.sip.message.UriChars.C_USER;

import java.util.Arrays;

/**
 * The parse of one URI into a {@link SipUriFlyweight}'s offsets: the scheme, then the RFC 3261 §25.1 SIP/SIPS grammar
 * (userinfo, host, port, uri-parameters with the well-known ones located and checked, headers), the RFC 3966 §3 tel
 * grammar, or an opaque absoluteURI. Each method works on the flyweight's fields; errors are values
 * ({@link SipUriFlyweight#fail}), nothing is allocated once the flyweight's tables have grown to the largest URI seen.
 *
 * <p>Stateless; its methods run on the thread that owns the flyweight they are given.
 */
final class SipUriParser
{
    private static final byte[] SIP = Ascii.lowerBytes("sip");
    private static final byte[] SIPS = Ascii.lowerBytes("sips");
    private static final byte[] TEL = Ascii.lowerBytes("tel");
    private static final byte[] TRANSPORT = Ascii.lowerBytes("transport");
    private static final byte[] USER = Ascii.lowerBytes("user");
    private static final byte[] METHOD = Ascii.lowerBytes("method");
    private static final byte[] TTL = Ascii.lowerBytes("ttl");
    private static final byte[] MADDR = Ascii.lowerBytes("maddr");
    private static final byte[] LR = Ascii.lowerBytes("lr");
    private static final byte[] PHONE_CONTEXT = Ascii.lowerBytes("phone-context");
    private static final byte[] EXT = Ascii.lowerBytes("ext");
    private static final byte[] ISUB = Ascii.lowerBytes("isub");

    private static final int STRIDE = SipUriFlyweight.STRIDE;

    private SipUriParser()
    {
    }

    /**
     * Parses the span {@code u} wraps (bounds already checked): its scheme, then the part after it.
     *
     * @return true when valid; false with the flyweight's error set.
     */
    static boolean parse(final SipUriFlyweight u)
    {
        // RFC 3261 §25.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
        int p = u.start;
        if (p >= u.end || !Ascii.isAlpha(u.buf[p]))
        {
            return u.fail(ERR_SCHEME, p);
        }
        p++;
        while (p < u.end && UriChars.is(u.buf[p], C_SCHEME))
        {
            p++;
        }
        if (p >= u.end || u.buf[p] != ':')
        {
            return u.fail(ERR_SCHEME, p);
        }
        u.schemeEnd = p;

        final boolean ok;
        final int kind;
        if (Ascii.equalsIgnoreCase(u.buf, u.start, p, SIP))
        {
            kind = SCHEME_SIP;
            ok = parseSip(u, p + 1);
        }
        else if (Ascii.equalsIgnoreCase(u.buf, u.start, p, SIPS))
        {
            kind = SCHEME_SIPS;
            ok = parseSip(u, p + 1);
        }
        else if (Ascii.equalsIgnoreCase(u.buf, u.start, p, TEL))
        {
            kind = SCHEME_TEL;
            ok = parseTel(u, p + 1);
        }
        else
        {
            kind = SCHEME_OTHER;
            ok = parseOpaque(u, p + 1);
        }
        if (ok)
        {
            u.scheme = kind;
        }
        return ok;
    }

    /**
     * RFC 3261 §25.1:
     * <pre>
     * SIP-URI   =  "sip:" [ userinfo ] hostport uri-parameters [ headers ]
     * userinfo  =  ( user / telephone-subscriber ) [ ":" password ] "@"
     * </pre>
     * No other part of a SIP-URI may hold an unescaped '@' (paramchar, hname and hvalue exclude it), so the first
     * '@' ends the userinfo, and the first ':' before it (absent from user) starts the password.
     */
    private static boolean parseSip(final SipUriFlyweight u, final int from)
    {
        int p = from;
        final int at = Ascii.indexOf(u.buf, from, u.end, (byte)'@');
        if (at >= 0)
        {
            final int colon = Ascii.indexOf(u.buf, from, at, (byte)':');
            final int uEnd = colon >= 0 ? colon : at;
            if (uEnd == from)
            {
                return u.fail(ERR_EMPTY_USER, from); // §19.1.1: "If the @ sign is present ... MUST NOT be empty"
            }
            // user = 1*( unreserved / escaped / user-unreserved )
            int q = scan(u, from, uEnd, C_UNRESERVED | C_USER);
            if (q < 0)
            {
                return false;
            }
            if (q != uEnd)
            {
                return u.fail(ERR_USER, q);
            }
            u.userStart = from;
            u.userEnd = uEnd;
            if (colon >= 0)
            {
                // password = *( unreserved / escaped / "&" / "=" / "+" / "$" / "," )
                q = scan(u, colon + 1, at, C_UNRESERVED | C_PASSWORD);
                if (q < 0)
                {
                    return false;
                }
                if (q != at)
                {
                    return u.fail(ERR_PASSWORD, q);
                }
                u.passwordStart = colon + 1;
                u.passwordEnd = at;
            }
            p = at + 1;
        }

        p = parseHost(u, p);
        if (p < 0)
        {
            return false;
        }
        if (p < u.end && u.buf[p] == ':')
        {
            // port = 1*DIGIT, and a port is 16 bits
            int q = p + 1;
            int value = 0;
            while (q < u.end && Ascii.isDigit(u.buf[q]))
            {
                value = value * 10 + (u.buf[q] - '0');
                if (value > 65535)
                {
                    return u.fail(ERR_PORT, p + 1);
                }
                q++;
            }
            if (q == p + 1)
            {
                return u.fail(ERR_PORT, q);
            }
            u.port = value;
            p = q;
        }
        u.hostPortEnd = p;

        // uri-parameters = *( ";" uri-parameter )
        while (p < u.end && u.buf[p] == ';')
        {
            p = parseSipParam(u, p + 1);
            if (p < 0)
            {
                return false;
            }
        }
        u.headersStart = p;
        if (p < u.end && u.buf[p] == '?')
        {
            p = parseHeaders(u, p + 1);
            if (p < 0)
            {
                return false;
            }
        }
        if (p != u.end)
        {
            return u.fail(ERR_CHAR, p);
        }
        return true;
    }

    /** host = hostname / IPv4address / IPv6reference; returns the index after the host, or -1. */
    private static int parseHost(final SipUriFlyweight u, final int from)
    {
        if (from >= u.end)
        {
            u.fail(ERR_EMPTY_HOST, from);
            return -1;
        }
        if (u.buf[from] == '[')
        {
            // RFC 5118 §4: IPv6reference = "[" IPv6address "]"
            final int close = Ascii.indexOf(u.buf, from + 1, u.end, (byte)']');
            if (close < 0)
            {
                u.fail(ERR_IPV6_UNTERMINATED, from);
                return -1;
            }
            if (!UriHosts.isIpv6(u.buf, from + 1, close))
            {
                u.fail(ERR_IPV6, from + 1);
                return -1;
            }
            u.hostStart = from;
            u.hostEnd = close + 1;
            u.hostType = HOST_IPV6;
            return close + 1;
        }
        int p = from;
        while (p < u.end && UriChars.is(u.buf[p], C_HOST))
        {
            p++;
        }
        if (p == from)
        {
            u.fail(ERR_EMPTY_HOST, from);
            return -1;
        }
        if (UriHosts.ipv4Value(u.buf, from, p) >= 0)
        {
            u.hostType = HOST_IPV4;
        }
        else if (UriHosts.isHostname(u.buf, from, p))
        {
            u.hostType = HOST_NAME;
        }
        else
        {
            u.fail(ERR_HOST, from);
            return -1;
        }
        u.hostStart = from;
        u.hostEnd = p;
        return p;
    }

    /**
     * One uri-parameter after its ';' (RFC 3261 §25.1):
     * <pre>
     * other-param  =  pname [ "=" pvalue ]      pname = 1*paramchar   pvalue = 1*paramchar
     * paramchar    =  param-unreserved / unreserved / escaped
     * </pre>
     * The well-known parameters are located and their values checked against their own rules.
     */
    private static int parseSipParam(final SipUriFlyweight u, final int from)
    {
        final int nameEnd = scan(u, from, u.end, C_UNRESERVED | C_PARAM);
        if (nameEnd < 0)
        {
            return -1;
        }
        if (nameEnd == from)
        {
            u.fail(ERR_PARAM_NAME, from);
            return -1;
        }
        int valueStart = -1;
        int valueEnd = -1;
        int p = nameEnd;
        if (p < u.end && u.buf[p] == '=')
        {
            valueStart = p + 1;
            valueEnd = scan(u, valueStart, u.end, C_UNRESERVED | C_PARAM);
            if (valueEnd < 0)
            {
                return -1;
            }
            if (valueEnd == valueStart)
            {
                u.fail(ERR_PARAM_VALUE, valueStart);
                return -1;
            }
            p = valueEnd;
        }
        final int index = u.paramCount;
        if (!addParam(u, from, nameEnd, valueStart, valueEnd))
        {
            u.fail(ERR_TOO_MANY_PARAMS, from);
            return -1;
        }

        final int nameLength = nameEnd - from;
        if (nameLength == 2 && u.lrIndex < 0 && Ascii.equalsIgnoreCase(u.buf, from, nameEnd, LR))
        {
            u.lrIndex = index; // lr-param = "lr" (a value, as in "lr=on", is tolerated as other-param)
        }
        else if (nameLength == 9 && u.transportIndex < 0 && Ascii.equalsIgnoreCase(u.buf, from, nameEnd, TRANSPORT))
        {
            u.transportIndex = index;
            return isToken(u, valueStart, valueEnd) ? p : failAt(u, ERR_PARAM_TOKEN, from);
        }
        else if (nameLength == 4 && u.userParamIndex < 0 && Ascii.equalsIgnoreCase(u.buf, from, nameEnd, USER))
        {
            u.userParamIndex = index;
            return isToken(u, valueStart, valueEnd) ? p : failAt(u, ERR_PARAM_TOKEN, from);
        }
        else if (nameLength == 6 && u.methodIndex < 0 && Ascii.equalsIgnoreCase(u.buf, from, nameEnd, METHOD))
        {
            u.methodIndex = index;
            return isToken(u, valueStart, valueEnd) ? p : failAt(u, ERR_PARAM_TOKEN, from);
        }
        else if (nameLength == 3 && u.ttlIndex < 0 && Ascii.equalsIgnoreCase(u.buf, from, nameEnd, TTL))
        {
            // ttl = 1*3DIGIT ; 0 to 255
            u.ttlIndex = index;
            final long value = valueStart < 0 || valueEnd - valueStart > 3 ?
                -1 : Ascii.parseNatural(u.buf, valueStart, valueEnd);
            if (value < 0 || value > 255)
            {
                return failAt(u, ERR_TTL, from);
            }
            u.ttl = (int)value;
        }
        else if (nameLength == 5 && u.maddrIndex < 0 && Ascii.equalsIgnoreCase(u.buf, from, nameEnd, MADDR))
        {
            // maddr-param = "maddr=" host
            u.maddrIndex = index;
            if (valueStart < 0 || UriHosts.hostType(u.buf, valueStart, valueEnd) == HOST_NONE)
            {
                return failAt(u, ERR_MADDR, from);
            }
        }
        return p;
    }

    /**
     * headers = "?" header *( "&amp;" header ); header = hname "=" hvalue (RFC 3261 §25.1), where
     * {@code hname = 1*( hnv-unreserved / unreserved / escaped )} and hvalue is the same but may be empty.
     */
    private static int parseHeaders(final SipUriFlyweight u, final int from)
    {
        int p = from;
        while (true)
        {
            final int nameEnd = scan(u, p, u.end, C_UNRESERVED | C_HNV);
            if (nameEnd < 0)
            {
                return -1;
            }
            if (nameEnd == p)
            {
                u.fail(ERR_HEADER_NAME, p);
                return -1;
            }
            if (nameEnd >= u.end || u.buf[nameEnd] != '=')
            {
                u.fail(ERR_HEADER_EQUALS, nameEnd);
                return -1;
            }
            final int valueEnd = scan(u, nameEnd + 1, u.end, C_UNRESERVED | C_HNV);
            if (valueEnd < 0)
            {
                return -1;
            }
            if (!addHeader(u, p, nameEnd, nameEnd + 1, valueEnd))
            {
                u.fail(ERR_TOO_MANY_HEADERS, p);
                return -1;
            }
            if (valueEnd < u.end && u.buf[valueEnd] == '&')
            {
                p = valueEnd + 1;
            }
            else
            {
                return valueEnd;
            }
        }
    }

    /**
     * RFC 3966 §3:
     * <pre>
     * telephone-subscriber = global-number / local-number
     * global-number        = global-number-digits *par
     * local-number         = local-number-digits *par context *par
     * global-number-digits = "+" *phonedigit DIGIT *phonedigit
     * local-number-digits  = *phonedigit-hex (HEXDIG / "*" / "#") *phonedigit-hex
     * par                  = parameter / extension / isdn-subaddress
     * </pre>
     */
    private static boolean parseTel(final SipUriFlyweight u, final int from)
    {
        int p = from;
        int significant = 0;
        if (p < u.end && u.buf[p] == '+')
        {
            p++;
            while (p < u.end && (Ascii.isDigit(u.buf[p]) || UriChars.is(u.buf[p], C_SEPARATOR)))
            {
                significant += Ascii.isDigit(u.buf[p]) ? 1 : 0;
                p++;
            }
        }
        else
        {
            while (p < u.end && (UriChars.isLocalDigit(u.buf[p]) || UriChars.is(u.buf[p], C_SEPARATOR)))
            {
                significant += UriChars.isLocalDigit(u.buf[p]) ? 1 : 0;
                p++;
            }
        }
        if (significant == 0)
        {
            return u.fail(ERR_TEL_NUMBER, from);
        }
        u.userStart = from;
        u.userEnd = p;
        u.hostPortEnd = p;
        while (p < u.end && u.buf[p] == ';')
        {
            p = parseTelParam(u, p + 1);
            if (p < 0)
            {
                return false;
            }
        }
        if (p != u.end)
        {
            return u.fail(ERR_CHAR, p);
        }
        u.headersStart = u.end;
        if (u.buf[from] != '+' && u.phoneContextIndex < 0)
        {
            return u.fail(ERR_TEL_CONTEXT, from); // §3: local-number requires context
        }
        return true;
    }

    /**
     * One tel parameter after its ';' (RFC 3966 §3):
     * <pre>
     * isdn-subaddress = ";isub=" 1*uric          extension = ";ext=" 1*phonedigit
     * context         = ";phone-context=" descriptor      descriptor = domainname / global-number-digits
     * parameter       = ";" pname ["=" pvalue ]  pname = 1*( alphanum / "-" )   pvalue = 1*paramchar
     * </pre>
     */
    private static int parseTelParam(final SipUriFlyweight u, final int from)
    {
        int p = from;
        while (p < u.end && (UriChars.isAlphanum(u.buf[p]) || u.buf[p] == '-'))
        {
            p++;
        }
        final int nameEnd = p;
        if (nameEnd == from)
        {
            u.fail(ERR_TEL_PARAM, from);
            return -1;
        }
        final boolean isub = Ascii.equalsIgnoreCase(u.buf, from, nameEnd, ISUB);
        int valueStart = -1;
        int valueEnd = -1;
        if (p < u.end && u.buf[p] == '=')
        {
            valueStart = p + 1;
            valueEnd = scan(u, valueStart, u.end, isub ? C_URIC_NO_SEMI : C_UNRESERVED | C_PARAM);
            if (valueEnd < 0)
            {
                return -1;
            }
            if (valueEnd == valueStart)
            {
                u.fail(ERR_TEL_PARAM, valueStart);
                return -1;
            }
            p = valueEnd;
        }
        final int index = u.paramCount;
        if (!addParam(u, from, nameEnd, valueStart, valueEnd))
        {
            u.fail(ERR_TOO_MANY_PARAMS, from);
            return -1;
        }
        if (isub)
        {
            if (valueStart < 0)
            {
                return failAt(u, ERR_TEL_PARAM, from);
            }
            if (u.isubIndex < 0)
            {
                u.isubIndex = index;
            }
        }
        else if (Ascii.equalsIgnoreCase(u.buf, from, nameEnd, EXT))
        {
            if (valueStart < 0 || !UriChars.isPhoneDigits(u.buf, valueStart, valueEnd))
            {
                return failAt(u, ERR_TEL_PARAM, from);
            }
            if (u.extIndex < 0)
            {
                u.extIndex = index;
            }
        }
        else if (Ascii.equalsIgnoreCase(u.buf, from, nameEnd, PHONE_CONTEXT))
        {
            if (valueStart < 0 || !UriChars.isDescriptor(u.buf, valueStart, valueEnd))
            {
                return failAt(u, ERR_TEL_PARAM, from);
            }
            if (u.phoneContextIndex < 0)
            {
                u.phoneContextIndex = index;
            }
        }
        return p;
    }

    /** absoluteURI = scheme ":" ( hier-part / opaque-part ), checked as 1*uric (plus '[' ']' of RFC 2732). */
    private static boolean parseOpaque(final SipUriFlyweight u, final int from)
    {
        if (from >= u.end)
        {
            return u.fail(ERR_OPAQUE, from);
        }
        final int p = scan(u, from, u.end, C_UNRESERVED | C_RESERVED | C_PARAM);
        if (p < 0)
        {
            return false;
        }
        if (p != u.end)
        {
            return u.fail(ERR_CHAR, p);
        }
        u.headersStart = u.end;
        u.hostPortEnd = u.end;
        return true;
    }

    /**
     * Advances over bytes of the given classes and over well-formed escapes ({@code "%" HEXDIG HEXDIG}).
     *
     * @return the index of the first byte that matches neither, or -1 (error set) on a malformed escape.
     */
    private static int scan(final SipUriFlyweight u, final int from, final int limit, final int mask)
    {
        int p = from;
        while (p < limit)
        {
            final byte b = u.buf[p];
            if ((UriChars.CLASS[b & 0xFF] & mask) != 0)
            {
                p++;
            }
            else if (b == '%')
            {
                if (p + 2 >= limit || !Ascii.isHexDigit(u.buf[p + 1]) || !Ascii.isHexDigit(u.buf[p + 2]))
                {
                    u.fail(ERR_ESCAPE, p);
                    return -1;
                }
                p += 3;
            }
            else
            {
                break;
            }
        }
        return p;
    }

    private static boolean isToken(final SipUriFlyweight u, final int from, final int to)
    {
        if (from < 0 || from >= to)
        {
            return false;
        }
        for (int i = from; i < to; i++)
        {
            if (!Ascii.isTokenChar(u.buf[i]))
            {
                return false;
            }
        }
        return true;
    }

    private static boolean addParam(final SipUriFlyweight u, final int nameStart, final int nameEnd,
        final int valueStart, final int valueEnd)
    {
        if (u.paramCount >= u.maxParams)
        {
            return false;
        }
        final int base = u.paramCount * STRIDE;
        if (base + STRIDE > u.params.length)
        {
            u.params = Arrays.copyOf(u.params, Math.min(u.params.length * 2, u.maxParams * STRIDE));
        }
        u.params[base + ParamsComparison.NAME_START] = nameStart;
        u.params[base + ParamsComparison.NAME_END] = nameEnd;
        u.params[base + ParamsComparison.VALUE_START] = valueStart;
        u.params[base + ParamsComparison.VALUE_END] = valueEnd;
        u.paramCount++;
        return true;
    }

    private static boolean addHeader(final SipUriFlyweight u, final int nameStart, final int nameEnd,
        final int valueStart, final int valueEnd)
    {
        if (u.headerCount >= u.maxHeaders)
        {
            return false;
        }
        final int base = u.headerCount * STRIDE;
        if (base + STRIDE > u.headers.length)
        {
            u.headers = Arrays.copyOf(u.headers, Math.min(u.headers.length * 2, u.maxHeaders * STRIDE));
        }
        u.headers[base + ParamsComparison.NAME_START] = nameStart;
        u.headers[base + ParamsComparison.NAME_END] = nameEnd;
        u.headers[base + ParamsComparison.VALUE_START] = valueStart;
        u.headers[base + ParamsComparison.VALUE_END] = valueEnd;
        u.headerCount++;
        return true;
    }

    private static int failAt(final SipUriFlyweight u, final String reason, final int offset)
    {
        u.fail(reason, offset);
        return -1;
    }
}
