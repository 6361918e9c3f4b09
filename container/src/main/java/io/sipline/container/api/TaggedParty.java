package io.sipline.container.api;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;

/**
 * A From or To value the container writes with a tag (RFC 3261 §8.1.1.3, §8.2.6.2, §12.2.1.1): the party (a
 * name-addr or addr-spec without tag) and the tag, kept apart so that a header section holds it as one entry and
 * writes it from both texts; the whole value is made into a String only when someone reads the header
 * ({@link MessageHeaders#value}). The party is a String, or a span of a received request's plain ASCII bytes (the
 * parties of a B2BUA's copy of it, the To of a UAS's responses), which no one writes, kept in this object itself
 * ({@link #span}): no view object besides. The tag is a String, an {@link IdText}, or the exact bytes of a remote tag
 * ({@link #withTagBytes}), made into a String only when read.
 * <p>
 * A dialog keeps one for the From and one for the To of its requests, and a UAS session one for the To of the
 * responses to its initial request: every message of the dialog carries the same object. One without tag is itself
 * a party: {@link HeaderText#partyWithoutTag} hands a received party out as one, and {@link #ofParty} of it without
 * a tag is that object.
 * <p>
 * A {@link CharSequence} of that text, so that a header section's values are one type; reading it char by char makes
 * no String. Immutable, so shared by messages of any thread; holds no buffer.
 */
public abstract sealed class TaggedParty implements WrittenText
{
    private static final byte[] TAG = {';', 't', 'a', 'g', '='};
    /** Spans are kept as two 16-bit positions ({@link Span}); a party past them is read as text instead. */
    private static final int MAX_SPAN_POSITION = 0xFFFF;

    private TaggedParty()
    {
    }

    /** {@code value} with its tag set to {@code tag}, or removed when null, as {@link HeaderText#withTag} writes it. */
    public static TaggedParty of(final String value, final CharSequence tag)
    {
        return new Text(HeaderText.withoutParam(value, "tag"), tag);
    }

    /**
     * {@code party} (a String, or a party {@link #span} without tag) with {@code tag} (a String or an {@link IdText});
     * {@code party} has no tag: a dialog's. A span without tag given without tag is returned as it is.
     */
    public static TaggedParty ofParty(final CharSequence party, final CharSequence tag)
    {
        if (party instanceof Span s)
        {
            return null == tag && null == s.tag ? s : new Span(s.bytes, s.span, tag);
        }
        return party instanceof String text ? of(text, tag) : new Text(party, tag);
    }

    /**
     * The party at {@code [start, end)} of {@code bytes} (plain ASCII, never written: a received message's) with
     * {@code tag} (null: none), kept as that span; null when the span is past 16-bit positions.
     */
    static TaggedParty span(final byte[] bytes, final int start, final int end, final CharSequence tag)
    {
        return end > MAX_SPAN_POSITION || start < 0 || start > end ? null : new Span(bytes, start << 16 | end, tag);
    }

    /**
     * {@code party} (a String, or a party {@link #span} without tag) with the tag whose UTF-8 bytes are all of
     * {@code tag} (owned by the result, never written): a remote tag, made into a String only when read; a tag that is
     * not plain ASCII (never a token, RFC 3261 §25.1) is made into one at once.
     */
    static TaggedParty withTagBytes(final CharSequence party, final byte[] tag)
    {
        final CharSequence p = party instanceof Span || party instanceof String ? party : party.toString();
        return AsciiSpan.isAscii(tag, 0, tag.length) ? new BytesTag(p, tag)
            : new Text(p, new String(tag, StandardCharsets.UTF_8));
    }

    /** The tag as a String, or null when there is none. */
    abstract String tag();

    @Override
    public CharSequence subSequence(final int start, final int end)
    {
        return toString().subSequence(start, end);
    }

    private static int tagLength(final CharSequence tag)
    {
        return null == tag ? 0 : TAG.length + tag.length();
    }

    private static char tagChar(final CharSequence tag, final int inTag)
    {
        return inTag < TAG.length ? (char)TAG[inTag] : tag.charAt(inTag - TAG.length);
    }

    private static void writeTag(final ByteBuf out, final CharSequence tag)
    {
        if (null != tag)
        {
            out.writeBytes(TAG);
            Utf8Text.write(out, tag);
        }
    }

    /** The party as text (a String, or a {@link Span} without tag), the tag as text or null. */
    private static final class Text extends TaggedParty
    {
        private final CharSequence party;
        private final CharSequence tag;

        Text(final CharSequence party, final CharSequence tag)
        {
            this.party = party;
            this.tag = tag;
        }

        @Override
        String tag()
        {
            return null == tag ? null : tag.toString();
        }

        @Override
        public void writeTo(final ByteBuf out)
        {
            Utf8Text.write(out, party);
            writeTag(out, tag);
        }

        @Override
        public int length()
        {
            return party.length() + tagLength(tag);
        }

        @Override
        public char charAt(final int i)
        {
            final int inTag = i - party.length();
            return inTag < 0 || null == tag ? party.charAt(i) : tagChar(tag, inTag);
        }

        /** The whole value, {@code party;tag=tag}: a new String each time. */
        @Override
        public String toString()
        {
            return null == tag ? party.toString() : party + ";tag=" + tag;
        }
    }

    /** The party as a span of received ASCII bytes (start and end as 16-bit halves of one int), the tag as text. */
    private static final class Span extends TaggedParty
    {
        private final byte[] bytes;
        private final int span;
        private final CharSequence tag;

        Span(final byte[] bytes, final int span, final CharSequence tag)
        {
            this.bytes = bytes;
            this.span = span;
            this.tag = tag;
        }

        private int start()
        {
            return span >>> 16;
        }

        private int partyLength()
        {
            return (span & 0xFFFF) - start();
        }

        @Override
        String tag()
        {
            return null == tag ? null : tag.toString();
        }

        @Override
        public void writeTo(final ByteBuf out)
        {
            out.writeBytes(bytes, start(), partyLength()); // ASCII: its own UTF-8
            writeTag(out, tag);
        }

        @Override
        public int length()
        {
            return partyLength() + tagLength(tag);
        }

        @Override
        public char charAt(final int i)
        {
            final int inTag = i - partyLength();
            if (inTag < 0 || null == tag)
            {
                if (i < 0 || inTag >= 0)
                {
                    throw new IndexOutOfBoundsException(i);
                }
                return (char)bytes[start() + i];
            }
            return tagChar(tag, inTag);
        }

        /** The whole value, {@code party;tag=tag}: a new String each time. */
        @Override
        public String toString()
        {
            final String party = new String(bytes, start(), partyLength(), StandardCharsets.US_ASCII);
            return null == tag ? party : party + ";tag=" + tag;
        }
    }

    /** The party as text (a String, or a {@link Span} without tag), the tag as its exact bytes, plain ASCII. */
    private static final class BytesTag extends TaggedParty
    {
        private final CharSequence party;
        private final byte[] tag;

        BytesTag(final CharSequence party, final byte[] tag)
        {
            this.party = party;
            this.tag = tag;
        }

        @Override
        String tag()
        {
            return new String(tag, StandardCharsets.US_ASCII);
        }

        @Override
        public void writeTo(final ByteBuf out)
        {
            Utf8Text.write(out, party);
            out.writeBytes(TAG);
            out.writeBytes(tag);
        }

        @Override
        public int length()
        {
            return party.length() + TAG.length + tag.length;
        }

        @Override
        public char charAt(final int i)
        {
            final int inTag = i - party.length();
            if (inTag < 0)
            {
                return party.charAt(i);
            }
            return inTag < TAG.length ? (char)TAG[inTag] : (char)tag[inTag - TAG.length]; // ASCII: byte for char
        }

        /** The whole value, {@code party;tag=tag}: a new String each time. */
        @Override
        public String toString()
        {
            return party + ";tag=" + tag();
        }
    }
}
