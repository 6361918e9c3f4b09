package io.sipline.container.api;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * Writes the text of an outbound message (a method, a reason phrase, a Via, From/To parties, tags, Call-IDs, other
 * header values) into its buffer as UTF-8, the same bytes Netty's {@code writeCharSequence} writes: each kind of text
 * it is given (a {@link String}, an {@link AsciiSpan} of received bytes, the {@link StringBuilder} of a Via) has a
 * loop of its own, so that reading a character is a call the compiler inlines, not a call through
 * {@link CharSequence} that one shared loop would make for every character of every kind; an ASCII run is copied byte
 * for char into a per-thread array and goes into the buffer in one copy (a buffer written a byte at a time checks its
 * reference count and bounds for every byte), the rest of a text from its first non-ASCII character through Netty's
 * encoder.
 * <p>
 * Called on the thread that owns the message; the array of {@link #SCRATCH_BYTES} is that thread's (a
 * {@link ThreadLocal}), filled and emptied within one call. The buffer is borrowed: bytes are appended at its writer
 * index.
 */
final class Utf8Text
{
    /** The per-thread array an ASCII run is gathered in; a longer run goes in pieces of this size. */
    static final int SCRATCH_BYTES = 512;

    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[SCRATCH_BYTES]);

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
        else if (text instanceof WrittenText written)
        {
            written.writeTo(out);
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
        final byte[] ascii = SCRATCH.get();
        int i = 0;
        while (i < n)
        {
            final int piece = Math.min(n - i, ascii.length);
            int j = 0;
            for (; j < piece; j++)
            {
                final char c = text.charAt(i + j);
                if (c >= 0x80)
                {
                    break;
                }
                ascii[j] = (byte)c;
            }
            out.writeBytes(ascii, 0, j);
            i += j;
            if (j < piece)
            {
                break;
            }
        }
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
        final byte[] ascii = SCRATCH.get();
        int i = 0;
        while (i < n)
        {
            final int piece = Math.min(n - i, ascii.length);
            int j = 0;
            for (; j < piece; j++)
            {
                final char c = text.charAt(i + j);
                if (c >= 0x80)
                {
                    break;
                }
                ascii[j] = (byte)c;
            }
            out.writeBytes(ascii, 0, j);
            i += j;
            if (j < piece)
            {
                break;
            }
        }
        if (i < n)
        {
            ByteBufUtil.writeUtf8(out, text, i, n);
        }
    }
}
