package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import javax.servlet.sip.URI;
import javax.servlet.sip.ar.SipApplicationRoutingRegion;

import io.sipline.container.address.SipAddresses;
import org.junit.jupiter.api.Test;

/**
 * {@link RouterStates}: each initial request and its session get what the router said about the request (JSR 289
 * §15.4.1); requests given the same answer share one {@link RouterState}, another answer gets its own.
 */
class RouterStatesTest
{
    private final FakeHost host = new FakeHost();
    private final FakeApp app = new FakeApp();
    private final RouterStates states = new RouterStates();

    private SipServletRequestImpl route(final SipApplicationRoutingRegion region, final URI subscriber,
        final String stateInfo)
    {
        final SipServletRequestImpl r = SipServletRequestImpl.received(TestMessages.parse(TestMessages.INVITE), null,
            TestMessages.PEER, TestMessages.LOCAL);
        r.initial(true);
        final SipSessionImpl s = SipSessionImpl.forReceived(new SipApplicationSessionImpl(app, host, null), r, "main");
        states.route(r, s, region, subscriber, stateInfo);
        return r;
    }

    @Test
    void shouldGiveTheRequestAndItsSessionTheRoutersAnswer() throws Exception
    {
        final URI subscriber = SipAddresses.parseUri("sip:alice@example.com");
        final SipServletRequestImpl r = route(SipApplicationRoutingRegion.ORIGINATING_REGION, subscriber, "1");
        assertSame(SipApplicationRoutingRegion.ORIGINATING_REGION, r.region());
        assertSame(SipApplicationRoutingRegion.ORIGINATING_REGION, r.getRegion());
        assertSame(subscriber, r.getSubscriberURI());
        assertEquals("1", r.stateInfo());
        assertSame(SipApplicationRoutingRegion.ORIGINATING_REGION, r.sessionImpl().getRegion());
        assertSame(subscriber, r.sessionImpl().getSubscriberURI());
        assertEquals("1", r.sessionImpl().stateInfo());
    }

    @Test
    void shouldShareOneStateWhileTheAnswerIsTheSame() throws Exception
    {
        final SipServletRequestImpl first = route(SipApplicationRoutingRegion.NEUTRAL_REGION, null, "sole");
        final SipServletRequestImpl second = route(SipApplicationRoutingRegion.NEUTRAL_REGION, null, "sole");
        assertSame(first.routerState(), second.routerState());
        final SipServletRequestImpl other = route(SipApplicationRoutingRegion.TERMINATING_REGION, null, "sole");
        assertSame(SipApplicationRoutingRegion.TERMINATING_REGION, other.getRegion());
        assertSame(SipApplicationRoutingRegion.NEUTRAL_REGION, first.getRegion(), "a shared state is never changed");
        final SipServletRequestImpl none = route(null, null, null);
        assertNull(none.getRegion());
        assertNull(none.stateInfo());
        assertNull(none.sessionImpl().getRegion());
    }
}
