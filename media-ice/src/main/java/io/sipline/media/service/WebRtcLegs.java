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
         * Takes the peer's media section: its ICE credentials and candidates, {@code a=fingerprint} and
         * {@code a=setup}. A later one (a re-offer or the answer to ours) must pass {@link #check}; when it is an
         * offer with new ICE credentials, it restarts ICE on this leg (RFC 8445 §9): the leg takes the peer's new
         * credentials and makes new ones of its own, which the next {@link #describe} writes in the answer. A new
         * fingerprint, or new DTLS roles in an offer, start a new DTLS association (RFC 8842 §4).
         *
         * @param remote the peer's media section.
         * @param offer  whether it came in an offer.
         * @throws io.sipline.media.sdp.SdpException when it lacks what DTLS-SRTP needs.
         */
        void peer(MediaDescription remote, boolean offer);

        /**
         * Checks a later media section of the peer without taking it: nothing of the leg changes, so that a
         * re-offer the other leg refuses leaves this one as it was.
         *
         * @param remote the peer's media section.
         * @param offer  whether it came in an offer.
         * @throws io.sipline.media.sdp.SdpException when it lacks what DTLS-SRTP needs, changes the DTLS roles in
         *                                           an answer (RFC 8842 §5.5), or changes ICE credentials in an
         *                                           answer or only one of them.
         */
        void check(MediaDescription remote, boolean offer);
    }
}
