package io.sipline.sip.dialog;

import static io.sipline.sip.dialog.DialogMessages.OUR_CALL_ID;
import static io.sipline.sip.dialog.DialogMessages.OUR_TAG;
import static io.sipline.sip.dialog.DialogMessages.inviteResponse;
import static io.sipline.sip.dialog.DialogMessages.ourInDialogRequest;
import static io.sipline.sip.dialog.DialogMessages.ourInvite;
import static io.sipline.sip.dialog.DialogMessages.parse;
import static io.sipline.sip.dialog.DialogMessages.responseToUs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.sipline.sip.message.SipMessage;
import org.junit.jupiter.api.Test;

/**
 * §12.1.2 with a record the UAC prepared before sending (the transaction user's object holds it from the start): the
 * first dialog of the request is that record, other forks are records of their own (§13.2.2.4), and records of an
 * unpooled pool stay readable after their dialog ended.
 */
class DialogLayerPreparedUacTest
{
    private final RecordingListener listener = new RecordingListener();
    private final DialogLayer layer = new DialogLayer(DialogPool.unpooled(), new DialogTable(16), listener);
    private final SipMessage invite = parse(ourInvite());

    private Dialog prepare()
    {
        return layer.prepareUac(OUR_CALL_ID, OUR_TAG, "Alice <sip:alice@atlanta.example.com>",
            "sip:bob@biloxi.example.com", "sip:bob@biloxi.example.com", 1);
    }

    @Test
    void shouldPrepareInitialRecordOutsideTheTable()
    {
        final Dialog d = prepare();
        assertNotNull(d);
        assertEquals(DialogState.INITIAL, d.state());
        assertTrue(d.isInitial());
        assertTrue(d.isUac());
        assertEquals(OUR_CALL_ID, d.callId().toString());
        assertTrue(d.localTag().contentEquals(OUR_TAG));
        assertTrue(d.remoteTag().isEmpty());
        assertEquals("Alice <sip:alice@atlanta.example.com>", d.localAddress().toString());
        assertEquals("sip:alice@atlanta.example.com", d.localUri().toString());
        // an addr-spec is put in angle brackets so that a tag can follow (§20.10)
        assertEquals("<sip:bob@biloxi.example.com>", d.remoteAddress().toString());
        assertEquals("sip:bob@biloxi.example.com", d.remoteUri().toString());
        // §12.1.2: the Request-URI is the target until a response gives a Contact; local CSeq is the request's
        assertEquals("sip:bob@biloxi.example.com", d.remoteTarget().toString());
        assertEquals(1, d.localCSeq());
        assertEquals(2, d.nextLocalCSeq());
        assertEquals(0, layer.table().size());
    }

    @Test
    void shouldRefuseAddressWithoutUri()
    {
        assertNull(layer.prepareUac(OUR_CALL_ID, OUR_TAG, "*", "<sip:bob@biloxi.example.com>", "sip:b@c", 1));
        assertEquals(DialogFailure.BAD_ADDRESS, layer.lastFailure());
    }

    @Test
    void shouldMakeThePreparedRecordTheFirstDialogAndOtherTagsForks()
    {
        final Dialog prepared = prepare();
        assertNull(layer.onUacResponse(prepared, invite, parse(inviteResponse(100, "Trying", null, null)), false));
        assertTrue(prepared.isInitial(), "a 100 creates no dialog");

        final Dialog a = layer.onUacResponse(prepared, invite,
            parse(inviteResponse(180, "Ringing", "fork-a", "<sip:bob@192.0.2.4>")), false);
        assertSame(prepared, a);
        assertEquals(DialogState.EARLY, a.state());
        assertEquals("fork-a", a.remoteTag().toString());
        assertEquals("sip:bob@192.0.2.4", a.remoteTarget().toString());
        assertEquals("<sip:p1.example.com;lr>", a.route(0), "Record-Route reversed (§12.1.2)");
        assertEquals("<sip:alice@pc33.atlanta.example.com;transport=udp>", a.localContact().toString());
        assertEquals(1, a.inviteCSeq());
        assertSame(a, layer.table().findForResponse(parse(inviteResponse(180, "Ringing", "fork-a", null))));

        final Dialog b = layer.onUacResponse(prepared, invite,
            parse(inviteResponse(180, "Ringing", "fork-b", "<sip:bob@192.0.2.5>")), false);
        assertNotSame(prepared, b);
        assertEquals("fork-b", b.remoteTag().toString());
        assertEquals(2, layer.table().size());

        // §13.2.2.4: the 2xx of fork a confirms the prepared record and recomputes its route set
        final Dialog ok = layer.onUacResponse(prepared, invite, parse(responseToUs(200, "OK", "INVITE", 1, "fork-a",
            "<sip:bob@192.0.2.40>", "<sip:pa2.example.com;lr>", "<sip:p1.example.com;lr>")), false);
        assertSame(prepared, ok);
        assertTrue(ok.isConfirmed());
        assertEquals("<sip:pa2.example.com;lr>", ok.route(1));
        assertEquals("sip:bob@192.0.2.40", ok.remoteTarget().toString());

        // the transaction ends: the unanswered fork ends, the confirmed prepared record stays
        layer.onClientTransactionEnded(invite);
        assertEquals(List.of("fork-b:TRANSACTION_ENDED"), listener.ended);
        assertEquals(1, layer.table().size());
    }

    @Test
    void shouldKeepUnpooledRecordReadableAfterItsDialogEnded()
    {
        final Dialog prepared = prepare();
        layer.onUacResponse(prepared, invite, parse(inviteResponse(200, "OK", "t1", "<sip:bob@192.0.2.4>")), false);
        final SipMessage bye = parse(ourInDialogRequest("BYE", 2, "t1"));
        assertNull(layer.onUacResponse(bye, parse(responseToUs(200, "OK", "BYE", 2, "t1", null)), false));
        assertEquals(List.of("t1:BYE"), listener.ended);
        assertEquals(0, layer.table().size());
        // §15.1.1: the dialog is over, but the transaction user's object still reads its ids
        assertEquals(DialogState.TERMINATED, prepared.state());
        assertEquals(OUR_CALL_ID, prepared.callId().toString());
        assertEquals("t1", prepared.remoteTag().toString());
        layer.terminate(prepared, DialogEndReason.LOCAL);
        assertEquals(1, listener.ended.size(), "ending an ended dialog does nothing");
    }

    @Test
    void shouldLeavePreparedRecordAloneForAnotherRequestAndGiveItBackUnused()
    {
        final Dialog prepared = layer.prepareUac("other-call@x", OUR_TAG, "<sip:alice@atlanta.example.com>",
            "<sip:bob@biloxi.example.com>", "sip:bob@biloxi.example.com", 1);
        final Dialog d = layer.onUacResponse(prepared, invite,
            parse(inviteResponse(180, "Ringing", "fork-a", "<sip:bob@192.0.2.4>")), false);
        assertNotSame(prepared, d, "another Call-ID: a record of its own");
        assertTrue(prepared.isInitial());

        layer.terminate(prepared, DialogEndReason.LOCAL);
        assertEquals(DialogState.TERMINATED, prepared.state());
        assertEquals(1, layer.table().size());
    }

    @Test
    void shouldMakeARejectedPreparedRecordInitialAgainForTheNextAttempt()
    {
        final Dialog prepared = prepare();
        final Dialog b = layer.onUacResponse(prepared, invite,
            parse(inviteResponse(180, "Ringing", "fork-a", "<sip:bob@192.0.2.4>")), false);
        assertSame(prepared, b);
        layer.onUacResponse(prepared, invite, parse(inviteResponse(180, "Ringing", "fork-b", null)), false);
        assertEquals(2, layer.table().size());

        // §12.3: a non-2xx final ends every early dialog; JSR 289 §6.2.1: the session (and its record) is initial
        assertNull(layer.onUacResponse(prepared, invite, parse(inviteResponse(486, "Busy Here", "fork-a", null)),
            false));
        assertEquals(List.of("fork-a:REJECTED", "fork-b:REJECTED"), listener.ended);
        assertEquals(0, layer.table().size());
        assertTrue(prepared.isInitial());
        assertTrue(prepared.remoteTag().isEmpty());
        assertEquals(0, prepared.routeCount());
        assertEquals(OUR_CALL_ID, prepared.callId().toString(), "the ids stay for the next attempt");
        assertEquals(1, layer.pool().releases(), "only the other fork's record went back to the pool");

        // the next INVITE of the same session: new Request-URI and CSeq, same Call-ID and From tag
        layer.prepareUacAgain(prepared, "sip:bob@192.0.2.9", 2);
        assertEquals("sip:bob@192.0.2.9", prepared.remoteTarget().toString());
        final SipMessage again = parse(ourInvite("sip:bob@192.0.2.9", 2));
        final Dialog ok = layer.onUacResponse(prepared, again, parse(responseToUs(200, "OK", "INVITE", 2, "fork-c",
            "<sip:bob@192.0.2.10>")), false);
        assertSame(prepared, ok);
        assertTrue(ok.isConfirmed());
        assertEquals("fork-c", ok.remoteTag().toString());
        assertEquals(2, ok.localCSeq());
        assertThrows(IllegalStateException.class, () -> layer.prepareUacAgain(ok, "sip:x@y", 3),
            "a confirmed record is not prepared again");
    }
}
