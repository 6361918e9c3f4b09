package io.sipline.media.dtls;

/**
 * Hears how the handshake of a {@link DtlsEndpoint} ends. Each endpoint reports exactly one of
 * {@link #onDtlsConnected} and {@link #onDtlsFailed}, and after a connection at most one {@link #onDtlsClosed}.
 *
 * <p>Called on the endpoint's handshake thread (a virtual thread), never on the media thread: the relay hands the
 * result to its media thread through that thread's queue. Must not throw; an exception is caught and dropped.
 */
public interface DtlsListener
{
    /**
     * The handshake completed and the peer's certificate matched its fingerprint.
     *
     * @param endpoint the endpoint.
     * @param keys     the SRTP policies for both directions of the leg.
     */
    void onDtlsConnected(DtlsEndpoint endpoint, DtlsSrtpKeys keys);

    /**
     * The handshake ended without keys; the endpoint is closed and drops every further datagram.
     *
     * @param endpoint the endpoint.
     * @param failure  why.
     * @param detail   a sentence for the log.
     */
    void onDtlsFailed(DtlsEndpoint endpoint, DtlsFailure failure, String detail);

    /**
     * A connected endpoint closed: the peer's {@code close_notify} or fatal alert, or {@link DtlsEndpoint#close()}.
     * The SRTP keys stay valid; whether media stops is the relay's call.
     *
     * @param endpoint the endpoint.
     * @param detail   a sentence for the log.
     */
    void onDtlsClosed(DtlsEndpoint endpoint, String detail);
}
