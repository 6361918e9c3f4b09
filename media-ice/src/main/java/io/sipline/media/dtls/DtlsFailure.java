package io.sipline.media.dtls;

/**
 * Why a DTLS-SRTP handshake ended without keys, as {@link DtlsListener#onDtlsFailed} reports it.
 *
 * <p>Immutable; thread-safe.
 */
public enum DtlsFailure
{
    /** The peer's certificate does not hash to the {@code a=fingerprint} of its SDP (RFC 5763 §5). */
    FINGERPRINT_MISMATCH,
    /** The peer presented no certificate; both sides must (RFC 5763 §5). */
    NO_CERTIFICATE,
    /** No SRTP protection profile in common, or no {@code use_srtp} at all (RFC 5764 §4.1.2). */
    NO_SRTP_PROFILE,
    /** The peer sent a fatal alert. */
    ALERT_RECEIVED,
    /** The handshake did not complete within {@link DtlsEndpointConfig#handshakeTimeoutMs()}. */
    TIMEOUT,
    /** The handshake broke for another reason: a malformed or unexpected message, a failed signature, ... */
    PROTOCOL_ERROR,
    /** {@link DtlsEndpoint#close()} was called before the handshake completed. */
    CLOSED
}
