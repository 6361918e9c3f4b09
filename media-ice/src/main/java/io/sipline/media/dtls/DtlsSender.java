package io.sipline.media.dtls;

/**
 * Where a {@link DtlsEndpoint} sends its DTLS datagrams: implemented by the relay, which writes them to the leg's
 * socket towards the peer's latched address. Each call is one UDP payload of at most
 * {@link DtlsEndpointConfig#maxDatagramBytes()} octets.
 *
 * <p>Called on the endpoint's handshake thread (a virtual thread), never on the media thread; an implementation
 * that must send from the media thread copies the datagram and queues it there. It must not block for long and
 * must not throw: a datagram it cannot send is dropped, as the network would, and the handshake resends it.
 */
@FunctionalInterface
public interface DtlsSender
{
    /**
     * Sends one datagram.
     *
     * @param datagram the buffer, borrowed for the call only.
     * @param offset   first octet.
     * @param length   octets to send.
     */
    void sendDtls(byte[] datagram, int offset, int length);
}
