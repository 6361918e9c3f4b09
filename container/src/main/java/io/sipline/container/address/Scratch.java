package io.sipline.container.address;

import io.sipline.sip.message.NameAddrFlyweight;
import io.sipline.sip.message.SipUriFlyweight;

/**
 * Per-thread parse scratch: a byte buffer that a {@code String} is encoded into, and the stack's flyweights that
 * read it ({@link SipUriFlyweight}, {@link NameAddrFlyweight}). Parsing and comparing through these leaves no garbage
 * behind beyond the objects handed to the caller.
 *
 * <p>Threading: one instance per thread (a {@link ThreadLocal}); never shared, never held across a call that could
 * use the same scratch again. A shard thread makes its scratch once; a virtual thread (applications marked blocking)
 * makes one the first time it parses or reads a URI, about 2 KB (three URI views with their tables, one address view,
 * a 256-byte buffer), which is garbage when the virtual thread ends. {@link #first} serves reads of one URI,
 * {@link #second} the other side of a comparison or the validation of an edited URI, {@link #nameAddr} (with its own
 * URI view) parsing addresses.
 */
final class Scratch
{
    /** Inputs longer than this are encoded into a buffer of their own rather than growing the per-thread one. */
    private static final int MAX_KEPT_BYTES = 8192;

    private static final ThreadLocal<Scratch> LOCAL = ThreadLocal.withInitial(Scratch::new);

    final SipUriFlyweight first = new SipUriFlyweight(SipUriFlyweight.MAX_LIMIT, SipUriFlyweight.MAX_LIMIT);
    final SipUriFlyweight second = new SipUriFlyweight(SipUriFlyweight.MAX_LIMIT, SipUriFlyweight.MAX_LIMIT);
    final NameAddrFlyweight nameAddr = new NameAddrFlyweight(
        SipUriFlyweight.MAX_LIMIT, new SipUriFlyweight(SipUriFlyweight.MAX_LIMIT, SipUriFlyweight.MAX_LIMIT));

    private byte[] buf = new byte[256];

    private Scratch()
    {
    }

    /** The calling thread's scratch. */
    static Scratch get()
    {
        return LOCAL.get();
    }

    /**
     * Encodes {@code text} as UTF-8 (ASCII byte for byte; a lone surrogate becomes the invalid byte 0xFF) into a
     * buffer that is valid until the next call on this thread; the number of bytes written is left in
     * {@link #encodedLength}.
     *
     * @return the buffer holding the bytes from index 0.
     */
    byte[] encode(final String text)
    {
        final int chars = text.length();
        final int worst = chars * 3;
        byte[] out = buf;
        if (worst > out.length)
        {
            out = new byte[worst];
            if (worst <= MAX_KEPT_BYTES)
            {
                buf = out;
            }
        }
        int n = 0;
        for (int i = 0; i < chars; i++)
        {
            final char c = text.charAt(i);
            if (c < 0x80)
            {
                out[n++] = (byte)c;
            }
            else if (c < 0x800)
            {
                out[n++] = (byte)(0xC0 | (c >> 6));
                out[n++] = (byte)(0x80 | (c & 0x3F));
            }
            else if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(text.charAt(i + 1)))
            {
                // 4 bytes for 2 chars: still within 3 bytes per char.
                final int cp = Character.toCodePoint(c, text.charAt(++i));
                out[n++] = (byte)(0xF0 | (cp >> 18));
                out[n++] = (byte)(0x80 | ((cp >> 12) & 0x3F));
                out[n++] = (byte)(0x80 | ((cp >> 6) & 0x3F));
                out[n++] = (byte)(0x80 | (cp & 0x3F));
            }
            else if (Character.isSurrogate(c))
            {
                // A lone surrogate is no character: 0xFF is invalid in every grammar here and in UTF-8.
                out[n++] = (byte)0xFF;
            }
            else
            {
                out[n++] = (byte)(0xE0 | (c >> 12));
                out[n++] = (byte)(0x80 | ((c >> 6) & 0x3F));
                out[n++] = (byte)(0x80 | (c & 0x3F));
            }
        }
        encodedLength = n;
        return out;
    }

    /** Bytes written by the last {@link #encode(String)} or {@link #copy}. */
    int encodedLength;

    /**
     * Copies {@code [start, end)} of {@code src} (bytes that are never written, a message's) into the buffer, which a
     * parse may then compact in place; the number of bytes is left in {@link #encodedLength}.
     *
     * @return the buffer holding the bytes from index 0.
     */
    byte[] copy(final byte[] src, final int start, final int end)
    {
        final int n = end - start;
        byte[] out = buf;
        if (n > out.length)
        {
            out = new byte[n];
            if (n <= MAX_KEPT_BYTES)
            {
                buf = out;
            }
        }
        System.arraycopy(src, start, out, 0, n);
        encodedLength = n;
        return out;
    }

    /**
     * The index in {@code text} of the character that byte {@code byteOffset} of its UTF-8 encoding belongs to
     * (for error messages that point into the caller's string).
     */
    static int charIndex(final String text, final int byteOffset)
    {
        int bytes = 0;
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            final boolean pair = Character.isHighSurrogate(c) && i + 1 < text.length() &&
                Character.isLowSurrogate(text.charAt(i + 1));
            final int width = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : Character.isSurrogate(c) ? 1 : 3;
            if (bytes + width > byteOffset)
            {
                return i;
            }
            bytes += width;
            if (pair)
            {
                i++;
            }
        }
        return text.length();
    }
}
