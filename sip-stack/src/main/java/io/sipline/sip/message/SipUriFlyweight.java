package io.sipline.sip.message;

/**
 * A reusable view of one URI (a Request-URI, or the URI inside a From/To/Contact/Route value), parsed where it lies:
 * {@link #wrap(byte[], int, int)} validates a span of bytes and records the offsets of each component; nothing is
 * copied and, once the parameter tables have grown to the largest URI seen, nothing is allocated.
 * <pre>
 *   sip:alice:secret@atlanta.com:5060;transport=tcp;lr?subject=project%20x&amp;priority=urgent
 *   \_/ \___/ \____/ \_________/ \__/ \_______________/ \________________________________/
 * scheme user password   host     port  uri-parameters              headers
 * </pre>
 * Schemes: {@code sip} and {@code sips} (RFC 3261 §19.1, grammar §25.1; IPv6 references per RFC 5118 and RFC 5954),
 * with the well-known parameters located while parsing; {@code tel} (RFC 3966 §3: the number is the user span, a
 * local number must carry {@code phone-context}); any other {@code absoluteURI}, of which only the scheme and the
 * opaque part are located. Spans are absolute, half-open, raw (escapes kept); an absent component is -1/-1, an empty
 * one start == end. Parameters and headers are tables of four ints per entry ({@link ParamsComparison}), looked up
 * without allocating ({@link #paramIndex(byte[])}), bounded by the constructor's limits; a URI over them fails
 * cleanly. {@link SipUriParser} fills the fields, {@link UriHosts} classifies hosts, {@link UriChars} characters, and
 * {@link UriComparison} compares two views (RFC 3261 §19.1.4).
 *
 * <p>Errors are values: {@code wrap} returns false, {@link #errorReason()} names what is wrong (fit for a 400 reason
 * phrase) and {@link #errorOffset()} where. Not thread-safe; one owner at a time. The wrapped buffer is borrowed:
 * keep it unchanged while this view is read.
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

    private static final byte[] PHONE = Ascii.lowerBytes("phone");

    private static final int INITIAL_PARAMS = 8;
    private static final int INITIAL_HEADERS = 4;
    static final int STRIDE = ParamsComparison.STRIDE;

    // Parse state: written by SipUriParser (hence package-private), read through the accessors below.
    final int maxParams;
    final int maxHeaders;
    int[] params = new int[INITIAL_PARAMS * STRIDE];
    int[] headers = new int[INITIAL_HEADERS * STRIDE];

    byte[] buf;
    int start;
    int end;
    int scheme;
    int schemeEnd;
    int userStart;
    int userEnd;
    int passwordStart;
    int passwordEnd;
    int hostStart;
    int hostEnd;
    int hostType;
    int port;
    int hostPortEnd;
    int headersStart;
    int paramCount;
    int headerCount;
    int transportIndex;
    int userParamIndex;
    int methodIndex;
    int ttlIndex;
    int maddrIndex;
    int lrIndex;
    int phoneContextIndex;
    int extIndex;
    int isubIndex;
    int ttl;
    String errorReason;
    int errorOffset;

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
        return SipUriParser.parse(this);
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
    // Static grammar helpers ({@link UriHosts}, {@link UriChars}), shared with NameAddrFlyweight and UriComparison
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * Classifies a span that must be exactly one RFC 3261 §25.1 {@code host}.
     *
     * @return {@link #HOST_NAME}, {@link #HOST_IPV4}, {@link #HOST_IPV6} (brackets included in the span) or
     *         {@link #HOST_NONE} when the span is not a host.
     */
    public static int hostType(final byte[] buf, final int start, final int end)
    {
        return UriHosts.hostType(buf, start, end);
    }

    /** RFC 3261 §25.1 {@code hostname}; see {@link UriHosts#isHostname}. */
    public static boolean isHostname(final byte[] buf, final int start, final int end)
    {
        return UriHosts.isHostname(buf, start, end);
    }

    /**
     * RFC 3261 §25.1 {@code IPv4address}, with each octet in 0..255 (RFC 5954 §4.1).
     *
     * @return the address as an unsigned 32-bit value, or -1 when the span is not an IPv4 address.
     */
    public static long ipv4Value(final byte[] buf, final int start, final int end)
    {
        return UriHosts.ipv4Value(buf, start, end);
    }

    /** RFC 3261 §25.1 {@code IPv6address} as corrected by RFC 5954 §4.1; see {@link UriHosts#isIpv6}. */
    public static boolean isIpv6(final byte[] buf, final int start, final int end)
    {
        return UriHosts.isIpv6(buf, start, end);
    }

    /** Group {@code k} (0..7) of a valid IPv6 address as a canonical form shows it; see {@link UriHosts#ipv6Group}. */
    static int ipv6Group(final byte[] buf, final int start, final int end, final int k)
    {
        return UriHosts.ipv6Group(buf, start, end, k);
    }

    /** RFC 3261 §25.1 {@code reserved}. */
    static boolean isReserved(final int c)
    {
        return UriChars.isReserved(c);
    }

    /** RFC 3966 §3 {@code visual-separator}. */
    static boolean isVisualSeparator(final byte b)
    {
        return UriChars.isVisualSeparator(b);
    }

    /** Records a failed parse: the view reads as not valid, with the reason and where. Returns false. */
    boolean fail(final String reason, final int offset)
    {
        scheme = SCHEME_NONE;
        errorReason = reason;
        errorOffset = offset;
        return false;
    }

    private static int valueStartOf(final int[] table, final int index)
    {
        return index < 0 ? -1 : table[index * STRIDE + ParamsComparison.VALUE_START];
    }

    private static int valueEndOf(final int[] table, final int index)
    {
        return index < 0 ? -1 : table[index * STRIDE + ParamsComparison.VALUE_END];
    }
}
