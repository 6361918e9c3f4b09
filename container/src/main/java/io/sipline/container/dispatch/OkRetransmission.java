package io.sipline.container.dispatch;

import javax.servlet.sip.SipErrorEvent;
import javax.servlet.sip.SipErrorListener;
import io.netty.buffer.ByteBuf;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.api.AckWait;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.transaction.ServerTransaction;

/**
 * A 2xx to INVITE sent by a UAS session, retransmitted with T1 doubling up to T2 until the ACK, given up after
 * 64*T1 (then the application's {@link SipErrorListener#noAckReceived} is told).
 * <p>
 * No application sees one, so it is pooled by its shard ({@link UasResponses#okRetransmission}): once it ended
 * ({@link #end}, {@link #giveUp}) the session no longer points to it and its timer is cancelled, so it goes back to
 * the pool. One that a newer 2xx of its session replaced ({@link #start}) is stopped and left to the GC.
 * <p>
 * Threading: not threadsafe; on the shard's event loop.
 */
final class OkRetransmission extends Retransmission implements AckWait
{
    /** The CSeq number of the INVITE whose ACK ends it. */
    long cseq;

    OkRetransmission(final UasResponses uas, final ServerTransaction tx, final ByteBuf ok,
        final SipServletRequestImpl request, final SipServletResponseImpl response)
    {
        super(uas, tx, ok, request, response);
        this.cseq = request.cseqNumber();
    }

    /** Takes up another 2xx (a pooled one). */
    void reuse(final ServerTransaction tx, final ByteBuf ok, final SipServletRequestImpl request,
        final SipServletResponseImpl response)
    {
        use(tx, ok, request, response);
        this.cseq = request.cseqNumber();
    }

    /** Ended: lets go of the messages and goes back to the shard's pool (once). */
    private void recycle()
    {
        if (null == request)
        {
            return;
        }
        request = null;
        response = null;
        tx = null;
        uas().recycle(this);
    }

    void start()
    {
        final SipSessionImpl session = response.sessionImpl(); // a forked dialog's UAS session has its own
        final AckWait previous = session.awaitingAck();
        if (null != previous)
        {
            previous.stop();
        }
        session.awaitingAck(this);
        firstTimer();
    }

    @Override
    public long cseq()
    {
        return cseq;
    }

    @Override
    public SipServletRequestImpl request()
    {
        return request;
    }

    /** Ends the retransmissions of {@code session}'s 2xx for good: its ACK came, or a BYE ended the dialog first. */
    @Override
    public void end(final SipSessionImpl session)
    {
        stop();
        session.awaitingAck(null);
        recycle();
    }

    @Override
    long nextIntervalMs()
    {
        return Math.min(2 * intervalMs, Math.max(1, shard().stack().config().t2Ns() / 1_000_000));
    }

    @Override
    void giveUp(final boolean timedOut)
    {
        stop();
        final SipSessionImpl session = response.sessionImpl();
        if (session.awaitingAck() == this)
        {
            session.awaitingAck(null);
        }
        invoker().tellErrorListeners(session, new SipErrorEvent(request, response), true, null);
        recycle();
    }
}
