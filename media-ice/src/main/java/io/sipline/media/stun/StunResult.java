package io.sipline.media.stun;

/**
 * Result codes returned by the codec instead of exceptions. Zero and positive values mean the message was framed
 * correctly and may be used; negative values mean it must be dropped (or, for a request, answered with 400).
 *
 * <p>Stateless constants; thread-safe.
 */
public final class StunResult
{
    /** Well framed; every comprehension-required attribute is understood. */
    public static final int OK = 0;
    /**
     * Well framed, but comprehension-required attributes (0x0000-0x7FFF) we do not understand are present
     * (RFC 8489 §6.3.1: a request is answered with 420 and UNKNOWN-ATTRIBUTES naming them; a response fails its
     * transaction; an indication is dropped). See {@link StunMessageFlyweight#unknownAttributeCount()}.
     */
    public static final int UNKNOWN_COMPREHENSION_REQUIRED = 1;

    /** Fewer than 20 bytes, or fewer than the header's length field promises. */
    public static final int TOO_SHORT = -1;
    /** The two most significant bits of the first byte are not zero (RFC 8489 §5): not STUN (RFC 7983 demux). */
    public static final int NOT_STUN = -2;
    /** The magic cookie is not 0x2112A442 (an RFC 3489 message, or not STUN at all). */
    public static final int BAD_MAGIC_COOKIE = -3;
    /** The length field is not a multiple of 4 (RFC 8489 §5). */
    public static final int BAD_LENGTH = -4;
    /** An attribute's length runs past the end of the message (RFC 8489 §14). */
    public static final int ATTRIBUTE_OVERRUN = -5;
    /** More attributes than the flyweight's index holds. */
    public static final int TOO_MANY_ATTRIBUTES = -6;

    /** MESSAGE-INTEGRITY(-SHA256) or FINGERPRINT matched. */
    public static final int VERIFIED = 0;
    /** The attribute to check is not in the message. */
    public static final int ABSENT = -10;
    /** The attribute is present and its value does not match. */
    public static final int MISMATCH = -11;
    /** The attribute's value has a length the RFC does not allow, or a typed reader found a malformed value. */
    public static final int BAD_ATTRIBUTE = -12;

    private StunResult()
    {
    }

    /**
     * A diagnostic name for a result code (not for the per-packet path: it returns constants, but callers usually
     * concatenate it).
     *
     * @param result a code from this class.
     * @return its name.
     */
    public static String name(final int result)
    {
        switch (result)
        {
            case OK:
                return "OK";
            case UNKNOWN_COMPREHENSION_REQUIRED:
                return "UNKNOWN_COMPREHENSION_REQUIRED";
            case TOO_SHORT:
                return "TOO_SHORT";
            case NOT_STUN:
                return "NOT_STUN";
            case BAD_MAGIC_COOKIE:
                return "BAD_MAGIC_COOKIE";
            case BAD_LENGTH:
                return "BAD_LENGTH";
            case ATTRIBUTE_OVERRUN:
                return "ATTRIBUTE_OVERRUN";
            case TOO_MANY_ATTRIBUTES:
                return "TOO_MANY_ATTRIBUTES";
            case ABSENT:
                return "ABSENT";
            case MISMATCH:
                return "MISMATCH";
            case BAD_ATTRIBUTE:
                return "BAD_ATTRIBUTE";
            default:
                return "UNKNOWN(" + result + ")";
        }
    }
}
