package io.sipline.media.srtp;

/**
 * Result codes of {@link SrtpContext}'s protect and unprotect methods. A non-negative return is the new packet
 * length; a negative one is one of these constants and the packet must be dropped. Each code is counted by the
 * context ({@link SrtpContext#count(int)}); nothing is logged per packet.
 *
 * <p>Constants only; thread-safe.
 */
public final class SrtpResult
{
    /** The authentication tag (HMAC-SHA1 or GCM) did not verify (RFC 3711 §3.3 step 5, RFC 7714 §7.2). */
    public static final int AUTH_FAIL = -1;
    /** The index was already received (RFC 3711 §3.3.2), or protect was asked to reuse an index (IV reuse). */
    public static final int REPLAY_DUPLICATE = -2;
    /** The index is behind the replay window (RFC 3711 §3.3.2). */
    public static final int REPLAY_OLD = -3;
    /** Shorter than a header plus the trailer this suite needs. */
    public static final int TOO_SHORT = -4;
    /** Version is not 2, or the CSRC list or header extension runs past the packet (RFC 3550 §5.1, §5.3.1). */
    public static final int BAD_HEADER = -5;
    /**
     * No stream for this SSRC and the policy does not create one for an unknown SSRC (no template: libsrtp's
     * {@code srtp_err_status_no_ctx}); also every call after {@link SrtpContext#close()}.
     */
    public static final int NO_CONTEXT = -6;
    /** The packet's MKI is not this context's (RFC 3711 §3.1). */
    public static final int BAD_MKI = -7;
    /** The master key reached its lifetime, the 48-bit SRTP index or the 31-bit SRTCP index (RFC 3711 §9.2). */
    public static final int KEY_EXPIRED = -8;
    /** Protect: the buffer has no room after the packet for the MKI and tag (and the SRTCP index). */
    public static final int BUFFER_TOO_SMALL = -9;
    /** Offset or length outside the buffer, or a read-only buffer. */
    public static final int BAD_ARGUMENT = -10;
    /** Protect on an inbound context, or unprotect on an outbound one. */
    public static final int WRONG_DIRECTION = -11;
    /** The crypto library refused an operation it should not have refused. */
    public static final int CRYPTO_ERROR = -12;
    /**
     * An unknown SSRC that the policy would accept, turned away because the context already holds
     * {@link SrtpPolicy#maxStreams()} streams (a flood of new SSRCs cannot grow the stream index).
     */
    public static final int STREAM_LIMIT = -13;

    /** Number of result codes; {@code -code} indexes arrays of this size. */
    public static final int COUNT = 14;

    private static final String[] NAMES =
    {
        "OK", "AUTH_FAIL", "REPLAY_DUPLICATE", "REPLAY_OLD", "TOO_SHORT", "BAD_HEADER", "NO_CONTEXT", "BAD_MKI",
        "KEY_EXPIRED", "BUFFER_TOO_SMALL", "BAD_ARGUMENT", "WRONG_DIRECTION", "CRYPTO_ERROR", "STREAM_LIMIT",
    };

    private SrtpResult()
    {
    }

    /**
     * Name of a result, for logs and tests.
     *
     * @param result a return value of protect or unprotect.
     * @return {@code "OK"} for a length, the constant's name otherwise.
     */
    public static String name(final int result)
    {
        if (result >= 0)
        {
            return NAMES[0];
        }
        return -result < COUNT ? NAMES[-result] : "UNKNOWN(" + result + ")";
    }
}
