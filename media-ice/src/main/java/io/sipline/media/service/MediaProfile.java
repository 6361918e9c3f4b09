package io.sipline.media.service;

/**
 * How one leg of an anchored call carries its media.
 *
 * <p>Immutable; thread-safe.
 */
public enum MediaProfile
{
    /** Plain RTP and RTCP, {@code RTP/AVP} (RFC 3551). */
    RTP_AVP("RTP/AVP"),
    /** SRTP keyed in the SDP by {@code a=crypto} lines, {@code RTP/SAVP} (RFC 3711, SDES of RFC 4568). */
    RTP_SAVP("RTP/SAVP"),
    /**
     * A browser's profile, {@code UDP/TLS/RTP/SAVPF}: ICE-lite on the relay's side, DTLS-SRTP (RFC 5763, RFC 5764),
     * {@code rtcp-mux} (RFC 8834 §5.1.1). Needs the DTLS-SRTP side ({@link WebRtcLegs}) installed in the service.
     */
    WEBRTC("UDP/TLS/RTP/SAVPF");

    private final String proto;

    MediaProfile(final String proto)
    {
        this.proto = proto;
    }

    /** @return the transport protocol written in this profile's {@code m=} lines. */
    public String proto()
    {
        return proto;
    }

    /**
     * The profile of an {@code m=} line's transport protocol: the AVPF variants (RFC 4585, RFC 5124) count as their
     * base profile, since feedback messages pass through the relay as RTCP.
     *
     * @param proto the {@code m=} line's protocol.
     * @return the profile, or null for a protocol the relay does not carry (SCTP data channels, TCP, ...).
     */
    public static MediaProfile ofProto(final String proto)
    {
        return switch (proto)
        {
            case "RTP/AVP", "RTP/AVPF" -> RTP_AVP;
            case "RTP/SAVP", "RTP/SAVPF" -> RTP_SAVP;
            case "UDP/TLS/RTP/SAVP", "UDP/TLS/RTP/SAVPF" -> WEBRTC;
            default -> null;
        };
    }
}
