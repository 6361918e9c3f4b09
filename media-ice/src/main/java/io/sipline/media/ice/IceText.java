package io.sipline.media.ice;

/**
 * Character-level helpers for the RFC 8839 grammar: {@code ice-char}, digits, and IPv4/IPv6 literals parsed and
 * written without {@link java.net.InetAddress} (which would resolve names) and without regular expressions.
 *
 * <p>Stateless; thread-safe.
 */
final class IceText
{
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private IceText()
    {
    }

    /**
     * RFC 8839 §5.1: {@code ice-char = ALPHA / DIGIT / "+" / "/"}.
     *
     * @param c a character.
     * @return whether it is an ice-char.
     */
    static boolean isIceChar(final char c)
    {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    }

    static boolean isDigit(final char c)
    {
        return c >= '0' && c <= '9';
    }

    /**
     * RFC 4566 {@code token-char}: visible ASCII except the separators it excludes.
     */
    static boolean isTokenChar(final char c)
    {
        return c == '!' || (c >= '#' && c <= '\'') || c == '*' || c == '+' || c == '-' || c == '.'
            || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= '^' && c <= '~');
    }

    static boolean regionEquals(final CharSequence text, final int start, final int end, final String expected)
    {
        if (end - start != expected.length())
        {
            return false;
        }
        for (int i = 0; i < expected.length(); i++)
        {
            if (text.charAt(start + i) != expected.charAt(i))
            {
                return false;
            }
        }
        return true;
    }

    static boolean regionEqualsIgnoreCase(final CharSequence text, final int start, final int end,
        final String expected)
    {
        if (end - start != expected.length())
        {
            return false;
        }
        for (int i = 0; i < expected.length(); i++)
        {
            final char a = text.charAt(start + i);
            final char b = expected.charAt(i);
            if (a != b && Character.toLowerCase(a) != Character.toLowerCase(b))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Parses {@code 1*maxDigits DIGIT}.
     *
     * @return the value, or -1 if the region is empty, too long or holds a non-digit.
     */
    static long parseDigits(final CharSequence text, final int start, final int end, final int maxDigits)
    {
        final int length = end - start;
        if (length < 1 || length > maxDigits)
        {
            return -1;
        }
        long value = 0;
        for (int i = start; i < end; i++)
        {
            final char c = text.charAt(i);
            if (!isDigit(c))
            {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    /**
     * Parses a dotted-quad IPv4 literal strictly (four decimal octets, no leading-zero octal forms longer than 3
     * digits, nothing else).
     *
     * @return the address as an unsigned 32-bit value, or -1.
     */
    static long parseIpv4(final CharSequence text, final int start, final int end)
    {
        long address = 0;
        int octets = 0;
        int position = start;
        while (position <= end && octets < 4)
        {
            int stop = position;
            while (stop < end && text.charAt(stop) != '.')
            {
                stop++;
            }
            final long octet = parseDigits(text, position, stop, 3);
            if (octet < 0 || octet > 255)
            {
                return -1;
            }
            address = (address << 8) | octet;
            octets++;
            position = stop + 1;
            if (stop == end)
            {
                break;
            }
        }
        return octets == 4 && position == end + 1 ? address : -1;
    }

    /**
     * Parses an IPv6 literal (RFC 4291 §2.2: eight groups, one {@code ::}, an optional trailing dotted IPv4). Zone
     * ids and brackets are refused.
     *
     * @param out receives the high 64 bits at [0] and the low 64 bits at [1].
     * @return whether the region is a valid literal.
     */
    static boolean parseIpv6(final CharSequence text, final int start, final int end, final long[] out)
    {
        final int[] groups = new int[8];
        int count = 0;
        int gap = -1;
        int position = start;
        if (end - start < 2)
        {
            return false;
        }
        if (text.charAt(position) == ':')
        {
            if (text.charAt(position + 1) != ':')
            {
                return false;
            }
            gap = 0;
            position += 2;
        }
        while (position < end)
        {
            if (count == 8)
            {
                return false;
            }
            int stop = position;
            int value = 0;
            while (stop < end && stop - position < 5)
            {
                final int digit = Character.digit(text.charAt(stop), 16);
                if (digit < 0 || text.charAt(stop) > 'f')
                {
                    break;
                }
                value = (value << 4) | digit;
                stop++;
            }
            if (stop < end && text.charAt(stop) == '.')
            {
                // Trailing IPv4 (RFC 4291 §2.2 form 3).
                if (count > 6)
                {
                    return false;
                }
                final long v4 = parseIpv4(text, position, end);
                if (v4 < 0)
                {
                    return false;
                }
                groups[count++] = (int) (v4 >>> 16);
                groups[count++] = (int) (v4 & 0xFFFF);
                position = end;
                break;
            }
            if (stop == position || stop - position > 4)
            {
                return false;
            }
            groups[count++] = value;
            position = stop;
            if (position == end)
            {
                break;
            }
            if (text.charAt(position) != ':')
            {
                return false;
            }
            position++;
            if (position < end && text.charAt(position) == ':')
            {
                if (gap >= 0)
                {
                    return false;
                }
                gap = count;
                position++;
            }
            else if (position == end)
            {
                return false;
            }
        }
        return pack(groups, count, gap, out);
    }

    /** Expands the "::" gap of the parsed groups (RFC 4291 §2.2) and packs the 8 groups into two longs. */
    private static boolean pack(final int[] groups, final int count, final int gap, final long[] out)
    {
        if (gap < 0 ? count != 8 : count > 7)
        {
            return false;
        }
        final int[] full = new int[8];
        if (gap < 0)
        {
            System.arraycopy(groups, 0, full, 0, 8);
        }
        else
        {
            final int tail = count - gap;
            System.arraycopy(groups, 0, full, 0, gap);
            System.arraycopy(groups, gap, full, 8 - tail, tail);
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 4; i++)
        {
            hi = (hi << 16) | full[i];
            lo = (lo << 16) | full[i + 4];
        }
        out[0] = hi;
        out[1] = lo;
        return true;
    }

    /**
     * A host name as RFC 8839 §5.1 {@code FQDN} allows (letters, digits, hyphens and dots; e.g. an mDNS
     * {@code uuid.local} name). A name made only of digits and dots is refused: it is a broken IPv4 literal.
     */
    static boolean isFqdn(final CharSequence text, final int start, final int end)
    {
        if (end - start < 1 || end - start > 253)
        {
            return false;
        }
        boolean letter = false;
        int labelLength = 0;
        for (int i = start; i < end; i++)
        {
            final char c = text.charAt(i);
            if (c == '.')
            {
                if (labelLength == 0)
                {
                    return false;
                }
                labelLength = 0;
                continue;
            }
            final boolean alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            if (!alpha && !isDigit(c) && c != '-')
            {
                return false;
            }
            letter |= alpha || c == '-';
            labelLength++;
            if (labelLength > 63)
            {
                return false;
            }
        }
        return letter && labelLength > 0;
    }

    static void appendIpv4(final StringBuilder out, final long address)
    {
        out.append((address >>> 24) & 0xFF).append('.').append((address >>> 16) & 0xFF).append('.')
            .append((address >>> 8) & 0xFF).append('.').append(address & 0xFF);
    }

    /**
     * Writes an IPv6 address in the RFC 5952 canonical text form (lower case, no leading zeros, the longest run of
     * two or more zero groups — the first if tied — as {@code ::}).
     */
    static void appendIpv6(final StringBuilder out, final long hi, final long lo)
    {
        int bestStart = -1;
        int bestLength = 1;
        int runStart = -1;
        for (int i = 0; i < 8; i++)
        {
            if (group(hi, lo, i) == 0)
            {
                if (runStart < 0)
                {
                    runStart = i;
                }
                if (i - runStart + 1 > bestLength)
                {
                    bestStart = runStart;
                    bestLength = i - runStart + 1;
                }
            }
            else
            {
                runStart = -1;
            }
        }
        for (int i = 0; i < 8; i++)
        {
            if (i == bestStart)
            {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (i > 0 && i != bestStart + bestLength)
            {
                out.append(':');
            }
            final int value = group(hi, lo, i);
            boolean started = false;
            for (int shift = 12; shift >= 0; shift -= 4)
            {
                final int nibble = (value >>> shift) & 0xF;
                if (nibble != 0 || started || shift == 0)
                {
                    out.append(HEX[nibble]);
                    started = true;
                }
            }
        }
    }

    private static int group(final long hi, final long lo, final int index)
    {
        final long word = index < 4 ? hi : lo;
        return (int) ((word >>> (48 - 16 * (index & 3))) & 0xFFFF);
    }
}
