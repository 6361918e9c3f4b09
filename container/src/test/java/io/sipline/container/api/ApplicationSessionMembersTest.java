package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The SIP sessions of an application session (JSR 289 §6.1: {@code getSessions}, {@code getSipSession}): kept in
 * the order they were made, whatever their number (the first two in fields, the others in an array), in that order
 * after some are invalidated, all invalidated with it.
 */
class ApplicationSessionMembersTest
{
    private final FakeHost host = new FakeHost();
    private final SipApplicationSessionImpl app = new SipApplicationSessionImpl(new FakeApp(), host, null);

    private SipSessionImpl newSession(final int n)
    {
        final SipServletRequestImpl r = SipServletRequestImpl.received(
            TestMessages.parse(TestMessages.INVITE.replace("a84b4c76", "a84b4c7" + n)), null, TestMessages.PEER,
            TestMessages.LOCAL);
        r.initial(true);
        return SipSessionImpl.forReceived(app, r, "main");
    }

    private List<Object> sipSessions()
    {
        final List<Object> all = new ArrayList<>();
        app.getSessions("SIP").forEachRemaining(all::add);
        assertEquals(all, app.sipSessions(), "the container's copy is the same");
        final List<Object> any = new ArrayList<>();
        app.getSessions().forEachRemaining(any::add);
        assertEquals(all, any, "no HTTP session here");
        return all;
    }

    @Test
    void shouldKeepTheSipSessionsInTheOrderMadeWhateverTheirNumber()
    {
        assertEquals(List.of(), sipSessions());
        final List<SipSessionImpl> made = new ArrayList<>();
        for (int i = 0; i < 7; i++)
        {
            made.add(newSession(i));
            assertEquals(made, sipSessions());
        }
        for (final SipSessionImpl s : made)
        {
            assertSame(s, app.getSipSession(s.getId()));
        }

        made.remove(1).invalidate(); // one of the fields: the third moves up into it
        assertEquals(made, sipSessions());
        made.remove(3).invalidate(); // one of the array
        made.remove(0).invalidate();
        assertEquals(made, sipSessions());
        made.add(newSession(8)); // after the last
        assertEquals(made, sipSessions());
        final SipSessionImpl gone = made.remove(made.size() - 1);
        gone.invalidate();
        assertNull(app.getSipSession(gone.getId()));
        assertEquals(made, sipSessions());

        app.invalidate();
        for (final SipSessionImpl s : made)
        {
            assertFalse(s.isValid(), "invalidated with its application session");
        }
    }

    @Test
    void shouldKeepTwoSessionsAndTakeAThirdAfterOneLeft()
    {
        final SipSessionImpl caller = newSession(1);
        final SipSessionImpl callee = newSession(2);
        assertEquals(List.of(caller, callee), sipSessions());
        caller.invalidate();
        assertEquals(List.of(callee), sipSessions());
        final SipSessionImpl third = newSession(3);
        assertEquals(List.of(callee, third), sipSessions());
        callee.invalidate();
        third.invalidate();
        assertEquals(List.of(), sipSessions());
    }
}
