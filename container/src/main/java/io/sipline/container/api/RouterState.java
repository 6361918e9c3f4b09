package io.sipline.container.api;

import java.io.Serializable;

import javax.servlet.sip.URI;
import javax.servlet.sip.ar.SipApplicationRoutingRegion;

/**
 * What the application router said about an initial request (JSR 289 §15.4.1): the routing region, the subscriber
 * URI and the router's state. Immutable, so that the requests that continue or reverse that routing (§15.2.2: a
 * B2BUA leg, a proxy's copy, a SipFactory copy) share the received request's instance instead of copying it, and
 * the requests given the same answer share one ({@link RouterStates}).
 * <p>
 * Threading: immutable, any thread may read it; made by a shard's {@link RouterStates}.
 */
final class RouterState
{
    final SipApplicationRoutingRegion region;
    final URI subscriberUri;
    final Serializable stateInfo;

    RouterState(final SipApplicationRoutingRegion region, final URI subscriberUri, final Serializable stateInfo)
    {
        this.region = region;
        this.subscriberUri = subscriberUri;
        this.stateInfo = stateInfo;
    }
}
