package io.sipline.media.stun;

import java.net.InetSocketAddress;

/**
 * Where STUN messages leave: a UDP socket, a TURN channel, or a test's list. Implementations send (or copy) the bytes
 * before returning: the caller reuses its buffer at once.
 *
 * <p>Called on the owning media thread only.
 */
public interface StunTransport
{
    /**
     * @param buf         message bytes (borrowed for the duration of the call).
     * @param offset      first byte.
     * @param length      bytes to send.
     * @param destination where to.
     */
    void send(byte[] buf, int offset, int length, InetSocketAddress destination);
}
