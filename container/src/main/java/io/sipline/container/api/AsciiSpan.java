package io.sipline.container.api;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;

/**
 * A span of ASCII bytes read as characters, byte for char: how a party of a received request that is no plain
 * {@link TaggedParty} span is handed on as text ({@link HeaderText#partyWithoutTag}) without making a String of it.
 * Only for bytes below 0x80 ({@link #isAscii}); a byte above would read as another character.
 * <p>
 * Immutable over bytes that are never written (a received message's copy); holds no buffer.
 */
final class AsciiSpan implements CharSequence
{
    private final byte[] bytes;
    private final int start;
    private final int end;

    AsciiSpan(final byte[] bytes, final int start, final int end)
    {
        this.bytes = bytes;
        this.start = start;
        this.end = end;
    }

    /** Whether every byte of {@code [start, end)} is ASCII. */
    static boolean isAscii(final byte[] bytes, final int start, final int end)
    {
        for (int i = start; i < end; i++)
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
        return end - start;
    }

    @Override
    public char charAt(final int i)
    {
        return (char)bytes[start + i];
    }

    @Override
    public CharSequence subSequence(final int from, final int to)
    {
        return new AsciiSpan(bytes, start + from, start + to);
    }

    /** Appends the span's bytes, which are its UTF-8 (ASCII: one byte per char). */
    void writeTo(final ByteBuf out)
    {
        out.writeBytes(bytes, start, end - start);
    }

    /** The span as a new String. */
    @Override
    public String toString()
    {
        return new String(bytes, start, end - start, StandardCharsets.US_ASCII);
    }
}
