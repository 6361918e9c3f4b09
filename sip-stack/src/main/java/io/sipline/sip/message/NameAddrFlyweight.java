package io.sipline.sip.message;

import java.util.Arrays;

/**
 * A reusable view of one address value: one element of a From, To, Contact, Route, Record-Route, Reply-To or
 * P-Asserted-Identity header (the caller splits comma lists), parsed where it lies.
 * <pre>
 *   "Alice \"A\" Liddell" &lt;sip:alice@atlanta.com;transport=tcp&gt; ;tag=1928301774 ;expires=3600
 *   \___________________/ \_____________________________________/ \______________________________/
 *       display-name                  uri (name-addr)                     header parameters
 * </pre>
 * Grammar: RFC 3261 §25.1 ({@code name-addr / addr-spec}, {@code generic-param}; §20.10, §20.20, §20.39). In the
 * {@code addr-spec} form everything after the first ';' is a header parameter, and the URI may not hold ',', '?' or
 * ';'. Linear white space (folds included) is allowed where §25.1 puts SWS/LWS, never inside the angle brackets
 * (RFC 4475 §3.1.2.13, §3.1.2.14); a token display name may touch the '&lt;' (RFC 4475 §3.1.1.6). A Contact {@code *}
 * is {@link #isWildcard()}.
 *
 * <p>The URI is wrapped eagerly into an internal {@link SipUriFlyweight} ({@link #uri()}); {@code tag} (a token, at
 * most once), {@code expires} and {@code q} are located eagerly; parameters are kept in a {@link ParamsComparison}
 * table, at most {@value #DEFAULT_MAX_PARAMS} by default. Errors are values: {@code wrap} returns false,
 * {@link #errorReason()} says why and {@link #errorOffset()} where.
 *
 * <p>Not thread-safe; one owner at a time. The buffer is borrowed for as long as the view is read; once the parameter
 * table has grown to the largest value seen, {@code wrap} allocates nothing.
 */
public final class NameAddrFlyweight
{
    /** Default maximum number of header parameters in one value. */
    public static final int DEFAULT_MAX_PARAMS = 32;

    static final String ERR_BOUNDS = "address span out of bounds";
    static final String ERR_EMPTY = "empty address";
    static final String ERR_QUOTED = "unterminated or malformed quoted display name";
    static final String ERR_DISPLAY = "malformed display name";
    static final String ERR_LAQUOT = "expected '<' after display name";
    static final String ERR_RAQUOT = "unterminated '<': missing '>'";
    static final String ERR_ADDR_SPEC = "URI with ',' or '?' must be in angle brackets";
    static final String ERR_AFTER_URI = "unexpected character after URI";
    static final String ERR_PARAM_NAME = "malformed header parameter name";
    static final String ERR_PARAM_VALUE = "malformed header parameter value";
    static final String ERR_TOO_MANY_PARAMS = "too many header parameters";
    static final String ERR_TAG = "tag parameter without a token value";
    static final String ERR_DUPLICATE_TAG = "duplicate tag parameter";

    private static final byte[] TAG = Ascii.lowerBytes("tag");
    private static final byte[] EXPIRES = Ascii.lowerBytes("expires");
    private static final byte[] Q = Ascii.lowerBytes("q");

    private static final int INITIAL_PARAMS = 4;
    private static final int STRIDE = ParamsComparison.STRIDE;

    private final SipUriFlyweight uri;
    private final int maxParams;
    private int[] params = new int[INITIAL_PARAMS * STRIDE];

    private byte[] buf;
    private int start;
    private int end;
    private boolean valid;
    private boolean wildcard;
    private boolean nameAddr;
    private int displayStart;
    private int displayEnd;
    private int uriStart;
    private int uriEnd;
    private int paramCount;
    private int tagIndex;
    private int expiresIndex;
    private int qIndex;
    private String errorReason;
    private int errorOffset;

    /** A view with the default limits. */
    public NameAddrFlyweight()
    {
        this(DEFAULT_MAX_PARAMS, new SipUriFlyweight());
    }

    /**
     * A view with its own limits.
     *
     * @param maxParams most header parameters accepted, 1..{@value SipUriFlyweight#MAX_LIMIT}.
     * @param uri       the URI view this one wraps and owns from now on (its own limits apply to the URI).
     */
    public NameAddrFlyweight(final int maxParams, final SipUriFlyweight uri)
    {
        if (maxParams < 1 || maxParams > SipUriFlyweight.MAX_LIMIT || null == uri)
        {
            throw new IllegalArgumentException("maxParams must be in 1.." + SipUriFlyweight.MAX_LIMIT);
        }
        this.maxParams = maxParams;
        this.uri = uri;
        reset();
    }

    /**
     * Re-points this view at one address value and parses it.
     *
     * @param buf   the bytes, borrowed for as long as this view is read.
     * @param start first byte of the value (leading white space allowed).
     * @param end   end of the value (trailing white space allowed).
     * @return true when the value is valid; else see {@link #errorReason()}.
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
        int p = skipSws(start);
        if (p >= end)
        {
            return fail(ERR_EMPTY, p);
        }
        // Contact: STAR = SWS "*" SWS (RFC 3261 §20.10)
        if (buf[p] == '*' && skipSws(p + 1) == end)
        {
            wildcard = true;
            valid = true;
            return true;
        }

        final byte first = buf[p];
        if (first == '"')
        {
            final int q = quotedStringEnd(p);
            if (q < 0)
            {
                return fail(ERR_QUOTED, p);
            }
            displayStart = p;
            displayEnd = q;
            p = skipSws(q);
            if (p >= end || buf[p] != '<')
            {
                return fail(ERR_LAQUOT, p);
            }
            p = parseAngleUri(p);
        }
        else if (first == '<')
        {
            p = parseAngleUri(p);
        }
        else
        {
            int q = token(p);
            if (q == p)
            {
                return fail(ERR_DISPLAY, p);
            }
            if (q < end && buf[q] == ':')
            {
                p = parseAddrSpec(p); // a scheme: the value is a bare addr-spec
            }
            else
            {
                // display-name = *( token LWS ), closed by LAQUOT = SWS "<"
                displayStart = p;
                while (true)
                {
                    final int tokenEnd = q;
                    final int r = skipSws(q);
                    if (r < end && buf[r] == '<')
                    {
                        displayEnd = tokenEnd;
                        p = parseAngleUri(r);
                        break;
                    }
                    if (r >= end || r == tokenEnd)
                    {
                        return fail(r >= end ? ERR_LAQUOT : ERR_DISPLAY, r);
                    }
                    q = token(r);
                    if (q == r)
                    {
                        return fail(ERR_DISPLAY, r);
                    }
                }
            }
        }
        if (p < 0)
        {
            return false;
        }
        p = parseParams(p);
        if (p < 0)
        {
            return false;
        }
        valid = true;
        return true;
    }

    /** Forgets the wrapped value (and resets the URI view). */
    public void reset()
    {
        uri.reset();
        buf = null;
        start = 0;
        end = 0;
        valid = false;
        wildcard = false;
        nameAddr = false;
        displayStart = -1;
        displayEnd = -1;
        uriStart = -1;
        uriEnd = -1;
        paramCount = 0;
        tagIndex = -1;
        expiresIndex = -1;
        qIndex = -1;
        errorReason = null;
        errorOffset = -1;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Accessors
    // ---------------------------------------------------------------------------------------------------------------

    /** True when the last {@code wrap} succeeded. */
    public boolean isValid()
    {
        return valid;
    }

    /** What is wrong with the last wrapped value (a constant), or null when valid. */
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

    /** True for the Contact value {@code *}; it has no URI, display name or parameters. */
    public boolean isWildcard()
    {
        return wildcard;
    }

    /** True when the URI was in angle brackets (name-addr); false for a bare addr-spec. Route needs true. */
    public boolean isNameAddr()
    {
        return nameAddr;
    }

    /** True when there is a display name (quoted or tokens). */
    public boolean hasDisplayName()
    {
        return displayStart >= 0;
    }

    /** True when the display name is a quoted-string. */
    public boolean isDisplayNameQuoted()
    {
        return displayStart >= 0 && buf[displayStart] == '"';
    }

    /** Start of the raw display name (its opening quote, when quoted), -1 when absent. */
    public int displayNameStart()
    {
        return displayStart;
    }

    /** End of the raw display name (after its closing quote, when quoted), -1 when absent. */
    public int displayNameEnd()
    {
        return displayEnd;
    }

    /** Start of the URI (inside the angle brackets for a name-addr), -1 when none. */
    public int uriStart()
    {
        return uriStart;
    }

    /** End of the URI, -1 when none. */
    public int uriEnd()
    {
        return uriEnd;
    }

    /** The URI view, already wrapped on {@link #uriStart()}..{@link #uriEnd()}; not valid for a wildcard. */
    public SipUriFlyweight uri()
    {
        return uri;
    }

    /** Number of header parameters. */
    public int paramCount()
    {
        return paramCount;
    }

    /** Start of the name of parameter {@code i}. */
    public int paramNameStart(final int i)
    {
        return params[i * STRIDE + ParamsComparison.NAME_START];
    }

    /** End of the name of parameter {@code i}. */
    public int paramNameEnd(final int i)
    {
        return params[i * STRIDE + ParamsComparison.NAME_END];
    }

    /** Start of the value of parameter {@code i} (its opening quote for a quoted-string), -1 when none. */
    public int paramValueStart(final int i)
    {
        return params[i * STRIDE + ParamsComparison.VALUE_START];
    }

    /** End of the value of parameter {@code i}, -1 when none. */
    public int paramValueEnd(final int i)
    {
        return params[i * STRIDE + ParamsComparison.VALUE_END];
    }

    /** True when parameter {@code i} has a value. */
    public boolean paramHasValue(final int i)
    {
        return params[i * STRIDE + ParamsComparison.VALUE_START] >= 0;
    }

    /** Index of the first parameter with this lower-case name, ignoring ASCII case; -1 when absent. */
    public int paramIndex(final byte[] lowerName)
    {
        return ParamsComparison.indexOf(buf, params, paramCount, lowerName);
    }

    /** Index of the first parameter with this name, ignoring ASCII case; -1 when absent. Does not allocate. */
    public int paramIndex(final CharSequence name)
    {
        return ParamsComparison.indexOf(buf, params, paramCount, name);
    }

    /** The parameter table, read-only by contract, laid out as described in {@link ParamsComparison}. */
    public int[] paramTable()
    {
        return params;
    }

    /** True when there is a {@code tag} parameter. */
    public boolean hasTag()
    {
        return tagIndex >= 0;
    }

    /** Start of the {@code tag} value, -1 when absent. */
    public int tagStart()
    {
        return tagIndex < 0 ? -1 : paramValueStart(tagIndex);
    }

    /** End of the {@code tag} value, -1 when absent. */
    public int tagEnd()
    {
        return tagIndex < 0 ? -1 : paramValueEnd(tagIndex);
    }

    /** Index of the {@code expires} parameter, -1 when absent. */
    public int expiresIndex()
    {
        return expiresIndex;
    }

    /**
     * The Contact {@code expires} parameter (RFC 3261 §20.10, delta-seconds), or -1 when absent or not a number.
     * Values above 2^32-1 are clamped to it (RFC 3261 §10.2.1.1 suggests treating them so).
     */
    public long expires()
    {
        if (expiresIndex < 0 || !paramHasValue(expiresIndex))
        {
            return -1;
        }
        final int s = paramValueStart(expiresIndex);
        final int e = paramValueEnd(expiresIndex);
        if (e - s > 18)
        {
            for (int i = s; i < e; i++)
            {
                if (!Ascii.isDigit(buf[i]))
                {
                    return -1;
                }
            }
            return 0xFFFFFFFFL;
        }
        final long value = Ascii.parseNatural(buf, s, e);
        return value > 0xFFFFFFFFL ? 0xFFFFFFFFL : value;
    }

    /**
     * The Contact {@code q} parameter in thousandths (RFC 3261 §25.1:
     * {@code qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )}), 0..1000, or -1 when absent or
     * malformed. No floating point.
     */
    public int qMillis()
    {
        if (qIndex < 0 || !paramHasValue(qIndex))
        {
            return -1;
        }
        final int s = paramValueStart(qIndex);
        final int e = paramValueEnd(qIndex);
        final byte lead = buf[s];
        if ((lead != '0' && lead != '1') || e - s > 5 || (e - s > 1 && buf[s + 1] != '.'))
        {
            return -1;
        }
        int fraction = 0;
        int scale = 100;
        for (int i = s + 2; i < e; i++)
        {
            if (!Ascii.isDigit(buf[i]))
            {
                return -1;
            }
            fraction += (buf[i] - '0') * scale;
            scale /= 10;
        }
        if (lead == '1')
        {
            return fraction == 0 ? 1000 : -1;
        }
        return fraction;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Allocating accessors, for callers off the hot path
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * The display name as a user would read it: quotes removed and quoted-pairs unescaped for a quoted-string, each
     * run of linear white space (folding included) turned into one space; null when there is none. Allocates.
     */
    public String displayName()
    {
        if (displayStart < 0)
        {
            return null;
        }
        final StringBuilder sb = new StringBuilder(displayEnd - displayStart);
        appendDisplayName(sb);
        return sb.toString();
    }

    /** Appends the display name as {@link #displayName()} returns it (nothing when absent). Allocates. */
    public void appendDisplayName(final StringBuilder out)
    {
        if (displayStart < 0)
        {
            return;
        }
        final boolean quoted = buf[displayStart] == '"';
        final int from = quoted ? displayStart + 1 : displayStart;
        final int to = quoted ? displayEnd - 1 : displayEnd;
        final String raw = Ascii.string(buf, from, to);
        boolean inSpace = false;
        for (int i = 0; i < raw.length(); i++)
        {
            final char c = raw.charAt(i);
            if (quoted && c == '\\' && i + 1 < raw.length())
            {
                out.append(raw.charAt(++i));
                inSpace = false;
            }
            else if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
            {
                if (!inSpace)
                {
                    out.append(' ');
                    inSpace = true;
                }
            }
            else
            {
                out.append(c);
                inSpace = false;
            }
        }
    }

    /** The tag value, or null. Allocates. */
    public String tag()
    {
        return tagIndex < 0 ? null : Ascii.string(buf, tagStart(), tagEnd());
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
    // Parsing
    // ---------------------------------------------------------------------------------------------------------------

    /** name-addr from its '&lt;': LAQUOT addr-spec RAQUOT; returns the index after the '&gt;', or -1. */
    private int parseAngleUri(final int lt)
    {
        final int gt = Ascii.indexOf(buf, lt + 1, end, (byte)'>');
        if (gt < 0)
        {
            fail(ERR_RAQUOT, lt);
            return -1;
        }
        nameAddr = true;
        uriStart = lt + 1;
        uriEnd = gt;
        if (!uri.wrap(buf, uriStart, uriEnd))
        {
            fail(uri.errorReason(), uri.errorOffset());
            return -1;
        }
        return gt + 1;
    }

    /** addr-spec without brackets (RFC 3261 §20.10): the URI ends at the first ';' or white space. */
    private int parseAddrSpec(final int from)
    {
        int p = from;
        while (p < end)
        {
            final byte b = buf[p];
            if (b == ';' || Ascii.isLws(b))
            {
                break;
            }
            if (b == '?' || b == ',')
            {
                fail(ERR_ADDR_SPEC, p);
                return -1;
            }
            p++;
        }
        uriStart = from;
        uriEnd = p;
        if (!uri.wrap(buf, uriStart, uriEnd))
        {
            fail(uri.errorReason(), uri.errorOffset());
            return -1;
        }
        return p;
    }

    /** *( SEMI generic-param ) SWS, up to the end of the span; returns end or -1. */
    private int parseParams(final int from)
    {
        int p = skipSws(from);
        while (p < end)
        {
            if (buf[p] != ';')
            {
                fail(ERR_AFTER_URI, p);
                return -1;
            }
            final int nameStart = skipSws(p + 1);
            final int nameEnd = token(nameStart);
            if (nameEnd == nameStart)
            {
                fail(ERR_PARAM_NAME, nameStart);
                return -1;
            }
            int valueStart = -1;
            int valueEnd = -1;
            p = nameEnd;
            final int eq = skipSws(nameEnd);
            if (eq < end && buf[eq] == '=')
            {
                valueStart = skipSws(eq + 1);
                valueEnd = genValueEnd(valueStart);
                if (valueEnd < 0)
                {
                    fail(ERR_PARAM_VALUE, valueStart);
                    return -1;
                }
                p = valueEnd;
            }
            final int index = paramCount;
            if (!addParam(nameStart, nameEnd, valueStart, valueEnd))
            {
                fail(ERR_TOO_MANY_PARAMS, nameStart);
                return -1;
            }
            if (Ascii.equalsIgnoreCase(buf, nameStart, nameEnd, TAG))
            {
                // tag-param = "tag" EQUAL token (RFC 3261 §25.1); a dialog id must be unambiguous
                if (tagIndex >= 0)
                {
                    fail(ERR_DUPLICATE_TAG, nameStart);
                    return -1;
                }
                if (valueStart < 0 || buf[valueStart] == '"' || buf[valueStart] == '[')
                {
                    fail(ERR_TAG, nameStart);
                    return -1;
                }
                tagIndex = index;
            }
            else if (expiresIndex < 0 && Ascii.equalsIgnoreCase(buf, nameStart, nameEnd, EXPIRES))
            {
                expiresIndex = index;
            }
            else if (qIndex < 0 && Ascii.equalsIgnoreCase(buf, nameStart, nameEnd, Q))
            {
                qIndex = index;
            }
            p = skipSws(p);
        }
        return p;
    }

    /** gen-value = token / host / quoted-string (RFC 3261 §25.1); returns its end, or -1. */
    private int genValueEnd(final int from)
    {
        if (from >= end)
        {
            return -1;
        }
        final byte b = buf[from];
        if (b == '"')
        {
            return quotedStringEnd(from);
        }
        if (b == '[')
        {
            final int close = Ascii.indexOf(buf, from + 1, end, (byte)']');
            return close > 0 && SipUriFlyweight.isIpv6(buf, from + 1, close) ? close + 1 : -1;
        }
        final int e = token(from);
        return e == from ? -1 : e;
    }

    /**
     * quoted-string = SWS DQUOTE *(qdtext / quoted-pair ) DQUOTE (RFC 3261 §25.1), from its opening quote:
     * qdtext = LWS / %x21 / %x23-5B / %x5D-7E / UTF8-NONASCII; quoted-pair = "\" (%x00-09 / %x0B-0C / %x0E-7F).
     * Bytes from 0x80 are accepted as UTF-8 without checking the sequences.
     *
     * @return the index after the closing quote, or -1.
     */
    private int quotedStringEnd(final int open)
    {
        int p = open + 1;
        while (p < end)
        {
            final int c = buf[p] & 0xFF;
            if (c == '"')
            {
                return p + 1;
            }
            if (c == '\\')
            {
                if (p + 1 >= end)
                {
                    return -1;
                }
                final int n = buf[p + 1] & 0xFF;
                if (n == '\r' || n == '\n' || n > 0x7F)
                {
                    return -1;
                }
                p += 2;
            }
            else if (c == '\r')
            {
                final int q = fold(p);
                if (q < 0)
                {
                    return -1;
                }
                p = q;
            }
            else if (c == ' ' || c == '\t' || (c > 0x20 && c != 0x7F))
            {
                p++;
            }
            else
            {
                return -1;
            }
        }
        return -1;
    }

    /** SWS = [LWS], LWS = [*WSP CRLF] 1*WSP (RFC 3261 §25.1): returns the first index past it. */
    private int skipSws(final int from)
    {
        int p = from;
        while (p < end)
        {
            final byte b = buf[p];
            if (b == ' ' || b == '\t')
            {
                p++;
            }
            else if (b == '\r')
            {
                final int q = fold(p);
                if (q < 0)
                {
                    return p;
                }
                p = q;
            }
            else
            {
                break;
            }
        }
        return p;
    }

    /** At a CR: the index after CRLF and the first WSP of a folded line, or -1 when this is not a fold. */
    private int fold(final int cr)
    {
        if (cr + 2 < end && buf[cr + 1] == '\n' && (buf[cr + 2] == ' ' || buf[cr + 2] == '\t'))
        {
            return cr + 3;
        }
        return -1;
    }

    private int token(final int from)
    {
        int p = from;
        while (p < end && Ascii.isTokenChar(buf[p]))
        {
            p++;
        }
        return p;
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

    private boolean fail(final String reason, final int offset)
    {
        valid = false;
        errorReason = reason;
        errorOffset = offset;
        return false;
    }
}
