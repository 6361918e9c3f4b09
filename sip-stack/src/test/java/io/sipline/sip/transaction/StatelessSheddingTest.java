package io.sipline.sip.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sipline.sip.message.SipMethod;
import org.junit.jupiter.api.Test;

/**
 * {@link StatelessShedding} on a {@link TransactionHarness} layer: what the table of refused INVITEs remembers,
 * RFC 2543 requests (no magic cookie), and that the 503s are released once sent. The refusal path end to end is
 * {@code StackSheddingTest}'s.
 */
class StatelessSheddingTest
{
    private final TransactionHarness h = new TransactionHarness();
    private boolean refuse = true;

    StatelessSheddingTest()
    {
        h.layer.shedding().admission((method, initial, receivedAtNanos) -> !refuse);
    }

    @Test
    void shouldRefuseTheRetransmissionsOfTheRecentRefusedInvitesAgain()
    {
        final int calls = StatelessShedding.MEMORY / 4; // a second of refusals at 4,000 a second
        for (int i = 0; i < calls; i++)
        {
            assertTrue(h.receive(TransactionHarness.request("INVITE", "z9hG4bKcall" + i)));
        }
        assertEquals(calls, h.layer.shedding().refused(SipMethod.INVITE));
        refuse = false;
        int again = 0;
        for (int i = calls - calls / 2; i < calls; i++) // the last half second's INVITEs come again
        {
            h.receive(TransactionHarness.request("INVITE", "z9hG4bKcall" + i));
            again += h.sent.get(h.sent.size() - 1).startsWith("SIP/2.0 503 ") ? 1 : 0;
        }
        // A set keeps its four newest keys: a key is lost when four more land in its set after it (Poisson, 0.17%
        // for the keys of the last half second here); a lost one is judged again like a new request
        assertTrue(again >= calls / 2 * 995 / 1000, "retransmissions of the last half second refused again: " + again);
        assertEquals(again, h.layer.shedding().refusedAgain());
        assertEquals(calls / 2 - again, h.layer.activeTransactions(), "a transaction for the ones judged again only");
        assertEquals(calls / 2 - again, h.events.size(), "nothing else passed up: " + h.events);
    }

    @Test
    void shouldAnswerAnRfc2543InviteAndAbsorbItsAck()
    {
        final String invite = TransactionHarness.request("INVITE", null);
        h.receive(invite);
        final String refused = h.sent.get(0);
        assertTrue(refused.startsWith("SIP/2.0 503 Service Unavailable (overloaded)\r\n"), refused);
        final int tag = refused.indexOf(";tag=sl");
        assertTrue(tag > 0, refused);
        final String toTag = refused.substring(tag + 5, refused.indexOf('\r', tag));
        h.receive(TransactionHarness.request("ACK", null, "ACK", 1, toTag));
        assertEquals(1, h.layer.shedding().acksAbsorbed());
        h.receive(TransactionHarness.request("ACK", null, "ACK", 1, "sl0123456789abcdef"));
        assertEquals(1, h.layer.shedding().acksAbsorbed(), "another tag is not ours");
        assertEquals(java.util.List.of("stateless-request ACK"), h.events);
        assertEquals(0, h.liveReferences(), "every 503 released once sent");
    }

    @Test
    void shouldAnswerTheCancelOfARefusedInviteWithoutATransaction()
    {
        h.receive(TransactionHarness.request("INVITE", "z9hG4bKrefused"));
        final String refused = h.sent.get(0);
        final String toTag = refused.substring(refused.indexOf(";tag=sl") + 5, refused.indexOf('\r',
            refused.indexOf(";tag=sl")));
        // RFC 3261 §9.2: no INVITE transaction matches the CANCEL (the INVITE was refused without one): 481
        h.receive(TransactionHarness.request("CANCEL", "z9hG4bKrefused", "CANCEL", 1, null));
        final String answer = h.sent.get(1);
        assertTrue(answer.startsWith("SIP/2.0 481 Call/Transaction Does Not Exist\r\n"), answer);
        assertTrue(answer.contains("CSeq: 1 CANCEL\r\n"), answer);
        assertTrue(answer.contains(";tag=" + toTag + "\r\n"), "the 503's To tag: " + answer);
        h.receive(TransactionHarness.request("CANCEL", "z9hG4bKrefused", "CANCEL", 1, null));
        assertTrue(h.sent.get(2).startsWith("SIP/2.0 481 "), "a retransmission gets it again");
        assertEquals(2, h.layer.shedding().cancelsAnswered());
        assertEquals(0, h.layer.activeTransactions(), "no transaction for the CANCELs");
        assertEquals(java.util.List.of(), h.events, "nothing passed up");
        assertEquals(0, h.liveReferences(), "every stateless answer released once sent");

        refuse = false; // a CANCEL of an INVITE never refused is the transaction user's, as before
        h.receive(TransactionHarness.request("CANCEL", "z9hG4bKother", "CANCEL", 1, null));
        assertEquals(2, h.layer.shedding().cancelsAnswered());
        assertEquals(1, h.layer.activeTransactions());
        assertEquals(java.util.List.of("request CANCEL"), h.events);
    }
}
