package io.sipline.container.security;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One parsed {@code challenge} or {@code credentials} header value (RFC 3261 §25.1, {@code WWW-Authenticate},
 * {@code Proxy-Authenticate}, {@code Authorization}, {@code Proxy-Authorization}): the scheme and its
 * comma-separated {@code name=value} parameters, where a value is a token or a quoted string with
 * backslash escapes. Parameter names are kept lowercase (they are case-insensitive, RFC 2617 §1.2); quoted values
 * are unescaped.
 * <p>
 * The parser is total: any input gives either a value or an {@link #error()} saying what is wrong, never an
 * exception. A parameter given twice, an unterminated quoted string, a missing {@code =}, more than
 * {@value #MAX_PARAMS} parameters or a value longer than {@value #MAX_LENGTH} characters are errors.
 * <p>
 * Threading: an immutable record.
 *
 * @param scheme the scheme as written ({@code Digest}), or {@code null} on error.
 * @param params the parameters by lowercase name, in order; empty on error.
 * @param error  what is wrong, or {@code null}.
 */
public record AuthParams(String scheme, Map<String, String> params, String error)
{
    /** The most parameters one value may carry. */
    public static final int MAX_PARAMS = 32;
    /** The longest header value parsed, in characters. */
    public static final int MAX_LENGTH = 8192;

    /**
     * @return whether the value parsed.
     */
    public boolean ok()
    {
        return null == error;
    }

    /**
     * @return whether the scheme is {@code Digest} (case-insensitive).
     */
    public boolean isDigest()
    {
        return null != scheme && "Digest".equalsIgnoreCase(scheme);
    }

    /**
     * @param name a lowercase parameter name.
     * @return its value, or {@code null} when absent.
     */
    public String get(final String name)
    {
        return params.get(name);
    }

    /**
     * Parses one header value.
     *
     * @param value the header value, or {@code null}.
     * @return the scheme and parameters, or an error.
     */
    public static AuthParams parse(final String value)
    {
        if (null == value)
        {
            return failure("no header value");
        }
        if (value.length() > MAX_LENGTH)
        {
            return failure("header value longer than " + MAX_LENGTH + " characters");
        }
        final int length = value.length();
        int i = skipSpace(value, 0);
        final int schemeStart = i;
        while (i < length && isTokenChar(value.charAt(i)))
        {
            i++;
        }
        if (i == schemeStart)
        {
            return failure("no authentication scheme");
        }
        final String scheme = value.substring(schemeStart, i);
        if (i < length && !isSpace(value.charAt(i)))
        {
            return failure("unexpected character after the scheme at index " + i);
        }
        final Map<String, String> params = new LinkedHashMap<>();
        i = skipSpace(value, i);
        while (i < length)
        {
            final int nameStart = i;
            while (i < length && isTokenChar(value.charAt(i)))
            {
                i++;
            }
            if (i == nameStart)
            {
                return failure("parameter name expected at index " + i);
            }
            final String name = value.substring(nameStart, i).toLowerCase(Locale.ROOT);
            i = skipSpace(value, i);
            if (i >= length || '=' != value.charAt(i))
            {
                return failure("'=' expected after parameter " + name);
            }
            i = skipSpace(value, i + 1);
            final String parameterValue;
            if (i < length && '"' == value.charAt(i))
            {
                final StringBuilder text = new StringBuilder();
                i = readQuoted(value, i + 1, text);
                if (i < 0)
                {
                    return failure("unterminated quoted string in parameter " + name);
                }
                parameterValue = text.toString();
            }
            else
            {
                final int valueStart = i;
                while (i < length && isTokenChar(value.charAt(i)))
                {
                    i++;
                }
                if (i == valueStart)
                {
                    return failure("value expected for parameter " + name);
                }
                parameterValue = value.substring(valueStart, i);
            }
            if (params.size() == MAX_PARAMS)
            {
                return failure("more than " + MAX_PARAMS + " parameters");
            }
            if (null != params.putIfAbsent(name, parameterValue))
            {
                return failure("parameter " + name + " given twice");
            }
            i = skipSpace(value, i);
            if (i < length)
            {
                if (',' != value.charAt(i))
                {
                    return failure("',' expected at index " + i);
                }
                i = skipSpace(value, i + 1);
                if (i >= length)
                {
                    return failure("parameter expected after the last ','");
                }
            }
        }
        return new AuthParams(scheme, Collections.unmodifiableMap(params), null);
    }

    /**
     * @param text any text.
     * @return {@code text} as a quoted string: surrounded by {@code "} with {@code "} and {@code \} escaped.
     */
    public static String quote(final String text)
    {
        final StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if ('"' == c || '\\' == c)
            {
                quoted.append('\\');
            }
            quoted.append(c);
        }
        return quoted.append('"').toString();
    }

    /**
     * @param c a character.
     * @return whether it is a {@code token} character (RFC 3261 §25.1: alphanum and {@code -.!%*_+`'~}).
     */
    static boolean isTokenChar(final char c)
    {
        return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
            0 <= "-.!%*_+`'~".indexOf(c);
    }

    private static int readQuoted(final String value, final int from, final StringBuilder text)
    {
        int i = from;
        while (i < value.length())
        {
            final char c = value.charAt(i);
            if ('"' == c)
            {
                return i + 1;
            }
            if ('\\' == c)
            {
                if (i + 1 >= value.length())
                {
                    return -1;
                }
                text.append(value.charAt(i + 1));
                i += 2;
            }
            else
            {
                text.append(c);
                i++;
            }
        }
        return -1;
    }

    private static int skipSpace(final String value, final int from)
    {
        int i = from;
        while (i < value.length() && isSpace(value.charAt(i)))
        {
            i++;
        }
        return i;
    }

    private static boolean isSpace(final char c)
    {
        return ' ' == c || '\t' == c || '\r' == c || '\n' == c;
    }

    private static AuthParams failure(final String error)
    {
        return new AuthParams(null, Map.of(), error);
    }
}
