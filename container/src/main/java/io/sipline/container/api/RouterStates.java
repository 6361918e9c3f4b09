package io.sipline.container.api;

import java.io.Serializable;

import javax.servlet.sip.URI;
import javax.servlet.sip.ar.SipApplicationRoutingRegion;

/**
 * What the application router said about initial requests (JSR 289 §15.4.1), handed to each request and its session
 * as one immutable {@link RouterState}. The state of the last answer is kept and given again while the router
 * answers with the same region, subscriber URI and state objects (a router with one application gives every request
 * the same answer), so that a call shares it instead of making its own.
 * <p>
 * Not threadsafe; one per shard, used on its event loop.
 */
public final class RouterStates
{
    private RouterState last;

    /** Gives {@code request} and {@code session}, the session it starts, what the router said about the request. */
    public void route(final SipServletRequestImpl request, final SipSessionImpl session,
        final SipApplicationRoutingRegion region, final URI subscriber, final Serializable stateInfo)
    {
        final RouterState state = stateOf(region, subscriber, stateInfo);
        session.routing(state);
        request.routing(state);
    }

    private RouterState stateOf(final SipApplicationRoutingRegion region, final URI subscriber,
        final Serializable stateInfo)
    {
        if (null == region && null == subscriber && null == stateInfo)
        {
            return null;
        }
        RouterState state = last;
        if (null == state || state.region != region || state.subscriberUri != subscriber
            || state.stateInfo != stateInfo)
        {
            state = new RouterState(region, subscriber, stateInfo);
            last = state;
        }
        return state;
    }
}
