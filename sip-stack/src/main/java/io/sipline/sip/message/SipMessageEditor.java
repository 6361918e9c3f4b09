package io.sipline.sip.message;

import java.util.Arrays;

import io.netty.buffer.ByteBuf;

/**
 * Edits a parsed message and serializes the result into a Netty buffer: what a proxy, a B2BUA or the transaction
 * layer does to a message on its way through (RFC 3261 §16.6: change the Request-URI, decrement Max-Forwards, add a
 * Record-Route, push a Via, strip a Route; §16.7: pop the top Via of a response).
 *
 * <p>Edits are recorded, not applied: the source message stays as it was, and {@link #writeTo(ByteBuf)} walks its
 * index once, copying every untouched header line as raw bytes and writing only what changed. Content-Length is
 * always written from the actual body.
 *
 * <p>Text given to an edit ({@code CharSequence}) is referenced, not copied, until {@code writeTo} returns; pass
 * values that stay unchanged until then. Not thread-safe: one editor per shard, re-used with {@link #wrap}; it
 * allocates only when a message has more headers or edits than any before it.
 */
public final class SipMessageEditor
{
    private static final int KEEP = 0;
    private static final int REMOVE = 1;
    /** Position of an insertion that goes after the last header. */
    private static final int AT_END = Integer.MAX_VALUE;

    private SipMessage source;
    private int[] entryAction = new int[64];
    private CharSequence requestUri;

    private int insertCount;
    private int[] insertBefore = new int[8];
    /** Name of each insertion: a {@link HeaderName} or a CharSequence; null once the insertion was removed. */
    private Object[] insertName = new Object[8];
    private CharSequence[] insertValue = new CharSequence[8];
    /** A numeric value written instead of {@code insertValue} when not negative. */
    private long[] insertNumber = new long[8];

    private boolean bodyReplaced;
    private byte[] body;
    private int bodyOffset;
    private int bodyLength;

    /**
     * Starts editing a message; forgets earlier edits.
     *
     * @param message borrowed; must stay parsed and unchanged until {@link #writeTo(ByteBuf)} returns.
     */
    public SipMessageEditor wrap(final SipMessage message)
    {
        source = message;
        final int n = message.headerCount();
        if (entryAction.length < n)
        {
            entryAction = new int[Math.max(n, entryAction.length * 2)];
        }
        Arrays.fill(entryAction, 0, n, KEEP);
        requestUri = null;
        Arrays.fill(insertName, 0, insertCount, null);
        Arrays.fill(insertValue, 0, insertCount, null);
        insertCount = 0;
        bodyReplaced = false;
        body = null;
        return this;
    }

    /** Replaces the Request-URI (RFC 3261 §16.6 step 2). */
    public SipMessageEditor requestUri(final CharSequence uri)
    {
        requestUri = uri;
        return this;
    }

    /** Inserts a Via above all others (RFC 3261 §16.6 step 8, §8.1.1.7). */
    public SipMessageEditor pushVia(final CharSequence value)
    {
        final int top = source.topVia();
        return insert(top < 0 ? AT_END : top, HeaderName.VIA, value);
    }

    /** Removes the top Via value (RFC 3261 §16.7 step 3, a proxy forwarding a response). */
    public SipMessageEditor removeTopVia()
    {
        final int top = firstKept(HeaderName.VIA);
        if (top >= 0)
        {
            entryAction[top] = REMOVE;
        }
        return this;
    }

    /** Inserts a Record-Route above the existing ones (RFC 3261 §16.6 step 4). */
    public SipMessageEditor addRecordRoute(final CharSequence value)
    {
        final int first = source.firstHeader(HeaderName.RECORD_ROUTE);
        return insert(first < 0 ? AT_END : lineStartEntry(first), HeaderName.RECORD_ROUTE, value);
    }

    /** Removes the top Route value (RFC 3261 §16.4: a route that names this element). */
    public SipMessageEditor removeTopRoute()
    {
        final int top = firstKept(HeaderName.ROUTE);
        if (top >= 0)
        {
            entryAction[top] = REMOVE;
        }
        return this;
    }

    /** Removes every value of a header (any name, compact forms included). */
    public SipMessageEditor removeHeader(final CharSequence name)
    {
        for (int i = source.firstHeader(name); i >= 0; i = source.nextHeader(name, i))
        {
            entryAction[i] = REMOVE;
        }
        for (int k = 0; k < insertCount; k++)
        {
            if (null != insertName[k] && sameName(insertName[k], name))
            {
                insertName[k] = null;
            }
        }
        return this;
    }

    /** Replaces every value of a header with one value, placed where the first one was (else appended). */
    public SipMessageEditor setHeader(final CharSequence name, final CharSequence value)
    {
        final int first = source.firstHeader(name);
        removeHeader(name);
        final HeaderName known = HeaderName.lookup(name);
        return insert(first < 0 ? AT_END : lineStartEntry(first), known == HeaderName.UNKNOWN ? name : known, value);
    }

    /** Adds a header value after the existing ones of that name (else at the end of the header section). */
    public SipMessageEditor addHeader(final CharSequence name, final CharSequence value)
    {
        int last = -1;
        for (int i = source.firstHeader(name); i >= 0; i = source.nextHeader(name, i))
        {
            last = i;
        }
        int before = AT_END;
        if (last >= 0)
        {
            // Insert before the line after the last one of this name.
            final int lineEnd = source.headerLineEnd(last);
            for (int i = last + 1; i < source.headerCount(); i++)
            {
                if (source.headerNameStart(i) >= lineEnd)
                {
                    before = i;
                    break;
                }
            }
        }
        final HeaderName known = HeaderName.lookup(name);
        return insert(before, known == HeaderName.UNKNOWN ? name : known, value);
    }

    /** Sets Max-Forwards (RFC 3261 §16.6 step 3: a proxy decrements it). */
    public SipMessageEditor maxForwards(final int value)
    {
        final int first = source.firstHeader(HeaderName.MAX_FORWARDS);
        removeHeader(HeaderName.MAX_FORWARDS.canonical());
        insert(first < 0 ? AT_END : lineStartEntry(first), HeaderName.MAX_FORWARDS, null);
        insertNumber[insertCount - 1] = value;
        return this;
    }

    /**
     * Replaces the body.
     *
     * @param contentType the new Content-Type, or null to keep (or, with an empty body, drop) the current one.
     * @param bytes       borrowed until {@link #writeTo} returns; null or zero length for no body.
     */
    public SipMessageEditor body(final CharSequence contentType, final byte[] bytes, final int offset, final int length)
    {
        bodyReplaced = true;
        body = bytes;
        bodyOffset = offset;
        bodyLength = null == bytes ? 0 : length;
        if (null != contentType || bodyLength == 0)
        {
            removeHeader(HeaderName.CONTENT_TYPE.canonical());
            if (null != contentType && bodyLength > 0)
            {
                insert(AT_END, HeaderName.CONTENT_TYPE, contentType);
            }
        }
        return this;
    }

    private SipMessageEditor insert(final int before, final Object name, final CharSequence value)
    {
        if (insertCount == insertBefore.length)
        {
            final int n = insertCount * 2;
            insertBefore = Arrays.copyOf(insertBefore, n);
            insertName = Arrays.copyOf(insertName, n);
            insertValue = Arrays.copyOf(insertValue, n);
            insertNumber = Arrays.copyOf(insertNumber, n);
        }
        insertBefore[insertCount] = before;
        insertName[insertCount] = name;
        insertValue[insertCount] = value;
        insertNumber[insertCount] = -1;
        insertCount++;
        return this;
    }

    private int firstKept(final HeaderName name)
    {
        for (int i = source.firstHeader(name); i >= 0; i = source.nextHeader(name, i))
        {
            if (entryAction[i] == KEEP)
            {
                return i;
            }
        }
        return -1;
    }

    private int lineStartEntry(final int entry)
    {
        int i = entry;
        while (i > 0 && (source.headerFlags(i) & SipMessage.FIRST_OF_LINE) == 0)
        {
            i--;
        }
        return i;
    }

    private static boolean sameName(final Object inserted, final CharSequence name)
    {
        if (inserted instanceof HeaderName known)
        {
            return known == HeaderName.lookup(name);
        }
        final CharSequence n = (CharSequence)inserted;
        return HeaderName.lookup(name) == HeaderName.UNKNOWN && n.toString().equalsIgnoreCase(name.toString());
    }

    /**
     * Serializes the edited message.
     *
     * @param out borrowed: bytes are appended at its writer index; ownership stays with the caller.
     * @return the number of bytes written.
     */
    public int writeTo(final ByteBuf out)
    {
        final SipMessage m = source;
        final byte[] b = m.buffer();
        final int startIndex = out.writerIndex();

        // Start line.
        if (m.isRequest())
        {
            out.writeBytes(b, m.methodStart(), m.methodEnd() - m.methodStart());
            out.writeByte(' ');
            if (null != requestUri)
            {
                SipWire.text(out, requestUri);
            }
            else
            {
                out.writeBytes(b, m.requestUriStart(), m.requestUriEnd() - m.requestUriStart());
            }
            out.writeByte(' ');
            out.writeBytes(b, m.versionStart(), m.versionEnd() - m.versionStart());
            out.writeBytes(SipWire.CRLF);
        }
        else
        {
            out.writeBytes(b, m.versionStart(), m.reasonEnd() - m.versionStart());
            out.writeBytes(SipWire.CRLF);
        }

        final int newBodyLength = bodyReplaced ? bodyLength : m.bodyLength();
        boolean contentLengthWritten = false;
        final int count = m.headerCount();
        int i = 0;
        while (i < count)
        {
            writeInsertions(out, i);
            // One header line: entries i .. lineLast share it.
            int lineLast = i;
            while (lineLast + 1 < count && (m.headerFlags(lineLast + 1) & SipMessage.FIRST_OF_LINE) == 0)
            {
                lineLast++;
            }
            if (m.headerName(i) == HeaderName.CONTENT_LENGTH)
            {
                if (!contentLengthWritten)
                {
                    SipWire.contentLength(out, newBodyLength);
                    contentLengthWritten = true;
                }
            }
            else
            {
                writeLine(out, m, i, lineLast);
            }
            i = lineLast + 1;
        }
        writeInsertions(out, AT_END);
        if (!contentLengthWritten)
        {
            SipWire.contentLength(out, newBodyLength);
        }
        out.writeBytes(SipWire.CRLF);
        if (bodyReplaced)
        {
            if (bodyLength > 0)
            {
                out.writeBytes(body, bodyOffset, bodyLength);
            }
        }
        else if (m.bodyLength() > 0)
        {
            out.writeBytes(b, m.bodyStart(), m.bodyLength());
        }
        return out.writerIndex() - startIndex;
    }

    private void writeLine(final ByteBuf out, final SipMessage m, final int first, final int last)
    {
        boolean untouched = true;
        boolean anyKept = false;
        for (int k = first; k <= last; k++)
        {
            untouched &= entryAction[k] == KEEP;
            anyKept |= entryAction[k] == KEEP;
        }
        if (untouched)
        {
            SipWire.rawLine(out, m, first);
            return;
        }
        if (!anyKept)
        {
            return;
        }
        final byte[] b = m.buffer();
        out.writeBytes(b, m.headerNameStart(first), m.headerNameEnd(first) - m.headerNameStart(first));
        out.writeBytes(SipWire.COLON_SP);
        boolean comma = false;
        for (int k = first; k <= last; k++)
        {
            if (entryAction[k] == KEEP)
            {
                if (comma)
                {
                    out.writeBytes(SipWire.COMMA_SP);
                }
                out.writeBytes(b, m.headerValueStart(k), m.headerValueEnd(k) - m.headerValueStart(k));
                comma = true;
            }
        }
        out.writeBytes(SipWire.CRLF);
    }

    private void writeInsertions(final ByteBuf out, final int before)
    {
        for (int k = 0; k < insertCount; k++)
        {
            final Object name = insertName[k];
            if (insertBefore[k] != before || null == name)
            {
                continue;
            }
            if (name instanceof HeaderName known)
            {
                out.writeBytes(known.canonicalBytes());
            }
            else
            {
                SipWire.text(out, (CharSequence)name);
            }
            out.writeBytes(SipWire.COLON_SP);
            if (insertNumber[k] >= 0)
            {
                SipWire.decimal(out, insertNumber[k]);
            }
            else
            {
                SipWire.text(out, insertValue[k]);
            }
            out.writeBytes(SipWire.CRLF);
        }
    }
}
