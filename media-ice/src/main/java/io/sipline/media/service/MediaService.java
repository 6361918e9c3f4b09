package io.sipline.media.service;

/**
 * Media for SIP applications: anchors a call's media in the server, between legs of different profiles (a browser's
 * DTLS-SRTP and a phone's plain RTP, SDES-SRTP and RTP, ...), without transcoding. An application finds the service
 * as the {@code ServletContext} attribute named {@link #ATTRIBUTE}. It never touches a packet:
 * <pre>
 *   MediaAnchor anchor = media.anchor(inviteFromA.getContent(), MediaProfile.RTP_AVP, listener);
 *   inviteToB.setContent(anchor.offer(), "application/sdp");
 *   ...
 *   okToA.setContent(anchor.answer(okFromB.getContent()), "application/sdp");
 *   ...
 *   anchor.end();   // on BYE, CANCEL, failure: always
 * </pre>
 *
 * <p>Thread-safe.
 */
public interface MediaService
{
    /** The {@code ServletContext} attribute under which the container publishes the service. */
    String ATTRIBUTE = "io.sipline.media.MediaService";

    /**
     * Anchors a call's media: opens the relay's sockets for every stream of the offer and writes the offer for the
     * other leg.
     *
     * @param offer    leg A's SDP offer (its profile is read from each {@code m=} line).
     * @param profile  the profile wanted on leg B.
     * @param listener told when media stops flowing or a handshake fails; may be null.
     * @return the anchor; {@link MediaAnchor#end()} it when the call ends.
     * @throws io.sipline.media.sdp.SdpException when the offer is malformed or asks for what cannot be anchored
     *                                           (answer it with 488).
     * @throws IllegalStateException             when the port range is exhausted or the service is stopped (answer
     *                                           with 503).
     */
    MediaAnchor anchor(String offer, MediaProfile profile, MediaListener listener);

    /** @return anchors not yet ended. */
    int activeAnchors();
}
