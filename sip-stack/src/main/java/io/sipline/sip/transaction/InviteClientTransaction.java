package io.sipline.sip.transaction;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.SipMessage;

/**
 * The INVITE client transaction (RFC 3261 §17.1.1, Figure 5, as corrected by RFC 6026 §7.2 and §8.4; the state
 * diagram is on {@link #start}).
 *
 * <p>Timer A (T1, doubling without cap) runs only over unreliable transports and only in Calling; timer B (64*T1)
 * only in Calling (§17.1.1.2: in Proceeding the TU's timer C, if any, governs). Timer D is 32 s over UDP, 0 over a
 * reliable transport; timer M is 64*T1. The ACK for a 300-699 is built here from the original request
 * (§17.1.1.3) and replaces it as the retained outbound message; the ACK for a 2xx is the TU's (§13.2.2.4).
 *
 * <p>Response times: the moment the transport took the INVITE is kept, and the arrival of the first 180 and of the
 * first final response are timed against it, once each ({@link TransactionLayer#inviteClientResponseTimes}).
 *
 * <p>Not thread-safe; owned by one shard.
 */
public final class InviteClientTransaction extends ClientTransaction
{
    /** When the transport took the INVITE, wall clock ns since the epoch; 0 when unknown (not sent at the start). */
    private long sentNs;
    /** True once the first 180 was timed. */
    private boolean ringingTimed;

    InviteClientTransaction(final TransactionLayer layer, final int index)
    {
        super(layer, index, TransactionLayer.KIND_INVITE_CLIENT);
    }

    @Override
    public boolean isInvite()
    {
        return true;
    }

    /**
     * Sends the INVITE and enters Calling, the first state of RFC 3261 Figure 5 as RFC 6026 §7.2 corrects it:
     *
     * <pre>
     *                                |INVITE from TU
     *              Timer A fires     |INVITE sent      Timer B fires
     *              Reset A,          V                 or Transport Err.
     *              INVITE sent +-----------+           inform TU
     *                +---------|           |---------------------------+
     *                |         |  Calling  |                           |
     *                +-------->|           |-----------+               |
     *   300-699                +-----------+ 2xx       |               |
     *   ACK sent                  |  |       2xx to TU |               |
     *   resp. to TU               |  |1xx              |               |
     *   +-------------------------+  |1xx to TU        |               |
     *   |                            V                 |               |
     *   |  1xx             +-----------+               |               |
     *   |  1xx to TU       |           |               |               |
     *   |  +---------------|Proceeding |-------------->|               |
     *   |  |               |           | 2xx, 2xx to TU|               |
     *   |  +-------------->+-----------+               |               |
     *   |     300-699           |                      |               |
     *   |     ACK sent,         |                      V               |
     *   |     resp. to TU       |        +-----------+   2xx           |
     *   |                       |        |           |   2xx to TU     |
     *   |  300-699              |        | Accepted  |-------+         |
     *   |  ACK sent   +---------+        |           |<------+         |
     *   |  +--------+ |                  +-----------+                 |
     *   |  |        V V                        | Timer M fires         |
     *   |  |   +-----------+                   |                       |
     *   |  +---|           |                   |                       |
     *   +----->| Completed |                   |                       |
     *          |           |                   |                       |
     *          +-----------+                   |                       |
     *                | Timer D fires           |                       |
     *                V                         V                       |
     *          +--------------------------------------+                |
     *          |             Terminated               |<---------------+
     *          +--------------------------------------+
     * </pre>
     */
    @Override
    void start()
    {
        state = TransactionState.CALLING;
        sendOutbound();
        sentNs = transportFailed || resolving ? 0 : layer.realtimeNanos();
        if (!reliable)
        {
            retransmitIntervalNs = layer.config().t1Ns();
            startRetransmitTimer(TIMER_A, retransmitIntervalNs);
        }
        startTimeoutTimer(TIMER_B, layer.config().timer64T1Ns());
    }

    @Override
    void onResponse(final SipMessage response)
    {
        final int status = response.statusCode();
        switch (state)
        {
            case CALLING, PROCEEDING ->
            {
                lastStatus = status;
                timeResponse(status, response.receivedAtNanos());
                if (status < 200)
                {
                    // §17.1.1.2: stop retransmitting; timer B only applies in Calling.
                    state = TransactionState.PROCEEDING;
                    cancelTimers();
                    layer.user().onResponse(this, response);
                }
                else if (status < 300)
                {
                    // RFC 6026 §8.4: Accepted, timer M; 2xx retransmissions and forks go to the TU.
                    state = TransactionState.ACCEPTED;
                    cancelTimers();
                    replaceOutbound(null);
                    startTimeoutTimer(TIMER_M, layer.config().timer64T1Ns());
                    layer.user().onResponse(this, response);
                }
                else
                {
                    // §17.1.1.2/§17.1.1.3: ACK the 300-699 here, then wait timer D for its retransmissions.
                    state = TransactionState.COMPLETED;
                    cancelTimers();
                    final ByteBuf ack = layer.messages.buildAck(outbound, response);
                    replaceOutbound(ack); // null when no ACK could be built: then nothing is sent nor re-sent
                    sendOutbound();
                    startTimeoutTimer(TIMER_D, reliable ? 0 : layer.config().timerDNs());
                    layer.user().onResponse(this, response);
                }
            }
            case ACCEPTED ->
            {
                if (status >= 200 && status < 300)
                {
                    layer.user().onResponse(this, response); // RFC 6026 §8.4
                }
                else
                {
                    layer.countAbsorbedResponse();
                }
            }
            case COMPLETED ->
            {
                if (status >= 300)
                {
                    sendOutbound(); // §17.1.1.2: re-pass the ACK for each retransmitted final response
                }
                layer.countAbsorbedResponse();
            }
            default -> layer.countAbsorbedResponse();
        }
    }

    /** Times the first 180 and the final response (which ends Calling and Proceeding, so it comes here once). */
    private void timeResponse(final int status, final long receivedNs)
    {
        if (180 == status)
        {
            if (!ringingTimed)
            {
                ringingTimed = true;
                layer.recordInviteClientResponse(InviteResponse.RINGING, sentNs, receivedNs);
            }
        }
        else if (status >= 200)
        {
            layer.recordInviteClientResponse(status < 300 ? InviteResponse.SUCCESS : InviteResponse.FAILURE, sentNs,
                receivedNs);
        }
    }

    @Override
    void reset()
    {
        super.reset();
        sentNs = 0;
        ringingTimed = false;
    }

    @Override
    void onTimer(final char timer, final long nowNs)
    {
        switch (timer)
        {
            case TIMER_A ->
            {
                if (state == TransactionState.CALLING)
                {
                    sendOutbound();
                    retransmitIntervalNs *= 2; // §17.1.1.2: doubles, no T2 cap for INVITE
                    startRetransmitTimer(TIMER_A, retransmitIntervalNs);
                }
            }
            case TIMER_B ->
            {
                if (state == TransactionState.CALLING)
                {
                    layer.user().onTimeout(this, TIMER_B);
                    layer.terminate(this);
                }
            }
            case TIMER_D, TIMER_M -> layer.terminate(this);
            default ->
            {
            }
        }
    }
}
