package io.sipline.sip.message;

import static io.sipline.sip.message.SipMessageParser.fail;

/**
 * The per-header stage of {@link SipMessageParser}: reads, as each header is indexed, what the transaction layer
 * needs on every message (Call-ID, CSeq, Content-Length, Max-Forwards, the From and To tags, the top Via's branch) and
 * checks the headers that must appear once (RFC 3261 §8.1.1, §20). Every other header is read only when asked.
 *
 * <p>Stateless; thread-safe. Allocates nothing; the message it fills is not thread-safe.
 */
final class EagerHeaderParser
{
    private EagerHeaderParser()
    {
    }

    private static final byte[] TAG = Ascii.lowerBytes("tag");

    /** Reads, for the headers the transaction layer needs, what it needs; checks the ones that must appear once. */
    static ParseResult interpret(final SipMessage m, final HeaderName name, final int last)
    {
        final byte[] b = m.buf;
        switch (name)
        {
            case CALL_ID:
            {
                if (m.callIdStart >= 0)
                {
                    return fail(m, ParseResult.DUPLICATE_HEADER, m.headerNameStart(last));
                }
                final int s = m.headerValueStart(last);
                final int e = m.headerValueEnd(last);
                // callid = word [ "@" word ]: no white space inside (RFC 3261 §25.1).
                if (s == e || (m.headerFlags(last) & SipMessage.FOLDED) != 0 || containsWsp(b, s, e))
                {
                    return fail(m, ParseResult.BAD_CALL_ID, s);
                }
                m.callIdStart = s;
                m.callIdEnd = e;
                return ParseResult.OK;
            }
            case CSEQ:
                return cseq(m, last);
            case CONTENT_LENGTH:
            {
                if (m.contentLength >= 0)
                {
                    return fail(m, ParseResult.DUPLICATE_HEADER, m.headerNameStart(last));
                }
                final int s = m.headerValueStart(last);
                final long v = Ascii.parseNatural(b, s, m.headerValueEnd(last));
                if (v < 0 || v > SipMessageParser.MAX_MESSAGE_BYTES)
                {
                    return fail(m, ParseResult.BAD_CONTENT_LENGTH, s);
                }
                m.contentLength = (int)v;
                return ParseResult.OK;
            }
            case MAX_FORWARDS:
            {
                if (m.maxForwards >= 0)
                {
                    return fail(m, ParseResult.DUPLICATE_HEADER, m.headerNameStart(last));
                }
                final int s = m.headerValueStart(last);
                final long v = Ascii.parseNatural(b, s, m.headerValueEnd(last));
                if (v < 0 || v > 255)
                {
                    return fail(m, ParseResult.BAD_MAX_FORWARDS, s);
                }
                m.maxForwards = (int)v;
                return ParseResult.OK;
            }
            case FROM:
            case TO:
                return address(m, name, last);
            case CONTACT:
                return contactShape(m, last);
            case VIA:
                // Only the top Via is read on every message (eager Via, CSeq, Call-ID, tags,
                // Max-Forwards); the others are checked when a proxy or the transport asks for them.
                return m.topViaChecked ? ParseResult.OK : via(m, m.firstHeader(HeaderName.VIA));
            default:
                return ParseResult.OK;
        }
    }

    static ParseResult via(final SipMessage m, final int i)
    {
        final ViaFlyweight via = m.viaScratch;
        m.topViaChecked = true;
        if (!via.wrap(m.buf, m.headerValueStart(i), m.headerValueEnd(i)))
        {
            return fail(m, ParseResult.BAD_VIA, via.errorOffset());
        }
        if (i == m.firstHeader(HeaderName.VIA) && via.hasBranch())
        {
            m.topViaBranchStart = via.branchStart();
            m.topViaBranchEnd = via.branchEnd();
        }
        return ParseResult.OK;
    }

    /** CSeq = 1*DIGIT LWS Method (RFC 3261 §20.16); the number must be below 2^31 (§8.1.1.5). */
    static ParseResult cseq(final SipMessage m, final int i)
    {
        final byte[] b = m.buf;
        if (m.cseqNumber >= 0)
        {
            return fail(m, ParseResult.DUPLICATE_HEADER, m.headerNameStart(i));
        }
        final int s = m.headerValueStart(i);
        final int e = m.headerValueEnd(i);
        int p = s;
        while (p < e && Ascii.isDigit(b[p]))
        {
            p++;
        }
        final long number = p - s > 10 ? -1 : Ascii.parseNatural(b, s, p);
        if (number < 0 || number >= 0x8000_0000L)
        {
            return fail(m, ParseResult.BAD_CSEQ, s);
        }
        final int afterNumber = p;
        p = Ascii.skipLws(b, p, e);
        if (p == afterNumber || p >= e)
        {
            return fail(m, ParseResult.BAD_CSEQ, p);
        }
        final int methodStart = p;
        while (p < e && Ascii.isTokenChar(b[p]))
        {
            p++;
        }
        if (p != e)
        {
            return fail(m, ParseResult.BAD_CSEQ, p);
        }
        m.cseqNumber = number;
        m.cseqMethodStart = methodStart;
        m.cseqMethodEnd = e;
        m.cseqMethod = SipMethod.lookup(b, methodStart, e);
        return ParseResult.OK;
    }

    /**
     * From and To (RFC 3261 §20.20, §20.39): checks the name-addr / addr-spec shape and locates the tag parameter.
     * In name-addr form the parameters follow the closing {@code >}; in addr-spec form they follow the first
     * {@code ;} (§20.10).
     */
    static ParseResult address(final SipMessage m, final HeaderName name, final int i)
    {
        final boolean from = name == HeaderName.FROM;
        if (from ? m.fromTagStart != -1 || m.firstHeader(HeaderName.FROM) != i :
            m.toTagStart != -1 || m.firstHeader(HeaderName.TO) != i)
        {
            return fail(m, ParseResult.DUPLICATE_HEADER, m.headerNameStart(i));
        }
        final ParseResult bad = from ? ParseResult.BAD_FROM : ParseResult.BAD_TO;
        final int s = m.headerValueStart(i);
        final int e = m.headerValueEnd(i);
        if (s == e)
        {
            return fail(m, bad, s);
        }
        final int paramsStart = addressUri(m, bad, s, e);
        return paramsStart < 0 ? m.result : addressParameters(m, from, bad, paramsStart, e);
    }

    /**
     * The URI part of a From or To value in {@code [s, e)}: a name-addr (an optional display name, then the URI in
     * angle brackets) or an addr-spec (RFC 3261 §20.10). Returns where its parameters start, or -1 (the message
     * failed).
     */
    private static int addressUri(final SipMessage m, final ParseResult bad, final int s, final int e)
    {
        final byte[] b = m.buf;
        int p = s;
        final int paramsStart;
        // Display name, if any: a quoted string or tokens, then "<".
        if (b[p] == '"')
        {
            p = QuotedString.end(b, p, e);
            if (p < 0)
            {
                return failed(m, ParseResult.UNTERMINATED_QUOTE, s);
            }
            p = Ascii.skipLws(b, p, e);
            if (p >= e || b[p] != '<')
            {
                return failed(m, bad, p);
            }
        }
        final int open = p < e && b[p] == '<' ? p : indexOfOutsideQuotes(b, p, e, (byte)'<');
        if (open >= 0)
        {
            // An unquoted display name is *(token LWS) (RFC 3261 §25.1).
            for (int q = p; q < open; q++)
            {
                if (!Ascii.isTokenChar(b[q]) && !Ascii.isLws(b[q]))
                {
                    return failed(m, bad, q);
                }
            }
            final int close = Ascii.indexOf(b, open + 1, e, (byte)'>');
            if (close < 0)
            {
                return failed(m, ParseResult.UNTERMINATED_ANGLE, open);
            }
            if (!StartLineParser.hasScheme(b, open + 1, close))
            {
                return failed(m, bad, open + 1);
            }
            p = Ascii.skipLws(b, close + 1, e);
            if (p < e && b[p] != ';')
            {
                return failed(m, bad, p);
            }
            paramsStart = p;
        }
        else
        {
            // addr-spec: the URI runs to the first ";" and may not contain "," "?" (RFC 3261 §20.10).
            int q = p;
            while (q < e && b[q] != ';' && !Ascii.isLws(b[q]))
            {
                if (b[q] == '>' || b[q] == '?' || b[q] == ',')
                {
                    return failed(m, bad, q);
                }
                q++;
            }
            if (!StartLineParser.hasScheme(b, p, q))
            {
                return failed(m, bad, p);
            }
            paramsStart = Ascii.skipLws(b, q, e);
        }
        return paramsStart;
    }

    /** The parameters of a From or To value, {@code *( SEMI generic-param )}, the tag among them (RFC 3261 §20.20). */
    private static ParseResult addressParameters(final SipMessage m, final boolean from, final ParseResult bad,
        final int paramsStart, final int e)
    {
        final byte[] b = m.buf;
        int p = paramsStart;
        while (p < e)
        {
            if (b[p] != ';')
            {
                return fail(m, bad, p);
            }
            p = Ascii.skipLws(b, p + 1, e);
            final int nameStart = p;
            while (p < e && Ascii.isTokenChar(b[p]))
            {
                p++;
            }
            final int nameEnd = p;
            if (nameEnd == nameStart)
            {
                return fail(m, bad, p);
            }
            p = Ascii.skipLws(b, p, e);
            int valueStart = -1;
            int valueEnd = -1;
            if (p < e && b[p] == '=')
            {
                p = Ascii.skipLws(b, p + 1, e);
                valueStart = p;
                if (p < e && b[p] == '"')
                {
                    p = QuotedString.end(b, p, e);
                    if (p < 0)
                    {
                        return fail(m, ParseResult.UNTERMINATED_QUOTE, valueStart);
                    }
                }
                else
                {
                    while (p < e && (Ascii.isTokenChar(b[p]) || b[p] == ':' || b[p] == '[' || b[p] == ']'))
                    {
                        p++;
                    }
                }
                valueEnd = p;
                if (valueEnd == valueStart)
                {
                    return fail(m, bad, p);
                }
                p = Ascii.skipLws(b, p, e);
            }
            if (Ascii.equalsIgnoreCase(b, nameStart, nameEnd, TAG))
            {
                if (valueStart < 0)
                {
                    return fail(m, bad, nameStart);
                }
                if (from)
                {
                    m.fromTagStart = valueStart;
                    m.fromTagEnd = valueEnd;
                }
                else
                {
                    m.toTagStart = valueStart;
                    m.toTagEnd = valueEnd;
                }
            }
        }
        if (from ? m.fromTagStart == -1 : m.toTagStart == -1)
        {
            // Mark "seen, no tag" so that a second From/To is caught as a duplicate.
            if (from)
            {
                m.fromTagStart = m.fromTagEnd = -2;
            }
            else
            {
                m.toTagStart = m.toTagEnd = -2;
            }
        }
        return ParseResult.OK;
    }

    /** Fails the message ({@link SipMessageParser#fail}) and returns -1, for the stages that return an index. */
    private static int failed(final SipMessage m, final ParseResult result, final int offset)
    {
        fail(m, result, offset);
        return -1;
    }

    /**
     * RFC 3261 §20.10: a Contact without angle brackets is an addr-spec whose URI may not hold {@code ?} (URI
     * headers), so {@code sip:u@h?Route=...} there is malformed (RFC 4475 §3.1.2.13). Only this shape is checked
     * while parsing; the rest of the value is read when asked ({@link SipMessage#address}).
     */
    static ParseResult contactShape(final SipMessage m, final int i)
    {
        final byte[] b = m.buf;
        final int s = m.headerValueStart(i);
        final int e = m.headerValueEnd(i);
        if (e - s == 1 && b[s] == '*')
        {
            return ParseResult.OK;
        }
        for (int p = s; p < e; p++)
        {
            final byte c = b[p];
            if (c == '<' || c == '"' || c == ';')
            {
                return ParseResult.OK;
            }
            if (c == '?')
            {
                return fail(m, ParseResult.BAD_CONTACT, p);
            }
        }
        return ParseResult.OK;
    }

    static boolean containsWsp(final byte[] b, final int start, final int end)
    {
        for (int i = start; i < end; i++)
        {
            if (Ascii.isLws(b[i]))
            {
                return true;
            }
        }
        return false;
    }

    static int indexOfOutsideQuotes(final byte[] b, final int start, final int end, final byte c)
    {
        int p = start;
        while (p < end)
        {
            if (b[p] == '"')
            {
                p = QuotedString.end(b, p, end);
                if (p < 0)
                {
                    return -1;
                }
                continue;
            }
            if (b[p] == c)
            {
                return p;
            }
            p++;
        }
        return -1;
    }
}
