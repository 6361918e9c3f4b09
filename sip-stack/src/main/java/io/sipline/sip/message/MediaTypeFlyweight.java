package io.sipline.sip.message;

/**
 * A reusable view of a Content-Type value (RFC 3261 §20.15, media-type in §25.1; RFC 2045 §5.1):
 * {@code type "/" subtype *( SEMI m-parameter )}, e.g. {@code multipart/mixed; boundary="unique-boundary-1"}.
 * Type, subtype and parameter names compare case-insensitively.
 *
 * <p>Not thread-safe; one owner re-points it with {@link #wrap}; it never allocates after construction.
 */
public final class MediaTypeFlyweight
{
    public static final int MAX_PARAMS = 16;

    private final int[] params = new int[MAX_PARAMS * 4];
    private byte[] buf;
    private int typeStart;
    private int typeEnd;
    private int subtypeStart;
    private int subtypeEnd;
    private int paramCount;

    /** Re-points the view at a Content-Type value; false when it is not {@code type/subtype *(;param)}. */
    public boolean wrap(final byte[] buf, final int start, final int end)
    {
        this.buf = buf;
        paramCount = 0;
        int p = Ascii.skipLws(buf, start, end);
        typeStart = p;
        while (p < end && Ascii.isTokenChar(buf[p]))
        {
            p++;
        }
        typeEnd = p;
        p = Ascii.skipLws(buf, p, end);
        if (typeEnd == typeStart || p >= end || buf[p] != '/')
        {
            return false;
        }
        p = Ascii.skipLws(buf, p + 1, end);
        subtypeStart = p;
        while (p < end && Ascii.isTokenChar(buf[p]))
        {
            p++;
        }
        subtypeEnd = p;
        if (subtypeEnd == subtypeStart)
        {
            return false;
        }
        p = Ascii.skipLws(buf, p, end);
        while (p < end)
        {
            if (buf[p] != ';' || paramCount == MAX_PARAMS)
            {
                return false;
            }
            p = Ascii.skipLws(buf, p + 1, end);
            final int nameStart = p;
            while (p < end && Ascii.isTokenChar(buf[p]))
            {
                p++;
            }
            final int nameEnd = p;
            p = Ascii.skipLws(buf, p, end);
            if (nameEnd == nameStart || p >= end || buf[p] != '=')
            {
                return false;
            }
            p = Ascii.skipLws(buf, p + 1, end);
            final int valueStart = p;
            if (p < end && buf[p] == '"')
            {
                p = QuotedString.end(buf, p, end);
                if (p < 0)
                {
                    return false;
                }
            }
            else
            {
                while (p < end && Ascii.isTokenChar(buf[p]))
                {
                    p++;
                }
            }
            if (p == valueStart)
            {
                return false;
            }
            final int i = paramCount++;
            params[i * 4] = nameStart;
            params[i * 4 + 1] = nameEnd;
            params[i * 4 + 2] = valueStart;
            params[i * 4 + 3] = p;
            p = Ascii.skipLws(buf, p, end);
        }
        return true;
    }

    /** True when type/subtype equal the given ones, ignoring case. */
    public boolean is(final CharSequence type, final CharSequence subtype)
    {
        return Ascii.equalsIgnoreCase(buf, typeStart, typeEnd, type)
            && Ascii.equalsIgnoreCase(buf, subtypeStart, subtypeEnd, subtype);
    }

    public int typeStart()
    {
        return typeStart;
    }

    public int typeEnd()
    {
        return typeEnd;
    }

    public int subtypeStart()
    {
        return subtypeStart;
    }

    public int subtypeEnd()
    {
        return subtypeEnd;
    }

    public int paramCount()
    {
        return paramCount;
    }

    /** Index of a parameter by name (case-insensitive), or -1. */
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

    /** Start of a parameter value; a quoted value includes its quotes. */
    public int paramValueStart(final int i)
    {
        return params[i * 4 + 2];
    }

    public int paramValueEnd(final int i)
    {
        return params[i * 4 + 3];
    }

    /** Start of a parameter value without surrounding quotes. */
    public int paramContentStart(final int i)
    {
        final int s = params[i * 4 + 2];
        return buf[s] == '"' ? s + 1 : s;
    }

    /** End of a parameter value without surrounding quotes. */
    public int paramContentEnd(final int i)
    {
        final int e = params[i * 4 + 3];
        return buf[params[i * 4 + 2]] == '"' ? e - 1 : e;
    }

    /** {@code type/subtype} as a String (allocates). */
    public String mimeType()
    {
        return Ascii.string(buf, typeStart, subtypeEnd);
    }
}
