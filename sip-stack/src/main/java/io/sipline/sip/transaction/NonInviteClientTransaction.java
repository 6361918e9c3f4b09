package io.sipline.sip.transaction;

import io.sipline.sip.message.SipMessage;

/**
 * The non-INVITE client transaction (RFC 3261 §17.1.2, Figure 6; the state diagram is on {@link #start}).
 *
 * <p>Timer E (unreliable only) starts at T1 and doubles up to T2 in Trying; in Proceeding it fires every T2
 * (§17.1.2.2). Timer F is 64*T1. Timer K is T4 over UDP, 0 over a reliable transport. Provisional responses all go
 * to the TU; a final response goes once, retransmissions of it are absorbed in Completed.
 *
 * <p>Not thread-safe; owned by one shard.
 */
public final class NonInviteClientTransaction extends ClientTransaction
{
    NonInviteClientTransaction(final TransactionLayer layer, final int index)
    {
        super(layer, index, TransactionLayer.KIND_NON_INVITE_CLIENT);
    }

    @Override
    public boolean isInvite()
    {
        return false;
    }

    /**
     * Sends the request and enters Trying, the first state of RFC 3261 Figure 6:
     *
     * <pre>
     *                                    |Request from TU
     *                                    |send request
     *                Timer E             V
     *                send request  +-----------+
     *                    +---------|           |-------------------+
     *                    |         |  Trying   |  Timer F          |
     *                    +-------->|           |  or Transport Err.|
     *                              +-----------+  inform TU        |
     *                 200-699         |  |                         |
     *                 resp. to TU     |  |1xx                      |
     *                 +---------------+  |resp. to TU              |
     *                 |                  |                         |
     *                 |   Timer E        V       Timer F           |
     *                 |   send req +-----------+ or Transport Err. |
     *                 |  +---------|           | inform TU         |
     *                 |  |         |Proceeding |------------------>|
     *                 |  +-------->|           |-----+             |
     *                 |            +-----------+     |1xx          |
     *                 |              |      ^        |resp to TU   |
     *                 | 200-699      |      +--------+             |
     *                 | resp. to TU  |                             |
     *                 |              |                             |
     *                 |              V                             |
     *                 |            +-----------+                   |
     *                 |            |           |                   |
     *                 |            | Completed |                   |
     *                 |            |           |                   |
     *                 |            +-----------+                   |
     *                 |              ^   |                         |
     *                 |              |   | Timer K                 |
     *                 +--------------+   | -                       |
     *                                    |                         |
     *                                    V                         |
     *              NOTE:           +-----------+                   |
     *                              |           |                   |
     *          transitions         | Terminated|<------------------+
     *          labeled with        |           |
     *          the event           +-----------+
     *          over the action
     *          to take
     * </pre>
     */
    @Override
    void start()
    {
        state = TransactionState.TRYING;
        sendOutbound();
        if (!reliable)
        {
            retransmitIntervalNs = layer.config().t1Ns();
            startRetransmitTimer(TIMER_E, retransmitIntervalNs);
        }
        startTimeoutTimer(TIMER_F, layer.config().timer64T1Ns());
    }

    @Override
    void onResponse(final SipMessage response)
    {
        final int status = response.statusCode();
        switch (state)
        {
            case TRYING, PROCEEDING ->
            {
                lastStatus = status;
                if (status < 200)
                {
                    state = TransactionState.PROCEEDING;
                    layer.user().onResponse(this, response);
                }
                else
                {
                    state = TransactionState.COMPLETED;
                    cancelTimers();
                    replaceOutbound(null); // no more retransmissions: the request can go
                    startTimeoutTimer(TIMER_K, reliable ? 0 : layer.config().t4Ns());
                    layer.user().onResponse(this, response);
                }
            }
            default -> layer.countAbsorbedResponse(); // Completed: §17.1.2.2, retransmissions absorbed
        }
    }

    @Override
    void onTimer(final char timer, final long nowNs)
    {
        switch (timer)
        {
            case TIMER_E ->
            {
                if (state == TransactionState.TRYING)
                {
                    sendOutbound();
                    retransmitIntervalNs = Math.min(2 * retransmitIntervalNs, layer.config().t2Ns());
                    startRetransmitTimer(TIMER_E, retransmitIntervalNs);
                }
                else if (state == TransactionState.PROCEEDING)
                {
                    sendOutbound();
                    retransmitIntervalNs = layer.config().t2Ns();
                    startRetransmitTimer(TIMER_E, retransmitIntervalNs);
                }
            }
            case TIMER_F ->
            {
                if (state == TransactionState.TRYING || state == TransactionState.PROCEEDING)
                {
                    layer.user().onTimeout(this, TIMER_F);
                    layer.terminate(this);
                }
            }
            case TIMER_K -> layer.terminate(this);
            default ->
            {
            }
        }
    }
}
