package io.sipline.sip.dialog;

import static io.sipline.sip.dialog.DialogMessages.OUR_CALL_ID;
import static io.sipline.sip.dialog.DialogMessages.OUR_TAG;
import static io.sipline.sip.dialog.DialogMessages.inviteResponse;
import static io.sipline.sip.dialog.DialogMessages.ourInDialogRequest;
import static io.sipline.sip.dialog.DialogMessages.ourInvite;
import static io.sipline.sip.dialog.DialogMessages.parse;
import static io.sipline.sip.dialog.DialogMessages.responseToUs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.sipline.sip.message.SipMessage;
import org.junit.jupiter.api.Test;

/** §12.1.2, §12.2.1.2, §12.3, §13.2.2.4: dialogs where this side sent the creating request, forks included. */
class DialogLayerUacTest
{
    private final RecordingListener listener = new RecordingListener();
    private final DialogPool pool = new DialogPool(16, 0);
    private final DialogLayer layer = new DialogLayer(pool, new DialogTable(16), listener);
    private final SipMessage invite = parse(ourInvite());

    private Dialog respond(final String response)
    {
        return layer.onUacResponse(invite, parse(response), false);
    }

    @Test
    void shouldCreateEarlyUacDialogFromRingingWithToTag()
    {
        assertNull(respond(inviteResponse(100, "Trying", null, null)));
        assertNull(respond(inviteResponse(180, "Ringing", null, "<sip:bob@192.0.2.4>")), "no To tag, no dialog");
        assertEquals(0, layer.table().size());

        final Dialog d = respond(inviteResponse(180, "Ringing", "a6c85cf", "<sip:bob@192.0.2.4>"));
        assertNotNull(d);
        assertEquals(DialogState.EARLY, d.state());
        assertTrue(d.isUac());
        assertEquals(OUR_CALL_ID, d.callId().toString());
        assertEquals(OUR_TAG, d.localTag().toString());
        assertEquals("a6c85cf", d.remoteTag().toString());
        assertEquals("sip:alice@atlanta.example.com", d.localUri().toString());
        assertEquals("Alice <sip:alice@atlanta.example.com>", d.localAddress().toString());
        assertEquals("Bob <sip:bob@biloxi.example.com>", d.remoteAddress().toString());
        assertEquals("sip:bob@192.0.2.4", d.remoteTarget().toString());
        assertEquals("<sip:alice@pc33.atlanta.example.com;transport=udp>", d.localContact().toString());
        // §12.1.2: local CSeq from the request, remote CSeq empty
        assertEquals(1, d.localCSeq());
        assertEquals(1, d.inviteCSeq());
        assertEquals(Dialog.EMPTY_CSEQ, d.remoteCSeq());
        // a retransmitted 180 finds the same dialog
        assertSame(d, respond(inviteResponse(180, "Ringing", "a6c85cf", "<sip:bob@192.0.2.4>")));
        assertEquals(1, layer.table().size());
    }

    @Test
    void shouldReverseRecordRouteForUacRouteSet()
    {
        // the response lists p3 (callee side) .. p1 (our side); we send to p1 first
        final Dialog d = respond(responseToUs(200, "OK", "INVITE", 1, "a6c85cf", "<sip:bob@192.0.2.4>",
            "<sip:p3.example.com;lr>", "<sip:p2.example.com;lr>", "<sip:p1.example.com;lr;r=1>"));
        assertEquals(DialogState.CONFIRMED, d.state());
        assertEquals(3, d.routeCount());
        assertEquals("<sip:p1.example.com;lr;r=1>", d.route(0));
        assertEquals("<sip:p2.example.com;lr>", d.route(1));
        assertEquals("<sip:p3.example.com;lr>", d.route(2));
        assertTrue(d.isFirstHopLoose());
    }

    @Test
    void shouldUseRequestUriAsTargetWhenRingingHasNoContact()
    {
        final Dialog d = respond(inviteResponse(183, "Session Progress", "x1", null));
        assertEquals("sip:bob@biloxi.example.com", d.remoteTarget().toString());
        // the 2xx then brings the real target and confirms
        assertSame(d, respond(inviteResponse(200, "OK", "x1", "<sip:bob@192.0.2.4;transport=udp>")));
        assertEquals("sip:bob@192.0.2.4;transport=udp", d.remoteTarget().toString());
    }

    @Test
    void shouldTrackForkedEarlyDialogsAndEndUnansweredForksWhenTransactionEnds()
    {
        final Dialog a = respond(responseToUs(180, "Ringing", "INVITE", 1, "fork-a", "<sip:bob@192.0.2.4>",
            "<sip:pa.example.com;lr>", "<sip:p1.example.com;lr>"));
        final Dialog b = respond(responseToUs(180, "Ringing", "INVITE", 1, "fork-b", "<sip:bob@192.0.2.5>",
            "<sip:pb.example.com;lr>", "<sip:p1.example.com;lr>"));
        assertNotSame(a, b);
        assertEquals(2, layer.table().size());
        assertEquals(DialogState.EARLY, a.state());
        assertEquals(DialogState.EARLY, b.state());

        // both are members of the request's dialog set
        int members = 0;
        for (Dialog d = layer.table().firstInSet(invite); null != d; d = layer.table().nextInSet(d))
        {
            members++;
        }
        assertEquals(2, members);

        // the 200 from fork a confirms a and recomputes its route set and target from the 2xx (§13.2.2.4)
        final Dialog confirmed = respond(responseToUs(200, "OK", "INVITE", 1, "fork-a", "<sip:bob@192.0.2.40>",
            "<sip:pa2.example.com;lr>", "<sip:p1.example.com;lr>"));
        assertSame(a, confirmed);
        assertEquals(DialogState.CONFIRMED, a.state());
        assertEquals("sip:bob@192.0.2.40", a.remoteTarget().toString());
        assertEquals("<sip:pa2.example.com;lr>", a.route(1));
        assertEquals(DialogState.EARLY, b.state(), "kept until the transaction ends");
        assertTrue(listener.ended.isEmpty());

        // the INVITE client transaction ends (64*T1 after the first 2xx): b ends, a stays
        layer.onClientTransactionEnded(invite);
        assertEquals(List.of("fork-b:TRANSACTION_ENDED"), listener.ended);
        assertEquals(1, layer.table().size());
        assertSame(a, layer.table().findForResponse(parse(inviteResponse(200, "OK", "fork-a", null))));
        assertSame(a, layer.table().firstInSet(invite));
        assertNull(layer.table().nextInSet(a));
    }

    @Test
    void shouldCreateSecondConfirmedDialogWhenAnotherForkAlsoAnswers()
    {
        respond(inviteResponse(180, "Ringing", "fork-a", "<sip:bob@192.0.2.4>"));
        final Dialog a = respond(inviteResponse(200, "OK", "fork-a", "<sip:bob@192.0.2.4>"));
        final Dialog c = respond(inviteResponse(200, "OK", "fork-c", "<sip:carol@192.0.2.9>"));
        assertNotSame(a, c);
        assertEquals(DialogState.CONFIRMED, c.state());
        assertEquals(1, c.inviteCSeq(), "ready to be ACKed (and then sent a BYE) by the transaction user");
        layer.onClientTransactionEnded(invite);
        assertEquals(2, layer.table().size());
    }

    @Test
    void shouldEndAllEarlyDialogsOnNonTwoHundredFinalResponse()
    {
        respond(inviteResponse(180, "Ringing", "fork-a", "<sip:bob@192.0.2.4>"));
        respond(inviteResponse(180, "Ringing", "fork-b", "<sip:bob@192.0.2.5>"));
        respond(inviteResponse(183, "Session Progress", "fork-c", "<sip:bob@192.0.2.6>"));
        assertEquals(3, layer.table().size());

        // §12.3: the final 486 (from whichever branch the proxy picked) ends every early dialog of the request
        assertNull(respond(inviteResponse(486, "Busy Here", "fork-b", null)));
        assertEquals(3, listener.ended.size());
        assertTrue(listener.ended.containsAll(List.of("fork-a:REJECTED", "fork-b:REJECTED", "fork-c:REJECTED")));
        assertEquals(0, layer.table().size());
        assertNull(layer.table().firstInSet(invite));
        assertEquals(3, pool.freeCount());
    }

    @Test
    void shouldRefreshTargetOnTwoHundredToReInviteAndUpdate()
    {
        final Dialog d = respond(inviteResponse(200, "OK", "a6c85cf", "<sip:bob@192.0.2.4>"));

        final SipMessage reInvite = parse(ourInDialogRequest("INVITE", 2, "a6c85cf"));
        assertSame(d, layer.onUacResponse(reInvite, parse(responseToUs(100, "Trying", "INVITE", 2, "a6c85cf", null)),
            false));
        assertSame(d, layer.onUacResponse(reInvite, parse(responseToUs(200, "OK", "INVITE", 2, "a6c85cf",
            "<sip:bob@198.51.100.7>")), false));
        assertEquals("sip:bob@198.51.100.7", d.remoteTarget().toString());
        assertEquals(2, d.routeCount(), "a target refresh never changes the route set");

        final SipMessage update = parse(ourInDialogRequest("UPDATE", 3, "a6c85cf"));
        layer.onUacResponse(update, parse(responseToUs(200, "OK", "UPDATE", 3, "a6c85cf",
            "<sip:bob@198.51.100.8:5062>")), false);
        assertEquals("sip:bob@198.51.100.8:5062", d.remoteTarget().toString());

        // a 2xx to INFO (not a target refresh) leaves it
        final SipMessage info = parse(ourInDialogRequest("INFO", 4, "a6c85cf"));
        layer.onUacResponse(info, parse(responseToUs(200, "OK", "INFO", 4, "a6c85cf", "<sip:bob@203.0.113.1>")),
            false);
        assertEquals("sip:bob@198.51.100.8:5062", d.remoteTarget().toString());
    }

    @Test
    void shouldTerminateOnFinalResponseToByeButNotOnChallenge()
    {
        final Dialog d = respond(inviteResponse(200, "OK", "a6c85cf", "<sip:bob@192.0.2.4>"));
        final SipMessage bye = parse(ourInDialogRequest("BYE", 2, "a6c85cf"));
        assertSame(d, layer.onUacResponse(bye, parse(responseToUs(407, "Proxy Authentication Required", "BYE", 2,
            "a6c85cf", null)), false));
        assertEquals(DialogState.CONFIRMED, d.state());
        assertNull(layer.onUacResponse(bye, parse(responseToUs(200, "OK", "BYE", 3, "a6c85cf", null)), false));
        assertEquals(List.of("a6c85cf:BYE"), listener.ended);
    }

    @Test
    void shouldTerminateOn481And408ToInDialogRequests()
    {
        respond(inviteResponse(200, "OK", "t481", "<sip:bob@192.0.2.4>"));
        respond(inviteResponse(200, "OK", "t408", "<sip:bob@192.0.2.4>"));
        final SipMessage info481 = parse(ourInDialogRequest("INFO", 2, "t481"));
        final SipMessage info408 = parse(ourInDialogRequest("INFO", 2, "t408"));
        // 487 to a re-INVITE leaves the dialog; 481 and 408 end it (§12.2.1.2)
        assertNotNull(layer.onUacResponse(info481, parse(responseToUs(487, "Request Terminated", "INFO", 2, "t481",
            null)), false));
        assertNull(layer.onUacResponse(info481, parse(responseToUs(481, "Call/Transaction Does Not Exist", "INFO", 2,
            "t481", null)), false));
        assertNull(layer.onUacResponse(info408, parse(responseToUs(408, "Request Timeout", "INFO", 2, "t408", null)),
            false));
        assertEquals(List.of("t481:NO_SUCH_DIALOG", "t408:REQUEST_TIMEOUT"), listener.ended);
        assertEquals(0, layer.table().size());
    }

    @Test
    void shouldCreateUacDialogDirectlyAndRefuseNonCreatingPairs()
    {
        final Dialog d = layer.createUac(invite, parse(inviteResponse(200, "OK", "direct", "<sip:bob@192.0.2.4>")),
            false);
        assertNotNull(d);
        assertEquals(DialogState.CONFIRMED, d.state());

        assertNull(layer.createUac(invite, parse(inviteResponse(180, "Ringing", null, "<sip:bob@192.0.2.4>")), false));
        assertEquals(DialogFailure.RESPONSE_CANNOT_CREATE, layer.lastFailure());
        assertNull(layer.createUac(invite, parse(inviteResponse(486, "Busy Here", "x", null)), false));
        assertEquals(DialogFailure.RESPONSE_CANNOT_CREATE, layer.lastFailure());
        final SipMessage options = parse(ourInvite().replace("INVITE", "OPTIONS"));
        assertNull(layer.createUac(options, parse(responseToUs(200, "OK", "OPTIONS", 1, "o", null)), false));
        assertEquals(DialogFailure.NOT_DIALOG_CREATING, layer.lastFailure());
        assertNull(layer.onUacResponse(options, parse(responseToUs(200, "OK", "OPTIONS", 1, "o", null)), false));
        assertEquals(1, layer.table().size());
    }

    @Test
    void shouldMarkUacDialogSecureForSipsOverTls()
    {
        final SipMessage sips = parse(ourInvite("sips:bob@biloxi.example.com", 1));
        final Dialog d = layer.onUacResponse(sips, parse(inviteResponse(200, "OK", "s", "<sips:bob@192.0.2.4>")),
            true);
        assertTrue(d.isSecure());
        assertFalse(respond(inviteResponse(200, "OK", "u", "<sip:bob@192.0.2.4>")).isSecure());
    }
}
