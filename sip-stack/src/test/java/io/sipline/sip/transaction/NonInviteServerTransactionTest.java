package io.sipline.sip.transaction;

import static io.sipline.sip.transaction.TransactionHarness.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class NonInviteServerTransactionTest
{
    private static final String BRANCH = "z9hG4bKnist1";
    private static final String OPTIONS = request("OPTIONS", BRANCH);

    @Test
    void shouldAbsorbRetransmissionsInTryingAndResendLastResponseAfterwards()
    {
        final TransactionHarness h = new TransactionHarness();
        h.receive(OPTIONS);
        final ServerTransaction tx = h.lastServer;
        assertEquals(TransactionState.TRYING, tx.state());
        assertFalse(tx.isInvite());
        h.receive(OPTIONS);
        assertEquals(0, h.sent.size()); // Trying: nothing to re-send
        assertTrue(h.respond(tx, 100));
        assertEquals(TransactionState.PROCEEDING, tx.state());
        h.receive(OPTIONS);
        assertEquals(2, h.sent.size());
        assertTrue(h.lastSent().startsWith("SIP/2.0 100 "));
        assertTrue(h.respond(tx, 183));
        h.receive(OPTIONS);
        assertTrue(h.lastSent().startsWith("SIP/2.0 183 "));
        assertTrue(h.respond(tx, 200));
        assertEquals(TransactionState.COMPLETED, tx.state());
        h.receive(OPTIONS);
        assertTrue(h.lastSent().startsWith("SIP/2.0 200 "));
        assertEquals(6, h.sent.size());
        assertFalse(h.respond(tx, 500)); // Completed: no other response
        assertEquals(List.of("request OPTIONS"), h.events);
        assertEquals(4, h.layer.absorbedRequests());
        h.advanceMs(31_999); // J = 64*T1
        assertEquals(TransactionState.COMPLETED, tx.state());
        h.advanceMs(1);
        assertEquals(List.of("request OPTIONS", "terminated"), h.events);
        h.assertNoLeaks();
    }

    @Test
    void shouldGoFromTryingToCompletedAndUseZeroTimerJOverReliable()
    {
        final TransactionHarness h = new TransactionHarness();
        h.receive(OPTIONS, true);
        final ServerTransaction tx = h.lastServer;
        h.respond(tx, 200);
        assertEquals(TransactionState.COMPLETED, tx.state());
        h.advanceMs(0);
        assertEquals(TransactionState.TERMINATED, tx.state());
        h.assertNoLeaks();
    }

    @Test
    void shouldReportTransportErrorFromProceedingAndCompleted()
    {
        final TransactionHarness h = new TransactionHarness();
        h.receive(OPTIONS);
        h.respond(h.lastServer, 100);
        h.failSends = true;
        h.receive(OPTIONS); // the re-send of the 100 fails
        h.advanceMs(0);
        assertEquals(List.of("request OPTIONS", "transport-error", "terminated"), h.events);

        h.failSends = false;
        h.events.clear();
        h.receive(request("BYE", "z9hG4bKnist2"));
        h.respond(h.lastServer, 200);
        h.failSends = true;
        h.receive(request("BYE", "z9hG4bKnist2"));
        h.advanceMs(0);
        assertEquals(List.of("request BYE", "transport-error", "terminated"), h.events);
        h.assertNoLeaks();
    }

    @Test
    void shouldFlagMaxForwardsZeroForTheUserToDecide()
    {
        final TransactionHarness h = new TransactionHarness();
        h.receive(OPTIONS.replace("Max-Forwards: 70", "Max-Forwards: 0"));
        assertTrue(h.lastServer.maxForwardsExhausted());
        assertEquals(0, h.sent.size()); // the layer does not answer 483 itself
        h.respond(h.lastServer, 483);
        h.receive(request("OPTIONS", "z9hG4bKother"));
        assertFalse(h.lastServer.maxForwardsExhausted());
        h.respond(h.lastServer, 200);
        h.advanceMs(32_000);
        h.assertNoLeaks();
    }
}
