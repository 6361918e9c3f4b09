package io.sipline.media.service;

/**
 * What an application hears about an anchor it made. Called on a virtual thread of the media service's own (never a
 * SIP shard or a media thread); two events of one anchor may arrive at once, so a handler must be thread-safe. Both
 * methods do nothing by default.
 */
public interface MediaListener
{
    /**
     * No packet either way on a stream for the configured idle time (the peer hung up without a BYE, or its network
     * is gone). Reported once per silence. The anchor stays up; end it (and the call) if that is the policy.
     *
     * @param anchor the anchor.
     * @param stream the stream's index, the position of its {@code m=} line.
     * @param idleMs how long the stream has been silent.
     */
    default void onMediaTimeout(final MediaAnchor anchor, final int stream, final long idleMs)
    {
    }

    /**
     * A WebRTC leg's DTLS-SRTP handshake failed (timeout, fingerprint mismatch, alert), or its ICE consent was lost
     * (no valid connectivity check for 30 s, RFC 7675 §5.1); the stream no longer relays.
     *
     * @param anchor the anchor.
     * @param stream the stream's index.
     * @param reason why, in a few words.
     */
    default void onHandshakeFailed(final MediaAnchor anchor, final int stream, final String reason)
    {
    }
}
