package io.sipline.container.api;

/**
 * A response the container retransmits until the peer answers it: a 2xx to INVITE until its ACK (RFC 3261
 * §13.3.1.4), a reliable provisional response until its PRACK (RFC 3262 §3). The session keeps it so that the
 * session's events (the ACK, the PRACK, a BYE, a final response) can stop it; the dispatch layer implements it and
 * owns its timer and its bytes.
 * <p>
 * Not threadsafe; used on the session's shard.
 */
public interface ResponseRetransmission
{
    /** Stops retransmitting and releases the bytes kept for it; stopping a stopped one does nothing. */
    void stop();
}
