package io.sipline.sip.dialog;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A small reusable byte array and the length in use: how a {@link Dialog} keeps its Call-ID, tags, addresses, remote
 * target and route set without a {@code String}. The array grows to the largest value it has held and is kept when
 * the dialog is recycled, so a pooled dialog stores the next call's ids without allocating; only an array grown past
 * {@link #KEPT_FACTOR} times the slot's initial size (a header of kilobytes) is dropped at recycling
 * ({@link #recycle()}), so that a pool does not keep the largest value any message ever brought, once per record.
 *
 * <p>Not thread-safe; owned by one shard (through the dialog that holds it). {@link #bytes()} is the live array: read
 * it, never keep it past the dialog's life, never write it.
 */
public final class ByteSlot
{
    /** A recycled slot keeps its array up to this many times its initial size. */
    static final int KEPT_FACTOR = 8;

    private final int initialCapacity;
    private byte[] bytes;
    private int length;

    ByteSlot(final int initialCapacity)
    {
        this.initialCapacity = initialCapacity;
        bytes = new byte[initialCapacity];
    }

    /** The backing array; valid bytes are {@code [0, length())}. Borrowed: do not modify or keep. */
    public byte[] bytes()
    {
        return bytes;
    }

    public int length()
    {
        return length;
    }

    public boolean isEmpty()
    {
        return 0 == length;
    }

    /** True when the held bytes equal the span {@code [start, end)} of {@code other}, byte for byte. */
    public boolean contentEquals(final byte[] other, final int start, final int end)
    {
        return Arrays.equals(bytes, 0, length, other, start, end);
    }

    /** True when the held bytes equal the ASCII text, character for byte. */
    public boolean contentEquals(final CharSequence text)
    {
        if (text.length() != length)
        {
            return false;
        }
        for (int i = 0; i < length; i++)
        {
            if ((bytes[i] & 0xFF) != text.charAt(i))
            {
                return false;
            }
        }
        return true;
    }

    /** The bytes as UTF-8 text. Allocates: for tests, logs and the API objects, never the per-message path. */
    @Override
    public String toString()
    {
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
    }

    /** The span {@code [start, end)} of the held bytes as UTF-8 text. Allocates. */
    public String toString(final int start, final int end)
    {
        return new String(bytes, start, end - start, StandardCharsets.UTF_8);
    }

    // --- writes (package-private: only the dialog layer changes dialog state) --------------------------------------

    void clear()
    {
        length = 0;
    }

    /** Empties the slot for the record's next use; an outsized array goes back to the initial size. */
    void recycle()
    {
        length = 0;
        if (bytes.length > KEPT_FACTOR * initialCapacity)
        {
            bytes = new byte[initialCapacity]; // rare: only after a value far beyond what calls carry
        }
    }

    void set(final byte[] src, final int start, final int end)
    {
        length = 0;
        append(src, start, end);
    }

    /** Replaces the contents with text, UTF-8 encoded; allocates nothing (chars go straight into the array). */
    void set(final CharSequence text)
    {
        length = 0;
        append(text);
    }

    void append(final byte b)
    {
        ensure(length + 1);
        bytes[length++] = b;
    }

    void append(final byte[] src, final int start, final int end)
    {
        final int n = end - start;
        ensure(length + n);
        System.arraycopy(src, start, bytes, length, n);
        length += n;
    }

    void append(final CharSequence text)
    {
        final int n = text.length();
        ensure(length + n * 3);
        for (int i = 0; i < n; i++)
        {
            final char c = text.charAt(i);
            if (c < 0x80)
            {
                bytes[length++] = (byte)c;
            }
            else if (c < 0x800)
            {
                bytes[length++] = (byte)(0xC0 | (c >>> 6));
                bytes[length++] = (byte)(0x80 | (c & 0x3F));
            }
            else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1)))
            {
                final int cp = Character.toCodePoint(c, text.charAt(++i));
                ensure(length + 4 + (n - i) * 3);
                bytes[length++] = (byte)(0xF0 | (cp >>> 18));
                bytes[length++] = (byte)(0x80 | ((cp >>> 12) & 0x3F));
                bytes[length++] = (byte)(0x80 | ((cp >>> 6) & 0x3F));
                bytes[length++] = (byte)(0x80 | (cp & 0x3F));
            }
            else
            {
                bytes[length++] = (byte)(0xE0 | (c >>> 12));
                bytes[length++] = (byte)(0x80 | ((c >>> 6) & 0x3F));
                bytes[length++] = (byte)(0x80 | (c & 0x3F));
            }
        }
    }

    private void ensure(final int capacity)
    {
        if (capacity > bytes.length)
        {
            bytes = Arrays.copyOf(bytes, Math.max(capacity, bytes.length * 2));
        }
    }
}
