package io.sipline.media.ice;

/**
 * A malformed or unsupported ICE SDP attribute (RFC 8839). The only exception the parsers in this package throw for
 * bad input; {@link #reason()} tells a caller whether to ignore the line (an unsupported transport or candidate type,
 * which RFC 8839 §5.1 says to ignore) or to treat the description as malformed.
 *
 * <p>Immutable once thrown; thread-safe.
 */
public final class IceParseException extends Exception
{
    /** The input breaks the RFC 8839 grammar. */
    public static final int MALFORMED = 1;
    /** Well formed, but the transport is not UDP (e.g. Chrome's {@code tcp} candidates): ignore the candidate. */
    public static final int UNSUPPORTED_TRANSPORT = 2;
    /** Well formed, but the candidate type is an extension we do not know: ignore the candidate. */
    public static final int UNSUPPORTED_TYPE = 3;
    /** A configured limit (candidates, pairs) would be exceeded. */
    public static final int LIMIT_EXCEEDED = 4;

    private static final long serialVersionUID = 1L;

    private final int reason;

    /**
     * @param reason  one of the constants of this class.
     * @param message what is wrong, naming the offending field.
     */
    public IceParseException(final int reason, final String message)
    {
        super(message);
        this.reason = reason;
    }

    /**
     * @return {@link #MALFORMED}, {@link #UNSUPPORTED_TRANSPORT}, {@link #UNSUPPORTED_TYPE} or
     * {@link #LIMIT_EXCEEDED}.
     */
    public int reason()
    {
        return reason;
    }

    /**
     * @return {@code true} when RFC 8839 says to skip the line rather than reject the description.
     */
    public boolean isIgnorable()
    {
        return reason == UNSUPPORTED_TRANSPORT || reason == UNSUPPORTED_TYPE;
    }
}
