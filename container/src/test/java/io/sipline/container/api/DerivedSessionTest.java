package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Iterator;

import javax.servlet.sip.SipSession;

import org.junit.jupiter.api.Test;


/**
 * Derived sessions (JSR 289 §6.2.3.2) of a UAC session whose INVITE was forked, on a {@link FakeHost}: the dialog
 * state each keeps (RFC 3261 §12.1.2), the requests each makes, how the shard's table finds them, and what happens
 * to the table's entry and to early dialogs when sessions end.
 */
class DerivedSessionTest
{
    private final FakeHost host = new FakeHost();
    private final SipApplicationSessionImpl app = new SipApplicationSessionImpl(new FakeApp(), host, null);
    private final SipSessionImpl session = SipSessionImpl.forOutgoing(app, null, "<sip:app@192.0.2.1>",
        "<sip:bob@biloxi.example>", "sip:bob@biloxi.example", "main");
    private final SipServletRequestImpl invite = (SipServletRequestImpl)session.createRequest("INVITE");

    /** A response to the INVITE from the dialog of {@code tag}, with that callee's Contact and a Record-Route. */
    private SipServletResponseImpl response(final int status, final String tag)
    {
        final String text = "SIP/2.0 " + status + " Whatever\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK1\r\n"
            + "From: <sip:app@192.0.2.1>;tag=" + session.localTag() + "\r\n"
            + "To: <sip:bob@biloxi.example>;tag=" + tag + "\r\n"
            + "Call-ID: " + session.callId() + "\r\n"
            + "CSeq: 1 INVITE\r\n"
            + "Contact: <sip:" + tag + "@192.0.2.7>\r\n"
            + "Record-Route: <sip:edge-" + tag + ".example;lr>, <sip:core.example;lr>\r\n"
            + "Content-Length: 0\r\n\r\n";
        final SipServletResponseImpl r = SipServletResponseImpl.received(TestMessages.parse(text), invite,
            TestMessages.PEER, TestMessages.LOCAL);
        return r;
    }

    /** A request of the callee of dialog {@code tag} to us, as the shard reads it. */
    private io.sipline.sip.message.SipMessage byeFrom(final String tag)
    {
        return TestMessages.parse("BYE sip:app@192.0.2.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.7;branch=z9hG4bKb" + tag + "\r\n"
            + "From: <sip:bob@biloxi.example>;tag=" + tag + "\r\n"
            + "To: <sip:app@192.0.2.1>;tag=" + session.localTag() + "\r\n"
            + "Call-ID: " + session.callId() + "\r\n"
            + "CSeq: 7 BYE\r\n"
            + "Content-Length: 0\r\n\r\n");
    }

    @Test
    void shouldKeepEachDialogsStateInItsOwnSessionAndMakeItsRequestsFromIt()
    {
        session.register();
        final SipServletResponseImpl ok1 = response(200, "t1");
        session.onResponseReceived(ok1);
        final SipServletResponseImpl ok2 = response(200, "t2");
        final SipSessionImpl derived = session.derive(ok2);
        ok2.session(derived);
        derived.onResponseReceived(ok2);

        assertTrue(derived.isDerived());
        assertFalse(session.isDerived());
        assertSame(app, derived.getApplicationSession());
        assertEquals(session.getCallId(), derived.getCallId());
        assertEquals(session.localTag(), derived.localTag());
        assertEquals("main", derived.handler());
        assertNotEquals(session.getId(), derived.getId());
        assertEquals("t1", session.remoteTag());
        assertEquals("t2", derived.remoteTag());
        assertEquals(SipSession.State.CONFIRMED, derived.getState());
        assertSame(ok2, derived.derived2xx());
        int sessions = 0;
        for (final Iterator<?> i = app.getSessions("SIP"); i.hasNext(); i.next())
        {
            sessions++;
        }
        assertEquals(2, sessions);

        final SipServletRequestImpl ack = derived.createAck(ok2);
        assertEquals("sip:t2@192.0.2.7", ack.getRequestURI().toString(), "the derived dialog's remote target");
        assertTrue(ack.getHeader("To").endsWith(";tag=t2"), ack.getHeader("To"));
        assertEquals("<sip:core.example;lr>", ack.getHeader("Route"), "its route set, Record-Route reversed");
        assertEquals("1 ACK", ack.getHeader("CSeq"));
        assertSame(ack, derived.derivedAck());
        assertNull(invite.ack(), "the INVITE's ACK stays the first dialog's");

        final SipServletRequestImpl bye = (SipServletRequestImpl)derived.createRequest("BYE");
        assertEquals("2 BYE", bye.getHeader("CSeq"));
        assertTrue(bye.getHeader("To").endsWith(";tag=t2"));
        assertTrue(bye.getHeader("From").endsWith(";tag=" + session.localTag()));

        assertSame(session, session.dialogFor("t1"));
        assertSame(derived, session.dialogFor("t2"));
        assertNull(session.dialogFor("t3"));
        assertSame(session, host.table.dialog(byeFrom("t1"), false));
        assertSame(derived, host.table.dialog(byeFrom("t2"), false));
        assertSame(session, host.table.dialog(byeFrom("t3"), false), "an unknown dialog: the head (481 later)");
    }

    @Test
    void shouldHandTheTableEntryToADerivedSessionWhenTheFirstDialogEndsFirst()
    {
        session.register();
        final SipServletResponseImpl ok1 = response(200, "t1");
        session.onResponseReceived(ok1);
        invite.finalResponse(ok1);
        final SipServletResponseImpl ok2 = response(200, "t2");
        final SipSessionImpl derived = session.derive(ok2);
        derived.onResponseReceived(ok2);

        session.invalidate();
        assertTrue(host.released.isEmpty(), "the INVITE's transaction still serves the other dialog");
        assertSame(derived, host.table.dialog(session.callId(), session.localTag()));
        assertSame(derived, host.table.dialog(byeFrom("t2"), false));
        assertFalse(derived.isDerived(), "it is the head now");
        derived.invalidate();
        assertNull(host.table.dialog(session.callId(), session.localTag()));
        assertEquals(0, host.table.dialogCount());
        assertEquals(java.util.List.of(invite), host.released, "the last session of the call lets go of it");
    }

    @Test
    void shouldDropADerivedSessionFromItsHeadWhenItEnds()
    {
        session.register();
        session.onResponseReceived(response(200, "t1"));
        final SipServletResponseImpl ok2 = response(200, "t2");
        final SipSessionImpl derived = session.derive(ok2);
        derived.onResponseReceived(ok2);
        derived.invalidate();
        assertFalse(session.hasForks());
        assertNull(session.dialogFor("t2"));
        assertSame(session, host.table.dialog(byeFrom("t2"), false));
        assertEquals(1, host.table.dialogCount());
    }

    @Test
    void shouldEndTheEarlyDialogsOfDerivedSessionsAsRfc3261Says()
    {
        session.onResponseReceived(response(180, "t1"));
        assertEquals(SipSession.State.EARLY, session.getState());
        final SipServletResponseImpl ringing2 = response(180, "t2");
        final SipSessionImpl early2 = session.derive(ringing2);
        early2.onResponseReceived(ringing2);
        final SipServletResponseImpl ringing3 = response(183, "t3");
        final SipSessionImpl early3 = session.derive(ringing3);
        early3.onResponseReceived(ringing3);
        assertEquals(SipSession.State.EARLY, early2.getState());
        assertTrue(session.hasForks());

        // a 2xx of t2 confirms the session's own dialog: the early session of t2 ends, t3 may still answer
        assertTrue(session.endEarlyForks("t2"));
        assertEquals(SipSession.State.TERMINATED, early2.getState());
        assertEquals(SipSession.State.EARLY, early3.getState());
        // 64*T1 after the first 2xx (RFC 3261 §13.2.2.4), or a non-2xx final response (§13.2.2.3): all of them
        assertTrue(session.endEarlyForks(null));
        assertEquals(SipSession.State.TERMINATED, early3.getState());
        assertFalse(session.endEarlyForks(null));
        assertTrue(early3.readyToInvalidate());
    }
}
