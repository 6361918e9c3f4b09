package io.sipline.bench.media;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bencode, the encoding of rtpengine's ng control protocol: byte strings ({@code 4:spam}), integers
 * ({@code i42e}), lists ({@code l...e}) and dictionaries ({@code d...e}, keys sorted as raw byte strings).
 * Strings decode to {@link String} (UTF-8; the ng protocol carries SDP and ASCII tokens), integers to {@link Long},
 * lists to {@link List} and dictionaries to {@link Map} in the order read.
 *
 * <p>Stateless; threadsafe. Used on the control path only, never per media packet, so it allocates freely.
 */
public final class Bencode
{
    private Bencode()
    {
    }

    /**
     * @param value a {@link CharSequence}, {@code byte[]}, {@link Number} (integral), {@link List} or {@link Map}
     *              with {@link CharSequence} keys.
     * @return its encoding; dictionary keys in sorted order, as the format requires.
     * @throws IllegalArgumentException for any other type.
     */
    public static byte[] encode(final Object value)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        write(out, value);
        return out.toByteArray();
    }

    private static void write(final ByteArrayOutputStream out, final Object value)
    {
        switch (value)
        {
            case CharSequence s -> bytes(out, s.toString().getBytes(StandardCharsets.UTF_8));
            case byte[] b -> bytes(out, b);
            case Long n -> ascii(out, "i" + n + "e");
            case Integer n -> ascii(out, "i" + n + "e");
            case List<?> list ->
            {
                out.write('l');
                for (final Object o : list)
                {
                    write(out, o);
                }
                out.write('e');
            }
            case Map<?, ?> map ->
            {
                final TreeMap<String, Object> sorted = new TreeMap<>();
                for (final Map.Entry<?, ?> e : map.entrySet())
                {
                    if (!(e.getKey() instanceof CharSequence key))
                    {
                        throw new IllegalArgumentException("bencode dictionary key not a string: " + e.getKey());
                    }
                    sorted.put(key.toString(), e.getValue());
                }
                out.write('d');
                for (final Map.Entry<String, Object> e : sorted.entrySet())
                {
                    write(out, e.getKey());
                    write(out, e.getValue());
                }
                out.write('e');
            }
            case null, default -> throw new IllegalArgumentException("cannot bencode " + value);
        }
    }

    private static void bytes(final ByteArrayOutputStream out, final byte[] b)
    {
        ascii(out, Integer.toString(b.length));
        out.write(':');
        out.writeBytes(b);
    }

    private static void ascii(final ByteArrayOutputStream out, final String s)
    {
        out.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * @param data   the encoded bytes.
     * @param offset where the value starts.
     * @param length how many bytes it may use; bytes left over after one value are an error.
     * @return the decoded value.
     * @throws IllegalArgumentException when the bytes are not exactly one well-formed value.
     */
    public static Object decode(final byte[] data, final int offset, final int length)
    {
        final Reader r = new Reader(data, offset, offset + length);
        final Object value = r.value();
        if (r.pos != r.end)
        {
            throw new IllegalArgumentException("bencode: " + (r.end - r.pos) + " bytes after the value");
        }
        return value;
    }

    /** A cursor over the input. Not threadsafe; one per decode. */
    private static final class Reader
    {
        private final byte[] data;
        private final int end;
        private int pos;

        Reader(final byte[] data, final int pos, final int end)
        {
            this.data = data;
            this.pos = pos;
            this.end = end;
        }

        Object value()
        {
            final int c = peek();
            if ('i' == c)
            {
                pos++;
                final long n = number('e');
                return n;
            }
            if ('l' == c)
            {
                pos++;
                final List<Object> list = new ArrayList<>();
                while ('e' != peek())
                {
                    list.add(value());
                }
                pos++;
                return list;
            }
            if ('d' == c)
            {
                pos++;
                final Map<String, Object> map = new LinkedHashMap<>();
                while ('e' != peek())
                {
                    if (!Character.isDigit(peek()))
                    {
                        throw error("dictionary key is not a string");
                    }
                    final String key = string();
                    map.put(key, value());
                }
                pos++;
                return map;
            }
            if (c >= '0' && c <= '9')
            {
                return string();
            }
            throw error("unexpected '" + (char)c + "'");
        }

        private String string()
        {
            final long n = number(':');
            if (n > end - pos)
            {
                throw error("string of " + n + " bytes runs past the end");
            }
            final String s = new String(data, pos, (int)n, StandardCharsets.UTF_8);
            pos += (int)n;
            return s;
        }

        private long number(final char terminator)
        {
            final int start = pos;
            boolean negative = false;
            if (pos < end && '-' == data[pos])
            {
                negative = true;
                pos++;
            }
            long n = 0;
            int digits = 0;
            while (pos < end && data[pos] != terminator)
            {
                final int d = data[pos] - '0';
                if (d < 0 || d > 9 || digits > 18)
                {
                    pos = start;
                    throw error("bad number");
                }
                n = n * 10 + d;
                digits++;
                pos++;
            }
            if (pos >= end || 0 == digits)
            {
                pos = start;
                throw error("unterminated or empty number");
            }
            pos++;
            return negative ? -n : n;
        }

        private int peek()
        {
            if (pos >= end)
            {
                throw error("truncated");
            }
            return data[pos] & 0xFF;
        }

        private IllegalArgumentException error(final String what)
        {
            return new IllegalArgumentException("bencode: " + what + " at offset " + pos);
        }
    }
}
