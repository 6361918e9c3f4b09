package io.sipline.sip.message;

import static io.sipline.sip.message.SipMessageParser.fail;

/**
 * The start line stage of {@link SipMessageParser}: the Request-Line or Status-Line (RFC 3261 §7.1, §7.2) into the
 * message's index, its Request-URI checked against its grammar with the message's reused URI flyweight.
 *
 * <p>Stateless; thread-safe. Allocates nothing; the message it fills is not thread-safe.
 */
final class StartLineParser
{
    private StartLineParser()
    {
    }

    /** Request-Line = Method SP Request-URI SP SIP-Version CRLF (RFC 3261 §7.1), single spaces only. */
    static ParseResult requestLine(final SipMessage m, final int start, final int end)
    {
        final byte[] b = m.buf;
        int p = start;
        while (p < end && Ascii.isTokenChar(b[p]))
        {
            p++;
        }
        if (p == start || p >= end || b[p] != ' ')
        {
            return fail(m, p == start ? ParseResult.BAD_START_LINE : ParseResult.BAD_METHOD, p);
        }
        m.request = true;
        m.methodStart = start;
        m.methodEnd = p;
        m.method = SipMethod.lookup(b, start, p);

        final int uriStart = ++p;
        while (p < end && b[p] != ' ')
        {
            final byte c = b[p];
            if (c < 0x21 && c >= 0 || c == 0x7F)
            {
                return fail(m, ParseResult.BAD_REQUEST_URI, p);
            }
            p++;
        }
        if (p == uriStart || p >= end || !hasScheme(b, uriStart, p))
        {
            return fail(m, ParseResult.BAD_REQUEST_URI, uriStart);
        }
        // SIP, SIPS and tel Request-URIs are checked against their grammar (RFC 3261 §19.1, §25.1; RFC 3966);
        // other absolute URIs only need their generic shape (RFC 4475 §3.3.2: parse, then answer 416). Headers are
        // not allowed in a Request-URI (§19.1.1, Table 1).
        final SipUriFlyweight uri = m.uriScratch;
        if (!uri.wrap(b, uriStart, p) || uri.isSip() && uri.headerCount() > 0)
        {
            return fail(m, ParseResult.BAD_REQUEST_URI, uri.isValid() ? uriStart : uri.errorOffset());
        }
        m.uriStart = uriStart;
        m.uriEnd = p;

        final int versionStart = ++p;
        if (!isVersion(b, versionStart, end))
        {
            return fail(m, ParseResult.BAD_VERSION, versionStart);
        }
        m.versionStart = versionStart;
        m.versionEnd = end;
        return ParseResult.OK;
    }

    /** Status-Line = SIP-Version SP Status-Code SP Reason-Phrase CRLF (RFC 3261 §7.2). */
    static ParseResult statusLine(final SipMessage m, final int start, final int end)
    {
        final byte[] b = m.buf;
        final int sp = Ascii.indexOf(b, start, end, (byte)' ');
        if (sp < 0 || !isVersion(b, start, sp))
        {
            return fail(m, ParseResult.BAD_VERSION, start);
        }
        m.request = false;
        m.versionStart = start;
        m.versionEnd = sp;
        final int codeStart = sp + 1;
        final int codeEnd = codeStart + 3;
        if (codeEnd > end || (codeEnd < end && b[codeEnd] != ' '))
        {
            return fail(m, ParseResult.BAD_STATUS_CODE, codeStart);
        }
        final long code = Ascii.parseNatural(b, codeStart, codeEnd);
        if (code < 100 || code > 699)
        {
            return fail(m, ParseResult.BAD_STATUS_CODE, codeStart);
        }
        m.statusCode = (int)code;
        // The reason phrase may be empty (RFC 3261 §25.1 allows zero characters); some peers omit the last SP too.
        m.reasonStart = codeEnd < end ? codeEnd + 1 : end;
        m.reasonEnd = end;
        for (int i = m.reasonStart; i < end; i++)
        {
            final byte c = b[i];
            if (c >= 0 && c < 0x20 && c != '\t' || c == 0x7F)
            {
                return fail(m, ParseResult.CONTROL_CHARACTER, i);
            }
        }
        return ParseResult.OK;
    }

    /** SIP-Version = "SIP" "/" 1*DIGIT "." 1*DIGIT (RFC 3261 §7.1; the name is case-insensitive). */
    static boolean isVersion(final byte[] b, final int start, final int end)
    {
        if (end - start < 7 || Ascii.lower(b[start]) != 's' || Ascii.lower(b[start + 1]) != 'i'
            || Ascii.lower(b[start + 2]) != 'p' || b[start + 3] != '/')
        {
            return false;
        }
        int p = start + 4;
        final int major = p;
        while (p < end && Ascii.isDigit(b[p]))
        {
            p++;
        }
        if (p == major || p >= end || b[p] != '.')
        {
            return false;
        }
        final int minor = ++p;
        while (p < end && Ascii.isDigit(b[p]))
        {
            p++;
        }
        return p > minor && p == end;
    }

    static boolean isSip20(final byte[] b, final int start, final int end)
    {
        return end - start == 7 && b[start + 4] == '2' && b[start + 5] == '.' && b[start + 6] == '0';
    }

    /** absoluteURI needs a scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" (RFC 3261 §25.1). */
    static boolean hasScheme(final byte[] b, final int start, final int end)
    {
        if (!Ascii.isAlpha(b[start]))
        {
            return false;
        }
        for (int p = start + 1; p < end; p++)
        {
            final byte c = b[p];
            if (c == ':')
            {
                return p + 1 < end;
            }
            if (!(Ascii.isAlpha(c) || Ascii.isDigit(c) || c == '+' || c == '-' || c == '.'))
            {
                return false;
            }
        }
        return false;
    }
}
