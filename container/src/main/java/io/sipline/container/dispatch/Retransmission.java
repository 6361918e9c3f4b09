package io.sipline.container.dispatch;

import io.netty.buffer.ByteBuf;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.api.ContainerShard;
import io.sipline.container.api.ResponseRetransmission;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.TransactionLayer;

/**
 * A response a UAS session retransmits itself on the shard's wheel, from T1 on with the interval doubling
 * ({@link #nextIntervalMs}), until it is acknowledged ({@link #stop}), its transaction ends, or 64*T1 passed
 * ({@link #giveUp}). Holds one reference to the sent bytes, released once.
 * <p>
 * Threading: not threadsafe; on the shard's event loop (its timer fires there).
 */
abstract class Retransmission implements ContainerShard.TimerTarget, ResponseRetransmission
{
    /** The shard's UAS responses, whose shard, timer wheel and invoker these are (one field, not three). */
    private final UasResponses uas;
    ServerTransaction tx;
    long txId;
    SipServletRequestImpl request;
    SipServletResponseImpl response;
    private ByteBuf bytes;
    long intervalMs;
    long elapsedMs;
    /** When the pending retransmission was due as first scheduled (the shard's clock). */
    private long dueNs;
    private long timer = -1;

    Retransmission(final UasResponses uas, final ServerTransaction tx, final ByteBuf bytes,
        final SipServletRequestImpl request, final SipServletResponseImpl response)
    {
        this.uas = uas;
        use(tx, bytes, request, response);
    }

    /** Takes up a response to retransmit: at construction, or again for a pooled one ({@link OkRetransmission}). */
    final void use(final ServerTransaction tx, final ByteBuf bytes, final SipServletRequestImpl request,
        final SipServletResponseImpl response)
    {
        this.tx = tx;
        this.txId = tx.id();
        this.bytes = bytes;
        this.request = request;
        this.response = response;
        intervalMs = 0;
        elapsedMs = 0;
        dueNs = 0;
        timer = -1;
    }

    /** The shard's UAS responses, which pool the 2xx retransmissions. */
    final UasResponses uas()
    {
        return uas;
    }

    final StackShard shard()
    {
        return uas.shard();
    }

    final ServletInvoker invoker()
    {
        return uas.invoker();
    }

    /** T1 in milliseconds, at least 1 (read from the stack's configuration rather than kept per response). */
    final long t1Ms()
    {
        return Math.max(1, uas.shard().stack().config().t1Ns() / 1_000_000);
    }

    /** Schedules the first retransmission, T1 after the send. */
    final void firstTimer()
    {
        intervalMs = t1Ms();
        dueNs = shard().nowNs() + intervalMs * 1_000_000L;
        timer = uas.timers().schedule(intervalMs, this);
    }

    @Override
    public final void onTimer(final long timerId)
    {
        if (timerId != timer || null == bytes)
        {
            return;
        }
        timer = -1;
        if (elapsedMs + intervalMs < 64 * t1Ms() && putOff())
        {
            return;
        }
        elapsedMs += intervalMs;
        if (elapsedMs >= 64 * t1Ms())
        {
            giveUp(true);
            return;
        }
        if (tx.id() != txId || !shard().respond(tx, bytes.retainedDuplicate(), response.getStatus()))
        {
            giveUp(false); // the transaction ended (a final response, a transport failure)
            return;
        }
        intervalMs = nextIntervalMs();
        dueNs = shard().nowNs() + intervalMs * 1_000_000L;
        timer = uas.timers().schedule(intervalMs, this);
    }

    /**
     * As the transaction layer does for its timers A, E and G: while the stack's input lags behind this
     * retransmission's due time ({@link io.sipline.sip.stack.StackShard#inputLagNs}), the ACK or PRACK that ends it
     * may have arrived and still be unread, so the timer is set again for {@code due + lag} and nothing is sent.
     * The give-up at 64*T1 is never put off.
     */
    private boolean putOff()
    {
        final long now = shard().nowNs();
        final long lag = shard().inputLagNs(now);
        if (!TransactionLayer.retransmissionWaits(dueNs, now, lag))
        {
            return false;
        }
        shard().countDeferredRetransmission();
        timer = uas.timers().schedule((dueNs + lag - now + 999_999L) / 1_000_000L, this);
        return true;
    }

    /** The wait before the next retransmission (after {@link #intervalMs} and {@link #elapsedMs}). */
    abstract long nextIntervalMs();

    /** Retransmitting ends unacknowledged: {@code timedOut} after 64*T1, else because the transaction ended. */
    abstract void giveUp(boolean timedOut);

    @Override
    public final void stop()
    {
        if (timer >= 0)
        {
            uas.timers().cancel(timer);
            timer = -1;
        }
        release();
    }

    final void release()
    {
        if (null != bytes)
        {
            bytes.release(); // our retransmission reference, released once
            bytes = null;
        }
    }
}
