package io.sipline.media.relay;

import java.net.InetSocketAddress;

/**
 * The DTLS-SRTP side of a WebRTC leg (RFC 5763, RFC 5764), seen from the relay: the leg hands it every datagram whose
 * first octet is 20..63 (DTLS) or 0..3 (STUN, for ICE-lite connectivity checks, RFC 8445 §2.5), as RFC 7983 §7
 * sorts them, and it answers through the {@link DtlsLeg} it was opened with: datagrams out with
 * {@link DtlsLeg#send}, the exported SRTP keys with {@link DtlsLeg#keysReady}, a failure with
 * {@link DtlsLeg#handshakeFailed}.
 *
 * <p>Called on the leg's media thread only, one call at a time. The buffer is borrowed for the call: copy what must
 * outlive it. Must not block or throw; an exception is caught, counted as {@link RelayDrop#MALFORMED} and ignored.
 */
public interface DtlsPacketSink
{
    /**
     * The leg's sockets are now served by its media thread: from here on the sink may send, latch and queue tasks
     * through it (timers, for example). Called once, before any packet.
     *
     * @param leg the leg.
     */
    default void onOpen(final DtlsLeg leg)
    {
    }

    /**
     * A DTLS record (first octet 20..63) arrived on the leg.
     *
     * @param leg    the leg it arrived on.
     * @param buffer the datagram, borrowed.
     * @param offset its first octet.
     * @param length its length.
     * @param source where it came from.
     */
    void onDtlsPacket(DtlsLeg leg, byte[] buffer, int offset, int length, InetSocketAddress source);

    /**
     * A STUN message (first octet 0..3) arrived on the leg: an ICE connectivity check to answer as an ICE-lite agent.
     *
     * @param leg    the leg it arrived on.
     * @param buffer the datagram, borrowed.
     * @param offset its first octet.
     * @param length its length.
     * @param source where it came from.
     */
    void onStunPacket(DtlsLeg leg, byte[] buffer, int offset, int length, InetSocketAddress source);

    /**
     * The leg is closed (the anchor ended, in any order of events); release the DTLS state. Called once.
     *
     * @param leg the leg.
     */
    void onClose(DtlsLeg leg);
}
