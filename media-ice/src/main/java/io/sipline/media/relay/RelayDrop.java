package io.sipline.media.relay;

import io.sipline.media.srtp.SrtpResult;

/**
 * Why the relay dropped a datagram. Every drop is counted under one reason ({@link MediaRelay#drops(int)},
 * {@link RelayLeg#drops(int)}); nothing is thrown or logged per packet.
 *
 * <p>Constants only; thread-safe.
 */
public final class RelayDrop
{
    /** First octet outside RFC 7983 §7's ranges, or shorter than its protocol's header. */
    public static final int MALFORMED = 0;
    /** ZRTP or TURN ChannelData: not spoken on a relay leg. */
    public static final int UNSUPPORTED_PROTOCOL = 1;
    /** From an address other than the one the leg latched (another call's or an attacker's traffic). */
    public static final int WRONG_SOURCE = 2;
    /** SRTP/SRTCP authentication failed (RFC 3711 §3.3: the packet is discarded). */
    public static final int AUTH_FAIL = 3;
    /** SRTP/SRTCP replayed or too old for the replay window (RFC 3711 §3.3.2). */
    public static final int REPLAY = 4;
    /** Any other SRTP refusal: bad header, too short, key lifetime over. */
    public static final int SRTP_OTHER = 5;
    /** The leg is secure but has no keys yet (no answer, or the DTLS handshake has not finished). */
    public static final int NOT_READY = 6;
    /** The other leg has no address to send to yet (no answer and nothing latched). */
    public static final int NO_DESTINATION = 7;
    /** STUN on a leg without ICE. */
    public static final int STUN_UNEXPECTED = 8;
    /** DTLS on a leg without DTLS-SRTP. */
    public static final int DTLS_UNEXPECTED = 9;
    /** The datagram filled the receive buffer: it may have been truncated. */
    public static final int TOO_LARGE = 10;
    /** The socket refused the datagram (buffer full, or an ICMP error reported on the socket). */
    public static final int SEND_FAILED = 11;
    /** Received on a stream that the application rejected or ended, or on a WebRTC leg whose handshake failed. */
    public static final int INACTIVE = 12;
    /**
     * SRTP/SRTCP from an SSRC the context has no stream for and may not create one (libsrtp's
     * {@code srtp_err_status_no_ctx}), or one more SSRC than the stream limit allows.
     */
    public static final int UNKNOWN_SSRC = 13;
    /** An ICE connectivity check answered 401: an unknown ufrag or a MESSAGE-INTEGRITY that does not verify. */
    public static final int STUN_UNAUTHENTICATED = 14;
    /** A STUN request answered with another error (400 bad request, 420 unknown attribute). */
    public static final int STUN_REJECTED = 15;
    /** STUN not answered: malformed framing, a bad FINGERPRINT, not a Binding request. */
    public static final int STUN_UNANSWERED = 16;
    /** DTLS from an address no valid ICE check came from, or before the peer's DTLS role is known (RFC 8445 §12). */
    public static final int DTLS_UNCHECKED = 17;
    /** How many reasons there are. */
    public static final int COUNT = 18;

    private static final String[] NAMES = {
        "malformed", "unsupported-protocol", "wrong-source", "auth-fail", "replay", "srtp-other", "not-ready",
        "no-destination", "stun-unexpected", "dtls-unexpected", "too-large", "send-failed", "inactive",
        "unknown-ssrc", "stun-unauthenticated", "stun-rejected", "stun-unanswered", "dtls-unchecked",
    };

    private RelayDrop()
    {
    }

    /**
     * @param reason a reason constant.
     * @return its name, for counters and logs.
     */
    public static String name(final int reason)
    {
        return reason >= 0 && reason < COUNT ? NAMES[reason] : "unknown-" + reason;
    }

    /**
     * @param srtpResult a negative {@link SrtpResult}.
     * @return the drop reason it counts under.
     */
    static int ofSrtp(final int srtpResult)
    {
        return switch (srtpResult)
        {
            case SrtpResult.AUTH_FAIL -> AUTH_FAIL;
            case SrtpResult.REPLAY_DUPLICATE, SrtpResult.REPLAY_OLD -> REPLAY;
            case SrtpResult.NO_CONTEXT, SrtpResult.STREAM_LIMIT -> UNKNOWN_SSRC;
            default -> SRTP_OTHER;
        };
    }
}
