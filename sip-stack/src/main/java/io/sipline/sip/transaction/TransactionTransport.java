package io.sipline.sip.transaction;

import java.net.InetSocketAddress;

import io.netty.buffer.ByteBuf;

/**
 * Where transactions hand their bytes: the seam to {@code io.sipline.sip.transport}. One per shard.
 *
 * <p><b>Buffer ownership.</b> {@link #send} <em>borrows</em> the
 * buffer: the transaction keeps its own reference (it may retransmit the same bytes later) and releases it when it
 * terminates. A transport that writes asynchronously takes its own reference for the write, e.g.
 * {@code channel.write(new DatagramPacket(data.retainedDuplicate(), destination))}, and the write releases it when it
 * completes. The transport must not move the buffer's reader or writer index (a duplicate has its own).
 *
 * <p><b>Threading.</b> Called on the owning shard only, and must not block.
 */
public interface TransactionTransport
{
    /**
     * Sends one message.
     *
     * @param data        borrowed; the readable bytes are the whole message.
     * @param destination where to send it (for a response, where RFC 3261 §18.2.2 / RFC 3581 say; the layer uses
     *                    the address the request came from).
     * @param reliable    true for TCP/TLS/WS (a connection-oriented transport), false for UDP.
     * @return false when the message could not be handed to the network (no route, connection refused, ...): the
     *         transaction then reports a transport error to its user (RFC 3261 §17.1.4, §17.2.4) and terminates.
     */
    boolean send(ByteBuf data, InetSocketAddress destination, boolean reliable);

    /**
     * Sends one message of a transaction from a given local socket: the one its request arrived on (server, RFC 3261
     * §18.2.2) or the one its first send used (client), so that retransmissions and later responses leave from the
     * same address:port as the first. A transport with one socket per family ignores {@code local}; that is what this
     * default does.
     *
     * @param local the local address:port to send from, or null to let the transport pick.
     */
    default boolean send(final ByteBuf data, final InetSocketAddress destination, final InetSocketAddress local,
        final boolean reliable)
    {
        return send(data, destination, reliable);
    }

    /**
     * Sends a message no transaction keeps: a stateless response ({@link StatelessShedding}, RFC 3261 §8.2.7). Not a
     * retransmission. This default sends with {@link #send(ByteBuf, InetSocketAddress, InetSocketAddress, boolean)}
     * and releases the buffer.
     *
     * @param data ownership taken: sent and released.
     * @return false when it could not be handed to the network.
     */
    default boolean sendStateless(final ByteBuf data, final InetSocketAddress destination,
        final InetSocketAddress local, final boolean reliable)
    {
        try
        {
            return send(data, destination, local, reliable);
        }
        finally
        {
            data.release();
        }
    }

    /**
     * Finds the address of a host name a transaction must send to: a server transaction whose request's top Via has
     * a {@code maddr} naming a host (RFC 3261 §18.2.2; located like any host with a port, RFC 3263 §4.2). The
     * transport answers later, on the shard, with {@link TransactionLayer#resolved}; meanwhile the transaction holds
     * its last message and sends it once the address is known. This default knows no resolver and answers at once
     * that there is no address (a transport error, §17.2.4).
     *
     * @param tx         the transaction; compare {@code id} when answering, it may have ended meanwhile.
     * @param unresolved host name and port ({@link InetSocketAddress#isUnresolved()}).
     */
    default void resolve(final TransactionLayer layer, final Transaction tx, final long id,
        final InetSocketAddress unresolved)
    {
        layer.resolved(tx, id, null);
    }

    /**
     * How long the input the stack is reading now waited before it was read, in the layer's nanoseconds: everything
     * that arrived before {@code nowNs} minus this has been read (and dispatched), anything newer may still wait in a
     * socket or a hand-over queue. The layer puts a retransmission off while its due time is within that window,
     * because the reply it would retransmit for may be among what is still unread (see
     * {@link TransactionLayer#deferredRetransmissions()}). 0, this default, when the transport keeps up or cannot
     * tell; an idle transport has nothing unread and answers 0.
     */
    default long inputLagNs(final long nowNs)
    {
        return 0;
    }
}
