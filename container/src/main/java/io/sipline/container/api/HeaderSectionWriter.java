package io.sipline.container.api;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.HeaderName;

/**
 * Writes a {@link MessageHeaders} section as {@code Name: value CRLF} lines: a known header under its canonical name,
 * an extension header under the name it was written or received with; a received value as its bytes, a text value
 * as UTF-8 (a {@link WrittenText} from its parts, without a String of the whole).
 * <p>
 * Stateless; called on the thread that owns the message. The buffer is borrowed: bytes are appended.
 */
final class HeaderSectionWriter
{
    private static final byte[][] CANONICAL = HeaderValues.canonicalNames();

    private HeaderSectionWriter()
    {
    }

    /**
     * Writes every entry of {@code h} but entry {@code skip} (-1 skips nothing) and Content-Length (the message
     * writer adds it from the body).
     */
    static void write(final MessageHeaders h, final ByteBuf out, final int skip)
    {
        final byte[] bytes = h.bytes();
        for (int i = 0; i < h.size(); i++)
        {
            final HeaderName k = h.known(i);
            if (HeaderName.CONTENT_LENGTH == k || i == skip)
            {
                continue;
            }
            final long span = h.valueSpan(i);
            final int start = span < 0 ? -1 : (int)(span >>> 32);
            if (HeaderName.UNKNOWN != k)
            {
                out.writeBytes(CANONICAL[k.ordinal()]);
            }
            else if (null != h.textName(i))
            {
                Utf8Text.write(out, h.textName(i));
            }
            else
            {
                final int end = HeaderValues.nameEnd(bytes, start);
                final int nameStart = HeaderValues.nameStart(bytes, end);
                out.writeBytes(bytes, nameStart, end - nameStart);
            }
            out.writeShort(MessageHeaders.COLON_SPACE);
            final CharSequence text = start >= 0 ? null : h.text(i);
            if (start >= 0)
            {
                out.writeBytes(bytes, start, (int)span - start);
            }
            else
            {
                Utf8Text.write(out, text);
            }
            out.writeShort(MessageHeaders.CRLF);
        }
    }
}
