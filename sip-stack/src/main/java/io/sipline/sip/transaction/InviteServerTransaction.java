package io.sipline.sip.transaction;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.SipMessage;

/**
 * The INVITE server transaction (RFC 3261 §17.2.1, Figure 7, as corrected by RFC 6026 §7.1 and §8.5-§8.7); the
 * state diagram is on {@link #start}.
 *
 * <p>Timer G (unreliable only) starts at T1 and doubles up to T2; timer H is 64*T1; timer I is T4 over UDP, 0 over a
 * reliable transport; timer L (RFC 6026) is 64*T1. A retransmitted INVITE re-sends the last provisional response in
 * Proceeding and the final response in Completed; in Accepted it is absorbed (RFC 6026 §8.7), and an ACK there goes
 * to the TU ({@link TransactionUser#onAck}). The transaction never retransmits a 2xx on its own: the TU does
 * (§13.3.1.4), through {@link TransactionLayer#respond}, which the Accepted state passes to the transport.
 *
 * <p>Buffers: the last response sent is the retained outbound message, released at Terminated; a 2xx is released
 * as soon as the transport took it ({@link #letGoOfSent2xx()}), or once sent when its destination was still being
 * located ({@link #onDeferredSend()}). 100 Trying: see {@link TransactionConfig#trying100DelayNs(long)}.
 *
 * <p>Response times: the first 180 and the first final response the transport takes are timed once each against the
 * INVITE's arrival ({@link TransactionLayer#inviteResponseTimes(InviteResponse)}); re-sent responses are not.
 *
 * <p>Not thread-safe; owned by one shard.
 */
public final class InviteServerTransaction extends ServerTransaction
{
    /** A built 100 waiting for the delayed-Trying timer; our reference, released when sent or no longer needed. */
    private ByteBuf pendingTrying;
    /** The INVITE's wall-clock arrival, ns since the epoch; 0 when unknown. */
    private long arrivalNs;
    /** True once the first 180 was timed. */
    private boolean ringingTimed;

    InviteServerTransaction(final TransactionLayer layer, final int index)
    {
        super(layer, index, TransactionLayer.KIND_INVITE_SERVER);
    }

    @Override
    public boolean isInvite()
    {
        return true;
    }

    /**
     * Enters Proceeding, the first state of RFC 3261 Figure 7 as RFC 6026 §7.1 corrects it:
     *
     * <pre>
     *                                |INVITE
     *                                |pass INV to TU
     *             INVITE             V send 100 (at once, or if TU won't in 200 ms)
     *             send response+-----------+
     *                 +--------|           |--------+ 101-199 from TU
     *                 |        |           |        | send response
     *                 +------->|Proceeding |<-------+
     *                          |           |
     *                          +-----------+
     *          300-699 from TU |  |     | 2xx from TU
     *          send response   |  |     | send response
     *                          |  |     +------------------+
     *                          |  | Transport Err.         |
     *                          |  | Inform TU              |
     *                          |  V                        V
     *          INVITE          |  (Terminated)       +-----------+   2xx from TU
     *          send response   V                     |           |   send response
     *          +-------- +-----------+               | Accepted  |<----------+
     *          |         |           |               |           |--------+  ACK: to TU
     *          +-------->| Completed |               +-----------+<-------+  INVITE: absorb
     *                    |           |-------+             |
     *                    +-----------+       |             | Timer L fires
     *                     ^   |  |   Timer G |             |
     *                     +---+  |   send    |             |
     *                      ACK   |   resp.   |             |
     *                      (to   |   Timer H fires or      |
     *                  Confirmed)|   Transport Err.        |
     *                            |   inform TU             |
     *                            V                         |
     *                    +-----------+                     |
     *                    |           |  ACK, INVITE:       |
     *                    | Confirmed |  absorbed           |
     *                    |           |                     |
     *                    +-----------+                     |
     *                          | Timer I fires             |
     *                          V                           V
     *                    +-------------------------------------+
     *                    |              Terminated             |
     *                    +-------------------------------------+
     * </pre>
     */
    @Override
    void start(final SipMessage request)
    {
        state = TransactionState.PROCEEDING;
        arrivalNs = request.receivedAtNanos();
        final long delayNs = layer.config().trying100DelayNs();
        if (delayNs == 0)
        {
            replaceOutbound(layer.messages.buildTrying(request, peer));
            lastStatus = 100;
            sendOutbound();
        }
        else if (delayNs > 0)
        {
            pendingTrying = layer.messages.buildTrying(request, peer);
            startRetransmitTimer(TIMER_TRYING, delayNs);
        }
    }

    @Override
    void onRetransmission(final SipMessage request)
    {
        if (state == TransactionState.PROCEEDING || state == TransactionState.COMPLETED)
        {
            sendOutbound(); // §17.2.1: the last provisional (Proceeding) or the final response (Completed)
        }
        layer.countAbsorbedRequest();
    }

    /** An ACK matched this transaction. */
    void onAck(final SipMessage ack)
    {
        switch (state)
        {
            case COMPLETED ->
            {
                // §17.2.1: Confirmed; stop G and H; timer I absorbs ACK retransmissions.
                state = TransactionState.CONFIRMED;
                cancelTimers();
                startTimeoutTimer(TIMER_I, reliable ? 0 : layer.config().t4Ns());
                layer.countAbsorbedRequest();
            }
            case ACCEPTED -> layer.user().onAck(this, ack); // RFC 6026 §8.7
            default -> layer.countAbsorbedRequest();
        }
    }

    @Override
    boolean sendResponse(final ByteBuf response, final int status)
    {
        if (state == TransactionState.PROCEEDING)
        {
            dropPendingTrying();
            lastStatus = status;
            replaceOutbound(response);
            sendOutbound();
            timeResponse(status);
            if (status >= 200 && status < 300)
            {
                state = TransactionState.ACCEPTED; // RFC 6026 §8.6
                startTimeoutTimer(TIMER_L, layer.config().timer64T1Ns());
                letGoOfSent2xx();
            }
            else if (status >= 300)
            {
                state = TransactionState.COMPLETED;
                if (legacy)
                {
                    layer.messages.recordResponseToTag(this, response); // RFC 2543 ACK matching, §17.2.3
                }
                if (!reliable)
                {
                    retransmitIntervalNs = layer.config().t1Ns();
                    startRetransmitTimer(TIMER_G, retransmitIntervalNs);
                }
                startTimeoutTimer(TIMER_H, layer.config().timer64T1Ns());
            }
            return true;
        }
        if (state == TransactionState.ACCEPTED && status >= 200 && status < 300)
        {
            lastStatus = status;
            replaceOutbound(response); // the TU's 2xx retransmission (§13.3.1.4), or a forked 2xx
            sendOutbound();
            letGoOfSent2xx();
            return true;
        }
        response.release(); // refused: ownership was ours
        return false;
    }

    @Override
    void onTimer(final char timer, final long nowNs)
    {
        switch (timer)
        {
            case TIMER_TRYING ->
            {
                if (state == TransactionState.PROCEEDING && null != pendingTrying)
                {
                    replaceOutbound(pendingTrying);
                    pendingTrying = null;
                    lastStatus = 100;
                    sendOutbound();
                }
            }
            case TIMER_G ->
            {
                if (state == TransactionState.COMPLETED)
                {
                    sendOutbound();
                    retransmitIntervalNs = Math.min(2 * retransmitIntervalNs, layer.config().t2Ns());
                    startRetransmitTimer(TIMER_G, retransmitIntervalNs);
                }
            }
            case TIMER_H ->
            {
                if (state == TransactionState.COMPLETED)
                {
                    layer.user().onTimeout(this, TIMER_H);
                    layer.terminate(this);
                }
            }
            case TIMER_I, TIMER_L -> layer.terminate(this);
            default ->
            {
            }
        }
    }

    /**
     * In Accepted the transaction sends nothing on its own (RFC 6026 §8.7: a retransmitted INVITE is absorbed; the
     * TU retransmits the 2xx, §13.3.1.4, with a buffer of its own each time), so the 2xx just handed to the
     * transport (which copies or retains what it needs: {@link TransactionTransport#send} borrows) is released now
     * rather than at timer L. Kept while its destination is being located: {@link #onDeferredSend()} sends it then.
     */
    private void letGoOfSent2xx()
    {
        if (!resolving)
        {
            replaceOutbound(null);
        }
    }

    @Override
    void onDeferredSend()
    {
        if (state == TransactionState.ACCEPTED)
        {
            letGoOfSent2xx();
        }
    }

    /**
     * Times a response sent in Proceeding: the first 180, and the final response (sent once in Proceeding, since
     * the state leaves Proceeding with it). Only when the transport took it: a failed send is a transport error, and
     * a destination still being located sends later.
     */
    private void timeResponse(final int status)
    {
        if (transportFailed || resolving)
        {
            return;
        }
        if (180 == status)
        {
            if (!ringingTimed)
            {
                ringingTimed = true;
                layer.recordInviteResponse(InviteResponse.RINGING, arrivalNs);
            }
        }
        else if (status >= 200)
        {
            layer.recordInviteResponse(status < 300 ? InviteResponse.SUCCESS : InviteResponse.FAILURE, arrivalNs);
        }
    }

    private void dropPendingTrying()
    {
        if (null != pendingTrying)
        {
            cancelRetransmitTimer();
            pendingTrying.release(); // never sent: the TU answered first
            pendingTrying = null;
        }
    }

    @Override
    void reset()
    {
        super.reset();
        arrivalNs = 0;
        ringingTimed = false;
    }

    @Override
    void releaseBuffers()
    {
        super.releaseBuffers();
        if (null != pendingTrying)
        {
            pendingTrying.release();
            pendingTrying = null;
        }
    }
}
