package io.sipline.sip.dialog;

import static io.sipline.sip.dialog.DialogMessages.ALICE_TAG;
import static io.sipline.sip.dialog.DialogMessages.CALL_ID;
import static io.sipline.sip.dialog.DialogMessages.inDialogFromAlice;
import static io.sipline.sip.dialog.DialogMessages.inviteToBob;
import static io.sipline.sip.dialog.DialogMessages.msg;
import static io.sipline.sip.dialog.DialogMessages.parse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.sipline.sip.message.SipMessage;
import org.junit.jupiter.api.Test;

/** §12.1.1 and §12.2.2: dialogs where this side answered the creating request. */
class DialogLayerUasTest
{
    private static final String BOB_TAG = "s0100f00dfeedbeef0";

    private final RecordingListener listener = new RecordingListener();
    private final DialogPool pool = new DialogPool(16, 4);
    private final DialogLayer layer = new DialogLayer(pool, new DialogTable(16), listener);

    private Dialog ringing(final SipMessage invite)
    {
        final Dialog d = layer.createUas(invite, BOB_TAG, 180, false);
        assertNotNull(d, () -> String.valueOf(layer.lastFailure()));
        return d;
    }

    @Test
    void shouldCreateEarlyUasDialogFromInviteAndRinging()
    {
        final SipMessage invite = parse(inviteToBob());
        final Dialog d = ringing(invite);

        assertEquals(DialogState.EARLY, d.state());
        assertFalse(d.isUac());
        assertEquals(CALL_ID, d.callId().toString());
        assertEquals(BOB_TAG, d.localTag().toString());
        assertEquals(ALICE_TAG, d.remoteTag().toString());
        assertEquals("sip:bob@biloxi.example.com", d.localUri().toString());
        assertEquals("Bob <sip:bob@biloxi.example.com>", d.localAddress().toString());
        assertEquals("sip:alice@atlanta.example.com", d.remoteUri().toString());
        assertEquals("\"Alice\" <sip:alice@atlanta.example.com>", d.remoteAddress().toString());
        assertEquals("sip:alice@pc33.atlanta.example.com", d.remoteTarget().toString());
        // §12.1.1: remote CSeq from the request, local CSeq empty
        assertEquals(314159, d.remoteCSeq());
        assertEquals(Dialog.EMPTY_CSEQ, d.localCSeq());
        assertEquals(Dialog.EMPTY_CSEQ, d.inviteCSeq());
        assertFalse(d.isSecure());
        assertEquals(1, layer.table().size());
    }

    @Test
    void shouldKeepUasRouteSetInRecordRouteOrder()
    {
        // p2 (nearest to us) first, as the request carries it; one line with two values, then another line
        final SipMessage invite = parse(inviteToBob("sip:bob@biloxi.example.com", CALL_ID, ALICE_TAG, 7,
            "<sip:p3.example.com;lr>, <sip:p2.example.com;lr;ftag=x>", "<sip:p1.example.com;lr>"));
        final Dialog d = ringing(invite);

        assertEquals(3, d.routeCount());
        assertEquals("<sip:p3.example.com;lr>", d.route(0));
        assertEquals("<sip:p2.example.com;lr;ftag=x>", d.route(1));
        assertEquals("<sip:p1.example.com;lr>", d.route(2));
        assertEquals("sip:p3.example.com;lr",
            new String(d.routeBytes(), d.routeUriStart(0), d.routeUriEnd(0) - d.routeUriStart(0)));
        assertTrue(d.isFirstHopLoose());
        assertFalse(d.isStrictRouting());
    }

    @Test
    void shouldConfirmUasDialogWhenTwoHundredIsSent()
    {
        final SipMessage invite = parse(inviteToBob());
        final Dialog d = ringing(invite);

        assertSame(d, layer.onUasResponse(d, invite, 200));
        assertEquals(DialogState.CONFIRMED, d.state());
        // creating again for the same request and tag returns the same dialog
        assertSame(d, layer.createUas(invite, BOB_TAG, 200, false));
        assertEquals(1, layer.table().size());
    }

    @Test
    void shouldCreateConfirmedUasDialogFromSubscribeTwoHundred()
    {
        final SipMessage subscribe = parse(msg(
            "SUBSCRIBE sip:bob@biloxi.example.com SIP/2.0",
            "Via: SIP/2.0/TCP watcher.example.com;branch=z9hG4bKsub1",
            "Max-Forwards: 70",
            "To: <sip:bob@biloxi.example.com>",
            "From: <sip:alice@atlanta.example.com>;tag=w1",
            "Call-ID: sub-1@watcher.example.com",
            "CSeq: 17 SUBSCRIBE",
            "Event: presence",
            "Contact: <sip:alice@watcher.example.com;transport=tcp>",
            "Content-Length: 0"));
        // RFC 6665: no early dialogs for SUBSCRIBE
        assertNull(layer.createUas(subscribe, BOB_TAG, 180, false));
        assertEquals(DialogFailure.RESPONSE_CANNOT_CREATE, layer.lastFailure());

        final Dialog d = layer.createUas(subscribe, BOB_TAG, 200, false);
        assertNotNull(d);
        assertEquals(DialogState.CONFIRMED, d.state());
        assertEquals("<sip:bob@biloxi.example.com>", d.localAddress().toString());
        assertEquals("sip:alice@watcher.example.com;transport=tcp", d.remoteTarget().toString());
        assertEquals(0, d.routeCount());
    }

    @Test
    void shouldRefuseToCreateFromWhatCannotCreateADialog()
    {
        final SipMessage inDialog = parse(inDialogFromAlice("INVITE", 2, BOB_TAG, "<sip:a@h>"));
        assertNull(layer.createUas(inDialog, BOB_TAG, 200, false));
        assertEquals(DialogFailure.NOT_DIALOG_CREATING, layer.lastFailure());

        final SipMessage noContact = parse(inviteToBob().replace("Contact: <sip:alice@pc33.atlanta.example.com>\r\n",
            ""));
        final long released = pool.releases();
        assertNull(layer.createUas(noContact, BOB_TAG, 180, false));
        assertEquals(DialogFailure.BAD_CONTACT, layer.lastFailure());
        assertEquals(released + 1, pool.releases(), "the half-made record goes back to the pool");

        final SipMessage badRoute = parse(inviteToBob("sip:bob@biloxi.example.com", CALL_ID, ALICE_TAG, 1,
            "sip:p1.example.com;lr"));
        assertNull(layer.createUas(badRoute, BOB_TAG, 180, false));
        assertEquals(DialogFailure.BAD_RECORD_ROUTE, layer.lastFailure());

        assertNull(layer.createUas(parse(inviteToBob()), "", 180, false));
        assertEquals(DialogFailure.BAD_TAG, layer.lastFailure());
        assertNull(layer.createUas(parse(inviteToBob()), BOB_TAG, 100, false));
        assertEquals(DialogFailure.RESPONSE_CANNOT_CREATE, layer.lastFailure());
        assertEquals(0, layer.table().size());
    }

    @Test
    void shouldMarkDialogSecureOnlyForSipsOverTls()
    {
        final String sips = inviteToBob("sips:bob@biloxi.example.com", CALL_ID, ALICE_TAG, 1)
            .replace("SIP/2.0/UDP", "SIP/2.0/TLS");
        assertTrue(layer.createUas(parse(sips), BOB_TAG, 180, true).isSecure());
        assertFalse(layer.createUas(parse(sips), "other-tag", 180, false).isSecure());
        assertFalse(layer.createUas(parse(inviteToBob()), "third", 180, true).isSecure());
    }

    @Test
    void shouldCheckRemoteCSeqOfInDialogRequests()
    {
        final SipMessage invite = parse(inviteToBob());
        final Dialog d = ringing(invite);
        layer.onUasResponse(d, invite, 200);

        assertEquals(InDialogResult.OK, layer.onRequest(parse(inDialogFromAlice("ACK", 314159, BOB_TAG, null))));
        assertSame(d, layer.matched());
        assertEquals(InDialogResult.OK, layer.onRequest(parse(inDialogFromAlice("INFO", 314165, BOB_TAG, null))));
        assertEquals(314165, d.remoteCSeq());

        // §12.2.2: lower than the remote CSeq is out of order: 500, and the remote CSeq stays
        final InDialogResult late = layer.onRequest(parse(inDialogFromAlice("INFO", 314160, BOB_TAG, null)));
        assertEquals(InDialogResult.OUT_OF_ORDER, late);
        assertEquals(500, late.statusCode());
        assertEquals(314165, d.remoteCSeq());

        // an ACK is never ordered (it reuses the INVITE's number)
        assertEquals(InDialogResult.OK, layer.onRequest(parse(inDialogFromAlice("ACK", 314159, BOB_TAG, null))));
        // "higher by more than one" is in order
        assertEquals(InDialogResult.OK, layer.onRequest(parse(inDialogFromAlice("INFO", 400000, BOB_TAG, null))));
        assertEquals(400000, d.remoteCSeq());

        // no such dialog: 481
        final InDialogResult none = layer.onRequest(parse(inDialogFromAlice("BYE", 400001, "not-ours", null)));
        assertEquals(InDialogResult.NO_DIALOG, none);
        assertEquals(481, none.statusCode());
        assertNull(layer.matched());
    }

    @Test
    void shouldRefreshRemoteTargetWhenReInviteOrUpdateIsAccepted()
    {
        final SipMessage invite = parse(inviteToBob());
        final Dialog d = ringing(invite);
        layer.onUasResponse(d, invite, 200);

        final SipMessage reInvite = parse(inDialogFromAlice("INVITE", 314160, BOB_TAG, "<sip:alice@192.0.2.55>"));
        assertEquals(InDialogResult.OK, layer.onRequest(reInvite));
        layer.onUasResponse(d, reInvite, 100);
        assertEquals("sip:alice@pc33.atlanta.example.com", d.remoteTarget().toString(), "not before the 2xx");
        layer.onUasResponse(d, reInvite, 200);
        assertEquals("sip:alice@192.0.2.55", d.remoteTarget().toString());

        // a refused re-INVITE changes nothing
        final SipMessage refused = parse(inDialogFromAlice("INVITE", 314161, BOB_TAG, "<sip:alice@192.0.2.66>"));
        assertEquals(InDialogResult.OK, layer.onRequest(refused));
        assertSame(d, layer.onUasResponse(d, refused, 488));
        assertEquals("sip:alice@192.0.2.55", d.remoteTarget().toString());

        // RFC 3311: UPDATE is a target refresh
        final SipMessage update = parse(inDialogFromAlice("UPDATE", 314162, BOB_TAG, "<sip:alice@192.0.2.77:5070>"));
        assertEquals(InDialogResult.OK, layer.onRequest(update));
        layer.onUasResponse(d, update, 200);
        assertEquals("sip:alice@192.0.2.77:5070", d.remoteTarget().toString());

        // INFO is not
        final SipMessage info = parse(inDialogFromAlice("INFO", 314163, BOB_TAG, "<sip:alice@192.0.2.88>"));
        layer.onUasResponse(d, info, 200);
        assertEquals("sip:alice@192.0.2.77:5070", d.remoteTarget().toString());
    }

    @Test
    void shouldTerminateOnByeTwoHundredAndReturnRecordToPool()
    {
        final SipMessage invite = parse(inviteToBob());
        final Dialog d = ringing(invite);
        layer.onUasResponse(d, invite, 200);
        final long handle = d.handle();
        final int free = pool.freeCount();

        final SipMessage bye = parse(inDialogFromAlice("BYE", 314160, BOB_TAG, null));
        assertEquals(InDialogResult.OK, layer.onRequest(bye));
        assertNull(layer.onUasResponse(d, bye, 200));

        assertEquals(List.of(ALICE_TAG + ":BYE"), listener.ended);
        assertEquals(0, layer.table().size());
        assertEquals(free + 1, pool.freeCount());
        assertEquals(DialogState.TERMINATED, d.state());
        assertEquals(InDialogResult.NO_DIALOG, layer.onRequest(bye));

        // the record is reused for the next call, with a new handle
        final Dialog next = ringing(parse(inviteToBob("sip:bob@biloxi.example.com", "next@h", "t2", 1)));
        assertSame(d, next);
        assertTrue(next.handle() != handle);
        assertEquals("next@h", next.callId().toString());
    }

    @Test
    void shouldTerminateEarlyUasDialogWhenInviteIsRejected()
    {
        final SipMessage invite = parse(inviteToBob());
        final Dialog d = ringing(invite);

        assertNull(layer.onUasResponse(d, invite, 486));
        assertEquals(List.of(ALICE_TAG + ":REJECTED"), listener.ended);
        assertEquals(0, layer.table().size());
    }

    @Test
    void shouldTerminateOnTimeoutReportedByTransactionUserOnce()
    {
        final SipMessage invite = parse(inviteToBob());
        final Dialog d = ringing(invite);
        layer.onUasResponse(d, invite, 200);

        layer.terminate(d, DialogEndReason.TIMEOUT);
        layer.terminate(d, DialogEndReason.TIMEOUT);
        assertEquals(List.of(ALICE_TAG + ":TIMEOUT"), listener.ended);
        assertEquals(1, pool.releases());
    }
}
