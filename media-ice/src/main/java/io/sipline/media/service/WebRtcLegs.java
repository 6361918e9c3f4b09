package io.sipline.media.service;

import io.sipline.media.relay.DtlsPacketSink;
import io.sipline.media.sdp.MediaDescription;

/**
 * The DTLS-SRTP side of {@link MediaProfile#WEBRTC} legs, plugged into the service: for each WebRTC leg it makes a
 * {@link Leg}, which writes the leg's ICE-lite and DTLS attributes and receives the leg's STUN and DTLS datagrams from
 * the relay.
 *
 * <p>Thread-safe: {@link #open()} is called from the thread that anchors or answers.
 */
public interface WebRtcLegs
{
    /** @return the DTLS side of a new WebRTC leg. */
    Leg open();

    /** One WebRTC leg's ICE-lite agent and DTLS endpoint. */
    interface Leg extends DtlsPacketSink
    {
        /**
         * Adds our side's attributes to a media section the service is about to send: {@code a=ice-lite} is the
         * session's, so here {@code a=ice-ufrag}, {@code a=ice-pwd}, {@code a=candidate} (RFC 8839),
         * {@code a=fingerprint} (SHA-256 of the server's certificate) and {@code a=setup} (RFC 8842: {@code actpass} in
         * an offer, {@code active} or {@code passive} in an answer).
         *
         * @param local the media section to complete; its port is the leg's RTP port.
         * @param offer whether it goes in an offer.
         */
        void describe(MediaDescription local, boolean offer);

        /**
         * The peer's media section: its ICE credentials and candidates, {@code a=fingerprint} and {@code a=setup}.
         *
         * @param remote the peer's media section.
         * @param offer  whether it came in an offer.
         * @throws io.sipline.media.sdp.SdpException when it lacks what DTLS-SRTP needs.
         */
        void peer(MediaDescription remote, boolean offer);
    }
}
