package io.sipline.sip.stack;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.ByteBufCopy;
import io.sipline.sip.message.ViaFlyweight;

/**
 * The transport of an outbound message's top Via (RFC 3261 §18.1.1 sends a request by it), read from the header lines
 * alone: the name of each line is looked at until the first Via, and that line's first value is read with a
 * {@link ViaFlyweight}. Parsing the whole message instead copied it and indexed every header for one token, on every
 * request and ACK the shard sends. What this read cannot judge as the parser would (a folded line before or within the
 * top Via, a header line without a colon) answers {@link #UNSURE}, and the caller parses the message.
 *
 * <p>Buffers: the message is borrowed, its indexes untouched; the top Via's line is copied into a scratch array of
 * this reader's, which grows to the longest such line.
 *
 * <p>Not thread-safe; one per {@link TransportSelection}, on its shard's loop.
 */
final class TopViaReader
{
    /** The top Via names UDP, another transport that is sent as a datagram, or the message has no Via. */
    static final int UDP = 0;
    /** The top Via names TCP. */
    static final int TCP = 1;
    /** The top Via names TLS. */
    static final int TLS = 2;
    /** The lines are not plain enough to read without the parser. */
    static final int UNSURE = -1;

    private final ViaFlyweight via = new ViaFlyweight();
    private byte[] line = new byte[256];

    /**
     * The transport of the top Via of {@code message} (from its reader index to its writer index): {@link #UDP},
     * {@link #TCP}, {@link #TLS}, or {@link #UNSURE}. A top Via that does not parse, or none, answers UDP, as the
     * parser's reading did.
     */
    int transport(final ByteBuf message)
    {
        final int end = message.writerIndex();
        int lineEnd = message.indexOf(message.readerIndex(), end, (byte)'\n'); // the start line
        while (lineEnd >= 0)
        {
            final int start = lineEnd + 1;
            if (start >= end)
            {
                return UDP; // no Via (and no blank line: the parser refused such a message, which went as UDP)
            }
            final byte first = message.getByte(start);
            if ('\r' == first || '\n' == first)
            {
                return UDP; // the blank line: the header section ended without a Via
            }
            if (' ' == first || '\t' == first)
            {
                return UNSURE; // a folded line (RFC 3261 §7.3.1): the parser joins it to the one before
            }
            lineEnd = message.indexOf(start, end, (byte)'\n');
            final int stop = lineEnd < 0 ? end : lineEnd;
            final int colon = message.indexOf(start, stop, (byte)':');
            if (colon < 0)
            {
                return UNSURE;
            }
            if (isVia(message, start, colon))
            {
                return topVia(message, colon + 1, stop, lineEnd);
            }
        }
        return UDP; // a single line: no header at all
    }

    /** Whether the name before {@code colon} is Via or its compact form v, in any case, blanks after it allowed. */
    private static boolean isVia(final ByteBuf message, final int start, final int colon)
    {
        int nameEnd = colon;
        while (nameEnd > start && isBlank(message.getByte(nameEnd - 1)))
        {
            nameEnd--;
        }
        final int length = nameEnd - start;
        if ((message.getByte(start) | 0x20) != 'v')
        {
            return false;
        }
        return 1 == length
            || 3 == length && (message.getByte(start + 1) | 0x20) == 'i' && (message.getByte(start + 2) | 0x20) == 'a';
    }

    /** The transport of the first value of the Via line whose value is {@code [from, stop)}. */
    private int topVia(final ByteBuf message, final int from, final int stop, final int lineEnd)
    {
        if (lineEnd >= 0 && lineEnd + 1 < message.writerIndex())
        {
            final byte next = message.getByte(lineEnd + 1);
            if (' ' == next || '\t' == next)
            {
                return UNSURE; // the value goes on on a folded line
            }
        }
        final int length = stop - from;
        if (length > line.length)
        {
            line = new byte[Math.max(length, 2 * line.length)];
        }
        final byte[] b = line;
        ByteBufCopy.copyOut(message, from, b, 0, length);
        final int valueEnd = trimEnd(b, firstValueEnd(b, length));
        if (!via.wrap(b, 0, valueEnd))
        {
            return UDP;
        }
        return transportOf(b, via.transportStart(), via.transportEnd());
    }

    /** The transport token {@code b[start, end)} of a Via, in any case: {@link #TCP}, {@link #TLS} or {@link #UDP}. */
    static int transportOf(final byte[] b, final int start, final int end)
    {
        if (3 == end - start && (b[start] | 0x20) == 't')
        {
            final int second = b[start + 1] | 0x20;
            final int third = b[start + 2] | 0x20;
            if (second == 'c' && third == 'p')
            {
                return TCP;
            }
            if (second == 'l' && third == 's')
            {
                return TLS;
            }
        }
        return UDP;
    }

    /** Where the first of the comma-separated values ends (RFC 3261 §7.3.1); a comma in a quoted string is not one. */
    private static int firstValueEnd(final byte[] b, final int length)
    {
        boolean quoted = false;
        for (int i = 0; i < length; i++)
        {
            final byte c = b[i];
            if (quoted && '\\' == c)
            {
                i++; // a quoted pair: the next byte is taken as it is
            }
            else if ('"' == c)
            {
                quoted = !quoted;
            }
            else if (',' == c && !quoted)
            {
                return i;
            }
        }
        return length;
    }

    /** {@code end} moved back over blanks and the line's CR. */
    private static int trimEnd(final byte[] b, final int end)
    {
        int e = end;
        while (e > 0 && (isBlank(b[e - 1]) || '\r' == b[e - 1]))
        {
            e--;
        }
        return e;
    }

    private static boolean isBlank(final byte c)
    {
        return ' ' == c || '\t' == c;
    }
}
