package io.sipline.sip.message;

/**
 * Walks the parts of a {@code multipart/*} body (RFC 2046 §5.1.1; in SIP e.g. SDP beside ISUP, RFC 3261 §7.4,
 * RFC 5621) without copying: each part is a span of header lines and a span of content.
 *
 * <pre>
 *   preamble CRLF --boundary CRLF part-headers CRLF CRLF content CRLF --boundary CRLF ... CRLF --boundary-- epilogue
 * </pre>
 *
 * <p>Not thread-safe; one owner re-points it with {@link #wrap}; it never allocates after construction.
 */
public final class MultipartFlyweight
{
    private byte[] buf;
    private int end;
    private int boundaryStart;
    private int boundaryLength;
    private int cursor;
    private int partHeadersStart;
    private int partHeadersEnd;
    private int partContentStart;
    private int partContentEnd;

    /**
     * Re-points the walker at a body.
     *
     * @param boundaryStart the boundary parameter's content (quotes removed) in {@code buf}.
     * @return false when the body holds no delimiter line with that boundary.
     */
    public boolean wrap(
        final byte[] buf, final int bodyStart, final int bodyEnd, final int boundaryStart, final int boundaryEnd)
    {
        this.buf = buf;
        this.end = bodyEnd;
        this.boundaryStart = boundaryStart;
        this.boundaryLength = boundaryEnd - boundaryStart;
        if (boundaryLength <= 0 || boundaryLength > 70)
        {
            return false;
        }
        final int first = findDelimiter(bodyStart);
        if (first < 0)
        {
            return false;
        }
        cursor = first;
        return true;
    }

    /** Advances to the next part; false after the last one (the close delimiter) or on a malformed body. */
    public boolean next()
    {
        if (cursor < 0)
        {
            return false;
        }
        // cursor is at "--boundary"; after it either "--" (close) or transport padding then CRLF.
        int p = cursor + 2 + boundaryLength;
        if (p + 1 < end && buf[p] == '-' && buf[p + 1] == '-')
        {
            cursor = -1;
            return false;
        }
        while (p < end && (buf[p] == ' ' || buf[p] == '\t'))
        {
            p++;
        }
        p = skipLineBreak(p);
        if (p < 0)
        {
            cursor = -1;
            return false;
        }
        partHeadersStart = p;
        // Part headers end at an empty line; a part may have none (then content starts right away).
        int q = p;
        partHeadersEnd = p;
        partContentStart = -1;
        while (q < end)
        {
            final int lineStart = q;
            while (q < end && buf[q] != '\n')
            {
                q++;
            }
            final int lineEnd = q < end ? q + 1 : q;
            final int contentEnd = q > lineStart && buf[q - 1] == '\r' ? q - 1 : q;
            if (contentEnd == lineStart)
            {
                partHeadersEnd = lineStart;
                partContentStart = lineEnd;
                break;
            }
            q = lineEnd;
        }
        if (partContentStart < 0)
        {
            cursor = -1;
            return false;
        }
        final int delimiter = findDelimiter(partContentStart);
        if (delimiter < 0)
        {
            cursor = -1;
            return false;
        }
        // The CRLF before the delimiter belongs to the delimiter (RFC 2046 §5.1.1).
        int ce = delimiter;
        if (ce > partContentStart && buf[ce - 1] == '\n')
        {
            ce--;
            if (ce > partContentStart && buf[ce - 1] == '\r')
            {
                ce--;
            }
        }
        partContentEnd = ce;
        cursor = delimiter;
        return true;
    }

    private int skipLineBreak(final int p)
    {
        if (p < end && buf[p] == '\r')
        {
            return p + 1 < end && buf[p + 1] == '\n' ? p + 2 : -1;
        }
        return p < end && buf[p] == '\n' ? p + 1 : -1;
    }

    /** Finds "--boundary" at the start of a line at or after {@code from}; -1 when none. */
    private int findDelimiter(final int from)
    {
        for (int p = from; p + 2 + boundaryLength <= end; p++)
        {
            if (buf[p] == '-' && buf[p + 1] == '-' && (p == from || buf[p - 1] == '\n')
                && Ascii.equals(buf, p + 2, p + 2 + boundaryLength, buf, boundaryStart, boundaryStart + boundaryLength))
            {
                return p;
            }
        }
        return -1;
    }

    public int partHeadersStart()
    {
        return partHeadersStart;
    }

    public int partHeadersEnd()
    {
        return partHeadersEnd;
    }

    public int partContentStart()
    {
        return partContentStart;
    }

    public int partContentEnd()
    {
        return partContentEnd;
    }
}
