package io.sipline.container.factory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import javax.servlet.sip.SipServletMessage;
import javax.servlet.sip.UAMode;

import io.sipline.container.api.FakeHost;
import io.sipline.container.api.RunningApplication;
import io.sipline.container.api.SipApplicationSessionImpl;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.container.api.TestMessages;
import io.sipline.test.AllocationMeter;
import org.junit.jupiter.api.Test;

/**
 * {@link B2buaHelperImpl}: the pending messages (JSR 289 §12.4) as an unmodifiable list of what is pending, and one
 * helper for every application session of its application, which still refuses what JSR 289 §12 refuses across
 * application sessions and what belongs to another application.
 */
class B2buaHelperTest
{
    private static final int CALLS = 10_000;

    private final FakeHost host = new FakeHost();
    private List<SipServletMessage> sink;

    private static B2buaHelperImpl helperOf(final SipServletRequestImpl request)
    {
        final RunningApplication app = request.sessionImpl().appSession().application();
        return new B2buaHelperImpl(new SipFactoryImpl(app, null), app);
    }

    /** A received request of {@code method} in {@code session}, its transaction begun. */
    private static SipServletRequestImpl begun(final SipSessionImpl session, final String method)
    {
        final SipServletRequestImpl r = SipServletRequestImpl.received(
            TestMessages.parse(TestMessages.INVITE.replace("INVITE", method)), null, TestMessages.PEER,
            TestMessages.LOCAL);
        r.session(session);
        session.begin(r);
        return r;
    }

    @Test
    void shouldListThePendingMessagesInTheOrderTheyBeganUnmodifiable()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipSessionImpl s = invite.sessionImpl();
        final B2buaHelperImpl helper = helperOf(invite);
        assertEquals(List.of(), helper.getPendingMessages(s, UAMode.UAS), "none before the transaction begins");
        s.begin(invite);
        final List<SipServletMessage> one = helper.getPendingMessages(s, UAMode.UAS);
        assertEquals(List.of(invite), one);
        assertThrows(UnsupportedOperationException.class, () -> one.add(invite), "a list to read, not to change");
        assertEquals(List.of(), helper.getPendingMessages(s, UAMode.UAC), "a received request is not UAC's");

        final SipServletRequestImpl info = begun(s, "INFO");
        final SipServletRequestImpl update = begun(s, "UPDATE");
        final List<SipServletMessage> three = helper.getPendingMessages(s, UAMode.UAS);
        assertEquals(List.of(invite, info, update), three, "more than two: all of them, in order");
        assertThrows(UnsupportedOperationException.class, () -> three.remove(0));

        s.end(invite);
        assertEquals(List.of(info, update), helper.getPendingMessages(s, UAMode.UAS));
        s.end(update);
        assertEquals(List.of(info), helper.getPendingMessages(s, UAMode.UAS));
    }

    @Test
    void shouldListACallsPendingMessageInOneSmallObject()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipSessionImpl s = invite.sessionImpl();
        s.begin(invite);
        final B2buaHelperImpl helper = helperOf(invite);
        final Runnable calls = () ->
        {
            for (int i = 0; i < CALLS; i++)
            {
                sink = helper.getPendingMessages(s, UAMode.UAS); // kept: the list escapes, as it does to an app
            }
        };
        final long bytes = AllocationMeter.leastBytes(calls, calls, 5, CALLS * 24L);
        // one List.of of one element (24 bytes without compact headers), not an ArrayList and its array (48)
        assertTrue(bytes <= CALLS * 24L, "bytes per call: " + (double)bytes / CALLS);
        assertEquals(List.of(invite), sink);
    }

    @Test
    void shouldServeEveryApplicationSessionOfItsApplication()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipSessionImpl caller = invite.sessionImpl();
        final RunningApplication app = caller.appSession().application();
        final B2buaHelperImpl helper = helperOf(invite);
        final SipSessionImpl callee = SipSessionImpl.forReceived(caller.appSession(),
            received(TestMessages.INVITE.replace("a84b4c76", "b84b4c76")), "main");
        helper.linkSipSessions(caller, callee);
        assertSame(callee, helper.getLinkedSession(caller));
        assertSame(caller, helper.getLinkedSession(callee));

        // another call of the same application: the same helper serves it
        final SipServletRequestImpl second = received(TestMessages.INVITE.replace("a84b4c76", "c84b4c76"));
        final SipSessionImpl other = SipSessionImpl.forReceived(new SipApplicationSessionImpl(app, host, null),
            second, "main");
        assertEquals(null, helper.getLinkedSession(other));
        other.begin(second);
        assertEquals(List.of(second), helper.getPendingMessages(other, UAMode.UAS));
    }

    @Test
    void shouldRefuseSessionsOfDifferentApplicationSessionsWhereJsr289RequiresOne()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipSessionImpl caller = invite.sessionImpl();
        final B2buaHelperImpl helper = helperOf(invite);
        final SipServletRequestImpl second = received(TestMessages.INVITE.replace("a84b4c76", "c84b4c76"));
        final SipSessionImpl other = SipSessionImpl.forReceived(
            new SipApplicationSessionImpl(caller.appSession().application(), host, null), second, "main");
        assertThrows(IllegalArgumentException.class, () -> helper.linkSipSessions(caller, other),
            "§12: linked sessions belong to one application session");
    }

    @Test
    void shouldRefuseASessionOfAnotherApplication()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final B2buaHelperImpl helper = helperOf(invite);
        final SipServletRequestImpl foreign = TestMessages.received(host, TestMessages.INVITE); // another FakeApp
        assertThrows(IllegalArgumentException.class, () -> helper.getLinkedSession(foreign.sessionImpl()));
        assertThrows(IllegalArgumentException.class,
            () -> helper.getPendingMessages(foreign.sessionImpl(), UAMode.UAS));
    }

    private static SipServletRequestImpl received(final String text)
    {
        final SipServletRequestImpl r =
            SipServletRequestImpl.received(TestMessages.parse(text), null, TestMessages.PEER, TestMessages.LOCAL);
        r.initial(true);
        return r;
    }
}
