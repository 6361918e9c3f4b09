package io.sipline.sip.message;

/**
 * URI equality as the RFCs define it, over wrapped {@link SipUriFlyweight}s (or over raw spans, with scratch
 * flyweights supplied by the caller).
 *
 * <p><b>SIP and SIPS</b> (RFC 3261 §19.1.4): never SIP against SIPS; user and password both absent or equal
 * case-sensitively once escapes of non-reserved characters are decoded; hosts ignoring case, without DNS, IPv4 and
 * IPv6 addresses by value ({@code [2001:db8::1]} equals {@code [2001:DB8:0:0:0:0:0:1]}); ports both absent or equal;
 * {@code transport}, {@code user}, {@code ttl}, {@code method} and {@code maddr} must be in both or neither, any
 * parameter in both must match ignoring case, others in one only are ignored (so the equality is not transitive);
 * headers match as a set, name ignoring case and value exactly (the conservative reading of §19.1.4's deferral to
 * §20: two different values are never called equal).
 *
 * <p><b>tel</b> (RFC 3966 §4): both global or both local; numbers equal without visual separators, ignoring case; the
 * same parameter names in any order; {@code phone-context} as a domain name or, from {@code +}, digit by digit;
 * {@code ext} digit by digit; other values ignoring case, escapes decoded.
 *
 * <p><b>Other schemes</b>: the scheme ignoring case, the rest case-sensitively with escapes of non-reserved
 * characters decoded (RFC 3986 §6.2.2).
 *
 * <p>Stateless and thread-safe. Nothing here allocates, except {@link #equals(byte[], int, int, byte[], int, int)},
 * which is for callers off the hot path.
 */
public final class UriComparison
{
    private static final byte[] TRANSPORT = Ascii.lowerBytes("transport");
    private static final byte[] USER = Ascii.lowerBytes("user");
    private static final byte[] TTL = Ascii.lowerBytes("ttl");
    private static final byte[] METHOD = Ascii.lowerBytes("method");
    private static final byte[] MADDR = Ascii.lowerBytes("maddr");
    private static final byte[] PHONE_CONTEXT = Ascii.lowerBytes("phone-context");
    private static final byte[] EXT = Ascii.lowerBytes("ext");

    private static final int URI_FLAGS = ParamsComparison.DECODE_ESCAPES;
    private static final int STRIDE = ParamsComparison.STRIDE;

    private UriComparison()
    {
    }

    /**
     * Equality of two wrapped URIs of any scheme; false when either is not valid or the schemes differ.
     */
    public static boolean equals(final SipUriFlyweight a, final SipUriFlyweight b)
    {
        if (!a.isValid() || !b.isValid() || a.scheme() != b.scheme())
        {
            return false;
        }
        switch (a.scheme())
        {
            case SipUriFlyweight.SCHEME_SIP:
            case SipUriFlyweight.SCHEME_SIPS:
                return sipEquals(a, b);
            case SipUriFlyweight.SCHEME_TEL:
                return telEquals(a, b);
            default:
                return opaqueEquals(a, b);
        }
    }

    /**
     * Equality of two URIs given as spans, parsed into the caller's scratch flyweights (which are left wrapped on
     * them); false when either span is not a valid URI. Does not allocate.
     */
    public static boolean equals(
        final byte[] a,
        final int aStart,
        final int aEnd,
        final byte[] b,
        final int bStart,
        final int bEnd,
        final SipUriFlyweight scratchA,
        final SipUriFlyweight scratchB)
    {
        return scratchA.wrap(a, aStart, aEnd) && scratchB.wrap(b, bStart, bEnd) && equals(scratchA, scratchB);
    }

    /** Equality of two URIs given as spans. Allocates two flyweights: for callers off the hot path. */
    public static boolean equals(
        final byte[] a, final int aStart, final int aEnd, final byte[] b, final int bStart, final int bEnd)
    {
        return equals(a, aStart, aEnd, b, bStart, bEnd, new SipUriFlyweight(), new SipUriFlyweight());
    }

    /** RFC 3261 §19.1.4 equality of two SIP or SIPS URIs; false when either is not one. */
    public static boolean sipEquals(final SipUriFlyweight a, final SipUriFlyweight b)
    {
        if (!a.isSip() || a.scheme() != b.scheme())
        {
            return false;
        }
        final byte[] ab = a.buffer();
        final byte[] bb = b.buffer();

        // userinfo: case-sensitive, escapes decoded; absent never equals present
        if (a.hasUser() != b.hasUser() || a.hasPassword() != b.hasPassword())
        {
            return false;
        }
        if (a.hasUser() &&
            !ParamsComparison.textEquals(ab, a.userStart(), a.userEnd(), bb, b.userStart(), b.userEnd(), false, true))
        {
            return false;
        }
        if (a.hasPassword() && !ParamsComparison.textEquals(
            ab, a.passwordStart(), a.passwordEnd(), bb, b.passwordStart(), b.passwordEnd(), false, true))
        {
            return false;
        }

        if (a.port() != b.port() ||
            !hostEquals(ab, a.hostStart(), a.hostEnd(), a.hostType(), bb, b.hostStart(), b.hostEnd(), b.hostType()))
        {
            return false;
        }

        final int[] ap = a.paramTable();
        final int[] bp = b.paramTable();
        final int ac = a.paramCount();
        final int bc = b.paramCount();
        if (!ParamsComparison.presenceMatches(ab, ap, ac, bb, bp, bc, TRANSPORT, URI_FLAGS) ||
            !ParamsComparison.presenceMatches(ab, ap, ac, bb, bp, bc, USER, URI_FLAGS) ||
            !ParamsComparison.presenceMatches(ab, ap, ac, bb, bp, bc, TTL, URI_FLAGS) ||
            !ParamsComparison.presenceMatches(ab, ap, ac, bb, bp, bc, METHOD, URI_FLAGS) ||
            !ParamsComparison.presenceMatches(ab, ap, ac, bb, bp, bc, MADDR, URI_FLAGS) ||
            !ParamsComparison.commonEqual(ab, ap, ac, bb, bp, bc, URI_FLAGS))
        {
            return false;
        }
        return headersEqual(a, b);
    }

    /** RFC 3966 §4 equality of two tel URIs; false when either is not one. */
    public static boolean telEquals(final SipUriFlyweight a, final SipUriFlyweight b)
    {
        if (!a.isTel() || !b.isTel() || a.isGlobalNumber() != b.isGlobalNumber())
        {
            return false;
        }
        final byte[] ab = a.buffer();
        final byte[] bb = b.buffer();
        if (!phoneDigitsEqual(ab, a.userStart(), a.userEnd(), bb, b.userStart(), b.userEnd()))
        {
            return false;
        }
        final int[] ap = a.paramTable();
        final int[] bp = b.paramTable();
        final int ac = a.paramCount();
        final int bc = b.paramCount();
        for (int i = 0; i < ac; i++)
        {
            final int j = ParamsComparison.counterpart(ab, ap, i, bb, bp, bc, 0);
            if (j < 0 || !telValueEquals(ab, ap, i, bb, bp, j))
            {
                return false;
            }
        }
        for (int j = 0; j < bc; j++)
        {
            if (ParamsComparison.counterpart(bb, bp, j, ab, ap, ac, 0) < 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Host equality (RFC 3261 §19.1.4): names ignoring case, addresses by value; a name never equals an address.
     * Each span is one host as {@link SipUriFlyweight#hostType(byte[], int, int)} accepts it; false when either
     * is not.
     */
    public static boolean hostEquals(
        final byte[] a, final int aStart, final int aEnd, final byte[] b, final int bStart, final int bEnd)
    {
        return hostEquals(a, aStart, aEnd, SipUriFlyweight.hostType(a, aStart, aEnd),
            b, bStart, bEnd, SipUriFlyweight.hostType(b, bStart, bEnd));
    }

    /**
     * RFC 3966 §4: telephone digits equal once visual separators ({@code - . ( )}) are removed, ignoring case
     * (local numbers may hold hex digits). Also fits {@code ext} values and global-number phone-contexts.
     */
    public static boolean phoneDigitsEqual(
        final byte[] a, final int aStart, final int aEnd, final byte[] b, final int bStart, final int bEnd)
    {
        int i = aStart;
        int j = bStart;
        while (true)
        {
            while (i < aEnd && SipUriFlyweight.isVisualSeparator(a[i]))
            {
                i++;
            }
            while (j < bEnd && SipUriFlyweight.isVisualSeparator(b[j]))
            {
                j++;
            }
            if (i == aEnd || j == bEnd)
            {
                return i == aEnd && j == bEnd;
            }
            if (Ascii.lower(a[i]) != Ascii.lower(b[j]))
            {
                return false;
            }
            i++;
            j++;
        }
    }

    private static boolean hostEquals(
        final byte[] a,
        final int aStart,
        final int aEnd,
        final int aType,
        final byte[] b,
        final int bStart,
        final int bEnd,
        final int bType)
    {
        if (aType != bType || aType == SipUriFlyweight.HOST_NONE)
        {
            return false;
        }
        if (aType == SipUriFlyweight.HOST_IPV4)
        {
            return SipUriFlyweight.ipv4Value(a, aStart, aEnd) == SipUriFlyweight.ipv4Value(b, bStart, bEnd);
        }
        if (aType == SipUriFlyweight.HOST_IPV6)
        {
            for (int k = 0; k < 8; k++)
            {
                if (SipUriFlyweight.ipv6Group(a, aStart + 1, aEnd - 1, k) !=
                    SipUriFlyweight.ipv6Group(b, bStart + 1, bEnd - 1, k))
                {
                    return false;
                }
            }
            return true;
        }
        return Ascii.equalsIgnoreCase(a, aStart, aEnd, b, bStart, bEnd);
    }

    /** Headers as a multiset: equal counts and a one-to-one matching (at most 64 headers, the flyweight's cap). */
    private static boolean headersEqual(final SipUriFlyweight a, final SipUriFlyweight b)
    {
        final int count = a.headerCount();
        if (count != b.headerCount())
        {
            return false;
        }
        final byte[] ab = a.buffer();
        final byte[] bb = b.buffer();
        long used = 0;
        for (int i = 0; i < count; i++)
        {
            boolean found = false;
            for (int j = 0; j < count && !found; j++)
            {
                if ((used & (1L << j)) == 0 &&
                    ParamsComparison.textEquals(ab, a.headerNameStart(i), a.headerNameEnd(i),
                        bb, b.headerNameStart(j), b.headerNameEnd(j), true, true) &&
                    ParamsComparison.textEquals(ab, a.headerValueStart(i), a.headerValueEnd(i),
                        bb, b.headerValueStart(j), b.headerValueEnd(j), false, true))
                {
                    used |= 1L << j;
                    found = true;
                }
            }
            if (!found)
            {
                return false;
            }
        }
        return true;
    }

    private static boolean telValueEquals(
        final byte[] ab, final int[] ap, final int i, final byte[] bb, final int[] bp, final int j)
    {
        final int aStart = ap[i * STRIDE + ParamsComparison.VALUE_START];
        final int aEnd = ap[i * STRIDE + ParamsComparison.VALUE_END];
        final int bStart = bp[j * STRIDE + ParamsComparison.VALUE_START];
        final int bEnd = bp[j * STRIDE + ParamsComparison.VALUE_END];
        if (aStart < 0 || bStart < 0)
        {
            return aStart < 0 && bStart < 0;
        }
        final int nameStart = ap[i * STRIDE + ParamsComparison.NAME_START];
        final int nameEnd = ap[i * STRIDE + ParamsComparison.NAME_END];
        if (Ascii.equalsIgnoreCase(ab, nameStart, nameEnd, PHONE_CONTEXT))
        {
            final boolean aGlobal = ab[aStart] == '+';
            if (aGlobal != (bb[bStart] == '+'))
            {
                return false;
            }
            return aGlobal ?
                phoneDigitsEqual(ab, aStart, aEnd, bb, bStart, bEnd) :
                Ascii.equalsIgnoreCase(ab, aStart, aEnd, bb, bStart, bEnd);
        }
        if (Ascii.equalsIgnoreCase(ab, nameStart, nameEnd, EXT))
        {
            return phoneDigitsEqual(ab, aStart, aEnd, bb, bStart, bEnd);
        }
        return ParamsComparison.textEquals(ab, aStart, aEnd, bb, bStart, bEnd, true, true);
    }

    private static boolean opaqueEquals(final SipUriFlyweight a, final SipUriFlyweight b)
    {
        final byte[] ab = a.buffer();
        final byte[] bb = b.buffer();
        return Ascii.equalsIgnoreCase(ab, a.schemeStart(), a.schemeEnd(), bb, b.schemeStart(), b.schemeEnd()) &&
            ParamsComparison.textEquals(ab, a.opaqueStart(), a.opaqueEnd(), bb, b.opaqueStart(), b.opaqueEnd(),
                false, true);
    }
}
