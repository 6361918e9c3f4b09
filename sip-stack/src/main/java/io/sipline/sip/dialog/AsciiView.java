package io.sipline.sip.dialog;

import java.nio.charset.StandardCharsets;

/**
 * A reusable {@link CharSequence} over ASCII bytes, re-pointed with {@link #wrap} (as Agrona's
 * {@code AsciiSequenceView}): lets the dialog writer hand a stored URI to {@code SipMessageBuilder} without a
 * {@code String}. Only for bytes below 0x80 (a byte above would be re-encoded); the writer checks.
 *
 * <p>Not thread-safe; owned by its writer.
 */
final class AsciiView implements CharSequence
{
    private byte[] buf;
    private int start;
    private int length;

    AsciiView wrap(final byte[] bytes, final int from, final int to)
    {
        buf = bytes;
        start = from;
        length = to - from;
        return this;
    }

    /** True when every byte of the span is ASCII, so that the view's chars are its bytes. */
    static boolean isAscii(final byte[] bytes, final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            if (bytes[i] < 0)
            {
                return false;
            }
        }
        return true;
    }

    @Override
    public int length()
    {
        return length;
    }

    @Override
    public char charAt(final int index)
    {
        return (char)(buf[start + index] & 0xFF);
    }

    /** Allocates; not used on the writer's path. */
    @Override
    public CharSequence subSequence(final int from, final int to)
    {
        return toString().substring(from, to);
    }

    /** Allocates; not used on the writer's path. */
    @Override
    public String toString()
    {
        return new String(buf, start, length, StandardCharsets.US_ASCII);
    }
}
