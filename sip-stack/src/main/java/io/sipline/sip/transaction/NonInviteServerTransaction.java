package io.sipline.sip.transaction;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.SipMessage;

/**
 * The non-INVITE server transaction (RFC 3261 §17.2.2, Figure 8; the state diagram is on {@link #start}). CANCEL is
 * one too, with its {@link #cancelledInvite()} found by §9.2 matching.
 *
 * <p>A retransmitted request is absorbed in Trying and re-sends the last response in Proceeding and Completed. Timer J
 * is 64*T1 over UDP and 0 over a reliable transport.
 *
 * <p>Not thread-safe; owned by one shard.
 */
public final class NonInviteServerTransaction extends ServerTransaction
{
    NonInviteServerTransaction(final TransactionLayer layer, final int index)
    {
        super(layer, index, TransactionLayer.KIND_NON_INVITE_SERVER);
    }

    @Override
    public boolean isInvite()
    {
        return false;
    }

    /**
     * Enters Trying, the first state of RFC 3261 Figure 8:
     *
     * <pre>
     *                                   |Request received
     *                                   |pass to TU
     *                                   V
     *                             +-----------+
     *                             |           |
     *                             | Trying    |-------------+
     *                             |           |             |
     *                             +-----------+             |200-699 from TU
     *                                   |                   |send response
     *                                   |1xx from TU        |
     *                                   |send response      |
     *                                   |                   |
     *                Request            V      1xx from TU  |
     *                send response+-----------+send response|
     *                    +--------|           |--------+    |
     *                    |        | Proceeding|        |    |
     *                    +------->|           |<-------+    |
     *             +<--------------|           |             |
     *             |Trnsprt Err    +-----------+             |
     *             |Inform TU            |                   |
     *             |                     |                   |
     *             |                     |200-699 from TU    |
     *             |                     |send response      |
     *             |  Request            V                   |
     *             |  send response+-----------+             |
     *             |      +--------|           |             |
     *             |      |        | Completed |<------------+
     *             |      +------->|           |
     *             +<--------------|           |
     *             |Trnsprt Err    +-----------+
     *             |Inform TU            |
     *             |                     |Timer J fires
     *             |                     |-
     *             |                     |
     *             |                     V
     *             |               +-----------+
     *             |               |           |
     *             +-------------->| Terminated|
     *                             |           |
     *                             +-----------+
     * </pre>
     */
    @Override
    void start(final SipMessage request)
    {
        state = TransactionState.TRYING;
    }

    @Override
    void onRetransmission(final SipMessage request)
    {
        if (state == TransactionState.PROCEEDING || state == TransactionState.COMPLETED)
        {
            sendOutbound(); // §17.2.2: the last response again
        }
        layer.countAbsorbedRequest();
    }

    @Override
    boolean sendResponse(final ByteBuf response, final int status)
    {
        if (state != TransactionState.TRYING && state != TransactionState.PROCEEDING)
        {
            response.release(); // refused: ownership was ours
            return false;
        }
        lastStatus = status;
        replaceOutbound(response);
        sendOutbound();
        if (status < 200)
        {
            state = TransactionState.PROCEEDING;
        }
        else
        {
            state = TransactionState.COMPLETED;
            startTimeoutTimer(TIMER_J, reliable ? 0 : layer.config().timer64T1Ns());
        }
        return true;
    }

    @Override
    void onTimer(final char timer, final long nowNs)
    {
        if (timer == TIMER_J)
        {
            layer.terminate(this);
        }
    }
}
