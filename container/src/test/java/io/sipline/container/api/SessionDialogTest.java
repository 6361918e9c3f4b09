package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.sipline.sip.message.SipMessage;

/**
 * A UAS session's dialog on a {@link FakeHost}: taken from the initial request (RFC 3261 §12.1.1), written into the
 * session's requests (§12.2.1.1), its remote target changed by a target refresh only when its 2xx is sent (§12.2.2,
 * RFC 6141 §4), and its record given back to the shard's pool when the session is invalidated, with the ids an
 * application may still read kept.
 */
class SessionDialogTest
{
    private final FakeHost host = new FakeHost();
    private final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
    private final SipSessionImpl session = invite.sessionImpl();

    private SipServletRequestImpl reinvite(final long cseq, final String contact)
    {
        final SipServletRequestImpl r = SipServletRequestImpl.received(TestMessages.parse(
            "INVITE sip:bob@192.0.2.1 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bKre" + cseq + "\r\n"
                + "From: \"Alice\" <sip:alice@atlanta.example>;tag=1928301774\r\n"
                + "To: Bob <sip:bob@biloxi.example>;tag=" + session.localTag() + "\r\n"
                + "Call-ID: a84b4c76e66710@pc33.atlanta.example\r\n"
                + "CSeq: " + cseq + " INVITE\r\n"
                + "Contact: " + contact + "\r\n"
                + "Content-Length: 0\r\n\r\n"), null, TestMessages.PEER, TestMessages.LOCAL);
        r.session(session);
        return r;
    }

    private String requestUriOfNextInfo()
    {
        return session.createRequest("INFO").getRequestURI().toString();
    }

    @Test
    void shouldWriteTheDialogIntoRequestsAndRefreshTheTargetOnlyWhenTheRefreshSucceeds()
    {
        session.localTagForResponse();
        session.onResponseSent((SipServletResponseImpl)invite.createResponse(200));

        final SipServletRequestImpl info = (SipServletRequestImpl)session.createRequest("INFO");
        assertEquals("sip:alice@192.0.2.9:5062", info.getRequestURI().toString(), "§12.1.1: the request's Contact");
        assertEquals("<sip:p1.example;lr>", info.getHeader("Route"), "§12.1.1: Record-Route in order");
        assertEquals("Bob <sip:bob@biloxi.example>;tag=" + session.localTag(), info.getHeader("From"));
        assertEquals("\"Alice\" <sip:alice@atlanta.example>;tag=1928301774", info.getHeader("To"));
        assertEquals("a84b4c76e66710@pc33.atlanta.example", info.getCallId());
        assertEquals(1, info.cseqNumber(), "§8.1.1.5: the UAS's first request of the dialog");

        final SipServletRequestImpl bye = (SipServletRequestImpl)session.createRequest("BYE");
        assertEquals(info.getHeader("From"), bye.getHeader("From"));
        assertEquals(info.getHeader("To"), bye.getHeader("To"));
        assertSame(session.requestFrom(), session.requestFrom(), "the tagged From is made once per dialog");
        assertEquals(session.requestFrom().toString(), bye.getHeader("From"),
            "and is the one a B2BUA's initial request carries");

        final SipServletRequestImpl refused = reinvite(314160, "<sip:alice@192.0.2.66>");
        session.onResponseSent((SipServletResponseImpl)refused.createResponse(488));
        assertEquals("sip:alice@192.0.2.9:5062", requestUriOfNextInfo(), "a refused target refresh changes nothing");

        final SipServletRequestImpl accepted = reinvite(314161, "<sip:alice@192.0.2.77>");
        assertEquals("sip:alice@192.0.2.9:5062", requestUriOfNextInfo(), "not before its 2xx");
        session.onResponseSent((SipServletResponseImpl)accepted.createResponse(200));
        assertEquals("sip:alice@192.0.2.77", requestUriOfNextInfo());
    }

    @Test
    void shouldRouteThroughAStrictFirstHopAsRfc2543Says()
    {
        final FakeHost strictHost = new FakeHost();
        final SipSessionImpl s = TestMessages.received(strictHost, TestMessages.INVITE.replace(
            "Record-Route: <sip:p1.example;lr>", "Record-Route: <sip:p1.example>, <sip:p2.example;lr>"))
            .sessionImpl();
        s.localTagForResponse();
        final SipServletRequestImpl info = (SipServletRequestImpl)s.createRequest("INFO");
        // §12.2.1.1: the strict router's URI is the Request-URI; the rest of the route set, then the remote target
        assertEquals("sip:p1.example", info.getRequestURI().toString());
        final java.util.List<String> routes = new java.util.ArrayList<>();
        info.getHeaders("Route").forEachRemaining(routes::add);
        assertEquals(java.util.List.of("<sip:p2.example;lr>", "<sip:alice@192.0.2.9:5062>"), routes);
    }

    @Test
    void shouldGiveTheRecordBackWhenInvalidatedAndStillTellTheIds()
    {
        session.localTagForResponse();
        final String tag = session.localTag();
        final long before = host.dialogRecords.pool().releases();
        session.invalidate();
        assertFalse(session.isValid());
        assertEquals(before + 1, host.dialogRecords.pool().releases(), "the record is back in the shard's pool");

        // a new session takes the recycled record: the old one must not see its contents
        TestMessages.received(host, TestMessages.INVITE.replace("a84b4c76e66710", "other-call")
            .replace("1928301774", "other-tag"));
        assertEquals("a84b4c76e66710@pc33.atlanta.example", session.getCallId());
        assertEquals("1928301774", session.getRemoteParty().getParameter("tag"));
        assertEquals("sip:alice@atlanta.example", session.getRemoteParty().getURI().toString());
        assertEquals(tag, session.getLocalParty().getParameter("tag"));
        assertEquals("sip:bob@biloxi.example", session.getLocalParty().getURI().toString());
        assertEquals("Alice", session.getRemoteParty().getDisplayName());
        assertEquals("Bob", session.getLocalParty().getDisplayName());
        assertEquals("1928301774", session.remoteTag());
    }

    private SipMessage byeTo(final String callId)
    {
        return TestMessages.parse("BYE sip:bob@192.0.2.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bKbye\r\n"
            + "From: \"Alice\" <sip:alice@atlanta.example>;tag=1928301774\r\n"
            + "To: Bob <sip:bob@biloxi.example>;tag=" + session.localTag() + "\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: 314160 BYE\r\n"
            + "Content-Length: 0\r\n\r\n");
    }

    @Test
    void shouldFindTheDialogByTheCallIdOfARequestInItWithoutReadingItAsText()
    {
        // RFC 3261 §12.2.2: a request in a dialog is matched to it by Call-ID, To tag (ours) and From tag
        session.localTagForResponse();
        session.onResponseSent((SipServletResponseImpl)invite.createResponse(200));
        assertSame(session, host.table.dialog(byeTo("a84b4c76e66710@pc33.atlanta.example"), false));
        assertNull(host.table.dialog(byeTo("a84b4c76e66710@pc33.atlanta.other"), false),
            "another Call-ID with our tag is another dialog");
        assertNull(host.table.dialog(byeTo("a84b4c76e66710"), false));
    }

    @Test
    void shouldTellTheCallIdOfTheInitialRequestBeforeAndAfterInvalidation()
    {
        // JSR 289 SipSession.getCallId: the value of the Call-ID header of every message of the session; the
        // session's requests carry it (RFC 3261 §12.2.1.1)
        session.localTagForResponse();
        session.onResponseSent((SipServletResponseImpl)invite.createResponse(200));
        assertEquals(invite.getCallId(), session.getCallId());
        assertSame(session.getCallId(), session.getCallId(), "made once");
        assertEquals(invite.getCallId(), session.createRequest("BYE").getCallId());
        session.invalidate();
        TestMessages.received(host, TestMessages.INVITE.replace("a84b4c76e66710", "other-call"));
        assertEquals("a84b4c76e66710@pc33.atlanta.example", session.getCallId(), "read before: kept as it was");
    }

    @Test
    void shouldKeepEveryUnreadIdOfAnInvalidatedSession()
    {
        // the Call-ID, remote tag and parties first read after the record went back to the pool and was reused
        final SipServletRequestImpl other = TestMessages.received(host, TestMessages.INVITE
            .replace("Call-ID: a84b4c76e66710@pc33.atlanta.example", "i: c-2@192.0.2.9"));
        final SipSessionImpl s = other.sessionImpl();
        s.localTagForResponse();
        s.invalidate();
        TestMessages.received(host, TestMessages.INVITE.replace("a84b4c76e66710", "reused"));
        assertEquals("c-2@192.0.2.9", s.getCallId(), "RFC 3261 §7.3.3: the compact form i is Call-ID");
        assertEquals(other.getCallId(), s.getCallId());
        assertEquals("1928301774", s.getRemoteParty().getParameter("tag"));
        assertEquals("sip:bob@biloxi.example", s.getLocalParty().getURI().toString());
        assertEquals("sip:alice@atlanta.example", s.getRemoteParty().getURI().toString());
    }

    @Test
    void shouldReadTheUnreadIdsOfAnInvalidatedUasSessionFromItsRequestAsTheRecordHadThem()
    {
        // a quoted display name in UTF-8, an addr-spec To (the record puts it in angle brackets, §12.2.1.1),
        // parameters beside the tag, the compact Call-ID: what is read after the release is what was read before
        final String text = TestMessages.INVITE
            .replace("f: \"Alice\" <sip:alice@atlanta.example>;tag=1928301774",
                "f: \"Zo\u00eb\" <sip:zoe@atlanta.example>;x=1;tag=1928301774")
            .replace("To: Bob <sip:bob@biloxi.example>", "t: sip:bob@biloxi.example;y=2")
            .replace("Call-ID: a84b4c76e66710@pc33.atlanta.example", "i: c-3@192.0.2.9");
        final SipSessionImpl readBefore = TestMessages.received(host, text).sessionImpl();
        final SipSessionImpl readAfter = TestMessages.received(host, text).sessionImpl();
        readBefore.localTagForResponse();
        readAfter.localTagForResponse();
        final SessionDialog before = readBefore.dialog;
        final String[] expected = {before.callId(), before.remoteTag(), before.localParty(), before.remoteParty()};

        readAfter.invalidate();
        assertFalse(readAfter.dialog.copiedAtRelease(), "the session's INVITE holds them: nothing is copied");
        // the record goes back to the pool and is taken by another call: the session must not read that one
        TestMessages.received(host, TestMessages.INVITE.replace("a84b4c76e66710", "reused")
            .replace("1928301774", "reused-tag"));
        final SessionDialog after = readAfter.dialog;
        assertEquals("c-3@192.0.2.9", expected[0]);
        assertEquals("1928301774", expected[1]);
        assertEquals("<sip:bob@biloxi.example>", expected[2]);
        assertEquals("\"Zo\u00eb\" <sip:zoe@atlanta.example>", expected[3]);
        assertEquals(expected[0], after.callId());
        assertEquals(expected[1], after.remoteTag());
        assertEquals(expected[2], after.localParty());
        assertEquals(expected[3], after.remoteParty());
        assertSame(after.callId(), after.callId(), "made once");
        assertEquals("Zo\u00eb", readAfter.getRemoteParty().getDisplayName());
        assertEquals(readAfter.localTag(), readAfter.getLocalParty().getParameter("tag"));
    }

    @Test
    void shouldCopyTheUnreadIdsWhenNoRequestOfItsOwnIsGiven()
    {
        // a released dialog whose session has no received request to read (a settled or restored session) copies
        final SipSessionImpl s = TestMessages.received(host, TestMessages.INVITE).sessionImpl();
        s.localTagForResponse();
        s.dialog.release(host);
        assertTrue(s.dialog.copiedAtRelease());
        TestMessages.received(host, TestMessages.INVITE.replace("a84b4c76e66710", "reused")
            .replace("1928301774", "reused-tag"));
        assertEquals("a84b4c76e66710@pc33.atlanta.example", s.dialog.callId());
        assertEquals("1928301774", s.dialog.remoteTag());
        assertEquals("Bob <sip:bob@biloxi.example>", s.dialog.localParty());
        assertEquals("\"Alice\" <sip:alice@atlanta.example>", s.dialog.remoteParty());
    }
    @Test
    void shouldWriteTheRemoteTagOfItsRequestsFromItsBytesAndStillTellItOnceReleased()
    {
        // §12.2.1.1: the To of a request in the dialog is the remote party with the remote tag; written without a
        // String of the tag, which the To's copy of its bytes still gives after the record went back to the pool
        session.localTagForResponse();
        session.onResponseSent((SipServletResponseImpl)invite.createResponse(200));
        final SipServletRequestImpl bye = (SipServletRequestImpl)session.createRequest("BYE");
        assertEquals("\"Alice\" <sip:alice@atlanta.example>;tag=1928301774", bye.getHeader("To"));
        assertEquals("1928301774", bye.getTo().getParameter("tag"));
        final SessionDialog d = session.dialog;
        assertSame(d.requestTo(), d.requestTo(), "made once per remote tag");
        assertEquals(invite.getCallId(), d.callId());
        assertEquals("Bob <sip:bob@biloxi.example>", d.localParty());
        d.release(host);
        assertFalse(d.copiedAtRelease(), "the To of its requests holds the only unread id");
        TestMessages.received(host, TestMessages.INVITE.replace("a84b4c76e66710", "reused")
            .replace("1928301774", "reused-tag"));
        assertEquals("1928301774", d.remoteTag());
        assertEquals("\"Alice\" <sip:alice@atlanta.example>;tag=1928301774", bye.getHeader("To"));
    }

    @Test
    void shouldAnswerWithTheRequestsToAndTheLocalTag()
    {
        // §8.2.6.2: the To of the responses is the request's with the UAS's tag added
        final SipServletResponseImpl ringing = (SipServletResponseImpl)invite.createResponse(180);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        assertEquals("Bob <sip:bob@biloxi.example>;tag=" + session.localTag(), ok.getHeader("To"));
        assertEquals(ringing.getHeader("To"), ok.getHeader("To"));
    }
}
