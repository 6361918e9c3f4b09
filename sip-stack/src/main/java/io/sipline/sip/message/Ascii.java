package io.sipline.sip.message;

import java.nio.charset.StandardCharsets;

/**
 * Byte-level helpers for the SIP grammar (RFC 3261 §25), used where the bytes lie: no {@code String}, no
 * {@code toLowerCase()}, no allocation. Spans are half-open: {@code [start, end)}.
 *
 * <p>Stateless and thread-safe.
 */
public final class Ascii
{
    public static final byte CR = '\r';
    public static final byte LF = '\n';
    public static final byte SP = ' ';
    public static final byte HTAB = '\t';
    /** FNV-1a 64-bit offset basis and prime, for {@link #fnv64} and the tables keyed by hashed spans. */
    public static final long FNV64_OFFSET = 0xCBF29CE484222325L;
    public static final long FNV64_PRIME = 0x100000001B3L;

    private static final int TOKEN = 1;
    private static final int WSP = 2;
    private static final int DIGIT = 4;
    private static final int HEX = 8;
    private static final int ALPHA = 16;
    /** RFC 3261 §25.1 {@code unreserved} = alphanum / mark. */
    private static final int UNRESERVED = 32;

    private static final byte[] CLASS = new byte[256];
    private static final byte[] LOWER = new byte[256];

    static
    {
        for (int c = 0; c < 256; c++)
        {
            LOWER[c] = (byte)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        for (int c = '0'; c <= '9'; c++)
        {
            CLASS[c] |= TOKEN | DIGIT | HEX | UNRESERVED;
        }
        for (int c = 'a'; c <= 'z'; c++)
        {
            CLASS[c] |= TOKEN | ALPHA | UNRESERVED;
            CLASS[c - 32] |= TOKEN | ALPHA | UNRESERVED;
        }
        for (int c = 'a'; c <= 'f'; c++)
        {
            CLASS[c] |= HEX;
            CLASS[c - 32] |= HEX;
        }
        // token = 1*(alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~")  (RFC 3261 §25.1)
        for (final char c : "-.!%*_+`'~".toCharArray())
        {
            CLASS[c] |= TOKEN;
        }
        // mark = "-" / "_" / "." / "!" / "~" / "*" / "'" / "(" / ")"
        for (final char c : "-_.!~*'()".toCharArray())
        {
            CLASS[c] |= UNRESERVED;
        }
        CLASS[' '] |= WSP;
        CLASS['\t'] |= WSP;
    }

    private Ascii()
    {
    }

    /** ASCII lower case of one byte; bytes outside A-Z are returned unchanged. */
    public static byte lower(final byte b)
    {
        return LOWER[b & 0xFF];
    }

    /** RFC 3261 {@code token} character. */
    public static boolean isTokenChar(final byte b)
    {
        return (CLASS[b & 0xFF] & TOKEN) != 0;
    }

    /** SP or HTAB. */
    public static boolean isWsp(final byte b)
    {
        return (CLASS[b & 0xFF] & WSP) != 0;
    }

    /** SP, HTAB, CR or LF: linear white space once folding is allowed for. */
    public static boolean isLws(final byte b)
    {
        return b == SP || b == HTAB || b == CR || b == LF;
    }

    public static boolean isDigit(final byte b)
    {
        return (CLASS[b & 0xFF] & DIGIT) != 0;
    }

    public static boolean isHexDigit(final byte b)
    {
        return (CLASS[b & 0xFF] & HEX) != 0;
    }

    public static boolean isAlpha(final byte b)
    {
        return (CLASS[b & 0xFF] & ALPHA) != 0;
    }

    /** RFC 3261 §25.1 {@code unreserved}. */
    public static boolean isUnreserved(final byte b)
    {
        return (CLASS[b & 0xFF] & UNRESERVED) != 0;
    }

    /** Value of a hex digit, or -1. */
    public static int hexValue(final byte b)
    {
        if (b >= '0' && b <= '9')
        {
            return b - '0';
        }
        final int l = LOWER[b & 0xFF];
        if (l >= 'a' && l <= 'f')
        {
            return l - 'a' + 10;
        }
        return -1;
    }

    /**
     * True when the comma-separated token list in {@code buf[start, end)} (a line of Require, Supported, Allow, ...)
     * has {@code token} as one of its items, linear white space around items ignored; no allocation.
     */
    public static boolean listContains(final byte[] buf, final int start, final int end, final CharSequence token,
        final boolean ignoreCase)
    {
        int p = start;
        while (p < end)
        {
            int q = p;
            while (q < end && buf[q] != ',')
            {
                q++;
            }
            final int ts = skipLws(buf, p, q);
            final int te = trimEnd(buf, ts, q);
            if (ignoreCase ? equalsIgnoreCase(buf, ts, te, token) : equals(buf, ts, te, token))
            {
                return true;
            }
            p = q + 1;
        }
        return false;
    }

    /** First index in {@code [start, end)} that is not linear white space (SP, HTAB, CR, LF); {@code end} if none. */
    public static int skipLws(final byte[] buf, final int start, final int end)
    {
        int i = start;
        while (i < end && isLws(buf[i]))
        {
            i++;
        }
        return i;
    }

    /** End of the span once trailing linear white space is removed; never less than {@code start}. */
    public static int trimEnd(final byte[] buf, final int start, final int end)
    {
        int e = end;
        while (e > start && isLws(buf[e - 1]))
        {
            e--;
        }
        return e;
    }

    /** First index of {@code b} in {@code [start, end)}, or -1. */
    public static int indexOf(final byte[] buf, final int start, final int end, final byte b)
    {
        for (int i = start; i < end; i++)
        {
            if (buf[i] == b)
            {
                return i;
            }
        }
        return -1;
    }

    /** First index in {@code [start, end)} where the bytes {@code literal} start (exact case), or -1. */
    public static int indexOf(final byte[] buf, final int start, final int end, final byte[] literal)
    {
        outer:
        for (int i = start; i <= end - literal.length; i++)
        {
            for (int j = 0; j < literal.length; j++)
            {
                if (buf[i + j] != literal[j])
                {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /**
     * Compares a span with an ASCII literal ignoring case.
     *
     * @param lowerLiteral the literal, already in lower case.
     */
    public static boolean equalsIgnoreCase(final byte[] buf, final int start, final int end, final byte[] lowerLiteral)
    {
        final int len = end - start;
        if (len != lowerLiteral.length)
        {
            return false;
        }
        for (int i = 0; i < len; i++)
        {
            if (LOWER[buf[start + i] & 0xFF] != lowerLiteral[i])
            {
                return false;
            }
        }
        return true;
    }

    /** Compares a span with an ASCII literal ignoring case; {@code literal} may be in any case. */
    public static boolean equalsIgnoreCase(final byte[] buf, final int start, final int end, final CharSequence literal)
    {
        final int len = end - start;
        if (len != literal.length())
        {
            return false;
        }
        for (int i = 0; i < len; i++)
        {
            final char c = literal.charAt(i);
            if (c > 0x7F || LOWER[buf[start + i] & 0xFF] != LOWER[c])
            {
                return false;
            }
        }
        return true;
    }

    /** Compares two spans ignoring ASCII case. */
    public static boolean equalsIgnoreCase(
        final byte[] a, final int aStart, final int aEnd, final byte[] b, final int bStart, final int bEnd)
    {
        final int len = aEnd - aStart;
        if (len != bEnd - bStart)
        {
            return false;
        }
        for (int i = 0; i < len; i++)
        {
            if (LOWER[a[aStart + i] & 0xFF] != LOWER[b[bStart + i] & 0xFF])
            {
                return false;
            }
        }
        return true;
    }

    /** Compares two spans byte for byte. */
    public static boolean equals(
        final byte[] a, final int aStart, final int aEnd, final byte[] b, final int bStart, final int bEnd)
    {
        return java.util.Arrays.equals(a, aStart, aEnd, b, bStart, bEnd);
    }

    /** Compares a span with an ASCII literal byte for byte. */
    public static boolean equals(final byte[] buf, final int start, final int end, final CharSequence literal)
    {
        final int len = end - start;
        if (len != literal.length())
        {
            return false;
        }
        for (int i = 0; i < len; i++)
        {
            if ((buf[start + i] & 0xFF) != literal.charAt(i))
            {
                return false;
            }
        }
        return true;
    }

    /** True when the span starts with the lower-case literal, ignoring case. */
    public static boolean startsWithIgnoreCase(
        final byte[] buf, final int start, final int end, final byte[] lowerLiteral)
    {
        if (end - start < lowerLiteral.length)
        {
            return false;
        }
        for (int i = 0; i < lowerLiteral.length; i++)
        {
            if (LOWER[buf[start + i] & 0xFF] != lowerLiteral[i])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Parses a non-negative decimal number that must fill the span.
     *
     * @return the value, or -1 when the span is empty, holds a non-digit, or exceeds {@code Long.MAX_VALUE / 10}.
     */
    public static long parseNatural(final byte[] buf, final int start, final int end)
    {
        if (start >= end)
        {
            return -1;
        }
        long value = 0;
        for (int i = start; i < end; i++)
        {
            final int d = buf[i] - '0';
            if (d < 0 || d > 9 || value > (Long.MAX_VALUE - 9) / 10)
            {
                return -1;
            }
            value = value * 10 + d;
        }
        return value;
    }

    /** Lower-case ASCII bytes of a literal, for the {@code lowerLiteral} parameters above. */
    public static byte[] lowerBytes(final String literal)
    {
        final byte[] b = literal.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < b.length; i++)
        {
            b[i] = LOWER[b[i] & 0xFF];
        }
        return b;
    }

    /** Decodes a span as UTF-8 (SIP text is UTF-8, RFC 3261 §7.3.1). Allocates: use off the hot path, or cache. */
    public static String string(final byte[] buf, final int start, final int end)
    {
        return new String(buf, start, end - start, StandardCharsets.UTF_8);
    }

    /**
     * Continues a 64-bit FNV-1a hash over a span: the one hash behind the per-shard tables keyed by bytes
     * (transactions by branch, dialogs by Call-ID and tags). Pass {@link #FNV64_OFFSET} (or a salted one) to start.
     */
    public static long fnv64(final long seed, final byte[] buf, final int start, final int end)
    {
        long h = seed;
        for (int i = start; i < end; i++)
        {
            h = (h ^ (buf[i] & 0xFF)) * FNV64_PRIME;
        }
        return h;
    }

    /** As {@link #fnv64}, over the span's ASCII lower case (for tokens compared ignoring case, like branches). */
    public static long fnv64IgnoreCase(final long seed, final byte[] buf, final int start, final int end)
    {
        long h = seed;
        for (int i = start; i < end; i++)
        {
            h = (h ^ (LOWER[buf[i] & 0xFF] & 0xFF)) * FNV64_PRIME;
        }
        return h;
    }
}
