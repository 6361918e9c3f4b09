package io.sipline.sip.transaction;

import io.sipline.sip.message.SipMethod;

/**
 * Whether a request that matched no transaction may make one: the layer above's overload decision, asked by the
 * {@link TransactionLayer} before a server transaction, a dialog lookup or an application's message exists, so that a
 * refused request costs its parse, this call and a stateless {@code 503} ({@link StatelessShedding}).
 * <p>
 * Every request that would make a server transaction is passed (any method but ACK, its retransmissions excepted:
 * their transaction absorbs them), so that its wait is a sample of the shard's load; only an {@code initial} one (no
 * To tag, not a CANCEL: RFC 3261 §12.2, §9.2) may be refused. Requests within a dialog are never refused: the layer
 * lets them through whatever this answers, so that the calls already up finish.
 * <p>
 * Threading: called on the shard's event loop only, once per such request; must not block and should not allocate.
 * One instance per shard ({@link TransactionLayer#admission(Admission)}).
 */
@FunctionalInterface
public interface Admission
{
    /** Admits every request: the layer's default. */
    Admission ALL = (method, initial, receivedAtNanos) -> true;

    /**
     * @param method          the request's method.
     * @param initial         whether it is outside a dialog and not a CANCEL: only then is a false answer acted on.
     * @param receivedAtNanos when the kernel received it (the realtime clock's base), 0 when unknown.
     * @return false to refuse it: the layer answers {@code 503} with {@code Retry-After} without a transaction.
     */
    boolean admit(SipMethod method, boolean initial, long receivedAtNanos);
}
