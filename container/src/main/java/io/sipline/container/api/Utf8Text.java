package io.sipline.container.api;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * Writes the text of an outbound message (a method, a reason phrase, a Via, From/To parties, tags, Call-IDs, other
 * header values) into its buffer as UTF-8, the same bytes Netty's {@code writeCharSequence} writes: each kind of text
 * it is given (a {@link String}, an {@link AsciiSpan} of received bytes, the {@link StringBuilder} of a Via) has a
 * loop of its own, so that reading a character is a call the compiler inlines, not a call through
 * {@link CharSequence} that one shared loop would make for every character of every kind; an ASCII run goes into the
 * buffer byte for char, the rest of a text from its first non-ASCII character through Netty's encoder.
 * <p>
 * Stateless; called on the thread that owns the message. The buffer is borrowed: bytes are appended at its writer
 * index.
 */
final class Utf8Text
{
    private Utf8Text()
    {
    }

    /** Appends {@code text} as UTF-8. */
    static void write(final ByteBuf out, final CharSequence text)
    {
        if (text instanceof String s)
        {
            write(out, s);
        }
        else if (text instanceof AsciiSpan span)
        {
            span.writeTo(out);
        }
        else if (text instanceof StringBuilder b)
        {
            write(out, b);
        }
        else
        {
            out.writeCharSequence(text, StandardCharsets.UTF_8);
        }
    }

    /** Appends {@code text} as UTF-8. */
    static void write(final ByteBuf out, final String text)
    {
        final int n = text.length();
        out.ensureWritable(n);
        final int at = out.writerIndex();
        int i = 0;
        for (; i < n; i++)
        {
            final char c = text.charAt(i);
            if (c >= 0x80)
            {
                break;
            }
            out.setByte(at + i, c);
        }
        out.writerIndex(at + i);
        if (i < n)
        {
            ByteBufUtil.writeUtf8(out, text, i, n);
        }
    }

    /**
     * Appends {@code text} as UTF-8: the String loop's twin on purpose, as one loop over {@link CharSequence} would
     * make its {@code charAt} a call through the interface again.
     */
    static void write(final ByteBuf out, final StringBuilder text)
    {
        final int n = text.length();
        out.ensureWritable(n);
        final int at = out.writerIndex();
        int i = 0;
        for (; i < n; i++)
        {
            final char c = text.charAt(i);
            if (c >= 0x80)
            {
                break;
            }
            out.setByte(at + i, c);
        }
        out.writerIndex(at + i);
        if (i < n)
        {
            ByteBufUtil.writeUtf8(out, text, i, n);
        }
    }
}
