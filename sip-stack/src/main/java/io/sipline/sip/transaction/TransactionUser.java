package io.sipline.sip.transaction;

import java.net.InetSocketAddress;

import io.sipline.sip.message.SipMessage;

/**
 * The transaction user (RFC 3261 §17: the dialog layer, then the container above it). One per shard.
 *
 * <p><b>Threading.</b> Every callback runs on the owning shard, from {@link TransactionLayer#onIncoming},
 * {@link TransactionLayer#sendRequest} or {@link TransactionLayer#doWork}; none may block.
 *
 * <p><b>Ownership.</b> Every {@link SipMessage} passed here is <em>borrowed</em> for the duration of the call: it is
 * the shard's reused flyweight and is overwritten by the next datagram. Keep nothing from it past the return; use
 * {@link SipMessage#copy()} when a message must live on. A transaction handle stays valid until
 * {@link #onTerminated}; after that the object is reused for another transaction, so a user that keeps handles
 * compares {@link Transaction#id()} with the id it saw.
 *
 * <p><b>Errors</b> arrive as events ({@link #onTimeout}, {@link #onTransportError}), never as exceptions. A callback
 * may call back into the layer ({@code respond}, {@code sendRequest}); terminations never happen inside such a call
 * (they run from {@link TransactionLayer#doWork}), so a handle the user holds cannot die under it mid-callback.
 */
public interface TransactionUser
{
    /**
     * A new request created a server transaction (every method but ACK). Answer with
     * {@link TransactionLayer#respond}, now or later. For a CANCEL, {@link ServerTransaction#cancelledInvite()} is the
     * INVITE server transaction it matched (RFC 3261 §9.2), or null (answer 481). When
     * {@link ServerTransaction#maxForwardsExhausted()} is true the user answers 483 unless the request is for itself
     * (RFC 3261 §16.3 item 3, §8.2; an OPTIONS for this element may be answered, §11).
     */
    void onRequest(ServerTransaction tx, SipMessage request);

    /**
     * An ACK for a 2xx matched an INVITE server transaction in the Accepted state (RFC 6026 §8.7): the dialog
     * layer's business (RFC 3261 §13.3.1.4, stop retransmitting the 2xx). The transaction stays Accepted.
     */
    void onAck(ServerTransaction tx, SipMessage ack);

    /**
     * A response for a client transaction, once per response that RFC 3261 §17.1 passes up: retransmitted provisional
     * and non-2xx final responses are absorbed, but every 2xx to INVITE is passed (RFC 6026 §8.4: retransmissions and
     * forked 2xx alike), so the dialog layer can ACK each one.
     */
    void onResponse(ClientTransaction tx, SipMessage response);

    /**
     * A request that matches no transaction and creates none: an ACK without a matching INVITE server transaction
     * (the ACK for a 2xx after the transaction ended, RFC 3261 §17.2.3 / RFC 6026), for the dialog layer.
     */
    void onStatelessRequest(SipMessage request, InetSocketAddress source, boolean reliable);

    /**
     * A response that matches no client transaction (RFC 3261 §17.1.3; RFC 6026 §7.1: a stray 2xx goes to the core,
     * which may ACK it; anything else is usually dropped; a proxy forwards it statelessly, §16.7).
     */
    void onStatelessResponse(SipMessage response, InetSocketAddress source);

    /**
     * The transaction gave up: timer B or F on a client transaction (no final response, RFC 3261 §17.1.1.2 and
     * §17.1.2.2, treat as 408), timer H on an INVITE server transaction (no ACK, §17.2.1). It then terminates.
     *
     * @param timer {@code 'B'}, {@code 'F'} or {@code 'H'}.
     */
    void onTimeout(Transaction tx, char timer);

    /** The transport failed to send for this transaction (RFC 3261 §17.1.4, §17.2.4). It then terminates. */
    void onTransportError(Transaction tx);

    /** The transaction ended; after this call the handle is dead and the object back in its pool. */
    void onTerminated(Transaction tx);
}
