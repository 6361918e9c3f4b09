package io.sipline.sip.message;

/**
 * SIP request methods (RFC 3261 §7.1 and the extension RFCs). A method that is not listed is {@link #EXTENSION}; its
 * name stays in the message bytes. Method names are case-sensitive (RFC 3261 §7.1).
 *
 * <p>Immutable; thread-safe.
 */
public enum SipMethod
{
    EXTENSION,
    INVITE,
    ACK,
    BYE,
    CANCEL,
    OPTIONS,
    REGISTER,
    /** RFC 3262. */
    PRACK,
    /** RFC 6665. */
    SUBSCRIBE,
    /** RFC 6665. */
    NOTIFY,
    /** RFC 3903. */
    PUBLISH,
    /** RFC 6086. */
    INFO,
    /** RFC 3515. */
    REFER,
    /** RFC 3428. */
    MESSAGE,
    /** RFC 3311. */
    UPDATE;

    private static final SipMethod[] VALUES = values();

    private final byte[] bytes = name().getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** The method name as ASCII bytes; do not modify. */
    byte[] bytes()
    {
        return bytes;
    }

    /** Finds the method named by a span, case-sensitively; {@link #EXTENSION} for any other token. */
    public static SipMethod lookup(final byte[] buf, final int start, final int end)
    {
        final int len = end - start;
        if (len < 3 || len > 9)
        {
            return EXTENSION;
        }
        for (int i = 1; i < VALUES.length; i++)
        {
            final byte[] b = VALUES[i].bytes;
            if (b.length == len && b[0] == buf[start] && Ascii.equals(buf, start, end, b, 0, len))
            {
                return VALUES[i];
            }
        }
        return EXTENSION;
    }

    /** Finds a method by name, case-sensitively; {@link #EXTENSION} for any other. */
    public static SipMethod lookup(final CharSequence name)
    {
        for (int i = 1; i < VALUES.length; i++)
        {
            if (VALUES[i].name().contentEquals(name))
            {
                return VALUES[i];
            }
        }
        return EXTENSION;
    }
}
