package io.sipline.media.dtls;

/**
 * Which side of the DTLS handshake a media leg takes: the {@code a=setup:active} side connects and is the DTLS
 * client, the {@code a=setup:passive} side accepts and is the DTLS server (RFC 5763 §5, RFC 4145 §4).
 *
 * <p>Immutable; thread-safe.
 */
public enum DtlsRole
{
    /** Sends the ClientHello; its exported keys come first (RFC 5764 §4.2). */
    CLIENT,
    /** Answers the ClientHello and requests the client's certificate (RFC 5763 §5). */
    SERVER
}
