package io.sipline.sip.stack;

import java.net.InetSocketAddress;

import io.sipline.sip.message.SipMessage;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.Transaction;

/**
 * What the layer above the stack (the container, a test responder, the bench) hears from one shard: requests on new
 * server transactions, responses on client transactions, ACKs for 2xx, stray ACKs and responses, timeouts, transport
 * errors and terminations, plus the shard's tick and its application timers.
 *
 * <p><b>Threading.</b> {@link Factory#create(StackShard)} makes one listener per shard at start; the shard calls it
 * only on its own event-loop thread, so a listener owns its state and needs no lock. Every call of every message of a
 * call (same Call-ID, or ids this stack generated) arrives on the same shard. A callback must
 * not block; it may call back into its {@link StackShard} (respond, send, dialogs, timers) and must not touch another
 * shard's objects.
 *
 * <p><b>Ownership.</b> Every {@link SipMessage} is <em>borrowed</em> for the duration of the call: it is the shard's
 * reused flyweight and is overwritten by the next datagram; keep nothing from it past the return (copy it with
 * {@link SipMessage#copy()} or copy the bytes you need). Addresses may be kept. A transaction handle stays valid until
 * {@link #onTerminated}; after that the object is reused, so compare {@link Transaction#id()} if you keep handles.
 * Buffers given to the shard's send methods are owned by the shard from then on.
 *
 * <p><b>Errors</b> are events, never exceptions; an exception a callback throws is counted and logged once per
 * distinct kind by the shard, which goes on serving.
 */
public interface SipListener
{
    /**
     * A new request created a server transaction (any method but ACK; RFC 3261 §17.2). Answer with
     * {@link StackShard#respond}, now or later on this shard; for INVITE the transaction has already sent 100 Trying.
     */
    void onRequest(StackShard shard, ServerTransaction tx, SipMessage request);

    /**
     * A response on a client transaction this shard sent (RFC 3261 §17.1): retransmitted provisional and non-2xx
     * responses are absorbed; every 2xx to INVITE is passed (RFC 6026 §8.4) so that each can be ACKed (§13.2.2.4).
     */
    void onResponse(StackShard shard, ClientTransaction tx, SipMessage response);

    /** The ACK for a 2xx matched an INVITE server transaction in the Accepted state (RFC 6026 §8.7). */
    default void onAck(final StackShard shard, final ServerTransaction tx, final SipMessage ack)
    {
    }

    /** A request that matched no transaction and made none: an ACK for a 2xx after its transaction ended. */
    default void onStatelessRequest(final StackShard shard, final SipMessage request, final InetSocketAddress source)
    {
    }

    /** A response that matched no client transaction (RFC 3261 §17.1.3; RFC 6026 §7.1.1: stray 2xx to the core). */
    default void onStatelessResponse(final StackShard shard, final SipMessage response, final InetSocketAddress source)
    {
    }

    /** Timer B, F (client: treat as 408) or H (server: no ACK) fired; the transaction then terminates. */
    default void onTimeout(final StackShard shard, final Transaction tx, final char timer)
    {
    }

    /** A send failed for this transaction (RFC 3261 §17.1.4, §17.2.4); it then terminates. */
    default void onTransportError(final StackShard shard, final Transaction tx)
    {
    }

    /** The transaction ended; the handle is dead after this call. */
    default void onTerminated(final StackShard shard, final Transaction tx)
    {
    }

    /** An application timer ({@link StackShard#schedule}) fired. */
    default void onTimer(final StackShard shard, final long timerId, final long payload, final long nowNs)
    {
    }

    /** The shard's periodic tick (every {@link SipStackConfig#tickNs()}), after its timers and hand-overs. */
    default void onTick(final StackShard shard, final long nowNs)
    {
    }

    /** The stack is stopping: release every buffer this listener holds. Called once, on the shard. */
    default void onStop(final StackShard shard)
    {
    }

    /** Makes one listener per shard, at start, on the starting thread. */
    @FunctionalInterface
    interface Factory
    {
        SipListener create(StackShard shard);
    }
}
