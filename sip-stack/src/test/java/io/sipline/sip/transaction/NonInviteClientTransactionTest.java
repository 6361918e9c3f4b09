package io.sipline.sip.transaction;

import static io.sipline.sip.transaction.TransactionHarness.outgoing;
import static io.sipline.sip.transaction.TransactionHarness.response;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class NonInviteClientTransactionTest
{
    private static final String BRANCH = "z9hG4bKnict1";

    /** Times (ms after start) at which the request went out, sampled every ms up to {@code untilMs}. */
    private static List<Long> sendTimes(final TransactionHarness h, final long untilMs)
    {
        final List<Long> times = new ArrayList<>();
        times.add(0L);
        int seen = h.sent.size();
        for (long t = 1; t <= untilMs; t++)
        {
            h.advanceMs(1);
            if (h.sent.size() != seen)
            {
                seen = h.sent.size();
                times.add(t);
            }
        }
        return times;
    }

    @Test
    void shouldRetransmitOnTimerEDoublingUpToT2ThenTimeOutWithTimerF()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("OPTIONS", BRANCH), false);
        assertEquals(TransactionState.TRYING, tx.state());
        // E: 500, 1000, 2000, 4000 (T2), 4000, ... (§17.1.2.2)
        assertEquals(List.of(0L, 500L, 1500L, 3500L, 7500L, 11500L, 15500L, 19500L, 23500L, 27500L, 31500L),
            sendTimes(h, 31_999));
        assertEquals(List.of(), h.events);
        h.advanceMs(1);
        assertEquals(List.of("timeout F", "terminated"), h.events);
        h.assertNoLeaks();
    }

    @Test
    void shouldRetransmitEveryT2InProceeding()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("REGISTER", BRANCH), false);
        h.advanceMs(100);
        h.receive(response(100, BRANCH, "REGISTER"));
        h.receive(response(100, BRANCH, "REGISTER")); // provisional responses all go up in Proceeding
        assertEquals(TransactionState.PROCEEDING, tx.state());
        assertEquals(List.of("response 100", "response 100"), h.events);
        // the E armed in Trying fires at 500, then every T2
        final List<Long> times = sendTimes(h, 12_000);
        assertEquals(List.of(0L, 400L, 4400L, 8400L), times);
        h.advanceMs(19_900);
        assertEquals(List.of("response 100", "response 100", "timeout F", "terminated"), h.events);
        h.assertNoLeaks();
    }

    @Test
    void shouldPassFinalOnceAndAbsorbRetransmissionsUntilTimerK()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("BYE", BRANCH), false);
        h.receive(response(200, BRANCH, "BYE"));
        assertEquals(TransactionState.COMPLETED, tx.state());
        h.receive(response(200, BRANCH, "BYE"));
        h.receive(response(180, BRANCH, "BYE"));
        assertEquals(List.of("response 200"), h.events);
        assertEquals(2, h.layer.absorbedResponses());
        h.advanceMs(4_999); // K = T4
        assertEquals(1, h.sent.size());
        assertEquals(TransactionState.COMPLETED, tx.state());
        h.advanceMs(1);
        assertEquals(List.of("response 200", "terminated"), h.events);
        h.assertNoLeaks();
    }

    @Test
    void shouldGoFromProceedingToCompletedAndUseZeroTimerKOverReliable()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("MESSAGE", BRANCH), true);
        h.receive(response(100, BRANCH, "MESSAGE"), true);
        h.advanceMs(10_000);
        assertEquals(1, h.sent.size()); // no timer E over reliable transports
        h.receive(response(404, BRANCH, "MESSAGE"), true);
        assertEquals(TransactionState.COMPLETED, tx.state());
        h.advanceMs(0);
        assertEquals(List.of("response 100", "response 404", "terminated"), h.events);
        h.assertNoLeaks();
    }

    @Test
    void shouldReportTransportErrorOnRetransmission()
    {
        final TransactionHarness h = new TransactionHarness();
        h.send(outgoing("OPTIONS", BRANCH), false);
        h.failSends = true;
        h.advanceMs(500); // E fires, send fails; the report is scheduled for the next cycle
        h.advanceMs(0);
        assertEquals(List.of("transport-error", "terminated"), h.events);
        h.assertNoLeaks();
    }

    @Test
    void shouldMatchExtensionMethodsByTheirName()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("FOO", BRANCH), true);
        h.receive(response(200, BRANCH, "BAR"), true);
        assertEquals(List.of("stateless-response 200"), h.events);
        h.receive(response(200, BRANCH, "FOO"), true);
        assertEquals(TransactionState.COMPLETED, tx.state());
        h.advanceMs(0);
        h.assertNoLeaks();
    }
}
