package io.sipline.container.api;

import io.netty.buffer.ByteBuf;

/**
 * A CSeq value the container writes (RFC 3261 §8.1.1.5: the sequence number, one space, the method): the number and
 * the method kept apart so that a header section holds it as one entry and writes the digits straight into the
 * buffer; the whole value is made into a String only when someone reads the header ({@link MessageHeaders#value})
 * and the number is read without one ({@link MessageHeaders#leadingNumber}).
 * <p>
 * A {@link CharSequence} of that text, so that a header section's values are one type; reading it char by char makes
 * no String. The number is kept in 32 bits (unsigned), so that the object is 16 B with compact object headers; a
 * number outside them (a negative one) is kept as the whole text in place of the method, which then holds a space
 * (a method, a token, never does). Immutable, so shared by messages of any thread; holds no buffer.
 */
public final class CSeqText implements WrittenText
{
    private static final long MAX_NUMBER = 0xFFFF_FFFFL;

    /** The number, unsigned; 0 when {@link #method} holds the whole value. */
    private final int number;
    /** The method; or the whole value ({@code number method}) when the number is outside 32 bits unsigned. */
    private final String method;

    private CSeqText(final int number, final String method)
    {
        this.number = number;
        this.method = method;
    }

    /**
     * {@code number method}.
     *
     * @param number a CSeq number (a 32-bit unsigned integer, §8.1.1.5); a negative one (a request without a CSeq
     *               number to copy) is written as its decimal text, as a String of the value would be.
     */
    public static CSeqText of(final long number, final String method)
    {
        return number >= 0 && number <= MAX_NUMBER && method.indexOf(' ') < 0 ? new CSeqText((int)number, method)
            : new CSeqText(0, number + " " + method);
    }

    /** Whether {@link #method} holds the whole value. */
    private boolean whole()
    {
        return method.indexOf(' ') >= 0;
    }

    /** The sequence number. */
    long number()
    {
        return whole() ? Long.parseLong(method, 0, method.indexOf(' '), 10) : Integer.toUnsignedLong(number);
    }

    @Override
    public void writeTo(final ByteBuf out)
    {
        if (whole())
        {
            Utf8Text.write(out, method);
            return;
        }
        final long n = Integer.toUnsignedLong(number);
        long scale = 1;
        for (int d = digits(); d > 1; d--)
        {
            scale *= 10;
        }
        for (; scale > 0; scale /= 10)
        {
            out.writeByte((int)('0' + n / scale % 10));
        }
        out.writeByte(' ');
        Utf8Text.write(out, method);
    }

    private int digits()
    {
        int d = 1;
        for (long n = Integer.toUnsignedLong(number); n >= 10; n /= 10)
        {
            d++;
        }
        return d;
    }

    @Override
    public int length()
    {
        if (whole())
        {
            return method.length();
        }
        return digits() + 1 + method.length();
    }

    @Override
    public char charAt(final int i)
    {
        if (whole())
        {
            return method.charAt(i);
        }
        final int digits = digits();
        if (i < 0 || i >= length())
        {
            throw new IndexOutOfBoundsException(i);
        }
        if (i < digits)
        {
            long n = Integer.toUnsignedLong(number);
            for (int d = digits - 1; d > i; d--)
            {
                n /= 10;
            }
            return (char)('0' + n % 10);
        }
        return i == digits ? ' ' : method.charAt(i - digits - 1);
    }

    @Override
    public CharSequence subSequence(final int start, final int end)
    {
        return toString().subSequence(start, end);
    }

    /** The whole value, {@code number method}: a new String each time (the same one for a number kept as text). */
    @Override
    public String toString()
    {
        return whole() ? method : Integer.toUnsignedLong(number) + " " + method;
    }
}
