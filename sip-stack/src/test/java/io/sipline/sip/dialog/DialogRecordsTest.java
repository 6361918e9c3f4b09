package io.sipline.sip.dialog;

import static io.sipline.sip.dialog.DialogMessages.ALICE_TAG;
import static io.sipline.sip.dialog.DialogMessages.CALL_ID;
import static io.sipline.sip.dialog.DialogMessages.OUR_CALL_ID;
import static io.sipline.sip.dialog.DialogMessages.OUR_TAG;
import static io.sipline.sip.dialog.DialogMessages.inDialogFromAlice;
import static io.sipline.sip.dialog.DialogMessages.inviteResponse;
import static io.sipline.sip.dialog.DialogMessages.inviteToBob;
import static io.sipline.sip.dialog.DialogMessages.parse;
import static io.sipline.sip.dialog.DialogMessages.responseToUs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;
import org.junit.jupiter.api.Test;

/**
 * The record-level rules of RFC 3261 §12, as a transaction user with its own index applies them to the record it
 * holds: a UAS record from the request (§12.1.1), a UAC record from its responses (§12.1.2, §13.2.2.4), forks,
 * CSeq order (§12.2.2), target refresh, and a record returned to the pool.
 */
class DialogRecordsTest
{
    private final DialogPool pool = new DialogPool(4, 0);
    private final DialogRecords records = new DialogRecords(pool);

    private Dialog uas()
    {
        final SipMessage invite = parse(inviteToBob());
        return records.prepareUas(invite, SipMethod.INVITE, invite.cseqNumber(), false);
    }

    private Dialog uac()
    {
        return records.prepareUac(OUR_CALL_ID, OUR_TAG, "Alice <sip:alice@atlanta.example.com>",
            "<sip:bob@biloxi.example.com>", "sip:bob@biloxi.example.com", 1);
    }

    @Test
    void shouldTakeTheRequestUriOfAUacRecordAsBytes()
    {
        final byte[] line = "INVITE sip:bob@biloxi.example.com SIP/2.0".getBytes(StandardCharsets.US_ASCII);
        final Dialog d = records.prepareUac(OUR_CALL_ID, OUR_TAG, "Alice <sip:alice@atlanta.example.com>",
            "<sip:bob@biloxi.example.com>", line, 7, 33, 1);
        assertEquals(DialogFailure.NONE, records.lastFailure());
        assertEquals("sip:bob@biloxi.example.com", d.remoteTarget().toString());
        assertArrayEquals(uac().remoteTarget().toString().getBytes(StandardCharsets.US_ASCII),
            Arrays.copyOf(d.remoteTarget().bytes(), d.remoteTarget().length()), "as the text form copies it");
        assertTrue(d.isUac());
        assertTrue(d.isInitial());
        assertEquals(OUR_CALL_ID, d.callId().toString());
        assertNull(records.prepareUac(OUR_CALL_ID, OUR_TAG, "*", "<sip:bob@biloxi.example.com>", line, 7, 33, 1),
            "no dialog from a wildcard, as with a text Request-URI");
        assertEquals(DialogFailure.BAD_ADDRESS, records.lastFailure());
    }

    @Test
    void shouldTakeAUasRecordFromTheRequestBeforeOurTagExists()
    {
        final Dialog d = uas();
        assertEquals(DialogFailure.NONE, records.lastFailure());
        assertTrue(d.isInitial());
        assertFalse(d.isUac());
        assertEquals(CALL_ID, d.callId().toString());
        assertEquals(ALICE_TAG, d.remoteTag().toString());
        assertTrue(d.localTag().isEmpty());
        assertEquals("Bob <sip:bob@biloxi.example.com>", d.localAddress().toString());
        assertEquals("\"Alice\" <sip:alice@atlanta.example.com>", d.remoteAddress().toString());
        assertEquals("sip:alice@pc33.atlanta.example.com", d.remoteTarget().toString());
        // §12.1.1: the route set is the Record-Route in order
        assertEquals(2, d.routeCount());
        assertEquals("<sip:p2.example.com;lr>", d.route(0));
        assertEquals(314159, d.remoteCSeq());
        assertEquals(Dialog.EMPTY_CSEQ, d.localCSeq());

        DialogRecords.localTag(d, "bob-1");
        records.onUasResponse(d, 180);
        assertTrue(d.isEarly());
        records.onUasResponse(d, 200);
        assertTrue(d.isConfirmed());
        assertEquals(1, d.nextLocalCSeq(), "§8.1.1.5: a UAS's first request starts the local sequence");
    }

    @Test
    void shouldOrderInDialogRequestsAndRefreshTheTarget()
    {
        final Dialog d = uas();
        assertEquals(InDialogResult.OUT_OF_ORDER, records.acceptRequest(d, SipMethod.INFO, 314158));
        assertEquals(InDialogResult.OK, records.acceptRequest(d, SipMethod.ACK, 1), "ACK is never ordered");
        assertEquals(InDialogResult.OK, records.acceptRequest(d, SipMethod.UPDATE, 314160));
        assertEquals(314160, d.remoteCSeq());
        assertTrue(records.refreshTarget(d, parse(inDialogFromAlice("UPDATE", 314160, "bob-1",
            "<sip:alice@192.0.2.77>"))));
        assertEquals("sip:alice@192.0.2.77", d.remoteTarget().toString());
        assertFalse(records.refreshTarget(d, parse(inDialogFromAlice("INFO", 314161, "bob-1", null))),
            "no Contact: the target stays");
        assertEquals("sip:alice@192.0.2.77", d.remoteTarget().toString());
    }

    @Test
    void shouldSetTheUacRecordFromItsResponsesAndLetA2xxOfAnotherTagReplaceAnEarlyOne()
    {
        final Dialog d = uac();
        assertEquals(DialogFailure.NONE, records.onUacResponse(d, SipMethod.INVITE, 1, 180,
            parse(inviteResponse(180, "Ringing", "fork-a", "<sip:bob@192.0.2.4>"))));
        assertTrue(d.isEarly());
        assertEquals("fork-a", d.remoteTag().toString());
        assertEquals("<sip:p1.example.com;lr>", d.route(0), "§12.1.2: Record-Route reversed");
        // a 2xx of another fork while the session has no confirmed dialog is the session's dialog (the caller decides)
        assertEquals(DialogFailure.NONE, records.onUacResponse(d, SipMethod.INVITE, 1, 200,
            parse(responseToUs(200, "OK", "INVITE", 1, "fork-b", "<sip:bob@192.0.2.5>"))));
        assertTrue(d.isConfirmed());
        assertEquals("fork-b", d.remoteTag().toString());
        assertEquals("sip:bob@192.0.2.5", d.remoteTarget().toString());
        assertEquals(0, d.routeCount(), "the 2xx came without Record-Route");
        assertEquals(2, d.nextLocalCSeq());
    }

    @Test
    void shouldRecomputeTheRouteSetWhenThe2xxConfirmsTheEarlyDialog()
    {
        final Dialog d = uac();
        records.onUacResponse(d, SipMethod.INVITE, 1, 183, parse(inviteResponse(183, "Progress", "t", null)));
        assertEquals("sip:bob@biloxi.example.com", d.remoteTarget().toString(), "no Contact: the Request-URI");
        records.onUacResponse(d, SipMethod.INVITE, 1, 200, parse(responseToUs(200, "OK", "INVITE", 1, "t",
            "<sip:bob@192.0.2.40>", "<sip:pa2.example.com;lr>", "<sip:p1.example.com;lr>")));
        assertTrue(d.isConfirmed());
        assertEquals("<sip:pa2.example.com;lr>", d.route(1), "§13.2.2.4: the 2xx's Record-Route, reversed");
        assertEquals("sip:bob@192.0.2.40", d.remoteTarget().toString());
    }

    @Test
    void shouldRefuseAResponseThatCannotSetTheRecord()
    {
        final Dialog d = uac();
        assertEquals(DialogFailure.RESPONSE_CANNOT_CREATE, records.onUacResponse(d, SipMethod.INVITE, 1, 180,
            parse(inviteResponse(180, "Ringing", null, null))), "a 1xx without a tag makes no dialog");
        assertEquals(DialogFailure.BAD_CONTACT, records.onUacResponse(d, SipMethod.INVITE, 1, 200,
            parse(responseToUs(200, "OK", "INVITE", 1, "t", "*"))));
        assertTrue(d.isInitial(), "left as it was");
        assertTrue(d.remoteTag().isEmpty());
    }

    @Test
    void shouldForkBothSidesAndMakeARejectedUacRecordInitialAgain()
    {
        final Dialog d = uac();
        records.onUacResponse(d, SipMethod.INVITE, 1, 180, parse(inviteResponse(180, "Ringing", "a", null)));
        final Dialog fork = records.forkUac(d);
        assertNotSame(d, fork);
        assertTrue(fork.isInitial());
        assertEquals(OUR_CALL_ID, fork.callId().toString());
        assertTrue(fork.localTag().contentEquals(OUR_TAG));
        assertTrue(fork.remoteTag().isEmpty());
        assertEquals(1, fork.localCSeq());

        records.rejectUac(d);
        assertTrue(d.isInitial());
        assertTrue(d.remoteTag().isEmpty());
        assertEquals(0, d.routeCount());

        final Dialog answered = uas();
        DialogRecords.localTag(answered, "bob-1");
        final Dialog second = records.forkUas(answered);
        assertTrue(second.localTag().isEmpty(), "a tag of its own, made for its response");
        assertEquals(ALICE_TAG, second.remoteTag().toString());
        assertEquals(2, second.routeCount());
        assertEquals("<sip:p1.example.com;lr>", second.route(1));
        assertEquals(314159, second.remoteCSeq());
    }

    @Test
    void shouldTakeTheRemoteTagAndPartyFromOneFromAndClearATagNoFromCarries()
    {
        final Dialog tagged = uas();
        records.release(tagged);
        // §12.1.1: a From without tag (an RFC 2543 peer) leaves the remote tag empty, also in a record reused
        final String untagged = inviteToBob().replace(";tag=" + ALICE_TAG, "");
        final SipMessage invite = parse(untagged);
        final Dialog d = records.prepareUas(invite, SipMethod.INVITE, invite.cseqNumber(), false);
        assertEquals(DialogFailure.NONE, records.lastFailure());
        assertTrue(d.remoteTag().isEmpty());
        assertEquals("\"Alice\" <sip:alice@atlanta.example.com>", d.remoteAddress().toString());
        assertEquals("sip:alice@atlanta.example.com", d.remoteUri().toString());
        assertEquals("Bob <sip:bob@biloxi.example.com>", d.localAddress().toString());
        records.release(d);

        // an addr-spec From: put in angle brackets, its tag still taken
        final SipMessage bare = parse(inviteToBob().replace("From: \"Alice\" <sip:alice@atlanta.example.com>",
            "From: sip:alice@atlanta.example.com"));
        final Dialog b = records.prepareUas(bare, SipMethod.INVITE, bare.cseqNumber(), false);
        assertEquals(DialogFailure.NONE, records.lastFailure());
        assertEquals(ALICE_TAG, b.remoteTag().toString());
        assertEquals("<sip:alice@atlanta.example.com>", b.remoteAddress().toString());
    }

    @Test
    void shouldGiveARecordBackToThePoolOnce()
    {
        final Dialog d = uas();
        records.release(d);
        records.release(d);
        assertEquals(1, pool.releases(), "a second release of a released record does nothing");
        assertEquals(1, pool.freeCount());
    }
}
