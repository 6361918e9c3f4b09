package io.sipline.sip.message;

/**
 * RFC 3261 §25.1 {@code quoted-string}: {@code DQUOTE *(qdtext / quoted-pair) DQUOTE}, where a quoted-pair is a
 * backslash and any byte but CR and LF. Stateless; thread-safe.
 */
public final class QuotedString
{
    private QuotedString()
    {
    }

    /**
     * Finds the end of a quoted string.
     *
     * @param start index of the opening quote.
     * @return the index just after the closing quote, or -1 when the string is not terminated before {@code end}.
     */
    public static int end(final byte[] buf, final int start, final int end)
    {
        int p = start + 1;
        while (p < end)
        {
            final byte b = buf[p];
            if (b == '"')
            {
                return p + 1;
            }
            if (b == '\r' || b == '\n')
            {
                // Only folding (a line break followed by white space) may continue a quoted string (§7.3.1).
                final int lf = b == '\r' ? p + 1 : p;
                if (lf + 1 >= end || buf[lf] != '\n' || !Ascii.isWsp(buf[lf + 1]))
                {
                    return -1;
                }
                p = lf + 2;
                continue;
            }
            if (b == '\\')
            {
                if (p + 1 >= end || buf[p + 1] == '\r' || buf[p + 1] == '\n')
                {
                    return -1;
                }
                p += 2;
                continue;
            }
            p++;
        }
        return -1;
    }

    /** Appends the content of a quoted string, quotes removed and quoted-pairs unescaped. */
    public static void unquote(final byte[] buf, final int start, final int end, final StringBuilder out)
    {
        final int from = start < end && buf[start] == '"' ? start + 1 : start;
        final int to = end > from && buf[end - 1] == '"' ? end - 1 : end;
        final String s = Ascii.string(buf, from, to);
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length())
            {
                out.append(s.charAt(++i));
            }
            else
            {
                out.append(c);
            }
        }
    }
}
