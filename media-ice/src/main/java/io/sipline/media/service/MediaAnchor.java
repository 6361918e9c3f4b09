package io.sipline.media.service;

/**
 * The media of one call anchored in the server: leg A faces whoever sent the first offer, leg B the other side. The
 * application sends {@link #offer()} to the other side, gives its answer to {@link #answer(String)} and sends what
 * that returns back to the first side; a later offer from either side goes through {@link #reoffer}; it calls
 * {@link #end()} when the call ends. Several streams ({@code m=} lines) are relayed, each on its own ports; a stream
 * the other side rejects (port 0) is freed at once.
 *
 * <p>Thread-safe. Ending is idempotent and frees every port whatever happened before: no answer yet, a failed
 * handshake, the relay stopping.
 */
public interface MediaAnchor
{
    /**
     * @return the SDP offer to send on leg B: the relay's address and ports, and the profile asked for.
     */
    String offer();

    /**
     * Takes leg B's answer and returns the answer for leg A.
     *
     * @param answer leg B's SDP answer.
     * @return the SDP answer to send on leg A.
     * @throws io.sipline.media.sdp.SdpException when the answer is malformed or does not match the offer (RFC 3264
     *                                           §6); the anchor is left as it was, to be ended.
     * @throws IllegalStateException             when already answered or ended.
     */
    String answer(String answer);

    /**
     * A new offer from either leg once the first exchange is complete (a re-INVITE or an UPDATE, RFC 3264 §8), with
     * the same streams in the same order: returns the offer to send on the other leg, whose answer then goes to
     * {@link #answer(String)}, which returns the answer for the leg that re-offered. The relay keeps its ports, its
     * ICE credentials, its certificate and DTLS role, and its SDES keys (unless the peer sends new ones), so media
     * flows on meanwhile; directions, codecs and other media attributes go through. A stream re-offered with port 0
     * is freed. BUNDLE is refused as in the first answer.
     *
     * @param offer the new SDP offer.
     * @param fromA whether leg A sent it (else leg B).
     * @return the SDP offer to send on the other leg.
     * @throws io.sipline.media.sdp.SdpException when streams are added, removed or change their transport, or a
     *                                           WebRTC peer restarts ICE or changes its fingerprint (answer 488);
     *                                           the anchor is left as it was.
     * @throws IllegalStateException             before the first answer, while another re-offer waits for its
     *                                           answer, or once ended.
     */
    default String reoffer(final String offer, final boolean fromA)
    {
        throw new UnsupportedOperationException("this anchor takes no re-offers");
    }

    /** Stops relaying and frees every socket and port of the anchor. Idempotent; any thread. */
    void end();

    /** @return whether {@link #end()} was called. */
    boolean isEnded();

    /** @return the number of streams ({@code m=} lines) of the offer, relayed or rejected. */
    int streams();

    /**
     * @param stream a stream's index.
     * @return whether that stream is relayed (not rejected by either side and not ended).
     */
    boolean isRelayed(int stream);
}
