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
 *   bytes:   the base message's bytes (shared, never written but for the index a received section keeps in
 *            their tail, see below)
 *   entry i: index[2i]       HeaderName ordinal in the low 7 bits (UNKNOWN for extension headers); above them a
 *                            mark: the value's length in bytes (0..SHORT), LONG or TEXT
 *            index[2i+1]     a short span's value start in bytes (16 bits: the value ends at start + length);
 *                            for LONG and TEXT the entry's slot in values
 *   values:  one slot per text entry, per span longer than SHORT (a {@link LongSpan}: start, end and the String
 *            once read) and per String read from a short span, in no order (a slot of a removed entry is taken
 *            again); made on first use, as long as the section's maker expects texts, and doubled when full, so
 *            that a section with a few texts among many spans has a short array.
 *            A text slot holds the value as text: set by an edit, or past 64 KiB; a From or To the container writes
 *            with a tag may be a {@link TaggedParty} instead, a CSeq a {@link CSeqText}, a Call-ID it made an
 *            {@link IdText} (each a {@link WrittenText}), made into a String (and cached) when read; an
 *            extension header whose value is text has a {@link NamedText}, its name and value (a spanned one's
 *            name is read from the bytes before its value), so only the entries that need a name carry one. A
 *            String read from a short span is found again by its characters (an entry has no bits left for its
 *            slot): any String of the section equal to the span's bytes is its value
 *   count:   index[index.length - 1], one char after the last entry's place: no field of its own, one field fewer
 *            in an object made for every message
 *   tail:    a received section's index is not an array of its own: its chars (big-endian) are the last bytes of
 *            the array its message was copied into, one array header fewer per message; a section that grows past
 *            them moves its index into a char array
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
    /** Chars per entry of {@link #index}: kind and mark, value start or slot. */
    private static final int ENTRY = 2;
    /** The mark of a text entry (its value, and for an extension header its name, are text in its slot). */
    private static final int TEXT = 511;
    /** The mark of a span longer than {@link #SHORT}: its start and end are a {@link LongSpan} in its slot. */
    private static final int LONG = 510;
    /** The longest value a short span's mark holds as its length. */
    private static final int SHORT = 509;
    /** The last byte position a span can hold. */
    private static final int MAX_POSITION = Character.MAX_VALUE - 1;
    /** The most entries a section holds: its count is one char. */
    private static final int MAX_ENTRIES = Character.MAX_VALUE;
    private static final HeaderName[] NAMES = HeaderName.values();
    /** Bits of an entry's first char that hold its HeaderName ordinal; those above hold its mark. */
    private static final int KIND_BITS = 7;
    private static final int KIND_MASK = (1 << KIND_BITS) - 1;
    /** The values array is grown for a String read from a short span only up to this length. */
    private static final int MAX_CACHE_SLOTS = 512;
    /** Slots of the values of a received section: the few headers the container and an application read. */
    private static final int RECEIVED_TEXTS = 4;
    /** ": " and CR LF as big-endian shorts (one buffer operation each). */
    static final int COLON_SPACE = (':' << 8) | ' ';
    static final int CRLF = ('\r' << 8) | '\n';

    private final byte[] bytes;
    /**
     * Kind and value span per entry, then the number of entries (see above): one array for the whole section; null
     * while the index is in the tail of {@link #bytes}.
     */
    private char[] index;
    /**
     * The value texts, a String, {@link TaggedParty} or {@link CSeqText}, or a {@link NamedText} for a text extension
     * header, the {@link LongSpan}s and the Strings read from short spans (see above); made on first use: a message
     * that is only relayed never needs it.
     */
    private Object[] values;
    /** The length of {@link #values} when it is made (within the object's 8-byte step: costs no room). */
    private final char firstTexts;
    /**
     * The entries of the index the tail of {@link #bytes} was made for (this section's while {@link #index} is null,
     * or its base's), else 0 (within the object's 8-byte step, as above).
     */
    private char tail;

    static
    {
        if (NAMES.length > KIND_MASK + 1)
        {
            throw new ExceptionInInitializerError("more header kinds than an entry's kind bits hold");
        }
    }

    private MessageHeaders(final byte[] bytes, final int capacity, final int texts)
    {
        this(bytes, capacity, texts, false);
    }

    /** {@code inTail}: the index is the last {@link #tailBytes}({@code capacity}) bytes of {@code bytes}. */
    private MessageHeaders(final byte[] bytes, final int capacity, final int texts, final boolean inTail)
    {
        this.bytes = bytes;
        this.index = inTail ? null : new char[capacity * ENTRY + 1];
        this.tail = inTail ? (char)capacity : 0;
        this.firstTexts = (char)Math.clamp(texts, 1, MAX_ENTRIES);
    }

    /**
     * The bytes a received message's copy needs past the message for the index of its {@code headers} entries
     * ({@link #of}), or 0 when it holds more than an index has room for.
     */
    public static int tailBytes(final int headers)
    {
        return headers > MAX_ENTRIES ? 0 : 2 * (headers * ENTRY + 1);
    }

    /** An empty header section (a request made by the container), over no base bytes: every entry is text. */
    public static MessageHeaders empty(final int capacity)
    {
        return new MessageHeaders(null, capacity, capacity);
    }

    /**
     * An empty header section whose entries may refer to {@code base}'s bytes (see {@link #copyFrom}).
     *
     * @param texts how many entries its maker expects to be text (inserted, or copied from text): the first length
     *              of the values array, which doubles past it.
     */
    public static MessageHeaders over(final MessageHeaders base, final int capacity, final int texts)
    {
        final MessageHeaders h = new MessageHeaders(base.bytes, capacity, texts);
        h.tail = base.tail; // the base's index may be in the bytes' tail: not this section's to write
        return h;
    }

    /**
     * The header section of a received message, indexing {@code bytes}, which hold a copy of {@code message}'s
     * head from {@code message.offset()} ({@link ReceivedCopy#head}: the body has an array of its own), and
     * {@link #tailBytes} more for the index when there is room (then written there: the copy is the section's).
     *
     * @param message borrowed, parsed OK.
     */
    public static MessageHeaders of(final SipMessage message, final byte[] bytes)
    {
        final int n = message.headerCount();
        final int length = ReceivedCopy.headLength(message);
        final MessageHeaders h = new MessageHeaders(bytes, n, RECEIVED_TEXTS,
            n > 0 && tailBytes(n) > 0 && bytes.length - length >= tailBytes(n));
        final int shift = message.offset();
        for (int i = 0; i < n; i++)
        {
            final int s = i * ENTRY;
            final int kind = message.headerName(i).ordinal();
            final int valueStart = message.headerValueStart(i) - shift;
            final int valueEnd = message.headerValueEnd(i) - shift;
            if (valueEnd <= MAX_POSITION && valueEnd - valueStart <= SHORT)
            {
                h.ix(s, kind | (valueEnd - valueStart) << KIND_BITS);
                h.ix(s + 1, valueStart);
                continue;
            }
            final int slot = h.freeSlot();
            if (valueEnd <= MAX_POSITION)
            {
                h.values[slot] = new LongSpan((char)valueStart, (char)valueEnd);
                h.ix(s, kind | LONG << KIND_BITS);
                h.ix(s + 1, slot);
                continue;
            }
            // beyond what a char holds (a header section over 64 KiB, which only TCP can carry): kept as text
            final String value = HeaderValues.unfold(bytes, valueStart, valueEnd);
            if (HeaderName.UNKNOWN.ordinal() == kind)
            {
                final int nameStart = message.headerNameStart(i) - shift;
                h.values[slot] = new NamedText(new String(bytes, nameStart,
                    message.headerNameEnd(i) - shift - nameStart, StandardCharsets.US_ASCII), value);
            }
            else
            {
                h.values[slot] = value;
            }
            h.ix(s, kind | TEXT << KIND_BITS);
            h.ix(s + 1, slot);
        }
        h.size(n);
        return h;
    }

    /**
     * Where the value of entry {@code i} is in {@link #bytes()}, packed as {@code start << 32 | end}, or -1 when the
     * value is text (edited, or beyond 64 KiB).
     */
    public long valueSpan(final int i)
    {
        final int start = spanStart(i);
        return start < 0 ? -1 : (long)start << 32 | spanEnd(i);
    }

    /** Where the value of spanned entry {@code i} starts in {@link #bytes()}; -1 for a text entry. */
    private int spanStart(final int i)
    {
        final int s = i * ENTRY;
        final int mark = ix(s) >>> KIND_BITS;
        return mark <= SHORT ? ix(s + 1) : LONG == mark ? ((LongSpan)values[ix(s + 1)]).start : -1;
    }

    /** Where the value of spanned entry {@code i} ends in {@link #bytes()}; -1 for a text entry. */
    private int spanEnd(final int i)
    {
        final int s = i * ENTRY;
        final int mark = ix(s) >>> KIND_BITS;
        return mark <= SHORT ? ix(s + 1) + mark : LONG == mark ? ((LongSpan)values[ix(s + 1)]).end : -1;
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
        return spanStart(i);
    }

    @Override
    public int headerValueEnd(final int i)
    {
        return spanEnd(i);
    }

    /** The base bytes the spans index (may be null). */
    public byte[] bytes()
    {
        return bytes;
    }

    /** The length of the head in the base bytes (without an index in their tail, nor the body); -1 without them. */
    public int baseLength()
    {
        return null == bytes ? -1 : bytes.length - (0 == tail ? 0 : tailBytes(tail));
    }

    public int size()
    {
        return ix(indexLength() - 1);
    }

    private void size(final int n)
    {
        ix(indexLength() - 1, n);
    }

    /** Char {@code k} of the index: of {@link #index}, or of the tail of {@link #bytes} (see above). */
    private int ix(final int k)
    {
        if (null != index)
        {
            return index[k];
        }
        final int at = bytes.length - 2 * (tail * ENTRY + 1) + 2 * k;
        return (bytes[at] & 0xFF) << 8 | bytes[at + 1] & 0xFF;
    }

    /** Sets char {@code k} of the index to {@code c} (0..65535). */
    private void ix(final int k, final int c)
    {
        if (null != index)
        {
            index[k] = (char)c;
            return;
        }
        final int at = bytes.length - 2 * (tail * ENTRY + 1) + 2 * k;
        bytes[at] = (byte)(c >>> 8);
        bytes[at + 1] = (byte)c;
    }

    /** The chars of the index: its entries' and the count's. */
    private int indexLength()
    {
        return null != index ? index.length : tail * ENTRY + 1;
    }

    /** The canonical or written name of entry {@code i}. */
    public String name(final int i)
    {
        final HeaderName k = NAMES[kind(i)];
        if (HeaderName.UNKNOWN != k)
        {
            return k.canonical();
        }
        final String written = textName(i);
        if (null != written)
        {
            return written;
        }
        final int end = HeaderValues.nameEnd(bytes, spanStart(i));
        final int start = HeaderValues.nameStart(bytes, end);
        return new String(bytes, start, end - start, StandardCharsets.US_ASCII);
    }

    /** The value of entry {@code i} (folding replaced by one space, RFC 3261 §7.3.1); cached. */
    public String value(final int i)
    {
        final int s = i * ENTRY;
        final int mark = ix(s) >>> KIND_BITS;
        if (TEXT == mark)
        {
            final CharSequence v = text(i);
            if (v instanceof String text)
            {
                return text;
            }
            final String made = v.toString();
            final int slot = ix(s + 1);
            if (values[slot] instanceof NamedText named)
            {
                named.value = made;
            }
            else
            {
                values[slot] = made;
            }
            return made;
        }
        if (LONG == mark)
        {
            final LongSpan span = (LongSpan)values[ix(s + 1)];
            if (null == span.text)
            {
                span.text = HeaderValues.unfold(bytes, span.start, span.end);
            }
            return span.text;
        }
        final int start = ix(s + 1);
        final String read = readSpan(start, start + mark);
        if (null != read)
        {
            return read;
        }
        final String made = HeaderValues.unfold(bytes, start, start + mark);
        // folded or not ASCII: compared as text, so that reading it again does not take another slot
        final int same = equalString(made);
        if (same >= 0 || (null != values && values.length > MAX_CACHE_SLOTS))
        {
            return same >= 0 ? (String)values[same] : made; // past the slots kept for reads: made again when read
        }
        final int slot = freeSlot(); // before values is read: it may make or grow the array
        values[slot] = made;
        return made;
    }

    /**
     * The value of a short span as one of the Strings made once ({@link CommonValues}), or as a String of this
     * section with the same characters (read before, or a text entry's), without making one; else null.
     */
    private String readSpan(final int start, final int end)
    {
        final String common = CommonValues.of(bytes, start, end);
        if (null != common || null == values)
        {
            return common;
        }
        final int length = end - start;
        for (final Object v : values)
        {
            if (v instanceof String text && text.length() == length && sameAscii(text, start))
            {
                return text;
            }
        }
        return null;
    }

    /** Whether {@code text} is the ASCII bytes at {@code start} (a folded value's line breaks match no text). */
    private boolean sameAscii(final String text, final int start)
    {
        for (int j = 0; j < text.length(); j++)
        {
            final byte b = bytes[start + j];
            if (b != text.charAt(j) || '\r' == b || '\n' == b)
            {
                return false;
            }
        }
        return true;
    }

    /** The slot of a String of this section equal to {@code text}, or -1. */
    private int equalString(final String text)
    {
        if (null != values)
        {
            for (int k = 0; k < values.length; k++)
            {
                if (values[k] instanceof String other && other.equals(text))
                {
                    return k;
                }
            }
        }
        return -1;
    }

    /** True when entry {@code i} is named {@code name} (a known header by any of its forms, or case-insensitively). */
    public boolean is(final int i, final HeaderName k, final String name)
    {
        if (HeaderName.UNKNOWN != k)
        {
            return kind(i) == k.ordinal();
        }
        if (HeaderName.UNKNOWN.ordinal() != kind(i))
        {
            return false;
        }
        final String written = textName(i);
        if (null != written)
        {
            return written.equalsIgnoreCase(name);
        }
        final int end = HeaderValues.nameEnd(bytes, spanStart(i));
        final int start = HeaderValues.nameStart(bytes, end);
        final int len = end - start;
        if (len != name.length())
        {
            return false;
        }
        for (int j = 0; j < len; j++)
        {
            if (Character.toLowerCase((char)bytes[start + j]) != Character.toLowerCase(name.charAt(j)))
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
            final int start = spanStart(i);
            if (start >= 0 ? Ascii.listContains(bytes, start, spanEnd(i), token, true)
                : HeaderValues.listContains(value(i), token))
            {
                return true;
            }
        }
        return false;
    }

    /** Index of the first entry of a known header at or after {@code from}, or -1. */
    public int find(final HeaderName k, final int from)
    {
        final int kind = k.ordinal();
        final int n = size();
        final char[] ix = index;
        // an index in the tail (see ix(int)): an entry's kind is in the low byte of its first big-endian char
        final int low = null == ix ? bytes.length - 2 * (tail * ENTRY + 1) + 1 : 0;
        for (int i = from; i < n; i++)
        {
            if (((null != ix ? ix[i * ENTRY] : bytes[low + 2 * ENTRY * i]) & KIND_MASK) == kind)
            {
                return i;
            }
        }
        return -1;
    }

    private int find(final HeaderName k, final String name, final int from)
    {
        for (int i = from; i < size(); i++)
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
        final int start = spanStart(i);
        if (start < 0)
        {
            if (text(i) instanceof CSeqText cseq)
            {
                return cseq.number();
            }
            final String v = value(i);
            return HeaderValues.leadingNumber(null, v, 0, v.length());
        }
        return HeaderValues.leadingNumber(bytes, null, start, spanEnd(i));
    }

    /**
     * Folds the value of entry {@code i} into an FNV-1a style hash without making a String (a proxy's loop hash,
     * RFC 3261 §16.6 step 8): the received bytes, or the text when the entry was edited.
     */
    public int mixValue(final int i, final int seed)
    {
        int x = seed;
        final int start = spanStart(i);
        if (start >= 0)
        {
            for (int p = start; p < spanEnd(i); p++)
            {
                x = (x ^ (bytes[p] & 0xFF)) * 0x01000193;
            }
        }
        else
        {
            final String v = value(i);
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

    /**
     * As {@link #get(HeaderName)}, but a String made from the bytes is not cached in the section: for a caller that
     * keeps the value itself (a dialog's Call-ID), so that a section no one else reads as text makes no value array.
     */
    public String getUncached(final HeaderName k)
    {
        final int i = find(k, 0);
        if (i < 0 || ix(i * ENTRY) >>> KIND_BITS > SHORT)
        {
            return i < 0 ? null : value(i);
        }
        final int start = ix(i * ENTRY + 1);
        final int end = spanEnd(i);
        final String read = readSpan(start, end);
        return null != read ? read : HeaderValues.unfold(bytes, start, end);
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
        for (int i = 0; i < size(); i++)
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
        final int kind = k.ordinal();
        int n = 0;
        for (int i = 0; i < size(); i++)
        {
            if (kind(i) == kind)
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
        for (int i = 0; i < size(); i++)
        {
            if (is(i, k, name))
            {
                if (first < 0)
                {
                    first = w;
                }
                release(i);
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
        release(i);
        for (int j = i + 1; j < size(); j++)
        {
            move(j, j - 1);
        }
        clearFrom(size() - 1);
    }

    /** Replaces every value of a header with one, where the first was (else at the end). */
    public void set(final String name, final String value)
    {
        final int at = remove(name);
        insert(at < 0 ? size() : at, name, value);
    }

    /** Replaces the value of entry {@code i}. */
    public void setValue(final int i, final String value)
    {
        setText(i, value);
    }

    /** Replaces the value of entry {@code i} with one the container writes from its parts, without a String of it. */
    public void setValue(final int i, final WrittenText value)
    {
        setText(i, value);
    }

    private void setText(final int i, final CharSequence value)
    {
        requireValue(value);
        final int kind = kind(i);
        // a spanned entry's name is read from the bytes before its value, which is no longer spanned
        final CharSequence text = HeaderName.UNKNOWN.ordinal() == kind ? new NamedText(name(i), value) : value;
        int slot = slot(i) >= 0 ? slot(i) : readSlot(i);
        if (slot < 0)
        {
            slot = freeSlot();
        }
        values[slot] = text;
        textEntry(i, kind, slot);
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
        insert(last < 0 ? size() : last + 1, name, value);
    }

    /** Inserts a value before the first value of that header (else at the end): pushRoute, a new top Via. */
    public void addFirst(final String name, final String value)
    {
        final int first = find(name, 0);
        insert(first < 0 ? size() : first, name, value);
    }

    /** Inserts a text entry at position {@code at}. */
    public void insert(final int at, final String name, final String value)
    {
        insertText(at, name, value);
    }

    /**
     * Inserts an entry the container writes from its parts (a tagged From or To, a CSeq, a Call-ID it made) at
     * position {@code at}, without a String of it.
     */
    public void insert(final int at, final String name, final WrittenText value)
    {
        insertText(at, name, value);
    }

    private void insertText(final int at, final String name, final CharSequence value)
    {
        requireValue(value);
        final HeaderName k = HeaderName.lookup(name);
        final int i = open(at);
        final int slot = freeSlot();
        values[slot] = HeaderName.UNKNOWN == k ? new NamedText(name, value) : value;
        textEntry(i, k.ordinal(), slot);
    }

    /** Makes entry {@code i} a text entry of header {@code kind} whose value is in {@code slot}. */
    private void textEntry(final int i, final int kind, final int slot)
    {
        ix(i * ENTRY, (kind | TEXT << KIND_BITS));
        ix(i * ENTRY + 1, slot);
    }

    /** A text entry's value is never null: a null slot is a free one. */
    private static void requireValue(final CharSequence value)
    {
        if (null == value)
        {
            throw new NullPointerException("header value");
        }
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

    /**
     * Appends entry {@code i} of {@code from}: a spanned entry over the same base bytes shares them (the text
     * {@code from} may have cached is not carried: it is made again if read here), any other is copied as text.
     */
    public void appendEntry(final MessageHeaders from, final int i)
    {
        final int f = i * ENTRY;
        final int kind = from.kind(i);
        final int mark = from.ix(f) >>> KIND_BITS;
        if (TEXT != mark && from.bytes == bytes)
        {
            final int first = from.ix(f);
            final int second = from.ix(f + 1);
            final LongSpan span = LONG == mark ? (LongSpan)from.values[second] : null;
            final int s = open(size()) * ENTRY;
            if (null == span)
            {
                ix(s, first); // the span; a String from may have read is not carried
                ix(s + 1, second);
                return;
            }
            final int slot = freeSlot();
            values[slot] = new LongSpan(span.start, span.end); // the entry's own: it caches its String
            ix(s, (kind | LONG << KIND_BITS));
            ix(s + 1, slot);
            return;
        }
        // a text entry's String, TaggedParty or CSeqText is immutable: shared as it is, not made into text here
        final CharSequence text = TEXT == mark ? from.text(i) : from.value(i);
        // a NamedText is the entry's own (its value is cached into it): a new one for the copy
        final CharSequence value = HeaderName.UNKNOWN.ordinal() == kind ? new NamedText(from.name(i), text) : text;
        final int at = open(size());
        final int slot = freeSlot();
        values[slot] = value;
        textEntry(at, kind, slot);
    }

    /** The known header of entry {@code i} ({@link HeaderName#UNKNOWN} for extension headers). */
    public HeaderName known(final int i)
    {
        return NAMES[kind(i)];
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
        HeaderSectionWriter.write(this, out, skip);
    }

    /** The HeaderName ordinal of entry {@code i}. */
    private int kind(final int i)
    {
        return ix(i * ENTRY) & KIND_MASK;
    }

    /**
     * The slot of entry {@code i} in {@link #values}: a text entry's or a long span's, else -1 (a String read from a
     * short span stays in its slot while the section lives: another entry may read the same characters).
     */
    private int slot(final int i)
    {
        return ix(i * ENTRY) >>> KIND_BITS >= LONG ? ix(i * ENTRY + 1) : -1;
    }

    /**
     * A free slot of {@link #values} (null), the array made or doubled when there is none; the caller fills it at
     * once, before another slot is asked for.
     */
    private int freeSlot()
    {
        if (null == values)
        {
            values = new Object[firstTexts];
            return 0;
        }
        for (int k = 0; k < values.length; k++)
        {
            if (null == values[k])
            {
                return k;
            }
        }
        final int n = values.length;
        values = Arrays.copyOf(values, Math.max(2, 2 * n));
        return n;
    }

    /** Frees the slot of entry {@code i}, which is being removed: its own, or that of the String read from it. */
    private void release(final int i)
    {
        final int slot = slot(i) >= 0 ? slot(i) : readSlot(i);
        if (slot >= 0)
        {
            values[slot] = null;
        }
    }

    /**
     * The slot of the String read from short span {@code i} when no text entry holds it, so that an edit or removal
     * of the entry takes or frees it (another entry that read the same characters makes its String again); else -1.
     */
    private int readSlot(final int i)
    {
        final int s = i * ENTRY;
        final int mark = ix(s) >>> KIND_BITS;
        if (mark > SHORT || null == values)
        {
            return -1;
        }
        final int start = ix(s + 1);
        for (int k = 0; k < values.length; k++)
        {
            if (values[k] instanceof String text && text.length() == mark && sameAscii(text, start))
            {
                return heldByText(k) ? -1 : k;
            }
        }
        return -1;
    }

    /** Whether a text entry's value is in slot {@code k}. */
    private boolean heldByText(final int k)
    {
        for (int i = 0; i < size(); i++)
        {
            if (ix(i * ENTRY) >>> KIND_BITS == TEXT && ix(i * ENTRY + 1) == k)
            {
                return true;
            }
        }
        return false;
    }

    /** The text of entry {@code i} (a String, {@link TaggedParty} or {@link CSeqText}), or null when it has none. */
    CharSequence text(final int i)
    {
        if (ix(i * ENTRY) >>> KIND_BITS != TEXT)
        {
            return null;
        }
        final Object v = values[ix(i * ENTRY + 1)];
        return v instanceof NamedText named ? named.value : (CharSequence)v;
    }

    /** The written name of text extension entry {@code i}, or null for any other entry. */
    String textName(final int i)
    {
        return ix(i * ENTRY) >>> KIND_BITS == TEXT && values[ix(i * ENTRY + 1)] instanceof NamedText named
            ? named.name : null;
    }

    private int open(final int at)
    {
        final int count = size();
        if (count * ENTRY == indexLength() - 1)
        {
            if (MAX_ENTRIES == count)
            {
                throw new IllegalStateException("a header section holds at most " + MAX_ENTRIES + " values");
            }
            final int n = Math.min(MAX_ENTRIES, Math.max(4, count * 2));
            final char[] grown = new char[n * ENTRY + 1];
            for (int k = 0; k < count * ENTRY; k++)
            {
                grown[k] = (char)ix(k); // the old count's place stays 0: the kind of the first new entry
            }
            index = grown;
        }
        for (int j = count; j > at; j--)
        {
            move(j - 1, j);
        }
        size(count + 1);
        return at;
    }

    private void move(final int from, final int to)
    {
        if (from == to)
        {
            return;
        }
        ix(to * ENTRY, ix(from * ENTRY)); // its slot goes with it
        ix(to * ENTRY + 1, ix(from * ENTRY + 1));
    }

    /** Drops the entries from {@code newCount} on: their places, not slots (those of removed entries are freed). */
    private void clearFrom(final int newCount)
    {
        final int count = size();
        for (int i = newCount; i < count; i++)
        {
            ix(i * ENTRY, 0);
        }
        size(newCount);
    }
}
