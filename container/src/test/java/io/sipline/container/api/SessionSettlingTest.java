package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import io.sipline.container.security.SipPrincipal;
import org.junit.jupiter.api.Test;

/**
 * {@link SessionSettling}: a UAS session lets go of its confirmed initial INVITE, keeping its user, and keeps the
 * request while anything can still reach it.
 */
class SessionSettlingTest
{
    private final FakeHost host = new FakeHost();
    private final FakeApp app = new FakeApp();

    private SipServletRequestImpl invite(final String message)
    {
        final SipServletRequestImpl r = SipServletRequestImpl.received(TestMessages.parse(message), null,
            TestMessages.PEER, TestMessages.LOCAL);
        r.initial(true);
        final SipSessionImpl s = SipSessionImpl.forReceived(new SipApplicationSessionImpl(app, host, null), r, "main");
        s.begin(r);
        return r;
    }

    /** A stand-in of the given interface whose methods do nothing (the session only stores it). */
    private static <T> T stub(final Class<T> type)
    {
        return type.cast(java.lang.reflect.Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
            (proxy, method, args) -> null));
    }

    @Test
    void shouldLetGoOfAConfirmedInviteAndKeepItsUser() throws Exception
    {
        final SipServletRequestImpl invite = invite(TestMessages.INVITE);
        final SipSessionImpl s = invite.sessionImpl();
        invite.principal(new SipPrincipal("alice", "example", Set.of("caller")));
        assertFalse(SessionSettling.settles(s, invite), "INITIAL: the dialog is not confirmed");
        invite.createResponse(200).send();
        assertTrue(SessionSettling.settles(s, invite));
        SessionSettling.settle(s, invite);
        assertNull(s.original());
        assertEquals("alice", s.initialPrincipal().name());
        assertFalse(SessionSettling.settles(s, invite), "once let go, the request is no longer the original");
        SessionSettling.settle(s, invite);
        assertEquals("alice", s.initialPrincipal().name(), "a second call changes nothing");
    }

    @Test
    void shouldKeepTheInviteWhileItsTwoHundredAwaitsItsAck() throws Exception
    {
        final SipServletRequestImpl invite = invite(TestMessages.INVITE);
        final SipSessionImpl s = invite.sessionImpl();
        invite.createResponse(200).send();
        s.awaitingAck(stub(AckWait.class));
        SessionSettling.settle(s, invite);
        assertSame(invite, s.original(), "RFC 3261 §13.3.1.4: the 2xx is retransmitted until its ACK");
        s.awaitingAck(null);
        SessionSettling.settle(s, invite);
        assertNull(s.original());
        assertNull(s.initialPrincipal(), "no user: none is kept");
    }

    @Test
    void shouldKeepTheInviteOfAProxyOrOneWithJoin() throws Exception
    {
        final SipServletRequestImpl proxied = invite(TestMessages.INVITE);
        proxied.createResponse(200).send();
        proxied.sessionImpl().proxy(stub(SessionProxy.class));
        SessionSettling.settle(proxied.sessionImpl(), proxied);
        assertSame(proxied, proxied.sessionImpl().original(), "a proxy's transaction is the proxy's");

        final SipServletRequestImpl join = invite(TestMessages.INVITE.replace("Subject:",
            "Join: 12345@192.0.2.7;to-tag=a;from-tag=b\r\nSubject:"));
        join.createResponse(200).send();
        SessionSettling.settle(join.sessionImpl(), join);
        assertSame(join, join.sessionImpl().original(), "RFC 3911: Join is read later through the original request");
    }

    @Test
    void shouldKeepTheInitialInviteWhenAnotherRequestEnds() throws Exception
    {
        final SipServletRequestImpl invite = invite(TestMessages.INVITE);
        final SipSessionImpl s = invite.sessionImpl();
        invite.createResponse(200).send();
        final SipServletRequestImpl other = SipServletRequestImpl.received(TestMessages.parse(TestMessages.INVITE),
            null, TestMessages.PEER, TestMessages.LOCAL);
        SessionSettling.settle(s, other);
        assertSame(invite, s.original(), "only the end of the initial INVITE's transaction lets it go");
    }
}
