package io.sipline.container.api;

import io.netty.buffer.ByteBuf;

/**
 * A From or To value the container writes with a tag (RFC 3261 §8.1.1.3, §8.2.6.2, §12.2.1.1): the party (a
 * name-addr or addr-spec without tag) and the tag, kept apart so that a header section holds it as one entry and
 * writes it from both texts; the whole value is made into a String only when someone reads the header
 * ({@link MessageHeaders#value}). The party is a String, or an {@link AsciiSpan} of a received request's bytes (the
 * parties of a B2BUA's copy of it), which no one writes.
 * <p>
 * A dialog keeps one for the From and one for the To of its requests, and a UAS session one for the To of the
 * responses to its initial request: every message of the dialog carries the same object.
 * <p>
 * A {@link CharSequence} of that text, so that a header section's values are one type; reading it char by char makes
 * no String. Immutable, so shared by messages of any thread; holds no buffer.
 */
public final class TaggedParty implements WrittenText
{
    private static final byte[] TAG = {';', 't', 'a', 'g', '='};

    private final CharSequence party;
    /**
     * A String, or an {@link IdText} (a local tag the container made, written from its numbers); null for a party
     * without tag (a To before the peer tagged the dialog).
     */
    private final CharSequence tag;

    private TaggedParty(final CharSequence party, final CharSequence tag)
    {
        this.party = party;
        this.tag = tag;
    }

    /** {@code value} with its tag set to {@code tag}, or removed when null, as {@link HeaderText#withTag} writes it. */
    public static TaggedParty of(final String value, final CharSequence tag)
    {
        return new TaggedParty(HeaderText.withoutParam(value, "tag"), tag);
    }

    /**
     * {@code party} (a String or an {@link AsciiSpan}) with {@code tag} (a String or an {@link IdText}); {@code party}
     * has no tag: a dialog's.
     */
    public static TaggedParty ofParty(final CharSequence party, final CharSequence tag)
    {
        return party instanceof String text ? of(text, tag) : new TaggedParty(party, tag);
    }

    @Override
    public void writeTo(final ByteBuf out)
    {
        Utf8Text.write(out, party);
        if (null != tag)
        {
            out.writeBytes(TAG);
            Utf8Text.write(out, tag);
        }
    }

    @Override
    public int length()
    {
        return party.length() + (null == tag ? 0 : TAG.length + tag.length());
    }

    @Override
    public char charAt(final int i)
    {
        final int inTag = i - party.length();
        if (inTag < 0 || null == tag)
        {
            return party.charAt(i);
        }
        return inTag < TAG.length ? (char)TAG[inTag] : tag.charAt(inTag - TAG.length);
    }

    @Override
    public CharSequence subSequence(final int start, final int end)
    {
        return toString().subSequence(start, end);
    }

    /** The whole value, {@code party;tag=tag}: a new String each time. */
    @Override
    public String toString()
    {
        return null == tag ? party.toString() : party + ";tag=" + tag;
    }
}
