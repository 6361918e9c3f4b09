package io.sipline.container.address;

import javax.servlet.sip.ServletParseException;

/**
 * A JSR 289 {@link javax.servlet.sip.Parameterable}: a header field value followed by {@code ;name=value}
 * parameters (RFC 3261 §7.3.1, {@code generic-param}), e.g. an Accept {@code application/sdp;level=1}, an Event
 * {@code presence;id=7}, a Call-Info {@code <http://www.example.com/alice/photo.jpg> ;purpose=icon}.
 *
 * <p>The value is kept as written (white space around it trimmed); {@code ;} inside a quoted-string or inside
 * angle brackets belongs to the value. Equality (JSR 289 defers to RFC 3261 §7.3.1: "field values, parameter names,
 * and parameter values are case-insensitive ... values expressed as quoted strings are case-sensitive"): the values
 * are equal ignoring case and the parameters are equal as a set (see {@link AbstractParameterable}).
 *
 * <p>Threading: not thread-safe; one application thread at a time. Read-only copies are immutable.
 */
public final class ParameterableImpl extends AbstractParameterable
{
    private String value;

    ParameterableImpl(final String value, final String[] params, final int paramCount, final Protection protection,
        final String systemHeader)
    {
        super(params, paramCount, protection, systemHeader);
        this.value = value;
    }

    /**
     * Parses {@code value *( ";" generic-param )}: a single-pass scan of the string, no regular expression.
     *
     * @throws ServletParseException saying what is wrong and at which index.
     */
    static ParameterableImpl parse(final String text) throws ServletParseException
    {
        if (null == text)
        {
            throw new ServletParseException("bad header value: null");
        }
        final int valueStart = skipWs(text, 0);
        final int p = scanValue(text, valueStart);
        int valueEnd = p;
        while (valueEnd > valueStart && isWs(text.charAt(valueEnd - 1)))
        {
            valueEnd--;
        }
        if (valueEnd == valueStart)
        {
            throw error(text, "empty value", valueStart);
        }
        final ParameterableImpl result =
            new ParameterableImpl(text.substring(valueStart, valueEnd), null, 0, Protection.NONE, null);
        parseParams(text, p, result);
        return result;
    }

    /**
     * Where the value that starts at {@code start} ends: at the first {@code ;} outside a quoted-string and angle
     * brackets, or at the end of the text.
     */
    private static int scanValue(final String text, final int start) throws ServletParseException
    {
        final int n = text.length();
        int p = start;
        int angle = -1;
        while (p < n)
        {
            final char c = text.charAt(p);
            if (c == '"')
            {
                final int end = quotedEnd(text, p);
                if (end < 0)
                {
                    throw error(text, "unterminated quoted string", p);
                }
                p = end;
                continue;
            }
            if (c == '\r' || c == '\n')
            {
                throw error(text, "line break in value", p);
            }
            if (c == '<' && angle < 0)
            {
                angle = p;
            }
            else if (c == '>')
            {
                angle = -1;
            }
            else if (c == ';' && angle < 0)
            {
                break;
            }
            p++;
        }
        if (angle >= 0)
        {
            throw error(text, "'<' without '>'", angle);
        }
        return p;
    }

    /** Parses the {@code *( ";" generic-param )} from {@code from} (a {@code ;} or the end) into {@code result}. */
    private static void parseParams(final String text, final int from, final ParameterableImpl result)
        throws ServletParseException
    {
        final int n = text.length();
        int p = from;
        while (p < n)
        {
            p = skipWs(text, p + 1);
            final int nameStart = p;
            while (p < n && UriText.isTokenChar(text.charAt(p)))
            {
                p++;
            }
            if (p == nameStart)
            {
                throw error(text, "expected a parameter name", p);
            }
            final String name = text.substring(nameStart, p);
            p = skipWs(text, p);
            String raw = "";
            if (p < n && text.charAt(p) == '=')
            {
                p = skipWs(text, p + 1);
                final int rawStart = p;
                if (p < n && text.charAt(p) == '"')
                {
                    p = quotedEnd(text, p);
                    if (p < 0)
                    {
                        throw error(text, "unterminated quoted string", rawStart);
                    }
                }
                else
                {
                    while (p < n && isBareChar(text.charAt(p)))
                    {
                        p++;
                    }
                    if (p == rawStart)
                    {
                        throw error(text, "empty or malformed value of parameter " + name, p);
                    }
                }
                raw = text.substring(rawStart, p);
                p = skipWs(text, p);
            }
            if (p < n && text.charAt(p) != ';')
            {
                throw error(text, "unexpected character '" + text.charAt(p) + "' after parameter " + name, p);
            }
            result.append(name, raw);
        }
    }

    /** A copy that refuses every change with {@link IllegalStateException}. */
    public ParameterableImpl readOnly(final String header)
    {
        return new ParameterableImpl(value, copyParams(), paramCount, Protection.READ_ONLY, header);
    }

    @Override
    public ParameterableImpl clone()
    {
        return new ParameterableImpl(value, copyParams(), paramCount, Protection.NONE, null);
    }

    @Override
    public String getValue()
    {
        return value;
    }

    /**
     * Sets the value (the text before the parameters).
     *
     * @throws IllegalArgumentException when it is null, empty, or holds a line break.
     */
    @Override
    public void setValue(final String value)
    {
        checkWritable();
        if (null == value || value.isBlank() || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0)
        {
            throw new IllegalArgumentException("header value must be non-empty and on one line: " + value);
        }
        this.value = value.strip();
    }

    @Override
    public String toString()
    {
        return appendParams(new StringBuilder(value.length() + 16 * paramCount).append(value)).toString();
    }

    @Override
    public boolean equals(final Object o)
    {
        return this == o || (o instanceof ParameterableImpl other && value.equalsIgnoreCase(other.value) &&
            paramsEqual(other));
    }

    @Override
    public int hashCode()
    {
        return lowerHash(value) * 31 + paramsHash(null);
    }

    /** Index just after the closing quote of the quoted-string opening at {@code start}, or -1. */
    static int quotedEnd(final String text, final int start)
    {
        for (int p = start + 1; p < text.length(); p++)
        {
            final char c = text.charAt(p);
            if (c == '"')
            {
                return p + 1;
            }
            if (c == '\r' || c == '\n')
            {
                return -1;
            }
            if (c == '\\')
            {
                if (p + 1 >= text.length() || text.charAt(p + 1) == '\r' || text.charAt(p + 1) == '\n')
                {
                    return -1;
                }
                p++;
            }
        }
        return -1;
    }

    private static boolean isBareChar(final char c)
    {
        return UriText.isTokenChar(c) || c == ':' || c == '[' || c == ']';
    }

    private static boolean isWs(final char c)
    {
        return c == ' ' || c == '\t';
    }

    private static int skipWs(final String text, final int from)
    {
        int p = from;
        while (p < text.length() && isWs(text.charAt(p)))
        {
            p++;
        }
        return p;
    }

    private static ServletParseException error(final String text, final String reason, final int index)
    {
        return new ServletParseException("bad header value \"" + text + "\": " + reason + " at index " + index);
    }
}
