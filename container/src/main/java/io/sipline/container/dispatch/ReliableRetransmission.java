package io.sipline.container.dispatch;

import javax.servlet.sip.SipErrorEvent;
import javax.servlet.sip.SipErrorListener;
import io.netty.buffer.ByteBuf;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.transaction.ServerTransaction;

/**
 * A reliable provisional response sent by a UAS session, retransmitted from T1 with the interval doubling (no T2 cap:
 * RFC 3262 §3) until its PRACK arrives ({@link InboundRequests#acknowledgesPending}), a final response is sent, or
 * 64*T1 passed; then the application's {@link SipErrorListener#noPrackReceived} is told and, if the INVITE is still
 * unanswered after that, the container rejects it with 500 (§3: "SHOULD reject the original request with a 5xx
 * response").
 * <p>
 * Threading: not threadsafe; on the shard's event loop.
 */
final class ReliableRetransmission extends Retransmission
{
    ReliableRetransmission(final UasResponses uas, final ServerTransaction tx, final ByteBuf bytes,
        final SipServletRequestImpl request, final SipServletResponseImpl response)
    {
        super(uas, tx, bytes, request, response);
    }

    void start()
    {
        response.sessionImpl().reliableProvisionals().retransmission(this);
        firstTimer();
    }

    @Override
    long nextIntervalMs()
    {
        return Math.min(2 * intervalMs, 64 * t1Ms() - elapsedMs); // the last wait ends at 64*T1 exactly
    }

    @Override
    void giveUp(final boolean timedOut)
    {
        final SipSessionImpl session = response.sessionImpl();
        UasResponses.endReliable(session, request, response);
        stop();
        if (!timedOut)
        {
            return;
        }
        // the listener may answer the INVITE itself; what it left unanswered is rejected after it returned
        invoker().tellErrorListeners(session, new SipErrorEvent(request, response), false, () ->
        {
            if (session.isValid() && null == request.finalResponse()
                && request.transaction() instanceof ServerTransaction)
            {
                DirectAnswers.sendQuietly(request, 500, "Server Internal Error (no PRACK for the reliable "
                    + "provisional response " + response.getStatus() + ", RFC 3262 §3)");
            }
            session.appSession().checkReady(); // a timer's sends do not check readiness themselves
        });
    }
}
