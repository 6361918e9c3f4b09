package io.sipline.media.relay;

/**
 * What the relay reports about a stream to whoever opened it. Called on the stream's media thread: an implementation
 * must hand the event over to its own thread and return at once.
 */
public interface RelayEvents
{
    /**
     * No packet either way for the settings' idle time. Reported once per silence: a packet re-arms it.
     *
     * @param stream the stream.
     * @param idleMs how long it has been silent.
     */
    void onIdle(RelayStream stream, long idleMs);

    /**
     * A leg's DTLS-SRTP handshake failed; the stream no longer relays.
     *
     * @param stream the stream.
     * @param leg    the leg whose handshake failed.
     * @param reason why.
     */
    void onHandshakeFailed(RelayStream stream, RelayLeg leg, String reason);
}
