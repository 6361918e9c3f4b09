package io.sipline.sip.transaction;

import static io.sipline.sip.transaction.TransactionHarness.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

class InviteServerTransactionTest
{
    private static final String BRANCH = "z9hG4bK776asdhds";
    private static final String INVITE = request("INVITE", BRANCH);
    private static final String ACK = request("ACK", BRANCH, "ACK", 1, "uastag");

    @Test
    void shouldSend100TryingAtOnceThenPassInviteToUser()
    {
        final TransactionHarness h = new TransactionHarness();
        assertTrue(h.receive(INVITE));
        assertEquals(List.of("request INVITE"), h.events);
        assertEquals(1, h.sent.size());
        assertTrue(h.sent.get(0).startsWith("SIP/2.0 100 Trying\r\n"));
        assertTrue(h.sent.get(0).contains("CSeq: 1 INVITE\r\n"));
        assertEquals(TransactionHarness.PEER, h.sentTo.get(0));
        assertEquals(TransactionState.PROCEEDING, h.lastServer.state());
        assertEquals(100, h.lastServer.lastStatus());
        // a retransmitted INVITE re-sends the last provisional, the user does not see it again
        h.receive(INVITE);
        assertEquals(2, h.sent.size());
        assertEquals(h.sent.get(0), h.sent.get(1));
        assertEquals(List.of("request INVITE"), h.events);
        assertEquals(1, h.layer.absorbedRequests());
    }

    @Test
    void shouldResendLatestProvisionalInProceeding()
    {
        final TransactionHarness h = new TransactionHarness();
        h.receive(INVITE);
        final ServerTransaction tx = h.lastServer;
        assertTrue(h.respond(tx, 180));
        assertEquals(TransactionState.PROCEEDING, tx.state());
        h.receive(INVITE);
        assertEquals(3, h.sent.size());
        assertTrue(h.lastSent().startsWith("SIP/2.0 180 "));
        assertEquals(h.sent.get(1), h.sent.get(2));
        h.respond(tx, 486);
        h.receive(ACK);
        h.advanceMs(5_000);
        h.assertNoLeaks();
    }

    @Test
    void shouldDelay100TryingWhenConfiguredAndSkipItWhenUserAnswersFirst()
    {
        final TransactionHarness h =
            new TransactionHarness(new TransactionConfig().trying100DelayNs(200 * TransactionHarness.MS));
        h.receive(INVITE);
        final ServerTransaction first = h.lastServer;
        final SipMessageHolder firstRequest = new SipMessageHolder(h);
        assertEquals(0, h.sent.size());
        h.advanceMs(199);
        assertEquals(0, h.sent.size());
        h.advanceMs(1);
        assertEquals(1, h.sent.size());
        assertTrue(h.lastSent().startsWith("SIP/2.0 100 Trying"));

        h.receive(request("INVITE", "z9hG4bKsecond"));
        final ServerTransaction second = h.lastServer;
        h.advanceMs(50);
        h.respond(second, 180);
        h.advanceMs(500);
        assertEquals(2, h.sent.size()); // no 100 for the second: the 180 came first
        assertTrue(h.lastSent().startsWith("SIP/2.0 180 "));
        h.respond(second, 200);
        firstRequest.restore();
        h.respond(first, 200);
        h.advanceMs(40_000);
        assertEquals(TransactionState.TERMINATED, first.state());
        assertEquals(TransactionState.TERMINATED, second.state());
        h.assertNoLeaks();
    }

    /** Keeps the user's copy of a request so that the test can answer an earlier transaction later. */
    private static final class SipMessageHolder
    {
        private final TransactionHarness h;
        private final io.sipline.sip.message.SipMessage request;

        SipMessageHolder(final TransactionHarness h)
        {
            this.h = h;
            this.request = h.lastRequest;
        }

        void restore()
        {
            h.lastRequest = request;
        }
    }

    @Test
    void shouldRetransmitNonSuccessOnTimerGCappedAtT2AndTimeOutWithTimerH()
    {
        final TransactionHarness h = new TransactionHarness();
        h.receive(INVITE);
        final ServerTransaction tx = h.lastServer;
        assertTrue(h.respond(tx, 486));
        assertEquals(TransactionState.COMPLETED, tx.state());
        assertEquals(2, h.sent.size());
        final String response = h.lastSent();
        // G: 500, 1000, 2000, 4000, 4000, ... up to H = 32 s
        final long[] expected = {500, 1500, 3500, 7500, 11500, 15500, 19500, 23500, 27500, 31500};
        long t = 0;
        for (final long at : expected)
        {
            h.advanceMs(at - 1 - t);
            final int before = h.sent.size();
            h.advanceMs(1);
            t = at;
            assertEquals(before + 1, h.sent.size(), "G at " + at);
            assertEquals(response, h.lastSent());
        }
        // a retransmitted INVITE in Completed re-sends the final response
        h.receive(INVITE);
        assertEquals(response, h.lastSent());
        h.advanceMs(32_000 - t - 1);
        assertEquals(TransactionState.COMPLETED, tx.state());
        h.advanceMs(1);
        assertEquals(List.of("request INVITE", "timeout H", "terminated"), h.events);
        h.assertNoLeaks();
    }

    @Test
    void shouldConfirmOnAckAndAbsorbUntilTimerI()
    {
        final TransactionHarness h = new TransactionHarness();
        h.receive(INVITE);
        final ServerTransaction tx = h.lastServer;
        h.respond(tx, 404);
        h.advanceMs(500);
        assertEquals(3, h.sent.size());
        h.receive(ACK);
        assertEquals(TransactionState.CONFIRMED, tx.state());
        h.receive(ACK);
        h.receive(INVITE);
        h.advanceMs(4_999); // I = T4; no G retransmission in Confirmed
        assertEquals(3, h.sent.size());
        assertEquals(TransactionState.CONFIRMED, tx.state());
        h.advanceMs(1);
        assertEquals(List.of("request INVITE", "terminated"), h.events);
        assertEquals(3, h.layer.absorbedRequests());
        h.assertNoLeaks();
    }

    @Test
    void shouldUseNoTimerGAndZeroTimerIOverReliable()
    {
        final TransactionHarness h = new TransactionHarness();
        h.receive(INVITE, true);
        final ServerTransaction tx = h.lastServer;
        h.respond(tx, 480);
        h.advanceMs(10_000);
        assertEquals(2, h.sent.size());
        h.receive(ACK, true);
        assertEquals(TransactionState.CONFIRMED, tx.state());
        h.advanceMs(0);
        assertEquals(TransactionState.TERMINATED, tx.state());
        h.assertNoLeaks();
    }

    @Test
    void shouldEnterAcceptedOn2xxPassAckToUserAndAbsorbInviteUntilTimerL()
    {
        final TransactionHarness h = new TransactionHarness();
        h.receive(INVITE);
        final ServerTransaction tx = h.lastServer;
        h.respond(tx, 200);
        assertEquals(TransactionState.ACCEPTED, tx.state());
        assertEquals(2, h.sent.size());
        // nothing in Accepted sends the 2xx again, so it is not kept for timer L (a pooled buffer for 32 s a call)
        assertEquals(0, h.liveReferences(), "the 100 and the 2xx are let go of once sent");
        h.advanceMs(10_000);
        assertEquals(2, h.sent.size()); // the transaction never retransmits a 2xx itself
        h.receive(INVITE); // RFC 6026 §8.7: absorbed, not re-sent, not to the TU
        assertEquals(2, h.sent.size());
        assertTrue(h.respond(tx, 200)); // the TU's own 2xx retransmission (§13.3.1.4) goes out
        assertEquals(3, h.sent.size());
        assertEquals(h.sent.get(1), h.sent.get(2));
        assertEquals(0, h.liveReferences(), "the TU's retransmission too");
        assertFalse(h.respond(tx, 486)); // no non-2xx after a 2xx
        h.receive(ACK);
        assertEquals(List.of("request INVITE", "ack"), h.events);
        assertSame(tx, h.lastServer);
        h.advanceMs(21_999); // L = 64*T1 from the first 2xx
        assertEquals(TransactionState.ACCEPTED, tx.state());
        h.advanceMs(1);
        assertEquals(TransactionState.TERMINATED, tx.state());
        h.receive(ACK); // now an ACK without a transaction: to the dialog layer statelessly
        assertEquals("stateless-request ACK", h.events.get(h.events.size() - 1));
        h.assertNoLeaks();
    }

    /** A 2xx for a Via {@code maddr} host name still being located is kept until it goes, then let go of. */
    @Test
    void shouldKeepA2xxWhoseDestinationIsBeingLocatedUntilItIsSent()
    {
        final TransactionHarness h = new TransactionHarness();
        h.deferLocating = true;
        h.receive(INVITE.replace(";branch=" + BRANCH, ";maddr=proxy.atlanta.example.com;branch=" + BRANCH));
        final ServerTransaction tx = h.lastServer;
        assertTrue(h.sent.isEmpty(), "the 100 waits for the maddr host too");
        assertTrue(h.respond(tx, 200));
        assertEquals(TransactionState.ACCEPTED, tx.state());
        assertTrue(h.sent.isEmpty());
        assertEquals(1, h.liveReferences(), "the 2xx (the current message) is held while its host is located");
        final InetSocketAddress located = new InetSocketAddress("192.0.2.77", 5060);
        h.located(located);
        assertEquals(1, h.sent.size());
        assertTrue(h.lastSent().startsWith("SIP/2.0 200 "));
        assertEquals(located, h.sentTo.get(0));
        assertEquals(0, h.liveReferences(), "sent, then let go of");
        assertTrue(h.respond(tx, 200)); // later 2xx go straight to the located address and are let go of too
        assertEquals(located, h.sentTo.get(1));
        assertEquals(0, h.liveReferences());
        h.advanceMs(32_000);
        assertEquals(TransactionState.TERMINATED, tx.state());
        h.assertNoLeaks();
    }

    @Test
    void shouldReportTransportErrorWhenResponseCannotBeSent()
    {
        final TransactionHarness h = new TransactionHarness();
        h.receive(INVITE);
        final ServerTransaction tx = h.lastServer;
        h.failSends = true;
        h.respond(tx, 500);
        assertFalse(h.respond(tx, 500)); // refused once failed, and released
        h.advanceMs(0);
        assertEquals(List.of("request INVITE", "transport-error", "terminated"), h.events);
        h.assertNoLeaks();
    }
}
