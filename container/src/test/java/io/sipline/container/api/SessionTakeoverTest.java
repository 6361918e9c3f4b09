package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.servlet.sip.ServletTimer;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipApplicationSessionActivationListener;
import javax.servlet.sip.SipApplicationSessionEvent;
import javax.servlet.sip.SipApplicationSessionListener;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.SipSessionActivationListener;
import javax.servlet.sip.SipSessionEvent;
import javax.servlet.sip.TimerListener;

import org.junit.jupiter.api.Test;

import io.sipline.container.replication.ApplicationSnapshot;
import io.sipline.container.replication.SnapshotCodec;

/**
 * A B2BUA's call written to the grid by one node (its caller leg answered, its callee leg confirmed by a 2xx, the two
 * linked) is taken over by another node whose clock is 20 s further: the same application session and session ids,
 * the dialogs with their tags, targets, route sets and CSeqs (a request of the caller is matched, the callee leg's
 * BYE is written as the first node would have), the link, the attributes, the servlet timer due at the same time, and
 * the session's expiry, which fires there when it was due. The attributes that listen for activation, and the
 * application's declared activation listeners, are told the sessions were activated there (JSR 289).
 */
class SessionTakeoverTest
{
    private final FakeHost first = new FakeHost();
    private final FakeHost second = new FakeHost();
    private final FakeApp application = new FakeApp();
    private final List<ServletTimer> fired = new ArrayList<>();
    private final List<SipApplicationSession> expired = new ArrayList<>();
    /** Records the sessions that expire. */
    private final SipApplicationSessionListener expiries = new SipApplicationSessionListener()
    {
        @Override
        public void sessionCreated(final SipApplicationSessionEvent event)
        {
        }

        @Override
        public void sessionDestroyed(final SipApplicationSessionEvent event)
        {
        }

        @Override
        public void sessionExpired(final SipApplicationSessionEvent event)
        {
            expired.add(event.getApplicationSession());
        }

        @Override
        public void sessionReadyToInvalidate(final SipApplicationSessionEvent event)
        {
        }
    };

    @Test
    void shouldRestoreTheLinkedDialogsAttributesAndTimersOfACallOnAnotherNode() throws Exception
    {
        final SipApplicationSessionImpl as = new SipApplicationSessionImpl(application, first, null);
        final SipSessionImpl caller = answeredCaller(as);
        final SipSessionImpl callee = SipSessionImpl.forOutgoing(as, null, "<sip:app@192.0.2.1>",
            "<sip:bob@biloxi.example>", "sip:bob@biloxi.example", "main");
        final SipServletRequestImpl out = (SipServletRequestImpl)callee.createRequest("INVITE");
        callee.register();
        callee.onResponseReceived(SipServletResponseImpl.received(TestMessages.parse("SIP/2.0 200 OK\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK1\r\n"
            + "From: <sip:app@192.0.2.1>;tag=" + callee.localTag() + "\r\n"
            + "To: <sip:bob@biloxi.example>;tag=b0b\r\n"
            + "Call-ID: " + callee.callId() + "\r\n"
            + "CSeq: " + out.cseqNumber() + " INVITE\r\n"
            + "Contact: <sip:bob@192.0.2.7:5070>\r\n"
            + "Record-Route: <sip:edge.example;lr>, <sip:core.example;lr>\r\n"
            + "Content-Length: 0\r\n\r\n"), out, TestMessages.PEER, TestMessages.LOCAL));
        caller.linked(callee);
        callee.linked(caller);
        caller.markB2bua();
        callee.markB2bua();
        as.setAttribute("legs", 2);
        caller.setAttribute("peer", "bob");
        final ServletTimerImpl timer = new ServletTimerImpl(as, 60_000, 0, false, "reminder");
        as.setExpires(2); // JSR 289 §6.1.2: due 120 s from now on the first node
        final long expiresAt = as.getExpirationTime();
        final ApplicationSnapshot written = SnapshotCodec.decode(SnapshotCodec.encode(SessionSnapshots.of(as, 1)));

        second.advance(20_000);
        application.listeners.add((TimerListener)fired::add);
        application.listeners.add(expiries);
        final SipApplicationSessionImpl taken = SessionTakeover.restore(application, second, written);

        assertEquals(as.getId(), taken.getId());
        assertSame(taken, second.table.application(as.getId()));
        assertEquals(2, taken.getAttribute("legs"));
        final SipSessionImpl caller2 = second.table.dialog(caller.callId(), caller.localTag());
        final SipSessionImpl callee2 = second.table.dialog(callee.callId(), callee.localTag());
        assertNotNull(caller2, "the caller leg is registered under its Call-ID and local tag");
        assertNotNull(callee2, "the callee leg is registered under its Call-ID and local tag");
        assertEquals(caller.getId(), caller2.getId());
        assertEquals(callee.getId(), callee2.getId());
        assertSame(callee2, caller2.linked());
        assertSame(caller2, callee2.linked());
        assertTrue(caller2.isB2bua() && callee2.isB2bua());
        assertEquals(SipSession.State.CONFIRMED, caller2.getState());
        assertEquals(SipSession.State.CONFIRMED, callee2.getState());
        assertEquals("bob", caller2.getAttribute("peer"));
        assertEquals("main", caller2.handler());
        assertTrue(callee2.isUac());

        // RFC 3261 §12.2.2: the caller's BYE belongs to the dialog; one with a CSeq below the last is out of order
        assertEquals(0, caller2.matchInDialog(TestMessages.parse(TestMessages.INVITE
            .replace("INVITE sip", "BYE sip").replace("314159 INVITE", "314160 BYE")
            .replace("To: Bob <sip:bob@biloxi.example>", "To: Bob <sip:bob@biloxi.example>;tag="
                + caller.localTag()))));
        assertEquals(500, caller2.matchInDialog(TestMessages.parse(TestMessages.INVITE
            .replace("INVITE sip", "BYE sip").replace("314159 INVITE", "314150 BYE")
            .replace("To: Bob <sip:bob@biloxi.example>", "To: Bob <sip:bob@biloxi.example>;tag="
                + caller.localTag()))));

        // §12.2.1.1: the callee leg's BYE as the first node would have written it
        final SipServletRequestImpl bye = (SipServletRequestImpl)callee2.createRequest("BYE");
        assertEquals("sip:bob@192.0.2.7:5070", bye.getRequestURI().toString());
        assertEquals(callee.callId(), bye.getCallId());
        assertEquals(callee.localTag(), bye.getFrom().getParameter("tag"));
        assertEquals("b0b", bye.getTo().getParameter("tag"));
        assertEquals(out.cseqNumber() + 1, bye.cseqNumber());
        final List<String> routes = new ArrayList<>();
        bye.getHeaders("Route").forEachRemaining(routes::add);
        assertEquals(List.of("<sip:core.example;lr>", "<sip:edge.example;lr>"), routes);

        // JSR 289 §6.3: the timer fires when it was due on the first node, 40 s after the takeover
        assertEquals(1, taken.timerList().size());
        assertEquals(timer.getId(), taken.timerList().getFirst().getId());
        assertEquals(timer.scheduledExecutionTime(), taken.timerList().getFirst().scheduledExecutionTime());
        second.advance(39_999);
        assertTrue(fired.isEmpty());
        second.advance(1);
        assertEquals(1, fired.size());
        assertEquals("reminder", fired.getFirst().getInfo());

        // §6.1.2: the session expires on the second node when it was due on the first, 60 s later
        assertEquals(expiresAt, taken.getExpirationTime());
        second.advance(59_999);
        assertTrue(expired.isEmpty());
        second.advance(1);
        assertEquals(List.of(taken), expired);
        assertTrue(!taken.isValid(), "not extended by a listener: invalidated");
    }

    /** What the activation listeners heard: "app ID" or "sip ID", from any instance (attributes are copies). */
    private static final List<String> ACTIVATED = new CopyOnWriteArrayList<>();

    /** An attribute that listens for its sessions' activation, as a distributable application binds one. */
    private static final class ActivationAttribute
        implements Serializable, SipSessionActivationListener, SipApplicationSessionActivationListener
    {
        private static final long serialVersionUID = 1L;

        @Override
        public void sessionDidActivate(final SipSessionEvent event)
        {
            ACTIVATED.add("sip " + event.getSession().getId());
        }

        @Override
        public void sessionWillPassivate(final SipSessionEvent event)
        {
            ACTIVATED.add("passivated");
        }

        @Override
        public void sessionDidActivate(final SipApplicationSessionEvent event)
        {
            ACTIVATED.add("app " + event.getApplicationSession().getId());
        }

        @Override
        public void sessionWillPassivate(final SipApplicationSessionEvent event)
        {
            ACTIVATED.add("passivated");
        }
    }

    @Test
    void shouldTellTheActivationListenersOfATakenOverCall() throws Exception
    {
        ACTIVATED.clear();
        final SipApplicationSessionImpl as = new SipApplicationSessionImpl(application, first, null);
        final SipSessionImpl caller = answeredCaller(as);
        as.setAttribute("activation", new ActivationAttribute());
        caller.setAttribute("activation", new ActivationAttribute());
        caller.setAttribute("plain", "not a listener");
        assertTrue(ACTIVATED.isEmpty(), "binding an attribute activates nothing");
        final ApplicationSnapshot written = SnapshotCodec.decode(SnapshotCodec.encode(SessionSnapshots.of(as, 1)));

        // A declared listener that throws is logged; the attributes are still told and the takeover stands.
        application.listeners.add(new SipApplicationSessionActivationListener()
        {
            @Override
            public void sessionWillPassivate(final SipApplicationSessionEvent event)
            {
            }

            @Override
            public void sessionDidActivate(final SipApplicationSessionEvent event)
            {
                ACTIVATED.add("declared " + event.getApplicationSession().getId());
                throw new IllegalStateException("an application's bug");
            }
        });
        final SipApplicationSessionImpl taken = SessionTakeover.restore(application, second, written);

        assertEquals(List.of("declared " + as.getId(), "app " + as.getId(), "sip " + caller.getId()), ACTIVATED);
        assertSame(taken, second.table.application(as.getId()));
        assertNotNull(second.table.dialog(caller.callId(), caller.localTag()));
    }

    /** The caller leg of {@code as}: a received INVITE answered 200 by the application. */
    private static SipSessionImpl answeredCaller(final SipApplicationSessionImpl as) throws Exception
    {
        final SipServletRequestImpl invite = SipServletRequestImpl.received(TestMessages.parse(TestMessages.INVITE),
            null, TestMessages.PEER, TestMessages.LOCAL);
        invite.initial(true);
        final SipSessionImpl caller = SipSessionImpl.forReceived(as, invite, "main");
        caller.begin(invite);
        invite.createResponse(200).send();
        return caller;
    }
}
