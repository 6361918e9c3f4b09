package io.sipline.media.service;

/**
 * The media of one call anchored in the server: leg A faces whoever sent the first offer, leg B the other side. The
 * application sends {@link #offer()} to the other side, gives its answer to {@link #answer(String)} and sends what
 * that returns back to the first side; it calls {@link #end()} when the call ends. Several streams ({@code m=}
 * lines) are relayed, each on its own ports; a stream the other side rejects (port 0) is freed at once.
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
