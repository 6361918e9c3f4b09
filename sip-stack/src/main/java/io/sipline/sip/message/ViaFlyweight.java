package io.sipline.sip.message;

/**
 * A reusable view of one Via value (RFC 3261 §20.42, grammar in §25.1), parsed where it lies:
 *
 * <pre>
 *   SIP / 2.0 / UDP  host.example.com:5060 ;branch=z9hG4bK776asdhds ;received=192.0.2.1 ;rport=5062
 *   \_/   \_/   \_/  \__________________/ \_____________________________________________________/
 *  name version transport   sent-by                    via-params (each a name and optional value)
 * </pre>
 *
 * <p>Linear white space is allowed around the slashes, colon and semicolons (SWS, §25.1) and may contain line folding.
 * The host is a hostname, an IPv4 address or an IPv6 reference in brackets (RFC 5118). {@code rport} may appear
 * without a value (RFC 3581 §3).
 *
 * <p>All positions are indexes into the wrapped buffer. Not thread-safe; one owner re-points it with
 * {@link #wrap(byte[], int, int)} as often as it likes; it never allocates after construction.
 */
public final class ViaFlyweight
{
    /** The most parameters one Via value may carry; more is a parse failure, never an overflow. */
    public static final int MAX_PARAMS = 24;

    static final byte[] SIP = Ascii.lowerBytes("sip");
    private static final byte[] BRANCH = Ascii.lowerBytes("branch");
    private static final byte[] RECEIVED = Ascii.lowerBytes("received");
    private static final byte[] RPORT = Ascii.lowerBytes("rport");
    private static final byte[] MADDR = Ascii.lowerBytes("maddr");
    private static final byte[] TTL = Ascii.lowerBytes("ttl");
    /** RFC 3261 §8.1.1.7: a branch that starts with this cookie was made by an RFC 3261 element. */
    private static final byte[] MAGIC_COOKIE = Ascii.lowerBytes("z9hG4bK");

    private final int[] params = new int[MAX_PARAMS * 4];
    private byte[] buf;
    private int start;
    private int end;
    private int protocolStart;
    private int protocolEnd;
    private int versionStart;
    private int versionEnd;
    private int transportStart;
    private int transportEnd;
    private int hostStart;
    private int hostEnd;
    private int port;
    private int paramCount;
    private int branch;
    private int received;
    private int rport;
    private int maddr;
    private int ttl;
    private String error;
    private int errorOffset;

    /** Forgets the wrapped bytes (an owner that keeps the view lets the array go); read nothing until the next wrap. */
    public void forget()
    {
        buf = null;
        start = 0;
        end = 0;
    }

    /**
     * Re-points the view at a Via value and parses it.
     *
     * @param buf   the bytes, borrowed for as long as this view is used.
     * @param start first byte of the value.
     * @param end   end of the value (exclusive).
     * @return true when the value is a well formed via-parm; else see {@link #error()}.
     */
    public boolean wrap(final byte[] buf, final int start, final int end)
    {
        this.buf = buf;
        this.start = start;
        this.end = end;
        port = -1;
        paramCount = 0;
        branch = -1;
        received = -1;
        rport = -1;
        maddr = -1;
        ttl = -1;
        error = null;
        errorOffset = -1;

        int p = Ascii.skipLws(buf, start, end);
        protocolStart = p;
        p = token(p);
        protocolEnd = p;
        if (protocolEnd == protocolStart)
        {
            return fail("missing protocol name", p);
        }
        p = slash(p);
        if (p < 0)
        {
            return false;
        }
        versionStart = p;
        p = token(p);
        versionEnd = p;
        if (versionEnd == versionStart)
        {
            return fail("missing protocol version", p);
        }
        p = slash(p);
        if (p < 0)
        {
            return false;
        }
        transportStart = p;
        p = token(p);
        transportEnd = p;
        if (transportEnd == transportStart)
        {
            return fail("missing transport", p);
        }
        final int afterTransport = p;
        p = Ascii.skipLws(buf, p, end);
        if (p == afterTransport || p >= end)
        {
            return fail("missing sent-by", p);
        }
        p = host(p);
        if (p < 0)
        {
            return false;
        }
        p = Ascii.skipLws(buf, p, end);
        if (p < end && buf[p] == ':')
        {
            p = Ascii.skipLws(buf, p + 1, end);
            final int portStart = p;
            while (p < end && Ascii.isDigit(buf[p]))
            {
                p++;
            }
            final long value = Ascii.parseNatural(buf, portStart, p);
            if (value < 0 || value > 65535)
            {
                return fail("bad port in sent-by", portStart);
            }
            port = (int)value;
            p = Ascii.skipLws(buf, p, end);
        }
        while (p < end)
        {
            if (buf[p] != ';')
            {
                return fail("unexpected character after sent-by", p);
            }
            p = param(Ascii.skipLws(buf, p + 1, end));
            if (p < 0)
            {
                return false;
            }
            p = Ascii.skipLws(buf, p, end);
        }
        return true;
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

    private int slash(final int from)
    {
        int p = Ascii.skipLws(buf, from, end);
        if (p >= end || buf[p] != '/')
        {
            fail("expected '/' in sent-protocol", p);
            return -1;
        }
        return Ascii.skipLws(buf, p + 1, end);
    }

    private int host(final int from)
    {
        int p = from;
        hostStart = p;
        if (buf[p] == '[')
        {
            while (p < end && buf[p] != ']')
            {
                final byte b = buf[p];
                if (p > from && !(Ascii.isHexDigit(b) || b == ':' || b == '.'))
                {
                    fail("bad character in IPv6 reference", p);
                    return -1;
                }
                p++;
            }
            if (p >= end)
            {
                fail("unterminated IPv6 reference", from);
                return -1;
            }
            p++;
        }
        else
        {
            while (p < end && (Ascii.isAlpha(buf[p]) || Ascii.isDigit(buf[p]) || buf[p] == '-' || buf[p] == '.'))
            {
                p++;
            }
        }
        hostEnd = p;
        if (hostEnd == hostStart)
        {
            fail("empty host in sent-by", p);
            return -1;
        }
        return p;
    }

    private int param(final int from)
    {
        if (paramCount == MAX_PARAMS)
        {
            fail("too many Via parameters", from);
            return -1;
        }
        int p = token(from);
        if (p == from)
        {
            fail("empty Via parameter name", from);
            return -1;
        }
        final int nameEnd = p;
        int valueStart = -1;
        int valueEnd = -1;
        p = Ascii.skipLws(buf, p, end);
        if (p < end && buf[p] == '=')
        {
            valueStart = Ascii.skipLws(buf, p + 1, end);
            valueEnd = scanParamValue(valueStart);
            if (valueEnd < 0)
            {
                return -1;
            }
            p = valueEnd;
        }
        else
        {
            p = nameEnd;
        }
        final int i = paramCount++;
        params[i * 4] = from;
        params[i * 4 + 1] = nameEnd;
        params[i * 4 + 2] = valueStart;
        params[i * 4 + 3] = valueEnd;
        return knownParam(i, from, nameEnd, valueStart, valueEnd) ? p : -1;
    }

    /**
     * The end of a parameter's value that starts at {@code start}: a quoted string, an IPv6 reference or a token
     * (colons allowed); -1 when it is empty or does not close (failed).
     */
    private int scanParamValue(final int start)
    {
        int p = start;
        if (p < end && buf[p] == '"')
        {
            p = QuotedString.end(buf, p, end);
            if (p < 0)
            {
                fail("unterminated quoted Via parameter", start);
                return -1;
            }
        }
        else if (p < end && buf[p] == '[')
        {
            final int close = Ascii.indexOf(buf, p, end, (byte)']');
            if (close < 0)
            {
                fail("unterminated IPv6 reference in Via parameter", p);
                return -1;
            }
            p = close + 1;
        }
        else
        {
            while (p < end && (Ascii.isTokenChar(buf[p]) || buf[p] == ':'))
            {
                p++;
            }
        }
        if (p == start)
        {
            fail("empty Via parameter value", p);
            return -1;
        }
        return p;
    }

    /** Notes parameter {@code i} when it is one the Via names (RFC 3261 §20.42, RFC 3581); false when malformed. */
    private boolean knownParam(final int i, final int from, final int nameEnd, final int valueStart, final int valueEnd)
    {
        if (Ascii.equalsIgnoreCase(buf, from, nameEnd, BRANCH))
        {
            if (valueStart < 0)
            {
                fail("branch without value", from);
                return false;
            }
            branch = i;
        }
        else if (Ascii.equalsIgnoreCase(buf, from, nameEnd, RECEIVED))
        {
            received = i;
        }
        else if (Ascii.equalsIgnoreCase(buf, from, nameEnd, RPORT))
        {
            if (valueStart >= 0 && Ascii.parseNatural(buf, valueStart, valueEnd) > 65535)
            {
                fail("bad rport value", valueStart);
                return false;
            }
            rport = i;
        }
        else if (Ascii.equalsIgnoreCase(buf, from, nameEnd, MADDR))
        {
            maddr = i;
        }
        else if (Ascii.equalsIgnoreCase(buf, from, nameEnd, TTL))
        {
            final long t = valueStart < 0 ? -1 : Ascii.parseNatural(buf, valueStart, valueEnd);
            if (t < 0 || t > 255)
            {
                fail("bad ttl value", from);
                return false;
            }
            ttl = i;
        }
        return true;
    }

    private boolean fail(final String reason, final int offset)
    {
        error = reason;
        errorOffset = offset;
        return false;
    }

    /** What is wrong with the value when {@link #wrap} returned false; a constant, no allocation. */
    public String error()
    {
        return error;
    }

    /** Where the fault is, as an index into the buffer; -1 when there is none. */
    public int errorOffset()
    {
        return errorOffset;
    }

    public byte[] buffer()
    {
        return buf;
    }

    public int start()
    {
        return start;
    }

    public int end()
    {
        return end;
    }

    public int protocolStart()
    {
        return protocolStart;
    }

    public int protocolEnd()
    {
        return protocolEnd;
    }

    public int versionStart()
    {
        return versionStart;
    }

    public int versionEnd()
    {
        return versionEnd;
    }

    public int transportStart()
    {
        return transportStart;
    }

    public int transportEnd()
    {
        return transportEnd;
    }

    /** True when the transport token equals {@code name}, ignoring case (e.g. "UDP", "TCP", "TLS", "WS"). */
    public boolean isTransport(final CharSequence name)
    {
        return Ascii.equalsIgnoreCase(buf, transportStart, transportEnd, name);
    }

    /** Start of the sent-by host; an IPv6 reference includes its brackets. */
    public int hostStart()
    {
        return hostStart;
    }

    public int hostEnd()
    {
        return hostEnd;
    }

    /** The sent-by port, or -1 when absent (the transport's default applies, RFC 3261 §18.2.2). */
    public int port()
    {
        return port;
    }

    public int paramCount()
    {
        return paramCount;
    }

    public int paramNameStart(final int i)
    {
        return params[i * 4];
    }

    public int paramNameEnd(final int i)
    {
        return params[i * 4 + 1];
    }

    /** Start of the i-th parameter's value, or -1 when the parameter has no value. */
    public int paramValueStart(final int i)
    {
        return params[i * 4 + 2];
    }

    public int paramValueEnd(final int i)
    {
        return params[i * 4 + 3];
    }

    /** Index of the parameter with this name (case-insensitive), or -1. */
    public int paramIndex(final CharSequence name)
    {
        for (int i = 0; i < paramCount; i++)
        {
            if (Ascii.equalsIgnoreCase(buf, params[i * 4], params[i * 4 + 1], name))
            {
                return i;
            }
        }
        return -1;
    }

    public boolean hasBranch()
    {
        return branch >= 0;
    }

    public int branchStart()
    {
        return branch < 0 ? -1 : params[branch * 4 + 2];
    }

    public int branchEnd()
    {
        return branch < 0 ? -1 : params[branch * 4 + 3];
    }

    /** True when the branch starts with the RFC 3261 magic cookie {@code z9hG4bK} (§8.1.1.7, §17.2.3). */
    public boolean hasMagicCookie()
    {
        return branch >= 0 && startsWithCookie(buf, params[branch * 4 + 2], params[branch * 4 + 3]);
    }

    static boolean startsWithCookie(final byte[] buf, final int start, final int end)
    {
        // The cookie is case-sensitive in practice; RFC 3261 §8.1.1.7 writes it exactly "z9hG4bK".
        return end - start >= MAGIC_COOKIE.length && buf[start] == 'z' && buf[start + 1] == '9'
            && buf[start + 2] == 'h' && buf[start + 3] == 'G' && buf[start + 4] == '4' && buf[start + 5] == 'b'
            && buf[start + 6] == 'K';
    }

    /** Index of the {@code received} parameter, or -1. */
    public int receivedIndex()
    {
        return received;
    }

    /** Index of the {@code rport} parameter (RFC 3581), or -1; its value may be absent. */
    public int rportIndex()
    {
        return rport;
    }

    public int maddrIndex()
    {
        return maddr;
    }

    public int ttlIndex()
    {
        return ttl;
    }

    /** The branch as a String (allocates); null when absent. */
    public String branch()
    {
        return branch < 0 ? null : Ascii.string(buf, params[branch * 4 + 2], params[branch * 4 + 3]);
    }

    /** The sent-by host as a String (allocates), brackets of an IPv6 reference included. */
    public String host()
    {
        return Ascii.string(buf, hostStart, hostEnd);
    }

    /** The transport token as a String (allocates). */
    public String transport()
    {
        return Ascii.string(buf, transportStart, transportEnd);
    }
}
