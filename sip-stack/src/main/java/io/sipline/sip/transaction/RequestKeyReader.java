package io.sipline.sip.transaction;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.ByteBufCopy;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.message.ViaFlyweight;

/**
 * What {@link TransactionLayer#sendRequest} needs of a request this server wrote, read from its bytes: the method
 * (RFC 3261 §7.1), the top Via's branch and whether it starts with the magic cookie (§8.1.1.7), the CSeq number and
 * method (§8.1.1.5). The quick read looks at the request line, the name of each header line, and the values of the
 * first Via and of the CSeq only, with the parser's own pieces ({@link HeaderName#lookup}, {@link ViaFlyweight},
 * {@link SipMethod#lookup}). What it cannot judge as {@link SipMessageParser} would is left to a full parse, which
 * then reads the same fields or refuses the request: blank lines before the request line, a folded line (§7.3.1), a
 * line whose name is not a token or has no colon, a Via line holding several values (§7.3.1 lets comma-separated
 * values share a line) or a quote, angle bracket or control character, a second CSeq, a request line, top Via or
 * CSeq that does not parse, a CSeq method other than the request's, a header section without its blank line.
 *
 * <p>The quick read does not check what it does not read: the Request-URI's grammar, the other headers (From, To,
 * Call-ID, Content-Length, ...) and the body's length are the writer's, which built them; the full parse refused a
 * request malformed there, the quick read lets it go to the peer.
 *
 * <p>Buffers: the request is borrowed, its indexes untouched; its bytes are copied into an array of this reader's
 * (grown to the largest request), which the spans point into ({@link #buffer()}) until the next read; a fall back
 * parses that same copy.
 *
 * <p>Not thread-safe; one per {@link TransactionLayer}, on its shard. Allocates nothing but the array's growth.
 */
public final class RequestKeyReader
{
    /** Eight bytes of an array as one long, the first byte lowest: the first LF is the lowest flagged byte. */
    private static final VarHandle LONG_LE =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101_0101_0101_0101L;
    private static final long HIGH_BITS = 0x8080_8080_8080_8080L;
    private static final long LFS = ONES * Ascii.LF;

    private static final int INITIAL_BYTES = 2048;

    private final SipMessage message;
    private final ViaFlyweight via = new ViaFlyweight();
    private byte[] bytes = new byte[INITIAL_BYTES];
    private int length;
    /** The largest request copied since the last {@link #trim}. */
    private int longestSinceTrim;
    private boolean quick;

    private SipMethod method;
    private int methodStart;
    private int methodEnd;
    private SipMethod cseqMethod;
    /** The CSeq method's span, for the quick read's comparison with the request's method; -1 before a CSeq. */
    private int cseqMethodStart;
    private int cseqMethodEnd;
    private long cseqNumber;
    private int branchStart;
    private int branchEnd;
    private boolean magicCookie;

    /**
     * @param message the reused message a full parse fills (the layer's scratch); borrowed for the reader's life.
     */
    public RequestKeyReader(final SipMessage message)
    {
        this.message = message;
    }

    /**
     * Reads {@code request} (from its reader index to its writer index): quickly when its lines are plain enough,
     * else by a full parse.
     *
     * @return true when it is a request whose fields were read; false when the parser refuses it or it is a response.
     */
    public boolean read(final ByteBuf request)
    {
        if (!copy(request))
        {
            return false;
        }
        quick = readQuickly();
        return quick || parse();
    }

    /**
     * Reads {@code request} by a full parse only, as {@link #read} falls back to.
     *
     * @return as {@link #read}.
     */
    public boolean parse(final ByteBuf request)
    {
        quick = false;
        return copy(request) && parse();
    }

    /**
     * Once a second, between two reads: lets go of a copy array larger than {@link SipMessage#KEPT_OWN_BYTES} that
     * no request since the last trim needed (a burst's), and of the Via view's span into the last copy, so that an
     * idle reader keeps no large request. The last read's fields are invalid after this. Allocates only when it lets
     * the array go.
     */
    public void trim()
    {
        if (bytes.length > SipMessage.KEPT_OWN_BYTES && longestSinceTrim <= SipMessage.KEPT_OWN_BYTES)
        {
            bytes = new byte[Math.max(INITIAL_BYTES, longestSinceTrim)];
            length = 0;
        }
        longestSinceTrim = 0;
        via.forget();
    }

    /** Whether the last read was answered without the parser. */
    public boolean quick()
    {
        return quick;
    }

    /** The bytes the spans point into, valid until the next read. */
    public byte[] buffer()
    {
        return bytes;
    }

    public SipMethod method()
    {
        return method;
    }

    public int methodStart()
    {
        return methodStart;
    }

    public int methodEnd()
    {
        return methodEnd;
    }

    /** The CSeq's method; its bytes equal the request's method's when the read succeeded. */
    public SipMethod cseqMethod()
    {
        return cseqMethod;
    }

    public long cseqNumber()
    {
        return cseqNumber;
    }

    /** Start of the top Via's branch value, or -1 when it has none. */
    public int branchStart()
    {
        return branchStart;
    }

    public int branchEnd()
    {
        return branchEnd;
    }

    /** Whether the top Via's branch starts with {@code z9hG4bK} (RFC 3261 §8.1.1.7). */
    public boolean magicCookie()
    {
        return magicCookie;
    }

    /** Copies the request's bytes; false for one larger than the parser takes (it answers MESSAGE_TOO_LARGE). */
    private boolean copy(final ByteBuf request)
    {
        final int n = request.readableBytes();
        if (n > SipMessageParser.MAX_MESSAGE_BYTES)
        {
            return false;
        }
        longestSinceTrim = Math.max(longestSinceTrim, n);
        if (n > bytes.length)
        {
            bytes = new byte[Math.max(n, 2 * bytes.length)];
        }
        ByteBufCopy.copyOut(request, request.readerIndex(), bytes, 0, n);
        length = n;
        return true;
    }

    /** The full parse of the copy; the fields as the parser reads them. */
    private boolean parse()
    {
        final SipMessage m = message;
        if (SipMessageParser.parseDatagram(bytes, 0, length, m) != ParseResult.OK || !m.isRequest())
        {
            return false;
        }
        method = m.method();
        methodStart = m.methodStart();
        methodEnd = m.methodEnd();
        cseqMethod = m.cseqMethod();
        cseqNumber = m.cseqNumber();
        branchStart = m.topViaBranchStart();
        branchEnd = m.topViaBranchEnd();
        magicCookie = m.topViaHasMagicCookie();
        return true;
    }

    /** The quick read; false when the parser must judge (the fields are then undefined). */
    private boolean readQuickly()
    {
        final byte[] b = bytes;
        final int end = length;
        int lf = indexOfLf(b, 0, end);
        if (lf < 0 || !requestLine(b, lf))
        {
            return false;
        }
        boolean topVia = false;
        cseqMethodStart = -1;
        int p = lf + 1;
        while (p < end && b[p] != Ascii.LF && !(b[p] == Ascii.CR && p + 1 < end && b[p + 1] == Ascii.LF))
        {
            lf = indexOfLf(b, p, end);
            if (lf < 0 || !Ascii.isTokenChar(b[p]))
            {
                return false; // no line end, or a folded line, a lone CR, a line without a name
            }
            int nameEnd = p + 1;
            while (Ascii.isTokenChar(b[nameEnd]))
            {
                nameEnd++; // stops at the LF at the latest
            }
            int colon = nameEnd;
            while (Ascii.isWsp(b[colon]))
            {
                colon++;
            }
            if (b[colon] != ':')
            {
                return false;
            }
            final HeaderName name = maybeViaOrCseq(b, p, nameEnd) ? HeaderName.lookup(b, p, nameEnd) : null;
            final int valueEnd = b[lf - 1] == Ascii.CR ? lf - 1 : lf;
            if (name == HeaderName.VIA && !topVia)
            {
                if (!topVia(b, colon + 1, valueEnd))
                {
                    return false;
                }
                topVia = true;
            }
            else if (name == HeaderName.CSEQ)
            {
                if (cseqMethodStart >= 0 || !cseq(b, colon + 1, valueEnd))
                {
                    return false; // a second CSeq, or one that does not parse
                }
            }
            p = lf + 1;
        }
        // RFC 3261 §8.1.1.5: the CSeq method matches the request's, byte for byte (else the parser refuses it)
        return p < end && topVia && cseqMethodStart >= 0
            && Arrays.equals(b, methodStart, methodEnd, b, cseqMethodStart, cseqMethodEnd);
    }

    /**
     * Request-Line = Method SP Request-URI SP SIP-Version (RFC 3261 §7.1), single spaces, version SIP/2.0; the line's
     * LF at {@code lf}. The Request-URI is taken as it is.
     */
    private boolean requestLine(final byte[] b, final int lf)
    {
        final int end = lf > 0 && b[lf - 1] == Ascii.CR ? lf - 1 : lf;
        int p = 0;
        while (p < end && Ascii.isTokenChar(b[p]))
        {
            p++;
        }
        if (0 == p || p >= end || b[p] != Ascii.SP)
        {
            return false;
        }
        final int uriEnd = Ascii.indexOf(b, p + 1, end, Ascii.SP);
        final int v = uriEnd + 1;
        if (uriEnd <= p + 1 || end - v != 7 || Ascii.lower(b[v]) != 's' || Ascii.lower(b[v + 1]) != 'i'
            || Ascii.lower(b[v + 2]) != 'p' || b[v + 3] != '/' || b[v + 4] != '2' || b[v + 5] != '.' || b[v + 6] != '0')
        {
            return false;
        }
        methodStart = 0;
        methodEnd = p;
        method = SipMethod.lookup(b, 0, p);
        return true;
    }

    /**
     * The top Via's value in {@code [from, to)}: one value, no quote, angle bracket or control in it (the parser's
     * list scan would split or refuse it), read by the parser's {@link ViaFlyweight}.
     */
    private boolean topVia(final byte[] b, final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            final byte c = b[i];
            if (c == ',' || c == '"' || c == '<' || c == '>' || c >= 0 && c < 0x20 && c != Ascii.HTAB || c == 0x7F)
            {
                return false;
            }
        }
        final int start = skipWsp(b, from, to);
        if (!via.wrap(b, start, trimWsp(b, start, to)))
        {
            return false;
        }
        branchStart = via.branchStart();
        branchEnd = via.branchEnd();
        magicCookie = via.hasMagicCookie();
        return true;
    }

    /**
     * CSeq = 1*DIGIT LWS Method (RFC 3261 §20.16), below 2^31 (§8.1.1.5), in {@code [from, to)} between blanks.
     *
     * @return false when the parser must judge it.
     */
    private boolean cseq(final byte[] b, final int from, final int to)
    {
        final int start = skipWsp(b, from, to);
        final int end = trimWsp(b, start, to);
        int p = start;
        while (p < end && Ascii.isDigit(b[p]))
        {
            p++;
        }
        final long number = p - start > 10 ? -1 : Ascii.parseNatural(b, start, p);
        final int methodAt = skipWsp(b, p, end);
        if (number < 0 || number >= 0x8000_0000L || methodAt == p || methodAt == end)
        {
            return false;
        }
        for (int i = methodAt; i < end; i++)
        {
            if (!Ascii.isTokenChar(b[i]))
            {
                return false;
            }
        }
        cseqNumber = number;
        cseqMethod = SipMethod.lookup(b, methodAt, end);
        cseqMethodStart = methodAt;
        cseqMethodEnd = end;
        return true;
    }

    /** Whether the name {@code [start, end)} can be Via, v or CSeq, by length and first letter (the lookup decides). */
    private static boolean maybeViaOrCseq(final byte[] b, final int start, final int end)
    {
        final int first = b[start] | 0x20;
        final int length = end - start;
        return first == 'v' ? 1 == length || 3 == length : first == 'c' && 4 == length;
    }

    /**
     * The first LF in {@code [from, end)}, or -1; eight bytes a step: a byte equal to LF is zero once xored with LFs,
     * and {@code (x - ONES) & ~x & HIGH_BITS} flags the lowest zero byte of {@code x} exactly.
     */
    static int indexOfLf(final byte[] b, final int from, final int end)
    {
        int i = from;
        for (; i + Long.BYTES <= end; i += Long.BYTES)
        {
            final long x = (long)LONG_LE.get(b, i) ^ LFS;
            final long flagged = (x - ONES) & ~x & HIGH_BITS;
            if (0 != flagged)
            {
                return i + (Long.numberOfTrailingZeros(flagged) >>> 3);
            }
        }
        for (; i < end; i++)
        {
            if (b[i] == Ascii.LF)
            {
                return i;
            }
        }
        return -1;
    }

    private static int skipWsp(final byte[] b, final int from, final int to)
    {
        int p = from;
        while (p < to && Ascii.isWsp(b[p]))
        {
            p++;
        }
        return p;
    }

    /** {@code to} moved back over SP and HTAB, not below {@code from}: a CR left in a value stays (a control). */
    private static int trimWsp(final byte[] b, final int from, final int to)
    {
        int e = to;
        while (e > from && Ascii.isWsp(b[e - 1]))
        {
            e--;
        }
        return e;
    }
}
