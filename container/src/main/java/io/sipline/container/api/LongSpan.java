package io.sipline.container.api;

/**
 * The value of a {@link MessageHeaders} entry longer than the entry's length bits hold: where it is in the section's
 * bytes, and its String once read. Belongs to one entry of one section.
 * <p>
 * Threading: that of its section (not thread-safe).
 */
final class LongSpan
{
    final char start;
    final char end;
    String text;

    LongSpan(final char start, final char end)
    {
        this.start = start;
        this.end = end;
    }
}
