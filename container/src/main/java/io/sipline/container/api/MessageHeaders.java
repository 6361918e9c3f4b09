package io.sipline.container.api;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.HeaderSource;
import io.sipline.sip.message.SipMessage;

/**
 * The header section of one {@code SipServletMessage}: an ordered list of header values where each value is either
 * a span of a compact byte array (the received message, or the request a response or a B2BUA leg was made from) or a
 * String set by the application or the container: one byte array and one offset index per message, Strings made on
 * first access and cached, edits in place of the entries they replace.
 *
 * <pre>
 *   bytes:   the base message's bytes (shared, never written)
 *   entry i: kinds[i]  HeaderName ordinal (UNKNOWN for extension headers, whose name is in names[i] or the span)
 *            span[4i .. 4i+3]  name start, name end, value start, value end in bytes, as chars (16 bits: half
 *                              the index of ints; value start TEXT: the value is text; an entry past 64 KiB is kept
 *                              as text)
 *            values[i]  the value as text: cached from the span, or set by an edit
 * </pre>
 *
 * A list header the parser split (Via, Route, Contact, ...) has one entry per value; it is written one line per
 * value, which RFC 3261 §7.3.1 makes equivalent to one comma-separated line.
 *
 * <p>Threading: owned by its message, which is used on the application session's shard (or by the one thread the
 * application hands it to); not thread-safe.
 */
public final class MessageHeaders implements HeaderSource
{
    private static final int SPAN = 4;
    /** The span mark of a text entry (its value, and for an extension header its name, are Strings). */
    private static final char TEXT = '\uFFFF';
    /** The last byte position a span can hold. */
    private static final int MAX_POSITION = TEXT - 1;
    private static final HeaderName[] NAMES = HeaderName.values();
    private static final byte[][] CANONICAL = canonicalNames();
    /** ": " and CR LF as big-endian shorts (one buffer operation each). */
    static final int COLON_SPACE = (':' << 8) | ' ';
    static final int CRLF = ('\r' << 8) | '\n';

    private final byte[] bytes;
    private int count;
    /** HeaderName ordinal per entry (one byte: fewer than 128 known names). */
    private byte[] kinds;
    private char[] span;
    /** The value texts (see above); made on first use: a message that is only relayed never needs it. */
    private String[] values;
    /** Names of extension headers added by edits (lazily made); base extension names are read from their spans. */
    private String[] names;

    private MessageHeaders(final byte[] bytes, final int capacity)
    {
        this.bytes = bytes;
        this.kinds = new byte[capacity];
        this.span = new char[capacity * SPAN];
    }

    /** An empty header section (a request made by the container), over no base bytes. */
    public static MessageHeaders empty(final int capacity)
    {
        return new MessageHeaders(null, capacity);
    }

    /** An empty header section whose entries may refer to {@code base}'s bytes (see {@link #copyFrom}). */
    public static MessageHeaders over(final MessageHeaders base, final int capacity)
    {
        return new MessageHeaders(base.bytes, capacity);
    }

    /**
     * The header section of a received message, indexing {@code bytes}, which hold a copy of {@code message}'s
     * bytes starting at {@code message.offset()}.
     *
     * @param message borrowed, parsed OK.
     */
    public static MessageHeaders of(final SipMessage message, final byte[] bytes)
    {
        final int n = message.headerCount();
        final MessageHeaders h = new MessageHeaders(bytes, n);
        final int shift = message.offset();
        for (int i = 0; i < n; i++)
        {
            h.kinds[i] = (byte)message.headerName(i).ordinal();
            final int s = i * SPAN;
            final int nameStart = message.headerNameStart(i) - shift;
            final int nameEnd = message.headerNameEnd(i) - shift;
            final int valueStart = message.headerValueStart(i) - shift;
            final int valueEnd = message.headerValueEnd(i) - shift;
            if (valueEnd <= MAX_POSITION)
            {
                h.span[s] = (char)nameStart;
                h.span[s + 1] = (char)nameEnd;
                h.span[s + 2] = (char)valueStart;
                h.span[s + 3] = (char)valueEnd;
                continue;
            }
            // beyond what a char holds (a header section over 64 KiB, which only TCP can carry): kept as text
            h.span[s] = h.span[s + 1] = h.span[s + 2] = h.span[s + 3] = TEXT;
            h.values()[i] = unfold(bytes, valueStart, valueEnd);
            if (HeaderName.UNKNOWN.ordinal() == h.kinds[i])
            {
                if (null == h.names)
                {
                    h.names = new String[n];
                }
                h.names[i] = new String(bytes, nameStart, nameEnd - nameStart, StandardCharsets.US_ASCII);
            }
        }
        h.count = n;
        return h;
    }

    /**
     * Where the value of entry {@code i} is in {@link #bytes()}, packed as {@code start << 32 | end}, or -1 when the
     * value is text (edited, or beyond 64 KiB).
     */
    public long valueSpan(final int i)
    {
        final int s = i * SPAN;
        return span[s + 2] == TEXT ? -1 : (long)span[s + 2] << 32 | span[s + 3];
    }

    @Override
    public byte[] buffer()
    {
        return bytes;
    }

    @Override
    public int firstHeader(final HeaderName name)
    {
        return find(name, 0);
    }

    @Override
    public int nextHeader(final HeaderName name, final int after)
    {
        return find(name, after + 1);
    }

    @Override
    public int headerValueStart(final int i)
    {
        final int s = i * SPAN;
        return span[s + 2] == TEXT ? -1 : span[s + 2];
    }

    @Override
    public int headerValueEnd(final int i)
    {
        final int s = i * SPAN;
        return span[s + 2] == TEXT ? -1 : span[s + 3];
    }

    /** The base bytes the spans index (may be null). */
    public byte[] bytes()
    {
        return bytes;
    }

    public int size()
    {
        return count;
    }

    /** The canonical or written name of entry {@code i}. */
    public String name(final int i)
    {
        final HeaderName k = NAMES[kinds[i]];
        if (HeaderName.UNKNOWN != k)
        {
            return k.canonical();
        }
        if (null != names && null != names[i])
        {
            return names[i];
        }
        final int s = i * SPAN;
        return new String(bytes, span[s], span[s + 1] - span[s], StandardCharsets.US_ASCII);
    }

    /** The value of entry {@code i} (folding replaced by one space, RFC 3261 §7.3.1); cached. */
    public String value(final int i)
    {
        String v = null == values ? null : values[i];
        if (null == v)
        {
            final int s = i * SPAN;
            v = unfold(bytes, span[s + 2], span[s + 3]);
            values()[i] = v;
        }
        return v;
    }

    /** True when entry {@code i} is named {@code name} (a known header by any of its forms, or case-insensitively). */
    public boolean is(final int i, final HeaderName k, final String name)
    {
        if (HeaderName.UNKNOWN != k)
        {
            return kinds[i] == k.ordinal();
        }
        if (HeaderName.UNKNOWN.ordinal() != kinds[i])
        {
            return false;
        }
        if (null != names && null != names[i])
        {
            return names[i].equalsIgnoreCase(name);
        }
        final int s = i * SPAN;
        final int len = span[s + 1] - span[s];
        if (len != name.length())
        {
            return false;
        }
        for (int j = 0; j < len; j++)
        {
            if (Character.toLowerCase((char)bytes[span[s] + j]) != Character.toLowerCase(name.charAt(j)))
            {
                return false;
            }
        }
        return true;
    }

    /** Index of the first entry named {@code name} at or after {@code from}, or -1. */
    public int find(final String name, final int from)
    {
        return find(HeaderName.lookup(name), name, from);
    }

    /**
     * True when a token-list header (Require, Supported, ...) lists {@code token} in any of its lines, ignoring case:
     * received lines are scanned in place ({@link Ascii#listContains}), edited ones as text; no allocation.
     */
    public boolean containsToken(final HeaderName k, final String token)
    {
        for (int i = find(k, 0); i >= 0; i = find(k, i + 1))
        {
            final int s = i * SPAN;
            if (span[s + 2] != TEXT ? Ascii.listContains(bytes, span[s + 2], span[s + 3], token, true)
                : textListContains(values[i], token))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean textListContains(final String list, final String token)
    {
        int p = 0;
        while (p <= list.length())
        {
            int q = list.indexOf(',', p);
            q = q < 0 ? list.length() : q;
            int ts = p;
            int te = q;
            while (ts < te && Character.isWhitespace(list.charAt(ts)))
            {
                ts++;
            }
            while (te > ts && Character.isWhitespace(list.charAt(te - 1)))
            {
                te--;
            }
            if (te - ts == token.length() && list.regionMatches(true, ts, token, 0, token.length()))
            {
                return true;
            }
            p = q + 1;
        }
        return false;
    }

    /** Index of the first entry of a known header at or after {@code from}, or -1. */
    public int find(final HeaderName k, final int from)
    {
        for (int i = from; i < count; i++)
        {
            if (kinds[i] == k.ordinal())
            {
                return i;
            }
        }
        return -1;
    }

    private int find(final HeaderName k, final String name, final int from)
    {
        for (int i = from; i < count; i++)
        {
            if (is(i, k, name))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * The leading decimal number of entry {@code i} (a CSeq number), read from the bytes without making a String;
     * -1 when it has none.
     */
    public long leadingNumber(final int i)
    {
        final int s = i * SPAN;
        return span[s + 2] == TEXT ? leadingNumber(null, values[i], 0, values[i].length())
            : leadingNumber(bytes, null, span[s + 2], span[s + 3]);
    }

    /** Digits after optional white space, from {@code bytes} or else {@code text}; -1 when there are none. */
    private static long leadingNumber(final byte[] bytes, final String text, final int from, final int to)
    {
        long n = 0;
        int digits = 0;
        for (int p = from; p < to && digits < 18; p++)
        {
            final int c = null != bytes ? bytes[p] : text.charAt(p);
            if (c >= '0' && c <= '9')
            {
                n = n * 10 + (c - '0');
                digits++;
            }
            else if (digits > 0 || (c != ' ' && c != '\t'))
            {
                break;
            }
        }
        return 0 == digits ? -1 : n;
    }

    /**
     * Folds the value of entry {@code i} into an FNV-1a style hash without making a String (a proxy's loop hash,
     * RFC 3261 §16.6 step 8): the received bytes, or the text when the entry was edited.
     */
    public int mixValue(final int i, final int seed)
    {
        int x = seed;
        final int s = i * SPAN;
        if (span[s + 2] != TEXT)
        {
            for (int p = span[s + 2]; p < span[s + 3]; p++)
            {
                x = (x ^ (bytes[p] & 0xFF)) * 0x01000193;
            }
        }
        else
        {
            final String v = values[i];
            for (int p = 0; p < v.length(); p++)
            {
                x = (x ^ v.charAt(p)) * 0x01000193;
            }
        }
        return x;
    }

    /** The first value of a header, or null. */
    public String get(final String name)
    {
        final int i = find(name, 0);
        return i < 0 ? null : value(i);
    }

    /** The first value of a known header, or null. */
    public String get(final HeaderName k)
    {
        final int i = find(k, 0);
        return i < 0 ? null : value(i);
    }

    /** Every value of a header, in order (a fresh list). */
    public List<String> getAll(final String name)
    {
        final HeaderName k = HeaderName.lookup(name);
        final List<String> out = new ArrayList<>(2);
        for (int i = find(k, name, 0); i >= 0; i = find(k, name, i + 1))
        {
            out.add(value(i));
        }
        return out;
    }

    /** The distinct header names, in order of first appearance, as canonical (known) or written names. */
    public Set<String> names()
    {
        final Set<String> out = new LinkedHashSet<>();
        for (int i = 0; i < count; i++)
        {
            out.add(name(i));
        }
        return out;
    }

    /** Number of values of a header. */
    public int count(final String name)
    {
        final HeaderName k = HeaderName.lookup(name);
        int n = 0;
        for (int i = find(k, name, 0); i >= 0; i = find(k, name, i + 1))
        {
            n++;
        }
        return n;
    }

    /** Number of values of a known header. */
    public int count(final HeaderName k)
    {
        int n = 0;
        for (int i = 0; i < count; i++)
        {
            if (kinds[i] == k.ordinal())
            {
                n++;
            }
        }
        return n;
    }

    /** Removes every value of a header; returns the index where the first one was, or -1. */
    public int remove(final String name)
    {
        final HeaderName k = HeaderName.lookup(name);
        int first = -1;
        int w = 0;
        for (int i = 0; i < count; i++)
        {
            if (is(i, k, name))
            {
                if (first < 0)
                {
                    first = w;
                }
                continue;
            }
            move(i, w++);
        }
        clearFrom(w);
        return first;
    }

    /** Removes entry {@code i}. */
    public void removeAt(final int i)
    {
        for (int j = i + 1; j < count; j++)
        {
            move(j, j - 1);
        }
        clearFrom(count - 1);
    }

    /** Replaces every value of a header with one, where the first was (else at the end). */
    public void set(final String name, final String value)
    {
        final int at = remove(name);
        insert(at < 0 ? count : at, name, value);
    }

    /** Replaces the value of entry {@code i}. */
    public void setValue(final int i, final String value)
    {
        values()[i] = value;
        span[i * SPAN + 2] = TEXT;
    }

    /** Appends a value after the last value of that header (else at the end). */
    public void add(final String name, final String value)
    {
        final HeaderName k = HeaderName.lookup(name);
        int last = -1;
        for (int i = find(k, name, 0); i >= 0; i = find(k, name, i + 1))
        {
            last = i;
        }
        insert(last < 0 ? count : last + 1, name, value);
    }

    /** Inserts a value before the first value of that header (else at the end): pushRoute, a new top Via. */
    public void addFirst(final String name, final String value)
    {
        final int first = find(name, 0);
        insert(first < 0 ? count : first, name, value);
    }

    /** Inserts a text entry at position {@code at}. */
    public void insert(final int at, final String name, final String value)
    {
        final HeaderName k = HeaderName.lookup(name);
        final int i = open(at);
        kinds[i] = (byte)k.ordinal();
        if (HeaderName.UNKNOWN == k)
        {
            if (null == names)
            {
                names = new String[kinds.length];
            }
            names[i] = name;
        }
        values()[i] = value;
        final int s = i * SPAN;
        span[s] = span[s + 1] = span[s + 2] = span[s + 3] = TEXT;
    }

    /**
     * Appends every entry of {@code from} named {@code k} (a known header), sharing its base bytes, which must be
     * this section's base.
     */
    public void copyFrom(final MessageHeaders from, final HeaderName k)
    {
        for (int i = from.find(k, 0); i >= 0; i = from.find(k, i + 1))
        {
            appendEntry(from, i);
        }
    }

    /** Appends entry {@code i} of {@code from}, sharing its base bytes (which must be this section's base). */
    public void appendEntry(final MessageHeaders from, final int i)
    {
        final int j = open(count);
        kinds[j] = from.kinds[i];
        System.arraycopy(from.span, i * SPAN, span, j * SPAN, SPAN);
        if (null != from.values && null != from.values[i])
        {
            values()[j] = from.values[i];
        }
        if (null != from.names && null != from.names[i])
        {
            if (null == names)
            {
                names = new String[kinds.length];
            }
            names[j] = from.names[i];
        }
        if (from.bytes != bytes && span[j * SPAN + 2] != TEXT)
        {
            setValue(j, from.value(i)); // a different base: keep the text
        }
        if (from.bytes != bytes && HeaderName.UNKNOWN.ordinal() == kinds[j] && (null == names || null == names[j]))
        {
            if (null == names)
            {
                names = new String[kinds.length];
            }
            names[j] = from.name(i);
        }
    }

    /** The known header of entry {@code i} ({@link HeaderName#UNKNOWN} for extension headers). */
    public HeaderName known(final int i)
    {
        return NAMES[kinds[i]];
    }

    /**
     * Writes every entry as {@code Name: value CRLF}, skipping Content-Length (the writer adds it from the body).
     *
     * @param out borrowed.
     */
    public void writeTo(final ByteBuf out)
    {
        writeTo(out, -1);
    }

    /**
     * As {@link #writeTo(ByteBuf)} without entry {@code skip} (a proxy relays a response without its top Via,
     * RFC 3261 §16.7 step 3, straight from the received section); -1 skips nothing.
     */
    public void writeTo(final ByteBuf out, final int skip)
    {
        for (int i = 0; i < count; i++)
        {
            final HeaderName k = NAMES[kinds[i]];
            if (HeaderName.CONTENT_LENGTH == k || i == skip)
            {
                continue;
            }
            final int s = i * SPAN;
            if (HeaderName.UNKNOWN != k)
            {
                out.writeBytes(CANONICAL[k.ordinal()]);
            }
            else if (null != names && null != names[i])
            {
                writeText(out, names[i]);
            }
            else
            {
                out.writeBytes(bytes, span[s], span[s + 1] - span[s]);
            }
            out.writeShort(COLON_SPACE);
            if (span[s + 2] != TEXT)
            {
                out.writeBytes(bytes, span[s + 2], span[s + 3] - span[s + 2]);
            }
            else
            {
                writeText(out, values[i]);
            }
            out.writeShort(CRLF);
        }
    }

    /** Writes text as UTF-8 in one buffer operation, without a temporary array. */
    static void writeText(final ByteBuf out, final String text)
    {
        out.writeCharSequence(text, StandardCharsets.UTF_8);
    }

    private String[] values()
    {
        if (null == values)
        {
            values = new String[kinds.length];
        }
        return values;
    }

    private int open(final int at)
    {
        if (count == kinds.length)
        {
            final int n = Math.max(4, count * 2);
            kinds = Arrays.copyOf(kinds, n);
            span = Arrays.copyOf(span, n * SPAN);
            if (null != values)
            {
                values = Arrays.copyOf(values, n);
            }
            if (null != names)
            {
                names = Arrays.copyOf(names, n);
            }
        }
        for (int j = count; j > at; j--)
        {
            move(j - 1, j);
        }
        count++;
        return at;
    }

    private void move(final int from, final int to)
    {
        if (from == to)
        {
            return;
        }
        kinds[to] = kinds[from];
        System.arraycopy(span, from * SPAN, span, to * SPAN, SPAN);
        if (null != values)
        {
            values[to] = values[from];
        }
        if (null != names)
        {
            names[to] = names[from];
        }
    }

    private void clearFrom(final int newCount)
    {
        for (int i = newCount; i < count; i++)
        {
            kinds[i] = 0;
            if (null != values)
            {
                values[i] = null;
            }
            if (null != names)
            {
                names[i] = null;
            }
        }
        count = newCount;
    }

    private static byte[][] canonicalNames()
    {
        final HeaderName[] all = HeaderName.values();
        final byte[][] out = new byte[all.length][];
        for (final HeaderName k : all)
        {
            out[k.ordinal()] = k.canonical().getBytes(StandardCharsets.US_ASCII);
        }
        return out;
    }

    private static String unfold(final byte[] b, final int start, final int end)
    {
        boolean folded = false;
        boolean ascii = true;
        for (int p = start; p < end; p++)
        {
            if (b[p] == '\r' || b[p] == '\n')
            {
                folded = true;
            }
            else if (b[p] < 0)
            {
                ascii = false;
            }
        }
        if (!folded)
        {
            return new String(b, start, end - start, ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
        }
        final String raw = new String(b, start, end - start, StandardCharsets.UTF_8);
        return raw.replaceAll("[ \\t]*\\r?\\n[ \\t]+", " ");
    }
}
