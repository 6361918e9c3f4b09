package io.sipline.sip.stack;

import java.net.InetSocketAddress;

import io.netty.buffer.ByteBuf;

/**
 * One datagram handed from the shard that read it to the shard that owns its call.
 *
 * <p><b>Ownership.</b> The record belongs to its {@link #origin} shard's free list: the origin fills it, the owning
 * shard takes it from its MPSC queue, uses it, clears it and gives it back through the origin's return queue. The
 * {@link #datagram} (a pooled copy of the datagram bytes followed by the origin's parse of them, written by
 * {@link io.sipline.sip.message.ParsedCopy}) is owned by whoever holds the record: the origin until the queue accepts
 * it (it releases the copy itself when the queue is full), the owning shard from the moment it polls the record,
 * which releases the copy exactly once after reading it into its own message ({@link StackShard}).
 *
 * <p>Plain fields: the MPSC queue's offer (a release store of the element) and poll (an acquire load) order the
 * writes before the hand-over with the reads after it.
 */
final class Handoff
{
    ByteBuf datagram;
    InetSocketAddress source;
    InetSocketAddress local;
    /**
     * When the datagram arrived ({@link io.sipline.sip.message.SipMessage#receivedAtNanos()}): the owner reads the
     * copy into a message of its own, which gets this time rather than the time of the hand-over.
     */
    long receivedAtNanos;
    int origin;

    void clear()
    {
        datagram = null;
        source = null;
        local = null;
        receivedAtNanos = 0;
    }
}
