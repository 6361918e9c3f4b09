package io.sipline.sip.message;

import static io.sipline.sip.message.SipMessageParser.fail;

/**
 * The header stage of {@link SipMessageParser}: scans the header lines (RFC 3261 §7.3.1: names, colons, folding,
 * quoted strings), indexes every value into the message, one entry per comma-separated value of a list header, and
 * hands each header to {@link EagerHeaderParser} as soon as it is indexed. Ordinary bytes are skipped with class
 * tables; only line breaks, quotes, commas, angle brackets and controls stop the scan.
 *
 * <p>Stateless; thread-safe. Allocates nothing; the message it fills is not thread-safe.
 */
final class HeaderScanner
{
    private HeaderScanner()
    {
    }

    static ParseResult headers(final SipMessage m, final int from, final int end, final boolean stream)
    {
        final byte[] b = m.buf;
        int p = from;
        while (true)
        {
            if (p >= end)
            {
                return stream ? ParseResult.INCOMPLETE : fail(m, ParseResult.HEADERS_NOT_TERMINATED, p);
            }
            // The empty line ends the header section.
            if (b[p] == '\n')
            {
                m.bodyStart = p + 1;
                return ParseResult.OK;
            }
            if (b[p] == '\r')
            {
                if (p + 1 >= end)
                {
                    return stream ? ParseResult.INCOMPLETE : fail(m, ParseResult.HEADERS_NOT_TERMINATED, p);
                }
                if (b[p + 1] == '\n')
                {
                    m.bodyStart = p + 2;
                    return ParseResult.OK;
                }
                return fail(m, ParseResult.CONTROL_CHARACTER, p);
            }

            // field-name HCOLON (RFC 3261 §7.3.1: white space may precede the colon)
            final int nameStart = p;
            while (p < end && Ascii.isTokenChar(b[p]))
            {
                p++;
            }
            final int nameEnd = p;
            if (nameEnd == nameStart)
            {
                return fail(m, Ascii.isWsp(b[p]) ? ParseResult.BAD_HEADER_NAME : ParseResult.BAD_HEADER_NAME, p);
            }
            while (p < end && Ascii.isWsp(b[p]))
            {
                p++;
            }
            if (p >= end)
            {
                return stream ? ParseResult.INCOMPLETE : fail(m, ParseResult.HEADERS_NOT_TERMINATED, p);
            }
            if (b[p] != ':')
            {
                return fail(m, ParseResult.HEADER_WITHOUT_COLON, p);
            }
            p++;

            final HeaderName name = HeaderName.lookup(b, nameStart, nameEnd);
            final int next = name.isSplitEagerly() ? listValues(m, name, nameStart, nameEnd, p, end) :
                singleValue(m, name, nameStart, nameEnd, p, end);
            if (next < 0)
            {
                if (next == INCOMPLETE_MARK)
                {
                    return stream ? ParseResult.INCOMPLETE : fail(m, ParseResult.HEADERS_NOT_TERMINATED, p);
                }
                return m.result;
            }
            final ParseResult checked = EagerHeaderParser.interpret(m, name, m.headerCount - 1);
            if (checked != ParseResult.OK)
            {
                return checked;
            }
            p = next;
        }
    }

    private static final int INCOMPLETE_MARK = -2;
    private static final int ERROR_MARK = -1;

    /**
     * Indexes a header that holds one value; returns the index of the next line, or a negative mark. Ordinary bytes
     * (white space included) are skipped by a class-table scan; only line breaks, quotes and controls stop it.
     */
    private static int singleValue(final SipMessage m, final HeaderName name, final int nameStart, final int nameEnd,
        final int from, final int end)
    {
        final byte[] b = m.buf;
        final byte[] special = isQuoteAware(name) ? SINGLE_QUOTED : SINGLE_PLAIN;
        int p = from;
        boolean folded = false;
        int valueStart = -1;
        int valueEnd = from;
        while (true)
        {
            final int runStart = p;
            while (p < end && special[b[p] & 0xFF] == 0)
            {
                p++;
            }
            final int e = trimWspEnd(b, runStart, p); // runStart when the run is empty or only white space
            if (e > runStart)
            {
                valueStart = valueStart < 0 ? skipWsp(b, runStart, e) : valueStart;
                valueEnd = e;
            }
            if (p >= end)
            {
                return INCOMPLETE_MARK;
            }
            final byte c = b[p];
            if (c == '\r' || c == '\n')
            {
                final int lineEnd = afterLineBreak(m, p, end);
                if (lineEnd < 0)
                {
                    return lineEnd;
                }
                if (Ascii.isWsp(b[lineEnd]))
                {
                    // Line folding (RFC 3261 §7.3.1): the value goes on.
                    folded |= valueStart >= 0;
                    p = lineEnd;
                    continue;
                }
                if (valueStart < 0)
                {
                    valueStart = valueEnd = p;
                }
                if (!m.addHeader(name, SipMessage.FIRST_OF_LINE, nameStart, nameEnd, valueStart, valueEnd, lineEnd))
                {
                    m.result = fail(m, ParseResult.TOO_MANY_HEADERS, nameStart);
                    return ERROR_MARK;
                }
                if (folded)
                {
                    m.markLastFolded();
                }
                return lineEnd;
            }
            if (c == '"')
            {
                final int close = closingQuote(m, p, end);
                if (close < 0)
                {
                    return ERROR_MARK;
                }
                if (valueStart < 0)
                {
                    valueStart = p;
                }
                p = close;
                valueEnd = p;
                continue;
            }
            m.result = fail(m, ParseResult.CONTROL_CHARACTER, p);
            return ERROR_MARK;
        }
    }

    /**
     * True for headers whose grammar has quoted strings (display names, auth and generic parameters); free-text
     * headers (Subject, User-Agent, Server, Organization, Date) and unknown ones take quotes literally.
     */
    static boolean isQuoteAware(final HeaderName name)
    {
        switch (name)
        {
            case UNKNOWN:
            case SUBJECT:
            case USER_AGENT:
            case SERVER:
            case ORGANIZATION:
            case DATE:
            case CALL_ID:
                return false;
            default:
                return true;
        }
    }

    /**
     * Indexes a list header (RFC 3261 §7.3.1): one entry per comma-separated value, commas inside quoted strings
     * and angle brackets not counting. Returns the index of the next line, or a negative mark.
     */
    private static int listValues(final SipMessage m, final HeaderName name, final int nameStart, final int nameEnd,
        final int from, final int end)
    {
        final byte[] b = m.buf;
        int p = from;
        int count = 0; // values indexed; the first one is marked first of its line
        int valueStart = -1;
        int valueEnd = from;
        boolean folded = false;
        boolean inAngle = false;
        while (true)
        {
            final int runStart = p;
            while (p < end && LIST_SPECIAL[b[p] & 0xFF] == 0)
            {
                p++;
            }
            final int e = trimWspEnd(b, runStart, p); // runStart when the run is empty or only white space
            if (e > runStart)
            {
                valueStart = valueStart < 0 ? skipWsp(b, runStart, e) : valueStart;
                valueEnd = e;
            }
            if (p >= end)
            {
                return INCOMPLETE_MARK;
            }
            final byte c = b[p];
            switch (c)
            {
                case '"':
                {
                    final int close = closingQuote(m, p, end);
                    if (close < 0)
                    {
                        return ERROR_MARK;
                    }
                    if (valueStart < 0)
                    {
                        valueStart = p;
                    }
                    p = close;
                    valueEnd = p;
                    continue;
                }
                case '<', '>':
                    inAngle = c == '<';
                    if (valueStart < 0)
                    {
                        valueStart = p;
                    }
                    valueEnd = ++p;
                    continue;
                case ',':
                    if (inAngle)
                    {
                        valueEnd = ++p; // inside a URI: part of the value
                        continue;
                    }
                    if (valueStart >= 0)
                    {
                        if (!addValue(m, name, firstOfLine(count), nameStart, nameEnd, valueStart, valueEnd, folded))
                        {
                            return ERROR_MARK;
                        }
                        count++;
                    }
                    valueStart = -1;
                    folded = false;
                    p++;
                    continue;
                case '\r', '\n':
                {
                    final int lineEnd = afterLineBreak(m, p, end);
                    if (lineEnd < 0)
                    {
                        return lineEnd;
                    }
                    if (Ascii.isWsp(b[lineEnd]))
                    {
                        folded |= valueStart >= 0; // line folding (RFC 3261 §7.3.1): the list goes on
                        p = lineEnd;
                        continue;
                    }
                    if (inAngle)
                    {
                        m.result = fail(m, ParseResult.UNTERMINATED_ANGLE, p);
                        return ERROR_MARK;
                    }
                    return endOfList(m, name, nameStart, nameEnd, valueStart, valueEnd, p, folded, count, lineEnd);
                }
                default:
                    m.result = fail(m, ParseResult.CONTROL_CHARACTER, p);
                    return ERROR_MARK;
            }
        }
    }

    /** The flags of a list header's value: the line's first value is marked so. */
    private static int firstOfLine(final int valuesBefore)
    {
        return 0 == valuesBefore ? SipMessage.FIRST_OF_LINE : 0;
    }

    /**
     * The index just after the line break at {@code p} (CRLF, or a bare LF), when the byte after it is there too
     * (it says whether the line folds); else {@link #INCOMPLETE_MARK}, or {@link #ERROR_MARK} for a CR without its LF
     * (the message failed).
     */
    private static int afterLineBreak(final SipMessage m, final int p, final int end)
    {
        final byte[] b = m.buf;
        final int eol = b[p] == '\r' ? p + 1 : p;
        if (eol >= end)
        {
            return INCOMPLETE_MARK;
        }
        if (b[eol] != '\n')
        {
            m.result = fail(m, ParseResult.CONTROL_CHARACTER, p);
            return ERROR_MARK;
        }
        return eol + 1 >= end ? INCOMPLETE_MARK : eol + 1;
    }

    /**
     * The index after the quoted string that opens at {@code p}, or -1 when it does not close (the message failed).
     * A quoted-pair may carry any byte but CR and LF, controls included (RFC 3261 §25.1).
     */
    private static int closingQuote(final SipMessage m, final int p, final int end)
    {
        final int close = QuotedString.end(m.buf, p, end);
        if (close < 0)
        {
            m.result = fail(m, ParseResult.UNTERMINATED_QUOTE, p);
        }
        return close;
    }

    /**
     * A list header's line ends ({@code lineEnd}): its last value is indexed, or one empty value when the line had
     * none at all (a trailing comma adds nothing). Returns {@code lineEnd}, or {@link #ERROR_MARK}.
     */
    private static int endOfList(final SipMessage m, final HeaderName name, final int nameStart, final int nameEnd,
        final int valueStart, final int valueEnd, final int p, final boolean folded, final int count, final int lineEnd)
    {
        int values = count;
        if (valueStart >= 0 || 0 == values)
        {
            final boolean empty = valueStart < 0;
            if (!addValue(m, name, firstOfLine(values), nameStart, nameEnd, empty ? p : valueStart,
                empty ? p : valueEnd, folded))
            {
                return ERROR_MARK;
            }
            values++;
        }
        m.setLineEnd(values, lineEnd);
        return lineEnd;
    }

    /** Bytes that stop the scan of a single value: line breaks and controls (HTAB is white space). */
    private static final byte[] SINGLE_PLAIN = new byte[256];

    /** As {@link #SINGLE_PLAIN}, plus the double quote for headers whose grammar has quoted strings. */
    private static final byte[] SINGLE_QUOTED = new byte[256];

    /** As {@link #SINGLE_QUOTED}, plus the comma and angle brackets that delimit list values. */
    private static final byte[] LIST_SPECIAL = new byte[256];

    static
    {
        for (int c = 0; c < 0x20; c++)
        {
            if (c != '\t')
            {
                SINGLE_PLAIN[c] = 1;
            }
        }
        SINGLE_PLAIN[0x7F] = 1;
        System.arraycopy(SINGLE_PLAIN, 0, SINGLE_QUOTED, 0, 256);
        SINGLE_QUOTED['"'] = 1;
        System.arraycopy(SINGLE_QUOTED, 0, LIST_SPECIAL, 0, 256);
        LIST_SPECIAL[','] = 1;
        LIST_SPECIAL['<'] = 1;
        LIST_SPECIAL['>'] = 1;
    }

    static int trimWspEnd(final byte[] b, final int start, final int end)
    {
        int e = end;
        while (e > start && (b[e - 1] == ' ' || b[e - 1] == '\t'))
        {
            e--;
        }
        return e;
    }

    static int skipWsp(final byte[] b, final int start, final int end)
    {
        int p = start;
        while (p < end && (b[p] == ' ' || b[p] == '\t'))
        {
            p++;
        }
        return p;
    }

    static boolean addValue(
        final SipMessage m,
        final HeaderName name,
        final int flags,
        final int nameStart,
        final int nameEnd,
        final int valueStart,
        final int valueEnd,
        final boolean folded)
    {
        if (!m.addHeader(name, flags, nameStart, nameEnd, valueStart, valueEnd, -1))
        {
            m.result = fail(m, ParseResult.TOO_MANY_HEADERS, nameStart);
            return false;
        }
        if (folded)
        {
            m.markLastFolded();
        }
        return true;
    }
}
