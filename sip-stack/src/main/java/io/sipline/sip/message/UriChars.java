package io.sipline.sip.message;

/**
 * The character classes of URIs, one bit each in a table indexed by byte: RFC 3261 §25.1 (user, password, parameter,
 * header, reserved, host and scheme characters) and RFC 3966 §3 for tel URIs (visual separators, uric); escapes are
 * handled by the scanners. Also the small tel rules built on them.
 *
 * <p>Stateless and thread-safe; the table is filled once, at class initialisation.
 */
final class UriChars
{
    /** unreserved = alphanum / mark. */
    static final int C_UNRESERVED = 1;
    /** user-unreserved = "&amp;" / "=" / "+" / "$" / "," / ";" / "?" / "/". */
    static final int C_USER = 2;
    /** The extra password characters: "&amp;" / "=" / "+" / "$" / ",". */
    static final int C_PASSWORD = 4;
    /** param-unreserved = "[" / "]" / "/" / ":" / "&amp;" / "+" / "$". */
    static final int C_PARAM = 8;
    /** hnv-unreserved = "[" / "]" / "/" / "?" / ":" / "+" / "$". */
    static final int C_HNV = 16;
    /** reserved = ";" / "/" / "?" / ":" / "@" / "&amp;" / "=" / "+" / "$" / ",". */
    static final int C_RESERVED = 32;
    /** Characters of a hostname or IPv4 address: alphanum / "-" / ".". */
    static final int C_HOST = 64;
    /** RFC 3966 visual-separator = "-" / "." / "(" / ")". */
    static final int C_SEPARATOR = 128;
    /** RFC 3966 uric without ";" (the parameter delimiter), for the isub value. */
    static final int C_URIC_NO_SEMI = 256;
    /** RFC 3261 §25.1 scheme characters after the first: ALPHA / DIGIT / "+" / "-" / ".". */
    static final int C_SCHEME = 512;

    static final short[] CLASS = new short[256];

    static
    {
        for (int c = 0; c < 128; c++)
        {
            final byte b = (byte)c;
            int bits = 0;
            if (Ascii.isUnreserved(b))
            {
                bits |= C_UNRESERVED | C_URIC_NO_SEMI;
            }
            if (Ascii.isAlpha(b) || Ascii.isDigit(b))
            {
                bits |= C_HOST | C_SCHEME;
            }
            CLASS[c] = (short)bits;
        }
        mark("&=+$,;?/", C_USER);
        mark("&=+$,", C_PASSWORD);
        mark("[]/:&+$", C_PARAM);
        mark("[]/?:+$", C_HNV);
        mark(";/?:@&=+$,", C_RESERVED);
        mark("/?:@&=+$,", C_URIC_NO_SEMI);
        mark("-.", C_HOST);
        mark("-.()", C_SEPARATOR);
        mark("+-.", C_SCHEME);
    }

    private UriChars()
    {
    }

    /** RFC 3261 §25.1 {@code reserved}. */
    static boolean isReserved(final int c)
    {
        return c >= 0 && c < 256 && (CLASS[c] & C_RESERVED) != 0;
    }

    /** RFC 3966 §3 {@code visual-separator}. */
    static boolean isVisualSeparator(final byte b)
    {
        return (CLASS[b & 0xFF] & C_SEPARATOR) != 0;
    }

    static boolean is(final byte b, final int mask)
    {
        return (CLASS[b & 0xFF] & mask) != 0;
    }

    static boolean isAlphanum(final byte b)
    {
        return Ascii.isAlpha(b) || Ascii.isDigit(b);
    }

    /** RFC 3966 §3: HEXDIG / "*" / "#", the significant characters of a local number. */
    static boolean isLocalDigit(final byte b)
    {
        return Ascii.isHexDigit(b) || b == '*' || b == '#';
    }

    /** RFC 3966 §3: 1*phonedigit, phonedigit = DIGIT / visual-separator. */
    static boolean isPhoneDigits(final byte[] buf, final int start, final int end)
    {
        if (start >= end)
        {
            return false;
        }
        for (int i = start; i < end; i++)
        {
            if (!Ascii.isDigit(buf[i]) && !isVisualSeparator(buf[i]))
            {
                return false;
            }
        }
        return true;
    }

    /** RFC 3966 §3: descriptor = domainname / global-number-digits. */
    static boolean isDescriptor(final byte[] buf, final int start, final int end)
    {
        if (start < end && buf[start] == '+')
        {
            boolean digit = false;
            for (int i = start + 1; i < end; i++)
            {
                if (Ascii.isDigit(buf[i]))
                {
                    digit = true;
                }
                else if (!isVisualSeparator(buf[i]))
                {
                    return false;
                }
            }
            return digit;
        }
        return UriHosts.isHostname(buf, start, end);
    }

    static void mark(final String chars, final int bit)
    {
        for (int i = 0; i < chars.length(); i++)
        {
            CLASS[chars.charAt(i)] |= (short)bit;
        }
    }
}
