package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import javax.servlet.sip.ServletTimer;
import javax.servlet.sip.SipApplicationSessionEvent;
import javax.servlet.sip.SipApplicationSessionListener;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.SipSessionAttributeListener;
import javax.servlet.sip.SipSessionBindingEvent;
import javax.servlet.sip.SipSessionBindingListener;
import javax.servlet.sip.SipSessionEvent;
import javax.servlet.sip.SipSessionListener;
import javax.servlet.sip.TimerListener;

import io.sipline.container.security.SipPrincipal;
import org.junit.jupiter.api.Test;

/**
 * Session states (JSR 289 §6.2.1), invalidate-when-ready (§6.1.2.2.2, §6.2.4.1.2), listeners, application session
 * expiry and servlet timers on a {@link FakeHost} whose clock the test advances.
 */
class SessionLifecycleTest
{
    private final FakeHost host = new FakeHost();
    private final FakeApp app = new FakeApp();
    private final List<String> events = new ArrayList<>();

    private final class Recorder implements SipSessionListener, SipApplicationSessionListener, TimerListener,
        SipSessionAttributeListener
    {
        @Override
        public void sessionCreated(final SipSessionEvent e)
        {
            events.add("ss-created");
        }

        @Override
        public void sessionDestroyed(final SipSessionEvent e)
        {
            events.add("ss-destroyed");
        }

        @Override
        public void sessionReadyToInvalidate(final SipSessionEvent e)
        {
            events.add("ss-ready");
        }

        @Override
        public void sessionCreated(final SipApplicationSessionEvent e)
        {
            events.add("as-created");
        }

        @Override
        public void sessionDestroyed(final SipApplicationSessionEvent e)
        {
            events.add("as-destroyed");
        }

        @Override
        public void sessionExpired(final SipApplicationSessionEvent e)
        {
            events.add("as-expired");
        }

        @Override
        public void sessionReadyToInvalidate(final SipApplicationSessionEvent e)
        {
            events.add("as-ready");
        }

        @Override
        public void timeout(final ServletTimer timer)
        {
            events.add("timer:" + timer.getInfo());
        }

        @Override
        public void attributeAdded(final SipSessionBindingEvent e)
        {
            events.add("attr-added:" + e.getName());
        }

        @Override
        public void attributeRemoved(final SipSessionBindingEvent e)
        {
            events.add("attr-removed:" + e.getName());
        }

        @Override
        public void attributeReplaced(final SipSessionBindingEvent e)
        {
            events.add("attr-replaced:" + e.getName());
        }
    }

    private SipServletRequestImpl invite(final FakeApp application)
    {
        final SipServletRequestImpl r = SipServletRequestImpl.received(TestMessages.parse(TestMessages.INVITE), null,
            TestMessages.PEER, TestMessages.LOCAL);
        r.initial(true);
        final SipApplicationSessionImpl as = new SipApplicationSessionImpl(application, host, null);
        final SipSessionImpl s = SipSessionImpl.forReceived(as, r, "main");
        s.begin(r);
        return r;
    }

    @Test
    void shouldGoThroughTheUasStatesAndBeInvalidatedWhenReady() throws Exception
    {
        app.listeners.add(new Recorder());
        final SipServletRequestImpl invite = invite(app);
        final SipSessionImpl s = invite.sessionImpl();
        final SipApplicationSessionImpl as = s.appSession();
        assertEquals(SipSession.State.INITIAL, s.getState());
        invite.createResponse(180).send();
        assertEquals(SipSession.State.EARLY, s.getState());
        invite.createResponse(200).send();
        assertEquals(SipSession.State.CONFIRMED, s.getState());
        as.checkReady();
        assertTrue(s.isValid(), "a confirmed dialog is not ready to invalidate");
        assertSame(s, host.table.dialog(s.callId(), s.localTag()), "registered by (Call-ID, local tag)");

        final SipServletRequestImpl bye = SipServletRequestImpl.received(TestMessages.parse(
            TestMessages.INVITE.replace("INVITE sip", "BYE sip").replace("314159 INVITE", "314160 BYE")), null,
            TestMessages.PEER, TestMessages.LOCAL);
        bye.session(s);
        s.begin(bye);
        bye.createResponse(200).send();
        assertEquals(SipSession.State.TERMINATED, s.getState());
        as.checkReady();
        assertFalse(s.isValid());
        assertFalse(as.isValid());
        assertNull(host.table.dialog(s.callId(), s.localTag()));
        assertEquals(0, host.table.applicationCount());
        assertEquals(List.of("as-created", "ss-created", "ss-ready", "ss-destroyed", "as-ready", "as-destroyed"),
            events);
    }

    @Test
    void shouldTerminateAUasSessionOnAFailureResponse() throws Exception
    {
        final SipServletRequestImpl invite = invite(app);
        invite.createResponse(486).send();
        assertEquals(SipSession.State.TERMINATED, invite.getSession().getState());
    }

    @Test
    void shouldReleaseTheAnsweredInitialInviteWhenTheSessionIsInvalidated() throws Exception
    {
        final SipServletRequestImpl invite = invite(app);
        invite.createResponse(486).send();
        assertTrue(host.released.isEmpty(), "an INVITE's transaction keeps its request while its session lives");
        invite.sessionImpl().appSession().checkReady();
        assertFalse(invite.getSession().isValid());
        assertEquals(List.of(invite), host.released, "invalidated: its transaction may let go of the INVITE");
    }

    @Test
    void shouldNotReleaseAnUnansweredInviteWhenTheApplicationInvalidates() throws Exception
    {
        final SipServletRequestImpl invite = invite(app);
        invite.getApplicationSession().invalidate();
        assertTrue(host.released.isEmpty(), "its transaction still has to end without a final response");
    }

    @Test
    void shouldKeepASessionThatDoesNotWantToBeInvalidated() throws Exception
    {
        final SipServletRequestImpl invite = invite(app);
        invite.getSession().setInvalidateWhenReady(false);
        invite.createResponse(486).send();
        invite.sessionImpl().appSession().checkReady();
        assertTrue(invite.getSession().isValid());
        assertTrue(invite.getSession().isReadyToInvalidate());
    }

    @Test
    void shouldTellAttributeAndBindingListeners()
    {
        app.listeners.add(new Recorder());
        final SipSessionImpl s = invite(app).sessionImpl();
        events.clear();
        final List<String> bound = new ArrayList<>();
        final SipSessionBindingListener value = new SipSessionBindingListener()
        {
            @Override
            public void valueBound(final SipSessionBindingEvent e)
            {
                bound.add("bound:" + e.getName());
            }

            @Override
            public void valueUnbound(final SipSessionBindingEvent e)
            {
                bound.add("unbound:" + e.getName());
            }
        };
        s.setAttribute("a", value);
        s.setAttribute("a", "other");
        s.removeAttribute("a");
        assertEquals(List.of("bound:a", "unbound:a"), bound);
        assertEquals(List.of("attr-added:a", "attr-replaced:a", "attr-removed:a"), events);
        s.invalidate();
        assertThrows(IllegalStateException.class, () -> s.getAttribute("a"));
    }

    @Test
    void shouldKeepOverlappingTransactionsInTheOrderTheyBegan()
    {
        final SipServletRequestImpl first = invite(app);
        final SipSessionImpl s = first.sessionImpl();
        final SipServletRequestImpl second = SipServletRequestImpl.received(TestMessages.parse(TestMessages.INVITE),
            null, TestMessages.PEER, TestMessages.LOCAL);
        final SipServletRequestImpl third = SipServletRequestImpl.received(TestMessages.parse(TestMessages.INVITE),
            null, TestMessages.PEER, TestMessages.LOCAL);
        assertOngoing(s, List.of(first));
        s.begin(second);
        s.begin(third);
        assertOngoing(s, List.of(first, second, third));
        s.end(first);
        assertOngoing(s, List.of(second, third), "the next one takes the first place");
        assertFalse(s.readyToInvalidate(), "transactions still going");
        s.end(third);
        assertOngoing(s, List.of(second));
        s.end(third);
        assertOngoing(s, List.of(second), "ending a request that is not going changes nothing");
        s.end(second);
        assertOngoing(s, List.of());
        s.begin(third);
        assertOngoing(s, List.of(third));
    }

    /** The ongoing requests read by index ({@code ongoing(i)}, null past the end) are {@code expected}, in order. */
    private static void assertOngoing(final SipSessionImpl s, final List<SipServletRequestImpl> expected,
        final String... message)
    {
        final List<SipServletRequestImpl> indexed = new ArrayList<>();
        for (int i = 0; null != s.ongoing(i); i++)
        {
            indexed.add(s.ongoing(i));
        }
        assertEquals(expected, indexed, String.join("", message));
        assertNull(s.ongoing(expected.size() + 1), "null past the end, not only just after it");
    }

    @Test
    void shouldKeepOneAttributeOrManyAlike()
    {
        app.listeners.add(new Recorder());
        final SipSessionImpl s = invite(app).sessionImpl();
        events.clear();
        assertFalse(s.getAttributeNames().hasMoreElements());
        s.setAttribute("a", "1");
        assertEquals("1", s.getAttribute("a"));
        assertNull(s.getAttribute("b"));
        assertEquals(List.of("a"), java.util.Collections.list(s.getAttributeNames()));
        s.setAttribute("b", "2");
        s.setAttribute("c", "3");
        assertEquals(Set.of("a", "b", "c"), Set.copyOf(java.util.Collections.list(s.getAttributeNames())));
        s.removeAttribute("a");
        s.removeAttribute("missing");
        s.setAttribute("b", "22");
        assertEquals("22", s.getAttribute("b"));
        assertEquals("3", s.getAttribute("c"));
        assertNull(s.getAttribute("a"));
        s.removeAttribute("b");
        s.removeAttribute("c");
        assertFalse(s.getAttributeNames().hasMoreElements());
        s.setAttribute("d", "4");
        s.removeAttribute("d");
        s.removeAttribute("d");
        s.setAttribute("e", "5");
        s.setAttribute("f", "6");
        assertEquals(List.of("attr-added:a", "attr-added:b", "attr-added:c", "attr-removed:a", "attr-replaced:b",
            "attr-removed:b", "attr-removed:c", "attr-added:d", "attr-removed:d", "attr-added:e", "attr-added:f"),
            events);
        events.clear();
        s.invalidate();
        assertEquals(List.of("attr-removed:e", "attr-removed:f"),
            events.stream().filter(e -> e.startsWith("attr-")).toList(), "each once, in the order they were set");
    }

    /**
     * JSR 289 §6.2.5 (SipSession attributes) as for one or many: two attributes are read, replaced, removed and
     * listed in the order they were set; the third moves them all into a table with no name lost or reordered.
     */
    @Test
    void shouldKeepTwoAttributesAsManyInTheOrderTheyWereSet()
    {
        app.listeners.add(new Recorder());
        final SipSessionImpl s = invite(app).sessionImpl();
        events.clear();
        s.setAttribute("role", "caller");
        s.setAttribute("state", "offered");
        assertEquals(List.of("role", "state"), java.util.Collections.list(s.getAttributeNames()));
        s.setAttribute("state", "confirmed");
        s.setAttribute("role", "callee");
        assertEquals("callee", s.getAttribute("role"));
        assertEquals("confirmed", s.getAttribute("state"));
        assertNull(s.getAttribute("other"));
        s.removeAttribute("role");
        assertNull(s.getAttribute("role"));
        assertEquals(List.of("state"), java.util.Collections.list(s.getAttributeNames()));
        s.setAttribute("ref", 7);
        assertEquals(List.of("state", "ref"), java.util.Collections.list(s.getAttributeNames()));
        s.removeAttribute("ref");
        s.setAttribute("ref", 8);
        s.setAttribute("third", "3");
        assertEquals(List.of("state", "ref", "third"), java.util.Collections.list(s.getAttributeNames()));
        assertEquals(8, s.getAttribute("ref"));
        assertEquals("confirmed", s.getAttribute("state"));
        s.removeAttribute("state");
        s.removeAttribute("third");
        assertEquals(List.of("ref"), java.util.Collections.list(s.getAttributeNames()));
        s.setAttribute("last", "4");
        assertEquals(List.of("attr-added:role", "attr-added:state", "attr-replaced:state", "attr-replaced:role",
            "attr-removed:role", "attr-added:ref", "attr-removed:ref", "attr-added:ref", "attr-added:third",
            "attr-removed:state", "attr-removed:third", "attr-added:last"), events);
        events.clear();
        s.invalidate();
        assertEquals(List.of("attr-removed:ref", "attr-removed:last"),
            events.stream().filter(e -> e.startsWith("attr-")).toList(), "each once, in the order they were set");
    }

    /** JSR 289 §6.2.5: the second attribute of two is removed alone, and invalidation unbinds both in order. */
    @Test
    void shouldRemoveTheSecondOfTwoAttributesAlone()
    {
        app.listeners.add(new Recorder());
        final SipSessionImpl s = invite(app).sessionImpl();
        s.setAttribute("a", "1");
        s.setAttribute("b", "2");
        s.removeAttribute("b");
        s.removeAttribute("b");
        assertEquals(List.of("a"), java.util.Collections.list(s.getAttributeNames()));
        assertEquals("1", s.getAttribute("a"));
        s.setAttribute("c", "3");
        events.clear();
        s.invalidate();
        assertEquals(List.of("attr-removed:a", "attr-removed:c"),
            events.stream().filter(e -> e.startsWith("attr-")).toList());
    }

    /**
     * A derived session (JSR 289 §6.2.3.2) starts with a copy of its parent's attributes, two kept in its own fields
     * or more in a table: setting or removing one on either session leaves the other's as it was.
     */
    @Test
    void shouldGiveADerivedSessionACopyOfTwoOrMoreAttributes()
    {
        final SipSessionImpl two = invite(app).sessionImpl();
        two.setAttribute("role", "caller");
        two.setAttribute("state", "offered");
        final SipSessionImpl twoCopy = SessionFork.deriveUas(two);
        twoCopy.setAttribute("state", "early");
        twoCopy.removeAttribute("role");
        assertEquals(List.of("role", "state"), java.util.Collections.list(two.getAttributeNames()));
        assertEquals("offered", two.getAttribute("state"));
        assertEquals(List.of("state"), java.util.Collections.list(twoCopy.getAttributeNames()));
        assertEquals("early", twoCopy.getAttribute("state"));

        final SipSessionImpl three = invite(app).sessionImpl();
        three.setAttribute("a", "1");
        three.setAttribute("b", "2");
        three.setAttribute("c", "3");
        final SipSessionImpl threeCopy = SessionFork.deriveUas(three);
        threeCopy.removeAttribute("a");
        threeCopy.setAttribute("c", "33");
        assertEquals(List.of("a", "b", "c"), java.util.Collections.list(three.getAttributeNames()));
        assertEquals("3", three.getAttribute("c"));
        assertEquals(List.of("b", "c"), java.util.Collections.list(threeCopy.getAttributeNames()));
        assertEquals("33", threeCopy.getAttribute("c"));
    }

    @Test
    void shouldExpireTheApplicationSessionUnlessAListenerExtendsIt()
    {
        app.timeoutMinutes = 1;
        final int[] extensions = {1};
        app.listeners.add(new SipApplicationSessionListener()
        {
            @Override
            public void sessionCreated(final SipApplicationSessionEvent e)
            {
            }

            @Override
            public void sessionDestroyed(final SipApplicationSessionEvent e)
            {
                events.add("destroyed");
            }

            @Override
            public void sessionExpired(final SipApplicationSessionEvent e)
            {
                events.add("expired");
                if (extensions[0]-- > 0)
                {
                    e.getApplicationSession().setExpires(2);
                }
            }

            @Override
            public void sessionReadyToInvalidate(final SipApplicationSessionEvent e)
            {
            }
        });
        final SipApplicationSessionImpl as = new SipApplicationSessionImpl(app, host, null);
        host.advance(59_999);
        assertTrue(as.isValid());
        host.advance(1);
        assertEquals(List.of("expired"), events, "expired at one minute, extended by two");
        assertTrue(as.isValid());
        host.advance(120_000);
        assertEquals(List.of("expired", "expired", "destroyed"), events);
        assertFalse(as.isValid());
        assertEquals(0, host.pendingTimers());
    }

    @Test
    void shouldFireServletTimersOnTheShardWheel()
    {
        app.listeners.add(new Recorder());
        final SipApplicationSessionImpl as = new SipApplicationSessionImpl(app, host, null);
        events.clear();
        final TimerServiceImpl service = new TimerServiceImpl();
        final ServletTimer once = service.createTimer(as, 1_000, false, "once");
        final ServletTimer repeating = service.createTimer(as, 500, 500, true, false, "tick");
        assertSame(once, as.getTimer(once.getId()));
        host.advance(1_200);
        assertEquals(List.of("timer:tick", "timer:once", "timer:tick"), events);
        assertNull(as.getTimer(once.getId()), "a one-shot timer is gone after it fired");
        repeating.cancel();
        host.advance(5_000);
        assertEquals(3, events.size(), "no tick after cancel");
        assertTrue(as.getTimers().isEmpty());
    }
    @Test
    void shouldLetGoOfTheInitialInviteOnceItsTransactionEndedWithTheDialogConfirmed() throws Exception
    {
        final SipServletRequestImpl invite = invite(app);
        final SipSessionImpl s = invite.sessionImpl();
        invite.principal(new SipPrincipal("alice", "example", Set.of("caller")));
        invite.createResponse(180).send();
        s.settle(invite);
        assertSame(invite, s.original(), "an early dialog keeps its INVITE (the transaction has not ended)");
        invite.createResponse(200).send();
        s.settle(invite);
        assertNull(s.original(), "a confirmed dialog whose INVITE transaction ended holds no message");
        assertEquals("alice", s.initialPrincipal().name(), "the user stays for ACKs in the dialog");

        final SipServletRequestImpl bye = (SipServletRequestImpl)s.createRequest("BYE");
        assertEquals("Bob <sip:bob@biloxi.example>;tag=" + s.localTag(), bye.getHeader("From"),
            "From: the INVITE's To with our tag (RFC 3261 §12.2.1.1)");
        assertEquals("\"Alice\" <sip:alice@atlanta.example>;tag=1928301774", bye.getHeader("To"));
        assertEquals("a84b4c76e66710@pc33.atlanta.example", bye.getCallId());
        assertEquals("sip:alice@192.0.2.9:5062", bye.getRequestURI().toString(), "the remote target");
        assertEquals("<sip:p1.example;lr>", bye.getHeader("Route"), "the route set");
    }

    @Test
    void shouldKeepAnInviteWithReplacesForGetCorrespondingSipSession() throws Exception
    {
        final SipServletRequestImpl r = SipServletRequestImpl.received(TestMessages.parse(TestMessages.INVITE
            .replace("Subject:", "Replaces: 12345@192.0.2.7;to-tag=a;from-tag=b\r\nSubject:")), null,
            TestMessages.PEER, TestMessages.LOCAL);
        r.initial(true);
        final SipSessionImpl s = SipSessionImpl.forReceived(new SipApplicationSessionImpl(app, host, null), r, "main");
        s.begin(r);
        r.createResponse(200).send();
        s.settle(r);
        assertSame(r, s.original(), "RFC 3891: the Replaces header is read later through the original request");
    }
}
