package io.sipline.sip.transport;

import java.net.InetSocketAddress;

import io.sipline.sip.message.SipMessage;

/**
 * What a shard does with each SIP message it has parsed, and with ICMP reports of its UDP peers; kept minimal.
 *
 * <p><b>Threading.</b> Each shard gets its own handler from {@link Factory#create(int)}, and calls it only on its own
 * event loop thread; a handler is therefore owned by one shard and needs no lock. A handler must not block: a shard
 * serves every datagram the kernel gives its sockets, one at a time.
 *
 * <p><b>Ownership.</b> The {@code message} is the shard's reused flyweight and {@code source} the datagram's sender;
 * both are borrowed for the duration of the call only. The message is overwritten by the next datagram, so keep
 * nothing from it past the return (copy with {@link SipMessage#copy()} if you must). The receive buffer is already
 * gone: the message owns a copy of the bytes.
 *
 * <p><b>Answers.</b> Send from inside the call with {@link UdpShardSockets#send}, which writes on the socket the
 * datagram
 * came in on (RFC 3581 §4: a response leaves from the address and port the request arrived on) and flushes when the
 * shard's read batch ends.
 */
public interface SipMessageHandler
{
    /**
     * One parsed datagram.
     *
     * @param shard   the shard calling, to send and count with; valid during the call.
     * @param message borrowed; {@link SipMessage#result()} says whether it parsed: malformed messages are passed too,
     *                so that a request can be answered with the reason ({@code 400}, {@code 505}).
     * @param source  borrowed: who sent the datagram.
     * @return true when the datagram was handled (answered, or absorbed as an ACK is), false when it was discarded;
     *         the shard counts the latter as dropped.
     */
    boolean onMessage(UdpShardSockets shard, SipMessage message, InetSocketAddress source);

    /**
     * One wake-up's reads of a socket ended: called after the last {@link #onMessage} of the batch, before the sends
     * it caused are flushed. What a handler put off until then (waking the shards it handed messages to, once per
     * batch rather than once per message) goes now. The default does nothing.
     */
    default void onReadBatchEnd(final UdpShardSockets shard)
    {
    }

    /**
     * An ICMP port unreachable came back for datagrams from {@code local} to {@code peer} (RFC 3261 §18.4: the
     * transport user is told of the failure). Reported on every shard, on its own loop; the default ignores it.
     *
     * @param local the listening address:port (an object equal to the one {@link UdpShardSockets#currentLocal()}
     * gives).
     * @param peer  the refusing address:port.
     */
    default void onUnreachable(final UdpShardSockets shard, final InetSocketAddress local, final InetSocketAddress peer)
    {
    }

    /** Makes one handler per shard, at start, on the starting thread. */
    @FunctionalInterface
    interface Factory
    {
        /**
         * @param shard the shard index, 0 to N-1.
         * @return a handler owned by that shard's event loop.
         */
        SipMessageHandler create(int shard);
    }
}
