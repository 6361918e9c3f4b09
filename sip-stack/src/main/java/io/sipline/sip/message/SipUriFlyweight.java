package io.sipline.sip.message;

import java.util.Arrays;

/**
 * A reusable view of one URI (a Request-URI, or the URI inside a From/To/Contact/Route value), parsed where it lies:
 * {@link #wrap(byte[], int, int)} validates a span of bytes and records the offsets of each component; nothing is
 * copied and, once the parameter tables have grown to the largest URI seen, nothing is allocated.
 *
 * <pre>
 *   sip:alice:secret@atlanta.com:5060;transport=tcp;lr?subject=project%20x&amp;priority=urgent
 *   \_/ \___/ \____/ \_________/ \__/ \_______________/ \________________________________/
 * scheme user password   host     port  uri-parameters              headers
 * </pre>
 *
 * <p>Schemes: {@code sip} and {@code sips} (RFC 3261 §19.1, grammar §25.1; IPv6 references per RFC 5118 and RFC 5954),
 * with the well-known parameters located while parsing; {@code tel} (RFC 3966 §3: the number is the user span, a local
 * number must carry {@code phone-context}); any other {@code absoluteURI}, of which only the scheme and the opaque part
 * are located. Spans are absolute, half-open, raw (escapes kept); an absent component is -1/-1, an empty one
 * start == end. Parameters and headers are tables of four ints per entry ({@link ParamsComparison}), looked up without
 * allocating ({@link #paramIndex(byte[])}), bounded by the constructor's limits; a URI over them fails cleanly.
 *
 * <p>Errors are values: {@code wrap} returns false, {@link #errorReason()} names what is wrong (fit for a 400 reason
 * phrase) and {@link #errorOffset()} where.
 *
 * <p>Not thread-safe; one owner at a time. The wrapped buffer is borrowed: keep it unchanged while this view is read.
 */
public final class SipUriFlyweight
{
    /** Not wrapped, or the last {@code wrap} failed. */
    public static final int SCHEME_NONE = 0;
    /** {@code sip:} (RFC 3261 §19.1). */
    public static final int SCHEME_SIP = 1;
    /** {@code sips:} (RFC 3261 §19.1). */
    public static final int SCHEME_SIPS = 2;
    /** {@code tel:} (RFC 3966). */
    public static final int SCHEME_TEL = 3;
    /** Any other absoluteURI scheme, kept opaque. */
    public static final int SCHEME_OTHER = 4;

    /** No host (tel and opaque URIs, or not valid). */
    public static final int HOST_NONE = 0;
    /** RFC 3261 §25.1 {@code hostname}. */
    public static final int HOST_NAME = 1;
    /** RFC 3261 §25.1 {@code IPv4address} (octets 0..255, RFC 5954 §4.1). */
    public static final int HOST_IPV4 = 2;
    /** RFC 3261 §25.1 {@code IPv6reference}; the host span includes the brackets (RFC 5118). */
    public static final int HOST_IPV6 = 3;

    /** Default maximum number of uri-parameters in one URI. */
    public static final int DEFAULT_MAX_PARAMS = 32;
    /** Default maximum number of headers in one URI. */
    public static final int DEFAULT_MAX_HEADERS = 32;
    /** Hard ceiling for either limit ({@link UriComparison} matches header sets with a 64-bit mask). */
    public static final int MAX_LIMIT = 64;

    static final String ERR_BOUNDS = "URI span out of bounds";
    static final String ERR_SCHEME = "missing or malformed URI scheme";
    static final String ERR_EMPTY_USER = "empty user part before '@'";
    static final String ERR_ESCAPE = "malformed %-escape in URI";
    static final String ERR_USER = "invalid character in URI user part";
    static final String ERR_PASSWORD = "invalid character in URI password";
    static final String ERR_EMPTY_HOST = "empty host in URI";
    static final String ERR_HOST = "malformed host name or IPv4 address in URI";
    static final String ERR_IPV6_UNTERMINATED = "'[' without ']' in URI host";
    static final String ERR_IPV6 = "malformed IPv6 address in URI";
    static final String ERR_PORT = "URI port missing or out of range";
    static final String ERR_PARAM_NAME = "empty URI parameter name";
    static final String ERR_PARAM_VALUE = "empty URI parameter value";
    static final String ERR_PARAM_TOKEN = "URI transport, user or method parameter is not a token";
    static final String ERR_TTL = "URI ttl parameter is not a number in 0..255";
    static final String ERR_MADDR = "URI maddr parameter is not a host";
    static final String ERR_TOO_MANY_PARAMS = "too many URI parameters";
    static final String ERR_HEADER_NAME = "empty URI header name";
    static final String ERR_HEADER_EQUALS = "URI header without '='";
    static final String ERR_TOO_MANY_HEADERS = "too many URI headers";
    static final String ERR_CHAR = "unexpected character in URI";
    static final String ERR_TEL_NUMBER = "malformed telephone number in tel URI";
    static final String ERR_TEL_PARAM = "malformed tel URI parameter";
    static final String ERR_TEL_CONTEXT = "local number in tel URI without phone-context";
    static final String ERR_OPAQUE = "empty or malformed URI after the scheme";

    private static final byte[] SIP = Ascii.lowerBytes("sip");
    private static final byte[] SIPS = Ascii.lowerBytes("sips");
    private static final byte[] TEL = Ascii.lowerBytes("tel");
    private static final byte[] TRANSPORT = Ascii.lowerBytes("transport");
    private static final byte[] USER = Ascii.lowerBytes("user");
    private static final byte[] METHOD = Ascii.lowerBytes("method");
    private static final byte[] TTL = Ascii.lowerBytes("ttl");
    private static final byte[] MADDR = Ascii.lowerBytes("maddr");
    private static final byte[] LR = Ascii.lowerBytes("lr");
    private static final byte[] PHONE = Ascii.lowerBytes("phone");
    private static final byte[] PHONE_CONTEXT = Ascii.lowerBytes("phone-context");
    private static final byte[] EXT = Ascii.lowerBytes("ext");
    private static final byte[] ISUB = Ascii.lowerBytes("isub");

    private static final int INITIAL_PARAMS = 8;
    private static final int INITIAL_HEADERS = 4;
    private static final int STRIDE = ParamsComparison.STRIDE;

    // Character classes of RFC 3261 §25.1 (and RFC 3966 §3 for tel), one bit each; escapes are handled apart.
    /** unreserved = alphanum / mark. */
    private static final int C_UNRESERVED = 1;
    /** user-unreserved = "&amp;" / "=" / "+" / "$" / "," / ";" / "?" / "/". */
    private static final int C_USER = 2;
    /** The extra password characters: "&amp;" / "=" / "+" / "$" / ",". */
    private static final int C_PASSWORD = 4;
    /** param-unreserved = "[" / "]" / "/" / ":" / "&amp;" / "+" / "$". */
    private static final int C_PARAM = 8;
    /** hnv-unreserved = "[" / "]" / "/" / "?" / ":" / "+" / "$". */
    private static final int C_HNV = 16;
    /** reserved = ";" / "/" / "?" / ":" / "@" / "&amp;" / "=" / "+" / "$" / ",". */
    private static final int C_RESERVED = 32;
    /** Characters of a hostname or IPv4 address: alphanum / "-" / ".". */
    private static final int C_HOST = 64;
    /** RFC 3966 visual-separator = "-" / "." / "(" / ")". */
    private static final int C_SEPARATOR = 128;
    /** RFC 3966 uric without ";" (the parameter delimiter), for the isub value. */
    private static final int C_URIC_NO_SEMI = 256;
    /** RFC 3261 §25.1 scheme characters after the first: ALPHA / DIGIT / "+" / "-" / ".". */
    private static final int C_SCHEME = 512;

    private static final short[] CLASS = new short[256];

    static
    {
        for (int c = 0; c < 128; c++)
        {
            final byte b = (byte)c;
            int bits = 0;
            if (Ascii.isUnreserved(b))
            {
                bits |= C_UNRESERVED | C_URIC_NO_SEMI;
            }
            if (Ascii.isAlpha(b) || Ascii.isDigit(b))
            {
                bits |= C_HOST | C_SCHEME;
            }
            CLASS[c] = (short)bits;
        }
        mark("&=+$,;?/", C_USER);
        mark("&=+$,", C_PASSWORD);
        mark("[]/:&+$", C_PARAM);
        mark("[]/?:+$", C_HNV);
        mark(";/?:@&=+$,", C_RESERVED);
        mark("/?:@&=+$,", C_URIC_NO_SEMI);
        mark("-.", C_HOST);
        mark("-.()", C_SEPARATOR);
        mark("+-.", C_SCHEME);
    }

    private final int maxParams;
    private final int maxHeaders;
    private int[] params = new int[INITIAL_PARAMS * STRIDE];
    private int[] headers = new int[INITIAL_HEADERS * STRIDE];

    private byte[] buf;
    private int start;
    private int end;
    private int scheme;
    private int schemeEnd;
    private int userStart;
    private int userEnd;
    private int passwordStart;
    private int passwordEnd;
    private int hostStart;
    private int hostEnd;
    private int hostType;
    private int port;
    private int hostPortEnd;
    private int headersStart;
    private int paramCount;
    private int headerCount;
    private int transportIndex;
    private int userParamIndex;
    private int methodIndex;
    private int ttlIndex;
    private int maddrIndex;
    private int lrIndex;
    private int phoneContextIndex;
    private int extIndex;
    private int isubIndex;
    private int ttl;
    private String errorReason;
    private int errorOffset;

    /** A view with the default limits ({@value #DEFAULT_MAX_PARAMS} parameters and headers). */
    public SipUriFlyweight()
    {
        this(DEFAULT_MAX_PARAMS, DEFAULT_MAX_HEADERS);
    }

    /**
     * A view with its own limits.
     *
     * @param maxParams  most uri-parameters (or tel parameters) accepted in one URI, 1..{@value #MAX_LIMIT}.
     * @param maxHeaders most headers accepted in one URI, 1..{@value #MAX_LIMIT}.
     */
    public SipUriFlyweight(final int maxParams, final int maxHeaders)
    {
        if (maxParams < 1 || maxParams > MAX_LIMIT || maxHeaders < 1 || maxHeaders > MAX_LIMIT)
        {
            throw new IllegalArgumentException("limits must be in 1.." + MAX_LIMIT);
        }
        this.maxParams = maxParams;
        this.maxHeaders = maxHeaders;
        reset();
    }

    /**
     * Re-points this view at a URI and parses it. The span must hold exactly the URI: no surrounding white space,
     * no angle brackets.
     *
     * @param buf   the bytes, borrowed for as long as this view is read.
     * @param start index of the first byte of the URI.
     * @param end   index just after the last byte of the URI.
     * @return true when the span is a valid URI; false with {@link #errorReason()} and {@link #errorOffset()} set.
     */
    public boolean wrap(final byte[] buf, final int start, final int end)
    {
        reset();
        this.buf = buf;
        this.start = start;
        this.end = end;
        if (null == buf || start < 0 || end > buf.length || start > end)
        {
            return fail(ERR_BOUNDS, start);
        }

        // RFC 3261 §25.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
        int p = start;
        if (p >= end || !Ascii.isAlpha(buf[p]))
        {
            return fail(ERR_SCHEME, p);
        }
        p++;
        while (p < end && is(buf[p], C_SCHEME))
        {
            p++;
        }
        if (p >= end || buf[p] != ':')
        {
            return fail(ERR_SCHEME, p);
        }
        schemeEnd = p;

        final boolean ok;
        final int kind;
        if (Ascii.equalsIgnoreCase(buf, start, p, SIP))
        {
            kind = SCHEME_SIP;
            ok = parseSip(p + 1);
        }
        else if (Ascii.equalsIgnoreCase(buf, start, p, SIPS))
        {
            kind = SCHEME_SIPS;
            ok = parseSip(p + 1);
        }
        else if (Ascii.equalsIgnoreCase(buf, start, p, TEL))
        {
            kind = SCHEME_TEL;
            ok = parseTel(p + 1);
        }
        else
        {
            kind = SCHEME_OTHER;
            ok = parseOpaque(p + 1);
        }
        if (ok)
        {
            scheme = kind;
        }
        return ok;
    }

    /** Forgets the wrapped span; the view reads as not valid until the next successful {@code wrap}. */
    public void reset()
    {
        buf = null;
        start = 0;
        end = 0;
        scheme = SCHEME_NONE;
        schemeEnd = -1;
        userStart = -1;
        userEnd = -1;
        passwordStart = -1;
        passwordEnd = -1;
        hostStart = -1;
        hostEnd = -1;
        hostType = HOST_NONE;
        port = -1;
        hostPortEnd = -1;
        headersStart = -1;
        paramCount = 0;
        headerCount = 0;
        transportIndex = -1;
        userParamIndex = -1;
        methodIndex = -1;
        ttlIndex = -1;
        maddrIndex = -1;
        lrIndex = -1;
        phoneContextIndex = -1;
        extIndex = -1;
        isubIndex = -1;
        ttl = -1;
        errorReason = null;
        errorOffset = -1;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Accessors: state and scheme
    // ---------------------------------------------------------------------------------------------------------------

    /** True when the last {@code wrap} succeeded. */
    public boolean isValid()
    {
        return scheme != SCHEME_NONE;
    }

    /** What is wrong with the last wrapped span (a constant), or null when it is valid. */
    public String errorReason()
    {
        return errorReason;
    }

    /** Index in the buffer where the error was found, or -1 when valid. */
    public int errorOffset()
    {
        return errorOffset;
    }

    /** The wrapped buffer (borrowed). */
    public byte[] buffer()
    {
        return buf;
    }

    /** Start of the wrapped span. */
    public int start()
    {
        return start;
    }

    /** End of the wrapped span. */
    public int end()
    {
        return end;
    }

    /** One of the {@code SCHEME_*} constants. */
    public int scheme()
    {
        return scheme;
    }

    /** True for {@code sip:} and {@code sips:}. */
    public boolean isSip()
    {
        return scheme == SCHEME_SIP || scheme == SCHEME_SIPS;
    }

    /** True for {@code sips:} only. */
    public boolean isSips()
    {
        return scheme == SCHEME_SIPS;
    }

    /** True for {@code tel:}. */
    public boolean isTel()
    {
        return scheme == SCHEME_TEL;
    }

    /** Start of the scheme name (the span start). */
    public int schemeStart()
    {
        return start;
    }

    /** End of the scheme name (the index of the colon), or -1 when not valid. */
    public int schemeEnd()
    {
        return schemeEnd;
    }

    /** Start of everything after {@code scheme:} (the opaque part of an unknown scheme), or -1. */
    public int opaqueStart()
    {
        return schemeEnd < 0 ? -1 : schemeEnd + 1;
    }

    /** End of the opaque part (the span end), or -1. */
    public int opaqueEnd()
    {
        return schemeEnd < 0 ? -1 : end;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Accessors: userinfo, host, port
    // ---------------------------------------------------------------------------------------------------------------

    /** True when the URI has a user part (sip/sips), or always for a valid tel URI (the number). */
    public boolean hasUser()
    {
        return userStart >= 0;
    }

    /** Start of the user part, raw with its escapes; for tel, of the telephone number; -1 when absent. */
    public int userStart()
    {
        return userStart;
    }

    /** End of the user part; -1 when absent. */
    public int userEnd()
    {
        return userEnd;
    }

    /** True when the userinfo has a {@code :password} (possibly empty). */
    public boolean hasPassword()
    {
        return passwordStart >= 0;
    }

    /** Start of the password, -1 when absent. */
    public int passwordStart()
    {
        return passwordStart;
    }

    /** End of the password, -1 when absent. */
    public int passwordEnd()
    {
        return passwordEnd;
    }

    /** Start of the host (including the '[' of an IPv6 reference), -1 when none. */
    public int hostStart()
    {
        return hostStart;
    }

    /** End of the host (after the ']' of an IPv6 reference), -1 when none. */
    public int hostEnd()
    {
        return hostEnd;
    }

    /** One of the {@code HOST_*} constants. */
    public int hostType()
    {
        return hostType;
    }

    /** The port, 0..65535, or -1 when absent (absent is not 5060: RFC 3261 §19.1.4). */
    public int port()
    {
        return port;
    }

    /**
     * End of the hostport (sip/sips) or of the number (tel): where the parameters start. With
     * {@link #headersStart()}, a writer can copy the URI around a changed parameter list.
     */
    public int hostPortEnd()
    {
        return hostPortEnd;
    }

    /** Index of the '?' that starts the headers, or the span end when there are none; -1 when not valid. */
    public int headersStart()
    {
        return headersStart;
    }

    /** For tel: true when the number is global ({@code +} followed by digits). */
    public boolean isGlobalNumber()
    {
        return scheme == SCHEME_TEL && buf[userStart] == '+';
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Accessors: parameters
    // ---------------------------------------------------------------------------------------------------------------

    /** Number of uri-parameters (or tel parameters). */
    public int paramCount()
    {
        return paramCount;
    }

    /** Start of the name of parameter {@code i} (0 &lt;= i &lt; {@link #paramCount()}). */
    public int paramNameStart(final int i)
    {
        return params[i * STRIDE + ParamsComparison.NAME_START];
    }

    /** End of the name of parameter {@code i}. */
    public int paramNameEnd(final int i)
    {
        return params[i * STRIDE + ParamsComparison.NAME_END];
    }

    /** Start of the value of parameter {@code i}, -1 when it has no {@code =value}. */
    public int paramValueStart(final int i)
    {
        return params[i * STRIDE + ParamsComparison.VALUE_START];
    }

    /** End of the value of parameter {@code i}, -1 when it has no {@code =value}. */
    public int paramValueEnd(final int i)
    {
        return params[i * STRIDE + ParamsComparison.VALUE_END];
    }

    /** True when parameter {@code i} has a value. */
    public boolean paramHasValue(final int i)
    {
        return params[i * STRIDE + ParamsComparison.VALUE_START] >= 0;
    }

    /**
     * Index of the first parameter with this name, ignoring ASCII case.
     *
     * @param lowerName the name in lower-case ASCII ({@link Ascii#lowerBytes(String)}, made once).
     * @return the index, or -1 when absent.
     */
    public int paramIndex(final byte[] lowerName)
    {
        return ParamsComparison.indexOf(buf, params, paramCount, lowerName);
    }

    /** Index of the first parameter with this name, ignoring ASCII case; -1 when absent. Does not allocate. */
    public int paramIndex(final CharSequence name)
    {
        return ParamsComparison.indexOf(buf, params, paramCount, name);
    }

    /**
     * The parameter table itself, read-only by contract: {@link #paramCount()} entries laid out as described in
     * {@link ParamsComparison}. For comparisons and writers; valid until the next {@code wrap}.
     */
    public int[] paramTable()
    {
        return params;
    }

    /** Start of the {@code transport} parameter value, -1 when absent. */
    public int transportParamStart()
    {
        return valueStartOf(params, transportIndex);
    }

    /** End of the {@code transport} parameter value, -1 when absent. */
    public int transportParamEnd()
    {
        return valueEndOf(params, transportIndex);
    }

    /** Start of the {@code user} parameter value ({@code phone}, {@code ip}, ...), -1 when absent. */
    public int userParamStart()
    {
        return valueStartOf(params, userParamIndex);
    }

    /** End of the {@code user} parameter value, -1 when absent. */
    public int userParamEnd()
    {
        return valueEndOf(params, userParamIndex);
    }

    /** True when the URI carries {@code user=phone} (RFC 3261 §19.1.1). */
    public boolean isUserPhone()
    {
        return userParamIndex >= 0 && Ascii.equalsIgnoreCase(buf, userParamStart(), userParamEnd(), PHONE);
    }

    /** Start of the {@code method} parameter value, -1 when absent. */
    public int methodParamStart()
    {
        return valueStartOf(params, methodIndex);
    }

    /** End of the {@code method} parameter value, -1 when absent. */
    public int methodParamEnd()
    {
        return valueEndOf(params, methodIndex);
    }

    /** Start of the {@code maddr} parameter value (a host, IPv6 in brackets), -1 when absent. */
    public int maddrParamStart()
    {
        return valueStartOf(params, maddrIndex);
    }

    /** End of the {@code maddr} parameter value, -1 when absent. */
    public int maddrParamEnd()
    {
        return valueEndOf(params, maddrIndex);
    }

    /** The {@code ttl} parameter, 0..255, or -1 when absent. */
    public int ttl()
    {
        return ttl;
    }

    /** True when the URI has an {@code lr} parameter (RFC 3261 §19.1.1, loose routing). */
    public boolean hasLr()
    {
        return lrIndex >= 0;
    }

    /** Index of the parameters located while parsing, or -1: {@code transport}. */
    public int transportIndex()
    {
        return transportIndex;
    }

    /** Index of the {@code user} parameter, or -1. */
    public int userParamIndex()
    {
        return userParamIndex;
    }

    /** Index of the {@code method} parameter, or -1. */
    public int methodIndex()
    {
        return methodIndex;
    }

    /** Index of the {@code ttl} parameter, or -1. */
    public int ttlIndex()
    {
        return ttlIndex;
    }

    /** Index of the {@code maddr} parameter, or -1. */
    public int maddrIndex()
    {
        return maddrIndex;
    }

    /** tel: start of the {@code phone-context} value (a domain name or {@code +digits}), -1 when absent. */
    public int phoneContextStart()
    {
        return valueStartOf(params, phoneContextIndex);
    }

    /** tel: end of the {@code phone-context} value, -1 when absent. */
    public int phoneContextEnd()
    {
        return valueEndOf(params, phoneContextIndex);
    }

    /** tel: start of the {@code ext} value, -1 when absent. */
    public int extensionStart()
    {
        return valueStartOf(params, extIndex);
    }

    /** tel: end of the {@code ext} value, -1 when absent. */
    public int extensionEnd()
    {
        return valueEndOf(params, extIndex);
    }

    /** tel: start of the {@code isub} value, -1 when absent. */
    public int isubStart()
    {
        return valueStartOf(params, isubIndex);
    }

    /** tel: end of the {@code isub} value, -1 when absent. */
    public int isubEnd()
    {
        return valueEndOf(params, isubIndex);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Accessors: headers
    // ---------------------------------------------------------------------------------------------------------------

    /** Number of headers after the '?'. */
    public int headerCount()
    {
        return headerCount;
    }

    /** Start of the name of header {@code i}. */
    public int headerNameStart(final int i)
    {
        return headers[i * STRIDE + ParamsComparison.NAME_START];
    }

    /** End of the name of header {@code i}. */
    public int headerNameEnd(final int i)
    {
        return headers[i * STRIDE + ParamsComparison.NAME_END];
    }

    /** Start of the value of header {@code i} (always present, possibly empty). */
    public int headerValueStart(final int i)
    {
        return headers[i * STRIDE + ParamsComparison.VALUE_START];
    }

    /** End of the value of header {@code i}. */
    public int headerValueEnd(final int i)
    {
        return headers[i * STRIDE + ParamsComparison.VALUE_END];
    }

    /** Index of the first header with this lower-case name, ignoring ASCII case; -1 when absent. */
    public int headerIndex(final byte[] lowerName)
    {
        return ParamsComparison.indexOf(buf, headers, headerCount, lowerName);
    }

    /** Index of the first header with this name, ignoring ASCII case; -1 when absent. Does not allocate. */
    public int headerIndex(final CharSequence name)
    {
        return ParamsComparison.indexOf(buf, headers, headerCount, name);
    }

    /** The header table, read-only by contract, laid out as described in {@link ParamsComparison}. */
    public int[] headerTable()
    {
        return headers;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Allocating accessors, for callers off the hot path
    // ---------------------------------------------------------------------------------------------------------------

    /** The raw user part (escapes kept; for tel, the number), or null. Allocates. */
    public String user()
    {
        return userStart < 0 ? null : Ascii.string(buf, userStart, userEnd);
    }

    /** The raw password, or null. Allocates. */
    public String password()
    {
        return passwordStart < 0 ? null : Ascii.string(buf, passwordStart, passwordEnd);
    }

    /** The host as written (brackets kept for IPv6), or null. Allocates. */
    public String host()
    {
        return hostStart < 0 ? null : Ascii.string(buf, hostStart, hostEnd);
    }

    /** The raw value of the first parameter with this name, "" when it has no value, null when absent. Allocates. */
    public String paramValue(final String name)
    {
        final int i = paramIndex(name);
        if (i < 0)
        {
            return null;
        }
        return paramHasValue(i) ? Ascii.string(buf, paramValueStart(i), paramValueEnd(i)) : "";
    }

    /** The wrapped span as text (even when not valid), or "" when nothing is wrapped. Allocates. */
    @Override
    public String toString()
    {
        if (null == buf || start < 0 || end > buf.length || start > end)
        {
            return "";
        }
        return Ascii.string(buf, start, end);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Static grammar helpers, shared with NameAddrFlyweight and UriComparison
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * Classifies a span that must be exactly one RFC 3261 §25.1 {@code host}.
     *
     * @return {@link #HOST_NAME}, {@link #HOST_IPV4}, {@link #HOST_IPV6} (brackets included in the span) or
     *         {@link #HOST_NONE} when the span is not a host.
     */
    public static int hostType(final byte[] buf, final int start, final int end)
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
    public static boolean isHostname(final byte[] buf, final int start, final int end)
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
                if (p == labelStart || !isAlphanum(buf[labelStart]) || !isAlphanum(buf[p - 1]))
                {
                    return false;
                }
                if (p == last && !Ascii.isAlpha(buf[labelStart]))
                {
                    return false;
                }
                labelStart = p + 1;
            }
            else if (!isAlphanum(buf[p]) && buf[p] != '-')
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
    public static long ipv4Value(final byte[] buf, final int start, final int end)
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
    public static boolean isIpv6(final byte[] buf, final int start, final int end)
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

    /** RFC 3261 §25.1 {@code reserved}. */
    static boolean isReserved(final int c)
    {
        return c >= 0 && c < 256 && (CLASS[c] & C_RESERVED) != 0;
    }

    /** RFC 3966 §3 {@code visual-separator}. */
    static boolean isVisualSeparator(final byte b)
    {
        return (CLASS[b & 0xFF] & C_SEPARATOR) != 0;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Parsing
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * RFC 3261 §25.1:
     * <pre>
     * SIP-URI   =  "sip:" [ userinfo ] hostport uri-parameters [ headers ]
     * userinfo  =  ( user / telephone-subscriber ) [ ":" password ] "@"
     * </pre>
     * No other part of a SIP-URI may hold an unescaped '@' (paramchar, hname and hvalue exclude it), so the first
     * '@' ends the userinfo, and the first ':' before it (absent from user) starts the password.
     */
    private boolean parseSip(final int from)
    {
        int p = from;
        final int at = Ascii.indexOf(buf, from, end, (byte)'@');
        if (at >= 0)
        {
            final int colon = Ascii.indexOf(buf, from, at, (byte)':');
            final int uEnd = colon >= 0 ? colon : at;
            if (uEnd == from)
            {
                return fail(ERR_EMPTY_USER, from); // §19.1.1: "If the @ sign is present ... MUST NOT be empty"
            }
            // user = 1*( unreserved / escaped / user-unreserved )
            int q = scan(from, uEnd, C_UNRESERVED | C_USER);
            if (q < 0)
            {
                return false;
            }
            if (q != uEnd)
            {
                return fail(ERR_USER, q);
            }
            userStart = from;
            userEnd = uEnd;
            if (colon >= 0)
            {
                // password = *( unreserved / escaped / "&" / "=" / "+" / "$" / "," )
                q = scan(colon + 1, at, C_UNRESERVED | C_PASSWORD);
                if (q < 0)
                {
                    return false;
                }
                if (q != at)
                {
                    return fail(ERR_PASSWORD, q);
                }
                passwordStart = colon + 1;
                passwordEnd = at;
            }
            p = at + 1;
        }

        p = parseHost(p);
        if (p < 0)
        {
            return false;
        }
        if (p < end && buf[p] == ':')
        {
            // port = 1*DIGIT, and a port is 16 bits
            int q = p + 1;
            int value = 0;
            while (q < end && Ascii.isDigit(buf[q]))
            {
                value = value * 10 + (buf[q] - '0');
                if (value > 65535)
                {
                    return fail(ERR_PORT, p + 1);
                }
                q++;
            }
            if (q == p + 1)
            {
                return fail(ERR_PORT, q);
            }
            port = value;
            p = q;
        }
        hostPortEnd = p;

        // uri-parameters = *( ";" uri-parameter )
        while (p < end && buf[p] == ';')
        {
            p = parseSipParam(p + 1);
            if (p < 0)
            {
                return false;
            }
        }
        headersStart = p;
        if (p < end && buf[p] == '?')
        {
            p = parseHeaders(p + 1);
            if (p < 0)
            {
                return false;
            }
        }
        if (p != end)
        {
            return fail(ERR_CHAR, p);
        }
        return true;
    }

    /** host = hostname / IPv4address / IPv6reference; returns the index after the host, or -1. */
    private int parseHost(final int from)
    {
        if (from >= end)
        {
            fail(ERR_EMPTY_HOST, from);
            return -1;
        }
        if (buf[from] == '[')
        {
            // RFC 5118 §4: IPv6reference = "[" IPv6address "]"
            final int close = Ascii.indexOf(buf, from + 1, end, (byte)']');
            if (close < 0)
            {
                fail(ERR_IPV6_UNTERMINATED, from);
                return -1;
            }
            if (!isIpv6(buf, from + 1, close))
            {
                fail(ERR_IPV6, from + 1);
                return -1;
            }
            hostStart = from;
            hostEnd = close + 1;
            hostType = HOST_IPV6;
            return close + 1;
        }
        int p = from;
        while (p < end && is(buf[p], C_HOST))
        {
            p++;
        }
        if (p == from)
        {
            fail(ERR_EMPTY_HOST, from);
            return -1;
        }
        if (ipv4Value(buf, from, p) >= 0)
        {
            hostType = HOST_IPV4;
        }
        else if (isHostname(buf, from, p))
        {
            hostType = HOST_NAME;
        }
        else
        {
            fail(ERR_HOST, from);
            return -1;
        }
        hostStart = from;
        hostEnd = p;
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
    private int parseSipParam(final int from)
    {
        final int nameEnd = scan(from, end, C_UNRESERVED | C_PARAM);
        if (nameEnd < 0)
        {
            return -1;
        }
        if (nameEnd == from)
        {
            fail(ERR_PARAM_NAME, from);
            return -1;
        }
        int valueStart = -1;
        int valueEnd = -1;
        int p = nameEnd;
        if (p < end && buf[p] == '=')
        {
            valueStart = p + 1;
            valueEnd = scan(valueStart, end, C_UNRESERVED | C_PARAM);
            if (valueEnd < 0)
            {
                return -1;
            }
            if (valueEnd == valueStart)
            {
                fail(ERR_PARAM_VALUE, valueStart);
                return -1;
            }
            p = valueEnd;
        }
        final int index = paramCount;
        if (!addParam(from, nameEnd, valueStart, valueEnd))
        {
            fail(ERR_TOO_MANY_PARAMS, from);
            return -1;
        }

        final int nameLength = nameEnd - from;
        if (nameLength == 2 && lrIndex < 0 && Ascii.equalsIgnoreCase(buf, from, nameEnd, LR))
        {
            lrIndex = index; // lr-param = "lr" (a value, as in "lr=on", is tolerated as other-param)
        }
        else if (nameLength == 9 && transportIndex < 0 && Ascii.equalsIgnoreCase(buf, from, nameEnd, TRANSPORT))
        {
            transportIndex = index;
            return isToken(valueStart, valueEnd) ? p : failAt(ERR_PARAM_TOKEN, from);
        }
        else if (nameLength == 4 && userParamIndex < 0 && Ascii.equalsIgnoreCase(buf, from, nameEnd, USER))
        {
            userParamIndex = index;
            return isToken(valueStart, valueEnd) ? p : failAt(ERR_PARAM_TOKEN, from);
        }
        else if (nameLength == 6 && methodIndex < 0 && Ascii.equalsIgnoreCase(buf, from, nameEnd, METHOD))
        {
            methodIndex = index;
            return isToken(valueStart, valueEnd) ? p : failAt(ERR_PARAM_TOKEN, from);
        }
        else if (nameLength == 3 && ttlIndex < 0 && Ascii.equalsIgnoreCase(buf, from, nameEnd, TTL))
        {
            // ttl = 1*3DIGIT ; 0 to 255
            ttlIndex = index;
            final long value = valueStart < 0 || valueEnd - valueStart > 3 ?
                -1 : Ascii.parseNatural(buf, valueStart, valueEnd);
            if (value < 0 || value > 255)
            {
                return failAt(ERR_TTL, from);
            }
            ttl = (int)value;
        }
        else if (nameLength == 5 && maddrIndex < 0 && Ascii.equalsIgnoreCase(buf, from, nameEnd, MADDR))
        {
            // maddr-param = "maddr=" host
            maddrIndex = index;
            if (valueStart < 0 || hostType(buf, valueStart, valueEnd) == HOST_NONE)
            {
                return failAt(ERR_MADDR, from);
            }
        }
        return p;
    }

    /**
     * headers = "?" header *( "&amp;" header ); header = hname "=" hvalue (RFC 3261 §25.1), where
     * {@code hname = 1*( hnv-unreserved / unreserved / escaped )} and hvalue is the same but may be empty.
     */
    private int parseHeaders(final int from)
    {
        int p = from;
        while (true)
        {
            final int nameEnd = scan(p, end, C_UNRESERVED | C_HNV);
            if (nameEnd < 0)
            {
                return -1;
            }
            if (nameEnd == p)
            {
                fail(ERR_HEADER_NAME, p);
                return -1;
            }
            if (nameEnd >= end || buf[nameEnd] != '=')
            {
                fail(ERR_HEADER_EQUALS, nameEnd);
                return -1;
            }
            final int valueEnd = scan(nameEnd + 1, end, C_UNRESERVED | C_HNV);
            if (valueEnd < 0)
            {
                return -1;
            }
            if (!addHeader(p, nameEnd, nameEnd + 1, valueEnd))
            {
                fail(ERR_TOO_MANY_HEADERS, p);
                return -1;
            }
            if (valueEnd < end && buf[valueEnd] == '&')
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
    private boolean parseTel(final int from)
    {
        int p = from;
        int significant = 0;
        if (p < end && buf[p] == '+')
        {
            p++;
            while (p < end && (Ascii.isDigit(buf[p]) || is(buf[p], C_SEPARATOR)))
            {
                significant += Ascii.isDigit(buf[p]) ? 1 : 0;
                p++;
            }
        }
        else
        {
            while (p < end && (isLocalDigit(buf[p]) || is(buf[p], C_SEPARATOR)))
            {
                significant += isLocalDigit(buf[p]) ? 1 : 0;
                p++;
            }
        }
        if (significant == 0)
        {
            return fail(ERR_TEL_NUMBER, from);
        }
        userStart = from;
        userEnd = p;
        hostPortEnd = p;
        while (p < end && buf[p] == ';')
        {
            p = parseTelParam(p + 1);
            if (p < 0)
            {
                return false;
            }
        }
        if (p != end)
        {
            return fail(ERR_CHAR, p);
        }
        headersStart = end;
        if (buf[from] != '+' && phoneContextIndex < 0)
        {
            return fail(ERR_TEL_CONTEXT, from); // §3: local-number requires context
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
    private int parseTelParam(final int from)
    {
        int p = from;
        while (p < end && (isAlphanum(buf[p]) || buf[p] == '-'))
        {
            p++;
        }
        final int nameEnd = p;
        if (nameEnd == from)
        {
            fail(ERR_TEL_PARAM, from);
            return -1;
        }
        final boolean isub = Ascii.equalsIgnoreCase(buf, from, nameEnd, ISUB);
        int valueStart = -1;
        int valueEnd = -1;
        if (p < end && buf[p] == '=')
        {
            valueStart = p + 1;
            valueEnd = scan(valueStart, end, isub ? C_URIC_NO_SEMI : C_UNRESERVED | C_PARAM);
            if (valueEnd < 0)
            {
                return -1;
            }
            if (valueEnd == valueStart)
            {
                fail(ERR_TEL_PARAM, valueStart);
                return -1;
            }
            p = valueEnd;
        }
        final int index = paramCount;
        if (!addParam(from, nameEnd, valueStart, valueEnd))
        {
            fail(ERR_TOO_MANY_PARAMS, from);
            return -1;
        }
        if (isub)
        {
            if (valueStart < 0)
            {
                return failAt(ERR_TEL_PARAM, from);
            }
            if (isubIndex < 0)
            {
                isubIndex = index;
            }
        }
        else if (Ascii.equalsIgnoreCase(buf, from, nameEnd, EXT))
        {
            if (valueStart < 0 || !isPhoneDigits(buf, valueStart, valueEnd))
            {
                return failAt(ERR_TEL_PARAM, from);
            }
            if (extIndex < 0)
            {
                extIndex = index;
            }
        }
        else if (Ascii.equalsIgnoreCase(buf, from, nameEnd, PHONE_CONTEXT))
        {
            if (valueStart < 0 || !isDescriptor(buf, valueStart, valueEnd))
            {
                return failAt(ERR_TEL_PARAM, from);
            }
            if (phoneContextIndex < 0)
            {
                phoneContextIndex = index;
            }
        }
        return p;
    }

    /** absoluteURI = scheme ":" ( hier-part / opaque-part ), checked as 1*uric (plus '[' ']' of RFC 2732). */
    private boolean parseOpaque(final int from)
    {
        if (from >= end)
        {
            return fail(ERR_OPAQUE, from);
        }
        final int p = scan(from, end, C_UNRESERVED | C_RESERVED | C_PARAM);
        if (p < 0)
        {
            return false;
        }
        if (p != end)
        {
            return fail(ERR_CHAR, p);
        }
        headersStart = end;
        hostPortEnd = end;
        return true;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Small helpers
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * Advances over bytes of the given classes and over well-formed escapes ({@code "%" HEXDIG HEXDIG}).
     *
     * @return the index of the first byte that matches neither, or -1 (error set) on a malformed escape.
     */
    private int scan(final int from, final int limit, final int mask)
    {
        int p = from;
        while (p < limit)
        {
            final byte b = buf[p];
            if ((CLASS[b & 0xFF] & mask) != 0)
            {
                p++;
            }
            else if (b == '%')
            {
                if (p + 2 >= limit || !Ascii.isHexDigit(buf[p + 1]) || !Ascii.isHexDigit(buf[p + 2]))
                {
                    fail(ERR_ESCAPE, p);
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

    private boolean isToken(final int from, final int to)
    {
        if (from < 0 || from >= to)
        {
            return false;
        }
        for (int i = from; i < to; i++)
        {
            if (!Ascii.isTokenChar(buf[i]))
            {
                return false;
            }
        }
        return true;
    }

    private boolean addParam(final int nameStart, final int nameEnd, final int valueStart, final int valueEnd)
    {
        if (paramCount >= maxParams)
        {
            return false;
        }
        final int base = paramCount * STRIDE;
        if (base + STRIDE > params.length)
        {
            params = Arrays.copyOf(params, Math.min(params.length * 2, maxParams * STRIDE));
        }
        params[base + ParamsComparison.NAME_START] = nameStart;
        params[base + ParamsComparison.NAME_END] = nameEnd;
        params[base + ParamsComparison.VALUE_START] = valueStart;
        params[base + ParamsComparison.VALUE_END] = valueEnd;
        paramCount++;
        return true;
    }

    private boolean addHeader(final int nameStart, final int nameEnd, final int valueStart, final int valueEnd)
    {
        if (headerCount >= maxHeaders)
        {
            return false;
        }
        final int base = headerCount * STRIDE;
        if (base + STRIDE > headers.length)
        {
            headers = Arrays.copyOf(headers, Math.min(headers.length * 2, maxHeaders * STRIDE));
        }
        headers[base + ParamsComparison.NAME_START] = nameStart;
        headers[base + ParamsComparison.NAME_END] = nameEnd;
        headers[base + ParamsComparison.VALUE_START] = valueStart;
        headers[base + ParamsComparison.VALUE_END] = valueEnd;
        headerCount++;
        return true;
    }

    private boolean fail(final String reason, final int offset)
    {
        scheme = SCHEME_NONE;
        errorReason = reason;
        errorOffset = offset;
        return false;
    }

    private int failAt(final String reason, final int offset)
    {
        fail(reason, offset);
        return -1;
    }

    private static int valueStartOf(final int[] table, final int index)
    {
        return index < 0 ? -1 : table[index * STRIDE + ParamsComparison.VALUE_START];
    }

    private static int valueEndOf(final int[] table, final int index)
    {
        return index < 0 ? -1 : table[index * STRIDE + ParamsComparison.VALUE_END];
    }

    private static boolean is(final byte b, final int mask)
    {
        return (CLASS[b & 0xFF] & mask) != 0;
    }

    private static boolean isAlphanum(final byte b)
    {
        return Ascii.isAlpha(b) || Ascii.isDigit(b);
    }

    /** RFC 3966 §3: HEXDIG / "*" / "#", the significant characters of a local number. */
    private static boolean isLocalDigit(final byte b)
    {
        return Ascii.isHexDigit(b) || b == '*' || b == '#';
    }

    /** RFC 3966 §3: 1*phonedigit, phonedigit = DIGIT / visual-separator. */
    private static boolean isPhoneDigits(final byte[] buf, final int start, final int end)
    {
        if (start >= end)
        {
            return false;
        }
        for (int i = start; i < end; i++)
        {
            if (!Ascii.isDigit(buf[i]) && !isVisualSeparator(buf[i]))
            {
                return false;
            }
        }
        return true;
    }

    /** RFC 3966 §3: descriptor = domainname / global-number-digits. */
    private static boolean isDescriptor(final byte[] buf, final int start, final int end)
    {
        if (start < end && buf[start] == '+')
        {
            boolean digit = false;
            for (int i = start + 1; i < end; i++)
            {
                if (Ascii.isDigit(buf[i]))
                {
                    digit = true;
                }
                else if (!isVisualSeparator(buf[i]))
                {
                    return false;
                }
            }
            return digit;
        }
        return isHostname(buf, start, end);
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

    private static void mark(final String chars, final int bit)
    {
        for (int i = 0; i < chars.length(); i++)
        {
            CLASS[chars.charAt(i)] |= (short)bit;
        }
    }
}
