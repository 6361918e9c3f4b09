package io.sipline.sip.transaction;

import static io.sipline.sip.transaction.TransactionHarness.MS;
import static io.sipline.sip.transaction.TransactionHarness.outgoing;
import static io.sipline.sip.transaction.TransactionHarness.request;
import static io.sipline.sip.transaction.TransactionHarness.response;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Retransmissions (timers A, E, G) wait while the transport's input lags behind their due time
 * ({@link TransactionTransport#inputLagNs}): the reply they would retransmit for may have arrived and still be
 * unread. Timeouts never wait. The harness's clock and lag are set by hand; each step says which time it is.
 */
class RetransmissionPutOffTest
{
    private static final String BRANCH = "z9hG4bKlag1";

    @Test
    void shouldPutTimerAOffUntilTheInputReadReachesItsDueTime()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("INVITE", BRANCH), false);
        h.inputLagNs = 300 * MS; // at 500 ms the shard reads what arrived at 200 ms
        h.advanceMs(500);
        assertEquals(1, h.sent.size(), "not retransmitted: a reply from 200-500 ms may wait unread");
        assertEquals(1, h.layer.deferredRetransmissions());
        h.advanceMs(299);
        assertEquals(1, h.sent.size());
        h.inputLagNs = 0; // caught up at 800 ms: nothing came
        h.advanceMs(1);
        assertEquals(2, h.sent.size(), "retransmitted once the input read reached 500 ms without a reply");
        assertEquals(1, h.layer.deferredRetransmissions());
        // the next interval (2*T1) counts from the retransmission
        h.advanceMs(999);
        assertEquals(2, h.sent.size());
        h.advanceMs(1);
        assertEquals(3, h.sent.size());
        assertEquals(TransactionState.CALLING, tx.state());
        h.receive(response(486, BRANCH, "INVITE"));
        h.advanceMs(32_000);
        h.assertNoLeaks();
    }

    @Test
    void shouldNotRetransmitWhenTheReplyWasWaitingInTheBacklog()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("INVITE", BRANCH), false);
        h.inputLagNs = 450 * MS;
        h.advanceMs(500);
        h.inputLagNs = 0;
        h.receive(response(180, BRANCH, "INVITE")); // read from the backlog at 500 ms
        assertEquals(TransactionState.PROCEEDING, tx.state());
        h.advanceMs(2_000);
        assertEquals(1, h.sent.size(), "the INVITE went out once");
        assertEquals(List.of("response 180"), h.events);
        assertEquals(1, h.layer.deferredRetransmissions());
        h.receive(response(486, BRANCH, "INVITE"));
        h.advanceMs(32_000);
        h.assertNoLeaks();
    }

    @Test
    void shouldRetransmitOnceALittleLateUnderASteadySmallLag()
    {
        final TransactionHarness h = new TransactionHarness();
        h.send(outgoing("INVITE", BRANCH), false);
        h.inputLagNs = 2 * MS; // a busy shard reads what arrived 2 ms ago
        h.advanceMs(500);
        assertEquals(1, h.sent.size());
        h.advanceMs(2);
        assertEquals(2, h.sent.size(), "2 ms late, not put off again");
        assertEquals(1, h.layer.deferredRetransmissions());
        h.advanceMs(1_000);
        assertEquals(2, h.sent.size());
        h.advanceMs(2);
        assertEquals(3, h.sent.size());
        assertEquals(2, h.layer.deferredRetransmissions());
        h.receive(response(486, BRANCH, "INVITE"));
        h.advanceMs(32_000);
        h.assertNoLeaks();
    }

    @Test
    void shouldNeverPutTimerBOff()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("INVITE", BRANCH), false);
        h.inputLagNs = 10_000 * MS; // a ten-second backlog for the whole transaction
        for (long t = 1; t < 32_000; t++)
        {
            h.advanceMs(1);
        }
        final int sent = h.sent.size();
        assertEquals(List.of(), h.events);
        h.advanceMs(1);
        assertEquals(List.of("timeout B", "terminated"), h.events, "timer B at 64*T1, lag or not");
        assertEquals(TransactionState.TERMINATED, tx.state());
        // the INVITE at 0; A due at 0.5 s went at 10.5 s, due at 11.5 s went at 21.5 s,
        // due at 23.5 s would go at 33.5 s
        assertEquals(3, sent);
        h.assertNoLeaks();
    }

    @Test
    void shouldPutTimerEOffLikewise()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("OPTIONS", BRANCH), false);
        h.inputLagNs = 100 * MS;
        h.advanceMs(500);
        assertEquals(1, h.sent.size());
        h.inputLagNs = 0;
        h.receive(response(200, BRANCH, "OPTIONS"));
        assertEquals(TransactionState.COMPLETED, tx.state());
        h.advanceMs(10_000);
        assertEquals(1, h.sent.size());
        assertEquals(1, h.layer.deferredRetransmissions());
        h.assertNoLeaks();
    }

    @Test
    void shouldPutTimerGOffUntilTheAckWaitingInTheBacklogIsRead()
    {
        final TransactionHarness h = new TransactionHarness();
        h.receive(request("INVITE", BRANCH));
        final ServerTransaction tx = h.lastServer;
        assertTrue(h.respond(tx, 486));
        final int afterFinal = h.sent.size();
        h.inputLagNs = 200 * MS;
        h.advanceMs(500);
        assertEquals(afterFinal, h.sent.size(), "the 486 is not retransmitted while an ACK may wait unread");
        h.inputLagNs = 0;
        h.receive(request("ACK", BRANCH, "ACK", 1, "uastag"));
        assertEquals(TransactionState.CONFIRMED, tx.state());
        h.advanceMs(10_000);
        assertEquals(afterFinal, h.sent.size());
        assertEquals(1, h.layer.deferredRetransmissions());
        h.assertNoLeaks();
    }
}
