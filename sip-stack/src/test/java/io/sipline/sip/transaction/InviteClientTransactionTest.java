package io.sipline.sip.transaction;

import static io.sipline.sip.transaction.TransactionHarness.outgoing;
import static io.sipline.sip.transaction.TransactionHarness.response;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class InviteClientTransactionTest
{
    private static final String BRANCH = "z9hG4bKict1";

    @Test
    void shouldRetransmitOnTimerADoublingWithoutCapThenTimeOutWithTimerB()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("INVITE", BRANCH), false);
        assertNotNull(tx);
        assertEquals(TransactionState.CALLING, tx.state());
        assertEquals(1, h.sent.size());
        // A: 500, 1000, 2000, 4000, 8000, 16000 ms (no T2 cap for INVITE, §17.1.1.2)
        final long[] intervals = {500, 1000, 2000, 4000, 8000, 16000};
        for (int i = 0; i < intervals.length; i++)
        {
            h.advanceMs(intervals[i] - 1);
            assertEquals(1 + i, h.sent.size());
            h.advanceMs(1);
            assertEquals(2 + i, h.sent.size());
            assertTrue(h.lastSent().startsWith("INVITE sip:carol"));
        }
        // 31.5 s elapsed; B fires at 64*T1 = 32 s
        h.advanceMs(499);
        assertEquals(List.of(), h.events);
        h.advanceMs(1);
        assertEquals(List.of("timeout B", "terminated"), h.events);
        assertEquals(TransactionState.TERMINATED, tx.state());
        assertEquals(1, h.layer.timeouts());
        h.assertNoLeaks();
    }

    @Test
    void shouldNotRetransmitOverReliableTransportButStillTimeOut()
    {
        final TransactionHarness h = new TransactionHarness();
        h.send(outgoing("INVITE", BRANCH), true);
        h.advanceMs(31_999);
        assertEquals(1, h.sent.size());
        h.advanceMs(1);
        assertEquals(List.of("timeout B", "terminated"), h.events);
        h.assertNoLeaks();
    }

    @Test
    void shouldEnterProceedingOnProvisionalAndStopRetransmittingAndTimerB()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("INVITE", BRANCH), false);
        h.receive(response(100, BRANCH, "INVITE"));
        assertEquals(TransactionState.PROCEEDING, tx.state());
        h.receive(response(180, BRANCH, "INVITE"));
        h.receive(response(180, BRANCH, "INVITE"));
        assertEquals(List.of("response 100", "response 180", "response 180"), h.events);
        h.advanceMs(60_000);
        assertEquals(1, h.sent.size());
        assertEquals(TransactionState.PROCEEDING, tx.state());
        h.receive(response(486, BRANCH, "INVITE"));
        assertEquals(TransactionState.COMPLETED, tx.state());
        h.advanceMs(32_000);
        assertEquals(TransactionState.TERMINATED, tx.state());
        h.assertNoLeaks();
    }

    @Test
    void shouldAckNonSuccessFinalFromOriginalRequestAndAbsorbItsRetransmissions()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("INVITE", BRANCH), false);
        h.receive(response(486, BRANCH, "INVITE"));
        assertEquals(TransactionState.COMPLETED, tx.state());
        assertEquals(2, h.sent.size());
        final String ack = h.lastSent();
        // §17.1.1.3: R-URI, top Via (same branch), Route, From, Call-ID, CSeq number of the request; To of response
        assertEquals("ACK sip:carol@chicago.example.com SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 198.51.100.1:5060;branch=z9hG4bKict1;rport\r\n"
            + "Route: <sip:proxy.example.com;lr>\r\n"
            + "From: <sip:us@example.com>;tag=ourtag\r\n"
            + "To: <sip:carol@chicago.example.com>;tag=theirtag\r\n"
            + "Call-ID: call-1@198.51.100.1\r\n"
            + "CSeq: 7 ACK\r\n"
            + "Max-Forwards: 70\r\n"
            + "Content-Length: 0\r\n\r\n", ack);
        TransactionHarness.parse(ack);
        // retransmitted 486: ACK re-sent, TU not told again
        h.receive(response(486, BRANCH, "INVITE"));
        assertEquals(3, h.sent.size());
        assertEquals(ack, h.lastSent());
        assertEquals(List.of("response 486"), h.events);
        assertEquals(1, h.layer.absorbedResponses());
        // no timer A in Completed; timer D = 32 s
        h.advanceMs(31_999);
        assertEquals(3, h.sent.size());
        assertEquals(TransactionState.COMPLETED, tx.state());
        h.advanceMs(1);
        assertEquals(List.of("response 486", "terminated"), h.events);
        h.assertNoLeaks();
    }

    @Test
    void shouldTerminateAtOnceAfterNonSuccessOverReliableTransport()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("INVITE", BRANCH), true);
        h.receive(response(503, BRANCH, "INVITE"), true);
        assertTrue(h.lastSent().startsWith("ACK "));
        assertEquals(TransactionState.COMPLETED, tx.state()); // timer D = 0 fires on the next duty cycle
        h.advanceMs(0);
        assertEquals(TransactionState.TERMINATED, tx.state());
        h.assertNoLeaks();
    }

    @Test
    void shouldEnterAcceptedOn2xxAndPassEvery2xxToTheUserUntilTimerM()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("INVITE", BRANCH), false);
        h.receive(response(180, BRANCH, "INVITE"));
        h.receive(response(200, BRANCH, "INVITE"));
        assertEquals(TransactionState.ACCEPTED, tx.state());
        h.receive(response(200, BRANCH, "INVITE")); // retransmission or fork: RFC 6026 §8.4, to the TU
        h.receive(response(180, BRANCH, "INVITE")); // late provisional: absorbed
        assertEquals(List.of("response 180", "response 200", "response 200"), h.events);
        assertEquals(1, h.sent.size()); // the 2xx ACK is the TU's, not the transaction's
        h.advanceMs(31_999);
        assertEquals(TransactionState.ACCEPTED, tx.state());
        h.advanceMs(1);
        assertEquals(TransactionState.TERMINATED, tx.state());
        // after Timer M a 2xx is stray: to the core statelessly
        h.receive(response(200, BRANCH, "INVITE"));
        assertEquals("stateless-response 200", h.events.get(h.events.size() - 1));
        h.assertNoLeaks();
    }

    @Test
    void shouldGoFromCallingToAcceptedDirectly()
    {
        final TransactionHarness h = new TransactionHarness();
        final ClientTransaction tx = h.send(outgoing("INVITE", BRANCH), false);
        h.receive(response(200, BRANCH, "INVITE"));
        assertEquals(TransactionState.ACCEPTED, tx.state());
        h.advanceMs(10_000);
        assertEquals(1, h.sent.size()); // timer A stopped
        h.advanceMs(22_000);
        assertEquals(List.of("response 200", "terminated"), h.events);
        h.assertNoLeaks();
    }

    @Test
    void shouldReportTransportErrorAndTerminate()
    {
        final TransactionHarness h = new TransactionHarness();
        h.failSends = true;
        final ClientTransaction tx = h.send(outgoing("INVITE", BRANCH), false);
        assertNotNull(tx);
        assertEquals(List.of(), h.events); // reported from doWork, not inside sendRequest
        h.advanceMs(0);
        assertEquals(List.of("transport-error", "terminated"), h.events);
        assertEquals(1, h.layer.transportErrors());
        h.advanceMs(40_000);
        assertEquals(2, h.events.size()); // no timer A/B left behind
        h.assertNoLeaks();
    }
}
