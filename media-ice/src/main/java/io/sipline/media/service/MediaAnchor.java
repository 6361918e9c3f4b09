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
     * the call's streams in the same order, and maybe new ones after them: returns the offer to send on the other
     * leg, whose answer then goes to {@link #answer(String)}, which returns the answer for the leg that re-offered; if
     * the other leg refuses it instead (a 4xx-6xx such as 488 or 491), call {@link #withdraw()}. Nothing of the call
     * changes until the answer arrives: media flows on as before meanwhile. The relay keeps its ports, its ICE
     * credentials, its certificate and DTLS role, and its SDES keys (unless the peer sends new ones); directions (hold
     * and resume), codecs and other media attributes go through. A WebRTC peer's re-offer with new ICE credentials
     * restarts ICE on its leg only (RFC 8445 §9): its answer carries new credentials of ours, the DTLS association and
     * its keys stay, and media follows the pair the new checks nominate; the other leg is offered no restart. A
     * WebRTC peer's new fingerprint or new DTLS roles ask for a new DTLS association on its leg (RFC 8842 §4), made
     * once answered over the pair ICE selected; media goes on under the old keys until then. A stream re-offered
     * with port 0 is freed once answered. A stream added (RFC 3264 §8.1: a new {@code m=} line at the end, or one
     * with a port in the slot of a stream removed earlier) gets its ports at once, for the offer to the other leg,
     * and is relayed once that leg accepts it; a refused re-offer or a port 0 in the answer frees it again. BUNDLE
     * is refused as in the first answer.
     *
     * @param offer the new SDP offer.
     * @param fromA whether leg A sent it (else leg B).
     * @return the SDP offer to send on the other leg.
     * @throws io.sipline.media.sdp.SdpException when streams are missing or change their transport, or a WebRTC
     *                                           peer changes only one of its ICE credentials (answer 488); the
     *                                           anchor is left as it was.
     * @throws IllegalStateException             before the first answer, while another re-offer waits for its
     *                                           answer, once ended, or when the ports for an added stream run out.
     */
    default String reoffer(final String offer, final boolean fromA)
    {
        throw new UnsupportedOperationException("this anchor takes no re-offers");
    }

    /**
     * The other leg refused the pending re-offer (a 4xx-6xx to the re-INVITE or UPDATE, a 2xx whose answer
     * {@link #answer(String)} rejected, or the exchange was abandoned): the re-offer is forgotten and the session stays
     * as it was before it (RFC 3264 §8: the previous description remains in force), every stream on its addresses,
     * keys and ports; the next re-offer may come.
     *
     * @return whether a re-offer was waiting (false when none was, or the anchor has ended).
     */
    default boolean withdraw()
    {
        return false;
    }

    /** @return whether a re-offer waits for its answer (or its withdrawal). */
    default boolean isReoffered()
    {
        return false;
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
