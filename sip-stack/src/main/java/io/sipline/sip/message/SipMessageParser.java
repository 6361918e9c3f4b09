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
 * <p>Stages, each a class of static methods: {@link StartLineParser} (the start line), {@link HeaderScanner} (the
 * header lines and list values), {@link EagerHeaderParser} (what is read of each header as it is indexed); this class
 * frames the message, checks the mandatory headers and records failures ({@link #fail}).
 *
 * <p>Stateless; thread-safe. The message it fills is not.
 */
public final class SipMessageParser
{
    /** Largest message accepted (RFC 3261 §18.1.1 lets a UDP datagram reach 65,535 bytes). */
    public static final int MAX_MESSAGE_BYTES = 65_535 + 4096;

    private static final byte[] SIP_VERSION_PREFIX = {'S', 'I', 'P', '/'};

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
    public static ParseResult parseDatagram(final byte[] bytes, final int offset, final int length,
        final SipMessage into)
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
            StartLineParser.statusLine(m, p, contentEnd) : StartLineParser.requestLine(m, p, contentEnd);
        if (startLine != ParseResult.OK)
        {
            return startLine;
        }

        p = lineEnd;
        final ParseResult headers = HeaderScanner.headers(m, p, end, stream);
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

        if (!StartLineParser.isSip20(b, m.versionStart, m.versionEnd))
        {
            return fail(m, ParseResult.UNSUPPORTED_VERSION, m.versionStart);
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

    static ParseResult fail(final SipMessage m, final ParseResult result, final int offset)
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
}
