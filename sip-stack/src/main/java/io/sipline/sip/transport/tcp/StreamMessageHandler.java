package io.sipline.sip.transport.tcp;

import io.sipline.sip.message.SipMessage;

/**
 * What a TCP listener does with each SIP message it has framed off a connection (RFC 3261 §18.3).
 *
 * <p><b>Why not {@link io.sipline.sip.transport.SipMessageHandler}.</b> That interface hands over the
 * {@link io.sipline.sip.transport.UdpShardSockets} the datagram came in on, whose {@code send} writes datagrams to an
 * address from the current UDP socket. On a stream the answer goes back on the connection itself (RFC 3261 §18.2.2: a
 * response to a request received over a connection is sent over that connection), so the callback gets the
 * {@link TcpConnection} instead, and no source address: the connection knows its peer.
 *
 * <p><b>Threading.</b> Called on the event loop that owns the connection; one handler instance serves every
 * connection of the listener, so with more than one loop it is called from several threads at once and must be
 * thread-safe (or keep per-thread state). It must not block.
 *
 * <p><b>Ownership.</b> {@code message} is the connection's reused flyweight and points into the connection's receive
 * array: both are borrowed for the call only and overwritten by the next message. Copy with {@link SipMessage#copy()}
 * to keep anything. {@code connection} lives as long as the TCP connection and may be kept (to answer later).
 */
@FunctionalInterface
public interface StreamMessageHandler
{
    /**
     * One framed message.
     *
     * @param connection where it came from; answer with {@link TcpConnection#send}.
     * @param message    borrowed; {@link SipMessage#result()} says whether it parsed. Malformed messages are passed
     *                   too so that a request can be answered with the reason ({@code 400}, {@code 505}); when such a
     *                   message cannot be framed the connection is closed after the call (RFC 3261 §18.3).
     * @return true when handled, false when discarded (counted as dropped).
     */
    boolean onMessage(TcpConnection connection, SipMessage message);

    /**
     * A connection of a {@link TcpShardConnections} closed, or its connect failed: whatever waits for an answer on its
     * {@link TcpConnection#flow()} will not get one (RFC 3261 §17.1.4 transport error). On the connection's loop.
     */
    default void onClosed(final TcpConnection connection)
    {
    }
}
