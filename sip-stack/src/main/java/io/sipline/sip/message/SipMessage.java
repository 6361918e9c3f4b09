package io.sipline.sip.message;

import java.util.Arrays;

/**
 * A SIP message as a flyweight: the message bytes plus an index of offsets, filled by {@link SipMessageParser} in one
 * pass.
 * <pre>
 *   bytes:  INVITE sip:bob@b.example SIP/2.0\r\nVia: SIP/2.0/UDP a;branch=z9hG4bK1, SIP/2.0/UDP p\r\n ...
 *           \____/ \_______________/ \_____/   \_/  \______________________/  \_________/
 *           method    request-URI    version   name     value of entry 0        entry 1 (same line)
 *   index:  one entry per header value, {@value #STRIDE} ints each:
 *           [ name id | flags ][ name start ][ name end ][ value start ][ value end ][ line end ]
 * </pre>
 * A header split eagerly ({@link HeaderName#isSplitEagerly()}: Via, Contact, Route, ...) gets one entry per value;
 * the entries of one line share their name and line end, and only the first carries {@link #FIRST_OF_LINE}. Spans
 * are half-open indexes into {@link #buffer()} without surrounding white space; a folded value keeps the raw CRLF and
 * white space inside its span ({@link #FOLDED}). Call-ID, CSeq, Content-Length, Max-Forwards, the From and To tags
 * and the top Via's branch are located while parsing; the rest is read when asked, and a {@code String} made for a
 * caller is cached until the next parse.
 *
 * <p><b>Ownership.</b> The message borrows the caller's {@code byte[]} ({@link SipMessageParser#parseDatagram(byte[],
 * int, int, SipMessage)}) or owns a copy in its own reusable array (parsing from a Netty {@code ByteBuf}, which can
 * be released as soon as parsing returns). Not thread-safe: one owner (a shard) at a time. The next parse invalidates
 * every span, view and position taken from it; {@link #copy()} keeps a message beyond that. {@link ParsedCopy} carries
 * the bytes and the parse to another thread's message without a second parse: a field the parser fills must be
 * carried there too.
 */
public final class SipMessage implements HeaderSource
{
    /** Ints per header entry in the index. */
    public static final int STRIDE = 6;
    /** Flag: this entry is the first value of its header line. */
    public static final int FIRST_OF_LINE = 1;
    /** Flag: the value spans folded lines (CRLF followed by white space inside the span). */
    public static final int FOLDED = 2;
    /** The most header values a message may carry; more is {@link ParseResult#TOO_MANY_HEADERS}. */
    public static final int MAX_HEADERS = 512;

    /** The own array a message starts with; {@link #trimScratch} goes back to it, or to what recent use needed. */
    static final int INITIAL_OWN_BYTES = 2048;
    /** An own array up to this size is kept by {@link #trimScratch} while in use: larger ones are a burst's. */
    public static final int KEPT_OWN_BYTES = 16_384;
    /**
     * Trims in a row with no message above {@link #INITIAL_OWN_BYTES} after which {@link #trimScratch} goes back to the
     * initial array: a quiet shard does not keep a burst's 16 KiB, and a trickle of large messages allocates at most
     * once a minute.
     */
    static final int QUIET_TRIMS = 64;
    /** Header entries the index starts with, and keeps through {@link #trimScratch} unless recent use needed more. */
    static final int INITIAL_ENTRIES = 64;

    private static final HeaderName[] NAMES = HeaderName.values();
    private static final int ID_MASK = 0xFFFF;
    private static final int FLAGS_SHIFT = 16;

    // --- bytes -------------------------------------------------------------------------------------------------
    byte[] buf;
    byte[] ownBuffer = new byte[INITIAL_OWN_BYTES];
    int offset;
    int limit;

    // --- start line ---------------------------------------------------------------------------------------------
    boolean request;
    SipMethod method;
    int methodStart;
    int methodEnd;
    int uriStart;
    int uriEnd;
    int versionStart;
    int versionEnd;
    int statusCode;
    int reasonStart;
    int reasonEnd;

    // --- header index -------------------------------------------------------------------------------------------
    int[] index = new int[INITIAL_ENTRIES * STRIDE];
    int headerCount;
    final int[] firstById = new int[NAMES.length];
    String[] valueCache = new String[INITIAL_ENTRIES];

    // --- located while parsing ----------------------------------------------------------------------------------
    int callIdStart;
    int callIdEnd;
    long cseqNumber;
    SipMethod cseqMethod;
    int cseqMethodStart;
    int cseqMethodEnd;
    int contentLength;
    int maxForwards;
    int fromTagStart;
    int fromTagEnd;
    int toTagStart;
    int toTagEnd;
    int topViaBranchStart;
    int topViaBranchEnd;
    boolean topViaChecked;
    int bodyStart;
    int bodyLength;
    int frameLength;

    ParseResult result = ParseResult.EMPTY;
    int errorOffset;

    /** The parser's scratch view for checking Via values; owned by this message, so parsing allocates nothing. */
    final ViaFlyweight viaScratch = new ViaFlyweight();
    /** The parser's scratch view for checking the Request-URI. */
    final SipUriFlyweight uriScratch = new SipUriFlyweight();

    // --- caches for callers that ask for Strings ---------------------------------------------------------------
    private String callIdString;
    private String requestUriString;
    private String fromTagString;
    private String toTagString;
    private String branchString;
    private String methodString;
    private String reasonString;

    // --- when it arrived ----------------------------------------------------------------------------------------
    /** See {@link #receivedAtNanos()}; not touched by parsing, so the reader may set it before or after. */
    private long receivedAtNanos;

    // --- recent use, for trimScratch ----------------------------------------------------------------------------
    /** The largest own array asked for since the last {@link #trimScratch}. */
    private int ownBytesSinceTrim;
    /** The most header entries a message parsed here held since the last {@link #trimScratch}. */
    private int entriesSinceTrim;
    /** Trims in a row that saw no own array above {@link #INITIAL_OWN_BYTES} asked for. */
    private int smallTrims;

    void reset(final byte[] bytes, final int off, final int len)
    {
        buf = bytes;
        offset = off;
        limit = off + len;
        request = false;
        method = null;
        methodStart = methodEnd = uriStart = uriEnd = versionStart = versionEnd = -1;
        statusCode = 0;
        reasonStart = reasonEnd = -1;
        if (headerCount > 0)
        {
            Arrays.fill(valueCache, 0, Math.min(headerCount, valueCache.length), null);
            entriesSinceTrim = Math.max(entriesSinceTrim, headerCount);
        }
        headerCount = 0;
        Arrays.fill(firstById, -1);
        callIdStart = callIdEnd = -1;
        cseqNumber = -1;
        cseqMethod = null;
        cseqMethodStart = cseqMethodEnd = -1;
        contentLength = -1;
        maxForwards = -1;
        fromTagStart = fromTagEnd = toTagStart = toTagEnd = -1;
        topViaBranchStart = topViaBranchEnd = -1;
        topViaChecked = false;
        bodyStart = -1;
        bodyLength = 0;
        frameLength = 0;
        result = ParseResult.EMPTY;
        errorOffset = -1;
        callIdString = requestUriString = fromTagString = toTagString = branchString = methodString = null;
        reasonString = null;
    }

    /** Grows the owned array when a message does not fit; returns the array to copy into. */
    byte[] ownBuffer(final int capacity)
    {
        ownBytesSinceTrim = Math.max(ownBytesSinceTrim, capacity);
        if (ownBuffer.length < capacity)
        {
            ownBuffer = new byte[Math.max(capacity, ownBuffer.length * 2)];
        }
        return ownBuffer;
    }

    /**
     * For a message its owner reuses for every message it handles (a shard's receive, hand-over or scratch message),
     * called once a second between two of them: lets go of an own array larger than {@link #KEPT_OWN_BYTES} and of a
     * header index longer than its initial one when no message since the last trim needed them (a flood's header of
     * 60 KB is not kept past the next trim), of a smaller grown array after {@link #QUIET_TRIMS} trims in a row with
     * no message above the initial size, and forgets the last message, whose bytes may be an array it only
     * borrowed, and the scratch views' spans into it. The last message must be dead: its spans, views and Strings
     * are invalid after this, as after the next parse. Allocates only when it lets an array go.
     */
    public void trimScratch()
    {
        entriesSinceTrim = Math.max(entriesSinceTrim, headerCount);
        smallTrims = ownBytesSinceTrim <= INITIAL_OWN_BYTES ? smallTrims + 1 : 0;
        if (ownBuffer.length > KEPT_OWN_BYTES && ownBytesSinceTrim <= KEPT_OWN_BYTES)
        {
            ownBuffer = new byte[Math.max(INITIAL_OWN_BYTES, ownBytesSinceTrim)];
        }
        else if (ownBuffer.length > INITIAL_OWN_BYTES && smallTrims >= QUIET_TRIMS)
        {
            ownBuffer = new byte[INITIAL_OWN_BYTES]; // a quiet minute: the burst's array up to the kept size goes too
        }
        if (entriesSinceTrim <= INITIAL_ENTRIES)
        {
            if (index.length > INITIAL_ENTRIES * STRIDE)
            {
                index = new int[INITIAL_ENTRIES * STRIDE];
            }
            if (valueCache.length > INITIAL_ENTRIES)
            {
                valueCache = new String[INITIAL_ENTRIES];
            }
        }
        reset(ownBuffer, 0, 0); // notes the last message's entries: the counts start again after it
        ownBytesSinceTrim = 0;
        entriesSinceTrim = 0;
        viaScratch.forget();
        uriScratch.reset();
    }

    /** Adds a header entry; false when the message has too many. */
    boolean addHeader(
        final HeaderName name,
        final int flags,
        final int nameStart,
        final int nameEnd,
        final int valueStart,
        final int valueEnd,
        final int lineEnd)
    {
        if (headerCount == MAX_HEADERS)
        {
            return false;
        }
        int[] idx = index;
        final int base = headerCount * STRIDE;
        if (base + STRIDE > idx.length)
        {
            idx = index = Arrays.copyOf(idx, idx.length * 2);
        }
        idx[base] = name.ordinal() | (flags << FLAGS_SHIFT);
        idx[base + 1] = nameStart;
        idx[base + 2] = nameEnd;
        idx[base + 3] = valueStart;
        idx[base + 4] = valueEnd;
        idx[base + 5] = lineEnd;
        if (firstById[name.ordinal()] < 0)
        {
            firstById[name.ordinal()] = headerCount;
        }
        headerCount++;
        return true;
    }

    /** Marks the value of the last entry as folded. */
    void markLastFolded()
    {
        index[(headerCount - 1) * STRIDE] |= FOLDED << FLAGS_SHIFT;
    }

    /** Sets the line end of the last {@code count} entries (the values of one line). */
    void setLineEnd(final int count, final int lineEnd)
    {
        for (int i = headerCount - count; i < headerCount; i++)
        {
            index[i * STRIDE + 5] = lineEnd;
        }
    }

    // ============================================================================================================
    // Whole message
    // ============================================================================================================

    /** What the parser made of the message. Only {@link ParseResult#OK} messages have meaningful fields. */
    public ParseResult result()
    {
        return result;
    }

    /** Index into {@link #buffer()} where the parser found the fault, or -1. */
    public int errorOffset()
    {
        return errorOffset;
    }

    /** The bytes the spans index into; borrowed from the parser's caller or owned by this message. */
    public byte[] buffer()
    {
        return buf;
    }

    /** Index of the message's first byte in {@link #buffer()}. */
    public int offset()
    {
        return offset;
    }

    /** Length of the parsed region handed to the parser. */
    public int length()
    {
        return limit - offset;
    }

    /** For stream transports: bytes the message occupies, headers and body; the next message starts after it. */
    public int frameLength()
    {
        return frameLength;
    }

    public boolean isRequest()
    {
        return request;
    }

    public boolean isResponse()
    {
        return !request;
    }

    // ============================================================================================================
    // Start line
    // ============================================================================================================

    /**
     * The request method; {@link SipMethod#EXTENSION} for an unknown one (see {@link #methodName()}); null for
     * responses.
     */
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

    /** The method token as a String (cached). */
    public String methodName()
    {
        if (null == methodString && methodStart >= 0)
        {
            methodString = null != method && method != SipMethod.EXTENSION ? method.name() :
                Ascii.string(buf, methodStart, methodEnd);
        }
        return methodString;
    }

    public int requestUriStart()
    {
        return uriStart;
    }

    public int requestUriEnd()
    {
        return uriEnd;
    }

    /** The Request-URI as a String (cached); null for responses. */
    public String requestUri()
    {
        if (null == requestUriString && uriStart >= 0)
        {
            requestUriString = Ascii.string(buf, uriStart, uriEnd);
        }
        return requestUriString;
    }

    public int versionStart()
    {
        return versionStart;
    }

    public int versionEnd()
    {
        return versionEnd;
    }

    /** The status code of a response; 0 for requests. */
    public int statusCode()
    {
        return statusCode;
    }

    public int reasonStart()
    {
        return reasonStart;
    }

    public int reasonEnd()
    {
        return reasonEnd;
    }

    /** The reason phrase of a response (cached; may be empty); null for requests. */
    public String reasonPhrase()
    {
        if (null == reasonString && reasonStart >= 0)
        {
            reasonString = Ascii.string(buf, reasonStart, reasonEnd);
        }
        return reasonString;
    }

    // ============================================================================================================
    // Headers
    // ============================================================================================================

    /** Number of header values indexed (a comma list counts one per value). */
    public int headerCount()
    {
        return headerCount;
    }

    /** The known name of entry {@code i}, or {@link HeaderName#UNKNOWN}. */
    public HeaderName headerName(final int i)
    {
        return NAMES[index[i * STRIDE] & ID_MASK];
    }

    /** The flags of entry {@code i}: {@link #FIRST_OF_LINE}, {@link #FOLDED}. */
    public int headerFlags(final int i)
    {
        return index[i * STRIDE] >>> FLAGS_SHIFT;
    }

    public int headerNameStart(final int i)
    {
        return index[i * STRIDE + 1];
    }

    public int headerNameEnd(final int i)
    {
        return index[i * STRIDE + 2];
    }

    public int headerValueStart(final int i)
    {
        return index[i * STRIDE + 3];
    }

    public int headerValueEnd(final int i)
    {
        return index[i * STRIDE + 4];
    }

    /** Index just after the CRLF that ends the header line holding entry {@code i}. */
    public int headerLineEnd(final int i)
    {
        return index[i * STRIDE + 5];
    }

    /** True when entry {@code i}'s name equals {@code name}, ignoring case; compact forms count as their full name. */
    public boolean headerNameIs(final int i, final CharSequence name)
    {
        final HeaderName known = headerName(i);
        if (known != HeaderName.UNKNOWN)
        {
            return known == HeaderName.lookup(name);
        }
        return Ascii.equalsIgnoreCase(buf, headerNameStart(i), headerNameEnd(i), name);
    }

    /** Index of the first entry of a known header, or -1. */
    public int firstHeader(final HeaderName name)
    {
        return firstById[name.ordinal()];
    }

    /** Index of the next entry of the same known header after entry {@code after}, or -1. */
    public int nextHeader(final HeaderName name, final int after)
    {
        final int id = name.ordinal();
        for (int i = after + 1; i < headerCount; i++)
        {
            if ((index[i * STRIDE] & ID_MASK) == id)
            {
                return i;
            }
        }
        return -1;
    }

    /** Index of the first entry whose name equals {@code name} (any header, known or not, any form), or -1. */
    public int firstHeader(final CharSequence name)
    {
        final HeaderName known = HeaderName.lookup(name);
        if (known != HeaderName.UNKNOWN)
        {
            return firstHeader(known);
        }
        return nextHeader(name, -1);
    }

    /** Index of the next entry named {@code name} after entry {@code after}, or -1. */
    public int nextHeader(final CharSequence name, final int after)
    {
        final HeaderName known = HeaderName.lookup(name);
        if (known != HeaderName.UNKNOWN)
        {
            return nextHeader(known, after);
        }
        for (int i = after + 1; i < headerCount; i++)
        {
            if ((index[i * STRIDE] & ID_MASK) == 0 && Ascii.equalsIgnoreCase(buf, index[i * STRIDE + 1],
                index[i * STRIDE + 2], name))
            {
                return i;
            }
        }
        return -1;
    }

    /** How many values of a known header the message carries. */
    public int headerCount(final HeaderName name)
    {
        int n = 0;
        for (int i = firstById[name.ordinal()]; i >= 0; i = nextHeader(name, i))
        {
            n++;
        }
        return n;
    }

    /**
     * The value of entry {@code i} as a String: white space trimmed, line folding replaced by one space
     * (RFC 3261 §7.3.1). Allocates on first call, then cached on the message until the next parse.
     */
    public String headerValue(final int i)
    {
        if (i >= valueCache.length)
        {
            valueCache = Arrays.copyOf(valueCache, Math.max(i + 1, valueCache.length * 2));
        }
        String s = valueCache[i];
        if (null == s)
        {
            final int start = headerValueStart(i);
            final int end = headerValueEnd(i);
            s = (headerFlags(i) & FOLDED) != 0 ? unfold(buf, start, end) : Ascii.string(buf, start, end);
            valueCache[i] = s;
        }
        return s;
    }

    /** The value of the first header named {@code name}, or null. */
    public String headerValue(final CharSequence name)
    {
        final int i = firstHeader(name);
        return i < 0 ? null : headerValue(i);
    }

    /** The name of entry {@code i} as written in the message (compact form stays compact). Allocates. */
    public String headerNameAsWritten(final int i)
    {
        return Ascii.string(buf, headerNameStart(i), headerNameEnd(i));
    }

    private static String unfold(final byte[] b, final int start, final int end)
    {
        final StringBuilder sb = new StringBuilder(end - start);
        int p = start;
        while (p < end)
        {
            final byte c = b[p];
            if (c == '\r' || c == '\n')
            {
                while (p < end && Ascii.isLws(b[p]))
                {
                    p++;
                }
                while (sb.length() > 0 && (sb.charAt(sb.length() - 1) == ' ' || sb.charAt(sb.length() - 1) == '\t'))
                {
                    sb.setLength(sb.length() - 1);
                }
                sb.append(' ');
                continue;
            }
            final int runStart = p;
            while (p < end && b[p] != '\r' && b[p] != '\n')
            {
                p++;
            }
            sb.append(Ascii.string(b, runStart, p));
        }
        return sb.toString();
    }

    /**
     * Wraps a caller-owned Via view over entry {@code i} (which must be a Via).
     *
     * @return {@code into}, wrapped; check its {@code wrap} outcome via {@link ViaFlyweight#error()}.
     */
    public ViaFlyweight via(final int i, final ViaFlyweight into)
    {
        into.wrap(buf, headerValueStart(i), headerValueEnd(i));
        return into;
    }

    /**
     * The Expires value in seconds (RFC 3261 §20.19), read when asked. Values above 2^32-1 read as 2^32-1
     * (§20.19 bounds the field; RFC 4475 §3.1.1.10 expects large values to be accepted). -1 when absent,
     * -2 when not a number.
     */
    public long expires()
    {
        final int i = firstHeader(HeaderName.EXPIRES);
        if (i < 0)
        {
            return -1;
        }
        final int s = headerValueStart(i);
        final int e = headerValueEnd(i);
        if (s == e)
        {
            return -2;
        }
        long v = 0;
        for (int p = s; p < e; p++)
        {
            if (!Ascii.isDigit(buf[p]))
            {
                return -2;
            }
            v = Math.min(0xFFFF_FFFFL, v * 10 + (buf[p] - '0'));
        }
        return v;
    }

    /**
     * True when a token list header (Require, Supported, Allow, Proxy-Require, Unsupported, Allow-Events, ...)
     * carries the token in any of its lines, compared ignoring case (option tags and methods are case-sensitive by
     * RFC 3261 §19.2 and §20.5, but peers differ; use {@link #containsTokenExactly} for a strict match).
     */
    public boolean containsToken(final HeaderName list, final CharSequence token)
    {
        return findToken(list, token, true);
    }

    /** Like {@link #containsToken} but case-sensitive. */
    public boolean containsTokenExactly(final HeaderName list, final CharSequence token)
    {
        return findToken(list, token, false);
    }

    /** How many comma-separated values the lines of a header carry (a token list line "a, b" counts two). */
    public int valueCount(final HeaderName name)
    {
        int n = 0;
        for (int i = firstHeader(name); i >= 0; i = nextHeader(name, i))
        {
            final int s = headerValueStart(i);
            final int e = headerValueEnd(i);
            if (s == e)
            {
                continue;
            }
            n++;
            for (int p = s; p < e; p++)
            {
                if (buf[p] == ',')
                {
                    n++;
                }
            }
        }
        return n;
    }

    private boolean findToken(final HeaderName list, final CharSequence token, final boolean ignoreCase)
    {
        for (int i = firstHeader(list); i >= 0; i = nextHeader(list, i))
        {
            if (Ascii.listContains(buf, headerValueStart(i), headerValueEnd(i), token, ignoreCase))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Wraps a caller-owned view over the Content-Type value.
     *
     * @return true when the message has a well formed Content-Type.
     */
    public boolean contentType(final MediaTypeFlyweight into)
    {
        final int i = firstHeader(HeaderName.CONTENT_TYPE);
        return i >= 0 && into.wrap(buf, headerValueStart(i), headerValueEnd(i));
    }

    /**
     * Wraps a caller-owned address view over entry {@code i}: a From, To, Contact, Route, Record-Route, Path,
     * Reply-To, Refer-To or P-Asserted-Identity value (RFC 3261 §20.10: name-addr or addr-spec with parameters).
     *
     * @return true when the value is well formed; see {@link NameAddrFlyweight#errorReason()} otherwise.
     */
    public boolean address(final int i, final NameAddrFlyweight into)
    {
        return into.wrap(buf, headerValueStart(i), headerValueEnd(i));
    }

    /**
     * Wraps a caller-owned URI view over the Request-URI (RFC 3261 §19.1; tel URIs, RFC 3966).
     *
     * @return true when it is a well formed URI; false also for responses.
     */
    public boolean requestUri(final SipUriFlyweight into)
    {
        return uriStart >= 0 && into.wrap(buf, uriStart, uriEnd);
    }

    // ============================================================================================================
    // Located while parsing
    // ============================================================================================================

    public int callIdStart()
    {
        return callIdStart;
    }

    public int callIdEnd()
    {
        return callIdEnd;
    }

    /** The Call-ID (cached). */
    public String callId()
    {
        if (null == callIdString && callIdStart >= 0)
        {
            callIdString = Ascii.string(buf, callIdStart, callIdEnd);
        }
        return callIdString;
    }

    /** The CSeq sequence number (RFC 3261 §8.1.1.5: less than 2^31). */
    public long cseqNumber()
    {
        return cseqNumber;
    }

    /** The CSeq method; {@link SipMethod#EXTENSION} for an unknown one. */
    public SipMethod cseqMethod()
    {
        return cseqMethod;
    }

    public int cseqMethodStart()
    {
        return cseqMethodStart;
    }

    public int cseqMethodEnd()
    {
        return cseqMethodEnd;
    }

    /** The CSeq method token as a String (allocates unless it is a known method). */
    public String cseqMethodName()
    {
        if (cseqMethodStart < 0)
        {
            return null;
        }
        return cseqMethod != SipMethod.EXTENSION ? cseqMethod.name() :
            Ascii.string(buf, cseqMethodStart, cseqMethodEnd);
    }

    /** The declared Content-Length, or -1 when the header is absent. */
    public int contentLength()
    {
        return contentLength;
    }

    /** Max-Forwards (0-255), or -1 when absent. */
    public int maxForwards()
    {
        return maxForwards;
    }

    public int fromTagStart()
    {
        return fromTagStart;
    }

    public int fromTagEnd()
    {
        return fromTagEnd;
    }

    /** The From tag (cached), or null when absent. */
    public String fromTag()
    {
        if (null == fromTagString && fromTagStart >= 0)
        {
            fromTagString = Ascii.string(buf, fromTagStart, fromTagEnd);
        }
        return fromTagString;
    }

    public int toTagStart()
    {
        return toTagStart;
    }

    public int toTagEnd()
    {
        return toTagEnd;
    }

    /** The To tag (cached), or null when absent. */
    public String toTag()
    {
        if (null == toTagString && toTagStart >= 0)
        {
            toTagString = Ascii.string(buf, toTagStart, toTagEnd);
        }
        return toTagString;
    }

    /** Index of the top Via entry; -1 only for a message that failed to parse. */
    public int topVia()
    {
        return firstById[HeaderName.VIA.ordinal()];
    }

    public int topViaBranchStart()
    {
        return topViaBranchStart;
    }

    public int topViaBranchEnd()
    {
        return topViaBranchEnd;
    }

    /** The top Via's branch (cached), or null when it has none. */
    public String topViaBranch()
    {
        if (null == branchString && topViaBranchStart >= 0)
        {
            branchString = Ascii.string(buf, topViaBranchStart, topViaBranchEnd);
        }
        return branchString;
    }

    /** True when the top Via's branch carries the RFC 3261 magic cookie (§17.2.3 matching applies). */
    public boolean topViaHasMagicCookie()
    {
        return topViaBranchStart >= 0 && ViaFlyweight.startsWithCookie(buf, topViaBranchStart, topViaBranchEnd);
    }

    /** Index of the first body byte in {@link #buffer()}; valid when {@link #bodyLength()} is positive. */
    public int bodyStart()
    {
        return bodyStart;
    }

    /** Body length: Content-Length when present, else (datagrams) the rest of the datagram. */
    public int bodyLength()
    {
        return bodyLength;
    }

    /** True when the span equals the given bytes (e.g. to compare a Call-ID or a branch with a stored copy). */
    public boolean spanEquals(final int start, final int end, final byte[] other, final int otherStart,
        final int otherEnd)
    {
        return Ascii.equals(buf, start, end, other, otherStart, otherEnd);
    }

    /**
     * A detached copy: its own exactly-sized byte array and index, independent of this message's buffer. For
     * messages that must outlive the next parse (an application may keep them as long as it likes).
     */
    public SipMessage copy()
    {
        final SipMessage m = new SipMessage();
        final int len = frameLength > 0 ? frameLength : limit - offset;
        final byte[] bytes = Arrays.copyOfRange(buf, offset, offset + len);
        m.ownBuffer = bytes;
        SipMessageParser.parseDatagram(bytes, 0, len, m);
        m.receivedAtNanos = receivedAtNanos;
        return m;
    }

    /**
     * When this message arrived: wall-clock nanoseconds since the epoch ({@code CLOCK_REALTIME}, the time base of
     * {@link io.sipline.sip.transport.RealtimeClock#nanos()}), taken by the kernel when it queued the datagram on the
     * socket ({@code SO_TIMESTAMPNS}) where the transport reads it so, else when the transport read it. Parsing does
     * not change it; the transport that reads a message sets it, and {@link #copy()} keeps it.
     *
     * @return the arrival time, or 0 when unknown (a message built or parsed locally).
     */
    public long receivedAtNanos()
    {
        return receivedAtNanos;
    }

    /** Sets {@link #receivedAtNanos()}; called by the transport that read this message (0: unknown). */
    public void receivedAtNanos(final long epochNanos)
    {
        receivedAtNanos = epochNanos;
    }

    @Override
    public String toString()
    {
        return null == buf ? "SipMessage[empty]" : Ascii.string(buf, offset, limit);
    }
}
