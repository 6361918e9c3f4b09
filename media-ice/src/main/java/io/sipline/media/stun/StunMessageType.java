package io.sipline.media.stun;

/**
 * The 14-bit STUN message type: a 12-bit method and a 2-bit class interleaved (RFC 8489 §5, Figure 3).
 *
 * <pre>
 *    0                 1
 *    2  3  4 5 6 7 8 9 0 1 2 3 4 5
 *   +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |M |M |M|M|M|C|M|M|M|C|M|M|M|M|
 *   |11|10|9|8|7|1|6|5|4|0|3|2|1|0|
 *   +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>Stateless; thread-safe.
 */
public final class StunMessageType
{
    /** Class 0b00. */
    public static final int CLASS_REQUEST = 0;
    /** Class 0b01. */
    public static final int CLASS_INDICATION = 1;
    /** Class 0b10. */
    public static final int CLASS_SUCCESS_RESPONSE = 2;
    /** Class 0b11. */
    public static final int CLASS_ERROR_RESPONSE = 3;

    /** RFC 8489 §18.2. */
    public static final int METHOD_BINDING = 0x001;
    /** RFC 8656 §17 (TURN). */
    public static final int METHOD_ALLOCATE = 0x003;
    /** RFC 8656 §17 (TURN). */
    public static final int METHOD_REFRESH = 0x004;
    /** RFC 8656 §17 (TURN). */
    public static final int METHOD_SEND = 0x006;
    /** RFC 8656 §17 (TURN). */
    public static final int METHOD_DATA = 0x007;
    /** RFC 8656 §17 (TURN). */
    public static final int METHOD_CREATE_PERMISSION = 0x008;
    /** RFC 8656 §17 (TURN). */
    public static final int METHOD_CHANNEL_BIND = 0x009;

    /** Binding request, 0x0001. */
    public static final int BINDING_REQUEST = 0x0001;
    /** Binding indication, 0x0011. */
    public static final int BINDING_INDICATION = 0x0011;
    /** Binding success response, 0x0101. */
    public static final int BINDING_SUCCESS_RESPONSE = 0x0101;
    /** Binding error response, 0x0111. */
    public static final int BINDING_ERROR_RESPONSE = 0x0111;

    private StunMessageType()
    {
    }

    /**
     * @param method       12-bit method.
     * @param messageClass 2-bit class.
     * @return the 14-bit message type.
     */
    public static int type(final int method, final int messageClass)
    {
        return (method & 0x000F)
            | ((method & 0x0070) << 1)
            | ((method & 0x0F80) << 2)
            | ((messageClass & 0x1) << 4)
            | ((messageClass & 0x2) << 7);
    }

    /**
     * @param type 14-bit message type.
     * @return its 12-bit method.
     */
    public static int method(final int type)
    {
        return (type & 0x000F) | ((type >> 1) & 0x0070) | ((type >> 2) & 0x0F80);
    }

    /**
     * @param type 14-bit message type.
     * @return its 2-bit class.
     */
    public static int messageClass(final int type)
    {
        return ((type >> 4) & 0x1) | ((type >> 7) & 0x2);
    }

    /**
     * @param type 14-bit message type.
     * @return true for a success or error response.
     */
    public static boolean isResponse(final int type)
    {
        return 0 != (type & 0x0100);
    }
}
