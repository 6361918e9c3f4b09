package io.sipline.container.address;

import java.nio.charset.StandardCharsets;

/**
 * Text helpers for the address package: escaping of URI components as the setters of JSR 289 {@code SipURI} require
 * ("the container is responsible for escaping those values as necessary"), unescaping for the getters, and the
 * quoting of display names and header parameter values (RFC 3261 §25.1 {@code quoted-string}).
 *
 * <p>Character sets, RFC 3261 §25.1 (a character outside its set is written as {@code %HH} of its UTF-8 bytes,
 * §19.1.2):
 * <pre>
 *   user      = unreserved / user-unreserved  ("&amp;" "=" "+" "$" "," ";" "?" "/")
 *   password  = unreserved / "&amp;" "=" "+" "$" ","
 *   paramchar = unreserved / param-unreserved ("[" "]" "/" ":" "&amp;" "+" "$")
 *   hname, hvalue = unreserved / hnv-unreserved ("[" "]" "/" "?" ":" "+" "$")
 *   unreserved = alphanum / "-" "_" "." "!" "~" "*" "'" "(" ")"
 * </pre>
 *
 * <p>Stateless and thread-safe.
 */
final class UriText
{
    /** Component kinds for {@link #escape(String, int)}. */
    static final int USER = 0;
    static final int PASSWORD = 1;
    static final int PARAM = 2;
    static final int HEADER = 3;

    private static final String[] EXTRA = {"&=+$,;?/", "&=+$,", "[]/:&+$", "[]/?:+$"};
    private static final String MARK = "-_.!~*'()";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    /** RFC 3261 §25.1 token characters besides alphanumerics. */
    private static final String TOKEN_MARKS = "-.!%*_+`'~";

    private UriText()
    {
    }

    /** True when {@code c} may stand unescaped in a component of this kind. */
    static boolean allowed(final char c, final int kind)
    {
        return isAlphanum(c) || MARK.indexOf(c) >= 0 || EXTRA[kind].indexOf(c) >= 0;
    }

    /** {@code value} with every character outside the set of {@code kind} escaped; the same string when none is. */
    static String escape(final String value, final int kind)
    {
        int i = 0;
        while (i < value.length() && allowed(value.charAt(i), kind))
        {
            i++;
        }
        if (i == value.length())
        {
            return value;
        }
        final StringBuilder out = new StringBuilder(value.length() + 16).append(value, 0, i);
        final byte[] bytes = value.substring(i).getBytes(StandardCharsets.UTF_8);
        for (final byte b : bytes)
        {
            final char c = (char)(b & 0xFF);
            if (c < 0x80 && allowed(c, kind))
            {
                out.append(c);
            }
            else
            {
                out.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
            }
        }
        return out.toString();
    }

    /**
     * The text of {@code [start, end)} with {@code %HH} escapes decoded and the result read as UTF-8 (a span without
     * escapes is read as ASCII without a decoding buffer).
     */
    static String unescape(final byte[] buf, final int start, final int end)
    {
        int p = start;
        while (p < end && buf[p] != '%')
        {
            p++;
        }
        if (p == end)
        {
            return new String(buf, start, end - start, StandardCharsets.ISO_8859_1);
        }
        final byte[] out = new byte[end - start];
        int n = 0;
        for (int i = start; i < end; i++)
        {
            final byte b = buf[i];
            final int hi = i + 2 < end && b == '%' ? Character.digit(buf[i + 1], 16) : -1;
            final int lo = hi >= 0 ? Character.digit(buf[i + 2], 16) : -1;
            if (lo >= 0)
            {
                out[n++] = (byte)((hi << 4) | lo);
                i += 2;
            }
            else
            {
                out[n++] = b;
            }
        }
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }

    /** RFC 3261 §25.1 {@code token}: non-empty, alphanumerics and {@code -.!%*_+`'~}. */
    static boolean isToken(final CharSequence s)
    {
        if (s.isEmpty())
        {
            return false;
        }
        for (int i = 0; i < s.length(); i++)
        {
            if (!isTokenChar(s.charAt(i)))
            {
                return false;
            }
        }
        return true;
    }

    static boolean isTokenChar(final char c)
    {
        return isAlphanum(c) || TOKEN_MARKS.indexOf(c) >= 0;
    }

    /**
     * RFC 3261 §25.1 {@code gen-value} written bare: a token, or a host (token characters plus {@code :} and the
     * brackets of an IPv6 reference).
     */
    static boolean isBareValue(final CharSequence s)
    {
        if (s.isEmpty())
        {
            return false;
        }
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            if (!isTokenChar(c) && c != ':' && c != '[' && c != ']')
            {
                return false;
            }
        }
        return true;
    }

    /** True when {@code s} is exactly one well-formed quoted-string (RFC 3261 §25.1), quotes included. */
    static boolean isQuotedString(final CharSequence s)
    {
        final int n = s.length();
        if (n < 2 || s.charAt(0) != '"' || s.charAt(n - 1) != '"')
        {
            return false;
        }
        for (int i = 1; i < n - 1; i++)
        {
            final char c = s.charAt(i);
            if (c == '\r' || c == '\n' || c == '"')
            {
                return false;
            }
            if (c == '\\')
            {
                if (i + 1 >= n - 1 || s.charAt(i + 1) == '\r' || s.charAt(i + 1) == '\n')
                {
                    return false;
                }
                i++;
            }
        }
        return true;
    }

    /**
     * Appends {@code s} as a quoted-string: quotes around; {@code "}, {@code \} and the control characters that
     * {@code qdtext} excludes (all but HTAB) written as quoted-pairs (RFC 3261 §25.1). The caller has refused CR and
     * LF, which not even a quoted-pair may carry.
     */
    static StringBuilder appendQuoted(final StringBuilder out, final CharSequence s)
    {
        out.append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            if (c == '"' || c == '\\' || c == 0x7F || (c < 0x20 && c != '\t'))
            {
                out.append('\\');
            }
            out.append(c);
        }
        return out.append('"');
    }

    /** The content of a quoted-string, quotes removed and quoted-pairs unescaped; {@code s} itself when unquoted. */
    static String unquote(final String s)
    {
        if (s.length() < 2 || s.charAt(0) != '"' || s.charAt(s.length() - 1) != '"')
        {
            return s;
        }
        final int last = s.length() - 1;
        if (s.indexOf('\\') < 0)
        {
            return s.substring(1, last);
        }
        final StringBuilder out = new StringBuilder(last);
        for (int i = 1; i < last; i++)
        {
            final char c = s.charAt(i);
            if (c == '\\' && i + 1 < last)
            {
                out.append(s.charAt(++i));
            }
            else
            {
                out.append(c);
            }
        }
        return out.toString();
    }

    static boolean isAlphanum(final char c)
    {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }
}
