package io.sipline.sip.message;

import io.netty.buffer.ByteBuf;

/**
 * The single-pass SIP parser: bytes in, a {@link SipMessage} index out (RFC 3261 §7, grammar §25). It walks the bytes
 * once, splits the start line and every header line, splits comma lists of list headers into one entry per value,
 * and locates what the transaction layer reads on every message (Call-ID, CSeq, Content-Length, Max-Forwards,
 * From/To tags, top Via branch). It builds no object and no {@code String}: parsing into a reused message allocates
 * nothing.
 *
 * <p>Framing (RFC 3261 §18.3): in a datagram a missing Content-Length means the body runs to the end of the
 * datagram, a larger one than the datagram holds is an error, a smaller one cuts off the excess; on a stream
 * Content-Length is required and the parser reports {@link ParseResult#INCOMPLETE} until the whole message is there.
 *
 * <p>A malformed message yields a {@link ParseResult} naming the fault and {@link SipMessage#errorOffset()} where it
 * is; no input throws, and every loop advances at least one byte per step, so no input hangs.
 *
 * <p>Stateless; thread-safe. The message it fills is not.
 */
public final class SipMessageParser
{
    /** Largest message accepted (RFC 3261 §18.1.1 lets a UDP datagram reach 65,535 bytes). */
    public static final int MAX_MESSAGE_BYTES = 65_535 + 4096;

    private static final byte[] SIP_VERSION_PREFIX = {'S', 'I', 'P', '/'};
    private static final byte[] TAG = Ascii.lowerBytes("tag");

    private SipMessageParser()
    {
    }

    /**
     * Parses one datagram held in a byte array.
     *
     * @param bytes  borrowed: the message keeps pointing into it; do not modify it while the message is in use.
     * @param offset first byte of the datagram.
     * @param length datagram length.
     * @param into   the reusable message to fill.
     * @return the outcome, also on {@code into.result()}.
     */
    public static ParseResult parseDatagram(final byte[] bytes, final int offset, final int length, final SipMessage into)
    {
        into.reset(bytes, offset, length);
        return into.result = parse(into, false);
    }

    /**
     * Parses one datagram held in a Netty buffer. The readable bytes are copied once into the message's own reusable
     * array, so the caller may release {@code buf} as soon as this returns.
     *
     * @param buf  borrowed; neither released nor read-index-moved here.
     * @param into the reusable message to fill.
     */
    public static ParseResult parseDatagram(final ByteBuf buf, final SipMessage into)
    {
        final int length = buf.readableBytes();
        if (length > MAX_MESSAGE_BYTES)
        {
            into.reset(into.ownBuffer, 0, 0);
            return into.result = ParseResult.MESSAGE_TOO_LARGE;
        }
        final byte[] own = into.ownBuffer(length);
        // Not getBytes nor the buffer's NIO view: either makes a ByteBuffer per pooled direct buffer (or per call on
        // a slice) when Netty runs without sun.misc.Unsafe, as it does on JDK 25 (see ByteBufCopy).
        ByteBufCopy.copyOut(buf, buf.readerIndex(), own, 0, length);
        return parseDatagram(own, 0, length, into);
    }

    /**
     * Parses the message at the start of a stream's bytes (TCP, TLS). On {@link ParseResult#OK} the message occupies
     * {@link SipMessage#frameLength()} bytes; on {@link ParseResult#INCOMPLETE} read more and call again.
     * Leading CRLFs (RFC 5626 keep-alives) are skipped and counted in the frame length.
     *
     * @param bytes borrowed, as for {@link #parseDatagram(byte[], int, int, SipMessage)}.
     */
    public static ParseResult parseStream(final byte[] bytes, final int offset, final int length, final SipMessage into)
    {
        into.reset(bytes, offset, length);
        return into.result = parse(into, true);
    }

    private static ParseResult parse(final SipMessage m, final boolean stream)
    {
        final byte[] b = m.buf;
        final int end = m.limit;
        int p = m.offset;

        // RFC 3261 §7.5: ignore CRLFs that precede the start line.
        while (p < end && (b[p] == '\r' || b[p] == '\n'))
        {
            p++;
        }
        if (p >= end)
        {
            return stream ? ParseResult.INCOMPLETE : fail(m, ParseResult.EMPTY, p);
        }

        final int lineEnd = lineEnd(b, p, end);
        if (lineEnd < 0)
        {
            return stream ? ParseResult.INCOMPLETE : fail(m, ParseResult.HEADERS_NOT_TERMINATED, p);
        }
        final int contentEnd = contentEnd(b, p, lineEnd);
        final ParseResult startLine = startsWith(b, p, contentEnd, SIP_VERSION_PREFIX) ?
            statusLine(m, p, contentEnd) : requestLine(m, p, contentEnd);
        if (startLine != ParseResult.OK)
        {
            return startLine;
        }

        p = lineEnd;
        final ParseResult headers = headers(m, p, end, stream);
        if (headers != ParseResult.OK)
        {
            return headers;
        }
        p = m.bodyStart;

        final ParseResult required = checkRequired(m);
        if (required != ParseResult.OK)
        {
            return required;
        }

        // Body framing, RFC 3261 §18.3.
        final int available = end - p;
        if (m.contentLength < 0)
        {
            if (stream)
            {
                return fail(m, ParseResult.MISSING_CONTENT_LENGTH, p);
            }
            m.bodyLength = available;
        }
        else if (m.contentLength > available)
        {
            return stream ? ParseResult.INCOMPLETE : fail(m, ParseResult.BODY_TOO_SHORT, p);
        }
        else
        {
            m.bodyLength = m.contentLength;
        }
        m.frameLength = p + m.bodyLength - m.offset;

        if (!isSip20(b, m.versionStart, m.versionEnd))
        {
            return fail(m, ParseResult.UNSUPPORTED_VERSION, m.versionStart);
        }
        return ParseResult.OK;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Start line
    // ------------------------------------------------------------------------------------------------------------

    /** Request-Line = Method SP Request-URI SP SIP-Version CRLF (RFC 3261 §7.1), single spaces only. */
    private static ParseResult requestLine(final SipMessage m, final int start, final int end)
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
        // other absolute URIs only need their generic shape (RFC 4475 §3.3.2: parse, then answer 416). Headers are not allowed in a
        // Request-URI (§19.1.1, Table 1).
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
    private static ParseResult statusLine(final SipMessage m, final int start, final int end)
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
    private static boolean isVersion(final byte[] b, final int start, final int end)
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

    private static boolean isSip20(final byte[] b, final int start, final int end)
    {
        return end - start == 7 && b[start + 4] == '2' && b[start + 5] == '.' && b[start + 6] == '0';
    }

    /** absoluteURI needs a scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" (RFC 3261 §25.1). */
    private static boolean hasScheme(final byte[] b, final int start, final int end)
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

    // ------------------------------------------------------------------------------------------------------------
    // Headers
    // ------------------------------------------------------------------------------------------------------------

    private static ParseResult headers(final SipMessage m, final int from, final int end, final boolean stream)
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
            final ParseResult checked = interpret(m, name, m.headerCount - 1);
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
    private static int singleValue(
        final SipMessage m,
        final HeaderName name,
        final int nameStart,
        final int nameEnd,
        final int from,
        final int end)
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
            if (p > runStart)
            {
                final int e = trimWspEnd(b, runStart, p);
                if (e > runStart)
                {
                    if (valueStart < 0)
                    {
                        valueStart = skipWsp(b, runStart, e);
                    }
                    valueEnd = e;
                }
            }
            if (p >= end)
            {
                return INCOMPLETE_MARK;
            }
            final byte c = b[p];
            if (c == '\r' || c == '\n')
            {
                final int eol = c == '\r' ? p + 1 : p;
                if (eol >= end)
                {
                    return INCOMPLETE_MARK;
                }
                if (b[eol] != '\n')
                {
                    m.result = fail(m, ParseResult.CONTROL_CHARACTER, p);
                    return ERROR_MARK;
                }
                if (eol + 1 >= end)
                {
                    return INCOMPLETE_MARK;
                }
                if (Ascii.isWsp(b[eol + 1]))
                {
                    // Line folding (RFC 3261 §7.3.1): the value goes on.
                    folded |= valueStart >= 0;
                    p = eol + 1;
                    continue;
                }
                final int lineEnd = eol + 1;
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
                // A quoted-pair may carry any byte but CR and LF, controls included (RFC 3261 §25.1).
                final int close = QuotedString.end(b, p, end);
                if (close < 0)
                {
                    m.result = fail(m, ParseResult.UNTERMINATED_QUOTE, p);
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
    private static boolean isQuoteAware(final HeaderName name)
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
    private static int listValues(
        final SipMessage m,
        final HeaderName name,
        final int nameStart,
        final int nameEnd,
        final int from,
        final int end)
    {
        final byte[] b = m.buf;
        int p = from;
        int count = 0;
        int flags = SipMessage.FIRST_OF_LINE;
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
            if (p > runStart)
            {
                final int e = trimWspEnd(b, runStart, p);
                if (e > runStart)
                {
                    if (valueStart < 0)
                    {
                        valueStart = skipWsp(b, runStart, e);
                    }
                    valueEnd = e;
                }
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
                    final int close = QuotedString.end(b, p, end);
                    if (close < 0)
                    {
                        m.result = fail(m, ParseResult.UNTERMINATED_QUOTE, p);
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
                case '<':
                case '>':
                {
                    inAngle = c == '<';
                    if (valueStart < 0)
                    {
                        valueStart = p;
                    }
                    valueEnd = ++p;
                    continue;
                }
                case ',':
                {
                    if (inAngle)
                    {
                        valueEnd = ++p;
                        continue;
                    }
                    if (valueStart >= 0)
                    {
                        if (!addValue(m, name, flags, nameStart, nameEnd, valueStart, valueEnd, folded))
                        {
                            return ERROR_MARK;
                        }
                        count++;
                        flags = 0;
                    }
                    valueStart = -1;
                    folded = false;
                    p++;
                    continue;
                }
                case '\r':
                case '\n':
                {
                    final int eol = c == '\r' ? p + 1 : p;
                    if (eol >= end)
                    {
                        return INCOMPLETE_MARK;
                    }
                    if (b[eol] != '\n')
                    {
                        m.result = fail(m, ParseResult.CONTROL_CHARACTER, p);
                        return ERROR_MARK;
                    }
                    if (eol + 1 >= end)
                    {
                        return INCOMPLETE_MARK;
                    }
                    if (Ascii.isWsp(b[eol + 1]))
                    {
                        folded |= valueStart >= 0;
                        p = eol + 1;
                        continue;
                    }
                    if (inAngle)
                    {
                        m.result = fail(m, ParseResult.UNTERMINATED_ANGLE, p);
                        return ERROR_MARK;
                    }
                    final int lineEnd = eol + 1;
                    if (valueStart >= 0 || count == 0)
                    {
                        if (valueStart < 0)
                        {
                            valueStart = valueEnd = p;
                        }
                        if (!addValue(m, name, flags, nameStart, nameEnd, valueStart, valueEnd, folded))
                        {
                            return ERROR_MARK;
                        }
                        count++;
                    }
                    m.setLineEnd(count, lineEnd);
                    return lineEnd;
                }
                default:
                    m.result = fail(m, ParseResult.CONTROL_CHARACTER, p);
                    return ERROR_MARK;
            }
        }
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

    private static int trimWspEnd(final byte[] b, final int start, final int end)
    {
        int e = end;
        while (e > start && (b[e - 1] == ' ' || b[e - 1] == '\t'))
        {
            e--;
        }
        return e;
    }

    private static int skipWsp(final byte[] b, final int start, final int end)
    {
        int p = start;
        while (p < end && (b[p] == ' ' || b[p] == '\t'))
        {
            p++;
        }
        return p;
    }

    private static boolean addValue(
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

    /** Reads, for the headers the transaction layer needs, what it needs; checks the ones that must appear once. */
    private static ParseResult interpret(final SipMessage m, final HeaderName name, final int last)
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
                if (v < 0 || v > MAX_MESSAGE_BYTES)
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
                // Only the top Via is read on every message (STYLE.md: eager Via, CSeq, Call-ID, tags,
                // Max-Forwards); the others are checked when a proxy or the transport asks for them.
                return m.topViaChecked ? ParseResult.OK : via(m, m.firstHeader(HeaderName.VIA));
            default:
                return ParseResult.OK;
        }
    }

    private static ParseResult via(final SipMessage m, final int i)
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
    private static ParseResult cseq(final SipMessage m, final int i)
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
    private static ParseResult address(final SipMessage m, final HeaderName name, final int i)
    {
        final byte[] b = m.buf;
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
        int p = s;
        int paramsStart = -1;
        // Display name, if any: a quoted string or tokens, then "<".
        if (b[p] == '"')
        {
            p = QuotedString.end(b, p, e);
            if (p < 0)
            {
                return fail(m, ParseResult.UNTERMINATED_QUOTE, s);
            }
            p = Ascii.skipLws(b, p, e);
            if (p >= e || b[p] != '<')
            {
                return fail(m, bad, p);
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
                    return fail(m, bad, q);
                }
            }
            final int close = Ascii.indexOf(b, open + 1, e, (byte)'>');
            if (close < 0)
            {
                return fail(m, ParseResult.UNTERMINATED_ANGLE, open);
            }
            if (!hasScheme(b, open + 1, close))
            {
                return fail(m, bad, open + 1);
            }
            p = Ascii.skipLws(b, close + 1, e);
            if (p < e && b[p] != ';')
            {
                return fail(m, bad, p);
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
                    return fail(m, bad, q);
                }
                q++;
            }
            if (!hasScheme(b, p, q))
            {
                return fail(m, bad, p);
            }
            paramsStart = Ascii.skipLws(b, q, e);
        }
        // Parameters: *( SEMI generic-param ), the tag among them.
        p = paramsStart;
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

    /**
     * RFC 3261 §20.10: a Contact without angle brackets is an addr-spec whose URI may not hold {@code ?} (URI
     * headers), so {@code sip:u@h?Route=...} there is malformed (RFC 4475 §3.1.2.13). Only this shape is checked
     * while parsing; the rest of the value is read when asked ({@link SipMessage#address}).
     */
    private static ParseResult contactShape(final SipMessage m, final int i)
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

    private static ParseResult checkRequired(final SipMessage m)
    {
        // Normalise "seen without tag" marks.
        final boolean hasFrom = m.firstHeader(HeaderName.FROM) >= 0;
        final boolean hasTo = m.firstHeader(HeaderName.TO) >= 0;
        if (m.fromTagStart == -2)
        {
            m.fromTagStart = m.fromTagEnd = -1;
        }
        if (m.toTagStart == -2)
        {
            m.toTagStart = m.toTagEnd = -1;
        }
        // RFC 3261 §8.1.1: To, From, CSeq, Call-ID, Max-Forwards and Via are mandatory in requests. A missing
        // Max-Forwards is tolerated (§16.6 step 3 adds one when proxying); the others are needed to answer at all.
        final int at = m.bodyStart;
        if (m.firstHeader(HeaderName.VIA) < 0)
        {
            return fail(m, ParseResult.MISSING_VIA, at);
        }
        if (!hasFrom)
        {
            return fail(m, ParseResult.MISSING_FROM, at);
        }
        if (!hasTo)
        {
            return fail(m, ParseResult.MISSING_TO, at);
        }
        if (m.callIdStart < 0)
        {
            return fail(m, ParseResult.MISSING_CALL_ID, at);
        }
        if (m.cseqNumber < 0)
        {
            return fail(m, ParseResult.MISSING_CSEQ, at);
        }
        // RFC 3261 §8.1.1.5: the CSeq method MUST match the request's method.
        if (m.request && !Ascii.equals(m.buf, m.methodStart, m.methodEnd, m.buf, m.cseqMethodStart, m.cseqMethodEnd))
        {
            return fail(m, ParseResult.CSEQ_METHOD_MISMATCH, m.cseqMethodStart);
        }
        return ParseResult.OK;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Helpers
    // ------------------------------------------------------------------------------------------------------------

    private static ParseResult fail(final SipMessage m, final ParseResult result, final int offset)
    {
        m.errorOffset = offset;
        m.result = result;
        return result;
    }

    /** Index just after the LF that ends the line starting at {@code start}, or -1 when there is none. */
    private static int lineEnd(final byte[] b, final int start, final int end)
    {
        final int lf = Ascii.indexOf(b, start, end, Ascii.LF);
        return lf < 0 ? -1 : lf + 1;
    }

    /** End of a line's content: before its CRLF or LF. */
    private static int contentEnd(final byte[] b, final int start, final int lineEnd)
    {
        int e = lineEnd - 1;
        if (e > start && b[e - 1] == '\r')
        {
            e--;
        }
        return e;
    }

    private static boolean startsWith(final byte[] b, final int start, final int end, final byte[] prefix)
    {
        if (end - start < prefix.length)
        {
            return false;
        }
        for (int i = 0; i < prefix.length; i++)
        {
            if (Ascii.lower(b[start + i]) != Ascii.lower(prefix[i]))
            {
                return false;
            }
        }
        return true;
    }

    private static boolean containsWsp(final byte[] b, final int start, final int end)
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

    private static int indexOfOutsideQuotes(final byte[] b, final int start, final int end, final byte c)
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
