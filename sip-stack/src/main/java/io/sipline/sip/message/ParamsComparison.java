package io.sipline.sip.message;

/**
 * Lookup and comparison over <b>parameter tables</b>: the flat {@code int[]} that a flyweight fills while parsing
 * {@code ;name=value} lists (URI parameters, URI headers, header parameters of From/To/Contact/Via...). Each entry
 * takes {@value #STRIDE} ints, all absolute indexes into the flyweight's buffer:
 * <pre>
 *   table[i * STRIDE + NAME_START]   table[i * STRIDE + NAME_END]     the name, half-open
 *   table[i * STRIDE + VALUE_START]  table[i * STRIDE + VALUE_END]    the value; both -1 when there is no "="
 * </pre>
 *
 * <p>Names always match ignoring ASCII case. How values compare is chosen with flags:
 * <ul>
 *   <li>{@link #DECODE_ESCAPES}, for URI parameters and headers: an escape {@code %HH} equals the character it
 *       encodes unless that character is in the RFC 2396 {@code reserved} set (RFC 3261 §19.1.4), for names and
 *       values alike.</li>
 *   <li>{@link #QUOTED_CASE_SENSITIVE}, for header parameters: a value written as a quoted-string compares byte for
 *       byte, quotes included; tokens compare ignoring case (RFC 3261 §7.3.1).</li>
 * </ul>
 * Without {@link #DECODE_ESCAPES} values compare ignoring ASCII case. When a name appears twice, the first
 * occurrence is the one compared.
 *
 * <p>Stateless and thread-safe; allocates nothing.
 */
public final class ParamsComparison
{
    /** Ints per table entry. */
    public static final int STRIDE = 4;
    /** Offset of the name start within an entry. */
    public static final int NAME_START = 0;
    /** Offset of the name end within an entry. */
    public static final int NAME_END = 1;
    /** Offset of the value start within an entry (-1 when no value). */
    public static final int VALUE_START = 2;
    /** Offset of the value end within an entry (-1 when no value). */
    public static final int VALUE_END = 3;

    /** Flag: decode {@code %HH} escapes of non-reserved characters before comparing (URI components). */
    public static final int DECODE_ESCAPES = 1;
    /** Flag: quoted-string values compare exactly, byte for byte (header parameters). */
    public static final int QUOTED_CASE_SENSITIVE = 2;

    /** Marks a unit that was an escape of a reserved character: it never equals the bare character. */
    private static final int ESCAPED_RESERVED = 0x100;

    private ParamsComparison()
    {
    }

    /**
     * Index of the first entry named {@code lowerName}, ignoring ASCII case; names compare raw (not decoded).
     *
     * @param lowerName lower-case ASCII name, made once with {@link Ascii#lowerBytes(String)}.
     * @return the index, or -1.
     */
    public static int indexOf(final byte[] buf, final int[] table, final int count, final byte[] lowerName)
    {
        for (int i = 0; i < count; i++)
        {
            final int base = i * STRIDE;
            if (Ascii.equalsIgnoreCase(buf, table[base + NAME_START], table[base + NAME_END], lowerName))
            {
                return i;
            }
        }
        return -1;
    }

    /** Index of the first entry with this name, ignoring ASCII case; names compare raw; -1 when absent. */
    public static int indexOf(final byte[] buf, final int[] table, final int count, final CharSequence name)
    {
        for (int i = 0; i < count; i++)
        {
            final int base = i * STRIDE;
            if (Ascii.equalsIgnoreCase(buf, table[base + NAME_START], table[base + NAME_END], name))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * Index of the first entry whose name equals the span {@code [nameStart, nameEnd)} of {@code nameBuf},
     * ignoring case, and decoding escapes when {@code flags} has {@link #DECODE_ESCAPES}; -1 when absent.
     */
    public static int indexOf(
        final byte[] buf,
        final int[] table,
        final int count,
        final byte[] nameBuf,
        final int nameStart,
        final int nameEnd,
        final int flags)
    {
        final boolean decode = (flags & DECODE_ESCAPES) != 0;
        for (int i = 0; i < count; i++)
        {
            final int base = i * STRIDE;
            if (textEquals(buf, table[base + NAME_START], table[base + NAME_END], nameBuf, nameStart, nameEnd,
                true, decode))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * Compares the values of entry {@code i} of table A and entry {@code j} of table B: equal when both have no
     * value, or both have one and they match under {@code flags}.
     */
    public static boolean valueEquals(
        final byte[] bufA,
        final int[] tableA,
        final int i,
        final byte[] bufB,
        final int[] tableB,
        final int j,
        final int flags)
    {
        final int aStart = tableA[i * STRIDE + VALUE_START];
        final int aEnd = tableA[i * STRIDE + VALUE_END];
        final int bStart = tableB[j * STRIDE + VALUE_START];
        final int bEnd = tableB[j * STRIDE + VALUE_END];
        if (aStart < 0 || bStart < 0)
        {
            return aStart < 0 && bStart < 0;
        }
        if ((flags & QUOTED_CASE_SENSITIVE) != 0 &&
            ((aEnd > aStart && bufA[aStart] == '"') || (bEnd > bStart && bufB[bStart] == '"')))
        {
            return Ascii.equals(bufA, aStart, aEnd, bufB, bStart, bEnd);
        }
        return textEquals(bufA, aStart, aEnd, bufB, bStart, bEnd, true, (flags & DECODE_ESCAPES) != 0);
    }

    /**
     * RFC 3261 §19.1.4 rule for ordinary URI parameters: every name present in both tables must have equal values;
     * a name present in only one is ignored.
     */
    public static boolean commonEqual(
        final byte[] bufA,
        final int[] tableA,
        final int countA,
        final byte[] bufB,
        final int[] tableB,
        final int countB,
        final int flags)
    {
        for (int i = 0; i < countA; i++)
        {
            final int j = counterpart(bufA, tableA, i, bufB, tableB, countB, flags);
            if (j >= 0 && !valueEquals(bufA, tableA, i, bufB, tableB, j, flags))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Same set of names with equal values, order ignored (RFC 3966 §4 for tel parameters; also the strict rule for
     * header parameters).
     */
    public static boolean sameSet(
        final byte[] bufA,
        final int[] tableA,
        final int countA,
        final byte[] bufB,
        final int[] tableB,
        final int countB,
        final int flags)
    {
        for (int i = 0; i < countA; i++)
        {
            final int j = counterpart(bufA, tableA, i, bufB, tableB, countB, flags);
            if (j < 0 || !valueEquals(bufA, tableA, i, bufB, tableB, j, flags))
            {
                return false;
            }
        }
        for (int j = 0; j < countB; j++)
        {
            if (counterpart(bufB, tableB, j, bufA, tableA, countA, flags) < 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * The entry of table B that pairs with entry {@code i} of table A: the n-th entry of B with the same name, where
     * entry i is the n-th of its name in A (a name repeated, as in {@code ;tag=m;tag=887s}, pairs occurrence by
     * occurrence, so that a parameter list always equals itself); -1 when B has fewer entries of that name.
     */
    static int counterpart(
        final byte[] bufA,
        final int[] tableA,
        final int i,
        final byte[] bufB,
        final int[] tableB,
        final int countB,
        final int flags)
    {
        final boolean decode = (flags & DECODE_ESCAPES) != 0;
        final int nameStart = tableA[i * STRIDE + NAME_START];
        final int nameEnd = tableA[i * STRIDE + NAME_END];
        int earlier = 0;
        for (int k = 0; k < i; k++)
        {
            if (textEquals(bufA, tableA[k * STRIDE + NAME_START], tableA[k * STRIDE + NAME_END], bufA, nameStart,
                nameEnd, true, decode))
            {
                earlier++;
            }
        }
        for (int j = 0; j < countB; j++)
        {
            if (textEquals(bufB, tableB[j * STRIDE + NAME_START], tableB[j * STRIDE + NAME_END], bufA, nameStart,
                nameEnd, true, decode) && 0 == earlier--)
            {
                return j;
            }
        }
        return -1;
    }

    /**
     * True when the parameter {@code lowerName} is present in both tables or in neither (RFC 3261 §19.1.4: a
     * transport, user, ttl, method or maddr parameter in only one URI never matches).
     */
    public static boolean presenceMatches(
        final byte[] bufA,
        final int[] tableA,
        final int countA,
        final byte[] bufB,
        final int[] tableB,
        final int countB,
        final byte[] lowerName,
        final int flags)
    {
        final boolean inA = indexOf(bufA, tableA, countA, lowerName, 0, lowerName.length, flags) >= 0;
        final boolean inB = indexOf(bufB, tableB, countB, lowerName, 0, lowerName.length, flags) >= 0;
        return inA == inB;
    }

    /**
     * Compares two spans of URI text.
     *
     * @param ignoreCase     compare ignoring ASCII case.
     * @param decodeEscapes  treat {@code %HH} as the character it encodes, unless that character is reserved
     *                       (RFC 3261 §19.1.4: "Characters other than those in the reserved set are equivalent to
     *                       their %HEX HEX encoding"); an escaped reserved character equals only the same escape
     *                       (hex digits in either case).
     */
    public static boolean textEquals(
        final byte[] a,
        final int aStart,
        final int aEnd,
        final byte[] b,
        final int bStart,
        final int bEnd,
        final boolean ignoreCase,
        final boolean decodeEscapes)
    {
        if (!decodeEscapes)
        {
            return ignoreCase ?
                Ascii.equalsIgnoreCase(a, aStart, aEnd, b, bStart, bEnd) :
                Ascii.equals(a, aStart, aEnd, b, bStart, bEnd);
        }
        int i = aStart;
        int j = bStart;
        while (i < aEnd && j < bEnd)
        {
            final int ua = unit(a, i, aEnd);
            final int ub = unit(b, j, bEnd);
            int va = ua & 0x1FF;
            int vb = ub & 0x1FF;
            if (ignoreCase)
            {
                va = fold(va);
                vb = fold(vb);
            }
            if (va != vb)
            {
                return false;
            }
            i += ua >>> 16;
            j += ub >>> 16;
        }
        return i == aEnd && j == bEnd;
    }

    /**
     * The character at {@code i}: bits 0-7 its value (decoded when it is an escape), bit 8 set for an escaped
     * reserved character, bits 16 and up its length on the wire (1 or 3).
     */
    private static int unit(final byte[] buf, final int i, final int end)
    {
        final byte c = buf[i];
        if (c == '%' && i + 2 < end)
        {
            final int hi = Ascii.hexValue(buf[i + 1]);
            final int lo = Ascii.hexValue(buf[i + 2]);
            if (hi >= 0 && lo >= 0)
            {
                final int v = (hi << 4) | lo;
                return (3 << 16) | (SipUriFlyweight.isReserved(v) ? ESCAPED_RESERVED | v : v);
            }
        }
        return (1 << 16) | (c & 0xFF);
    }

    private static int fold(final int v)
    {
        return (v & ESCAPED_RESERVED) != 0 ? v : Ascii.lower((byte)v) & 0xFF;
    }
}
