package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class Utf8TextTest
{
    /**
     * ASCII, Latin-1, a BMP character, a surrogate pair (U+1F600) and a lone surrogate, mid-text and at the end; ASCII
     * runs longer than the writer's per-thread array, one ending at its end and non-ASCII at the edges of a piece.
     */
    private static final String[] TEXTS = {
        "", "INVITE", "\"Alice\" <sip:alice@example.com>", "Ren\u00e9 <sip:rene@example.com>",
        "\"\u5f20\u4f1f\" <sip:zw@example.cn>;x=1", "smile \ud83d\ude00 <sip:s@example.com>", "lone \ud800 x",
        "end \u00e9", "tail \ud83d", "x".repeat(3000), "x".repeat(Utf8Text.SCRATCH_BYTES),
        "x".repeat(Utf8Text.SCRATCH_BYTES) + "\u00e9" + "y".repeat(600),
        "x".repeat(Utf8Text.SCRATCH_BYTES - 1) + "\u5f20" + "y".repeat(Utf8Text.SCRATCH_BYTES + 1)};

    /** What Netty's {@code writeCharSequence(text, UTF_8)} writes, the bytes the writer must keep. */
    private static byte[] netty(final CharSequence text)
    {
        final ByteBuf out = Unpooled.buffer();
        try
        {
            out.writeCharSequence(text, StandardCharsets.UTF_8);
            return ByteBufUtil.getBytes(out);
        }
        finally
        {
            out.release();
        }
    }

    /** What {@link Utf8Text#write(ByteBuf, CharSequence)} appends after a prefix, into a direct buffer that grows. */
    private static byte[] written(final CharSequence text)
    {
        final ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(8);
        try
        {
            out.writeBytes(new byte[] {'a', 'b', 'c'});
            Utf8Text.write(out, text);
            final byte[] all = ByteBufUtil.getBytes(out);
            assertEquals('c', all[2]);
            return java.util.Arrays.copyOfRange(all, 3, all.length);
        }
        finally
        {
            out.release();
        }
    }

    @Test
    void shouldWriteAStringAsNettysUtf8EncoderDoes()
    {
        for (final String text : TEXTS)
        {
            assertArrayEquals(netty(text), written(text), text);
        }
    }

    @Test
    void shouldWriteAStringBuilderAsNettysUtf8EncoderDoes()
    {
        for (final String text : TEXTS)
        {
            assertArrayEquals(netty(text), written(new StringBuilder(text)), text);
        }
    }

    @Test
    void shouldWriteOtherCharSequencesAsNettysUtf8EncoderDoes()
    {
        for (final String text : TEXTS)
        {
            assertArrayEquals(netty(text), written(CharBuffer.wrap(text)), text);
        }
    }

    @Test
    void shouldWriteAnAsciiSpanAsItsBytes()
    {
        final byte[] bytes = "From: <sip:bob@example.com>;tag=9".getBytes(StandardCharsets.US_ASCII);
        final AsciiSpan span = new AsciiSpan(bytes, 6, 27);
        assertArrayEquals(netty(span), written(span));
        assertArrayEquals("<sip:bob@example.com>".getBytes(StandardCharsets.US_ASCII), written(span));
    }
}
