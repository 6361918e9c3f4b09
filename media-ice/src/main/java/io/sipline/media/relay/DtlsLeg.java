package io.sipline.media.relay;

import io.sipline.media.srtp.SrtpPolicy;

import java.net.InetSocketAddress;

/**
 * What a relay leg offers its DTLS-SRTP side ({@link DtlsPacketSink}): a way out on the leg's socket, the address to
 * latch once ICE has chosen it, and the two events that end the handshake. {@link RelayLeg} implements it.
 *
 * <p>{@link #send}, {@link #latch} and {@link #dropped} are for the leg's media thread only (from within a
 * {@link DtlsPacketSink} call, or a task given to {@link #execute}); {@link #keysReady}, {@link #handshakeFailed} and
 * {@link #execute} may be called from any thread.
 */
public interface DtlsLeg
{
    /**
     * Sends one datagram (a DTLS flight's record, a STUN response) from the leg's RTP port. Media thread only.
     *
     * @param buffer      the datagram, borrowed for the call.
     * @param offset      its first octet.
     * @param length      its length.
     * @param destination where to send it.
     * @return whether the socket took it (UDP: not whether it arrives).
     */
    boolean send(byte[] buffer, int offset, int length, InetSocketAddress destination);

    /**
     * Latches the leg to the peer's address (the nominated ICE pair's remote candidate): from now on only datagrams
     * from there are relayed, and relayed media goes there. Media thread only.
     *
     * @param peer the peer's address.
     */
    void latch(InetSocketAddress peer);

    /**
     * The handshake is done and the keys are exported (RFC 5764 §4.2): media flows from the next packet on. Any
     * thread; takes effect on the media thread.
     *
     * @param outbound the policy that protects what the relay sends on this leg (our write key).
     * @param inbound  the policy that unprotects what the peer sends (its write key).
     */
    void keysReady(SrtpPolicy outbound, SrtpPolicy inbound);

    /**
     * The handshake failed (timeout, fingerprint mismatch, alert): the leg's stream stops and the application hears
     * it through its listener. Any thread.
     *
     * @param reason a short reason for the listener and the log.
     */
    void handshakeFailed(String reason);

    /**
     * Counts a datagram the DTLS side dropped or refused (an unauthenticated ICE check, DTLS from an address no valid
     * check came from), on the leg and the relay like the relay's own drops. Media thread only.
     *
     * @param reason a {@link RelayDrop} constant.
     */
    void dropped(int reason);

    /**
     * Runs a task on the leg's media thread (a handshake retransmission timer, for example). Any thread.
     *
     * @param task the task; it must not block.
     */
    void execute(Runnable task);
}
