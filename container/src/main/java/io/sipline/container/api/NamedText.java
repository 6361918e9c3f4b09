package io.sipline.container.api;

/**
 * An extension header's name and value, for an entry whose value is text: the name a spanned entry reads from
 * the bytes before its value. Belongs to one entry of one {@link MessageHeaders} (its value is cached into it).
 * <p>
 * Threading: that of its section (not thread-safe).
 */
final class NamedText implements CharSequence
{
    final String name;
    /** A String, or text set by the container that is made into a String when read. */
    CharSequence value;

    NamedText(final String name, final CharSequence value)
    {
        this.name = name;
        this.value = value;
    }

    @Override
    public int length()
    {
        return value.length();
    }

    @Override
    public char charAt(final int i)
    {
        return value.charAt(i);
    }

    @Override
    public CharSequence subSequence(final int start, final int end)
    {
        return value.subSequence(start, end);
    }

    @Override
    public String toString()
    {
        return value.toString();
    }
}
