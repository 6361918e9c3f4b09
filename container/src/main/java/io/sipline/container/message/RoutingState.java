package io.sipline.container.message;

import java.io.Serializable;

import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.URI;
import javax.servlet.sip.ar.SipApplicationRoutingDirective;
import javax.servlet.sip.ar.SipApplicationRoutingRegion;

/**
 * The application-router state of one request (JSR 289 §15): the routing directive (§15.2.2), what the router said
 * about it (region, subscriber URI, router state; §15.4.1), the Route the container popped (§15.5) as text until the
 * application asks for its {@code Address}, and the token of the route back to this container pushed for
 * {@code ROUTE_BACK}. A request makes one only when it carries any of these (initial requests, and those a popped
 * Route or a route back was recorded on); the others answer the defaults.
 * <p>
 * Threading: owned by its request (see {@link SipServletMessageImpl}).
 */
final class RoutingState
{
    SipApplicationRoutingDirective directive = SipApplicationRoutingDirective.NEW;
    SipApplicationRoutingRegion region;
    URI subscriberUri;
    Serializable stateInfo;
    private Address poppedRoute;
    private String poppedRouteText;
    /** The token of the route back to this container pushed for ROUTE_BACK (JSR 289 §15.4.1), or null. */
    String routeBackToken;

    /** Takes what the router said about {@code from}'s request (CONTINUE and REVERSE, JSR 289 §15.2.2). */
    void routerStateOf(final RoutingState from)
    {
        region = null == from ? null : from.region;
        subscriberUri = null == from ? null : from.subscriberUri;
        stateInfo = null == from ? null : from.stateInfo;
    }

    void poppedRoute(final Address route)
    {
        poppedRoute = route;
        poppedRouteText = null;
    }

    void poppedRoute(final String routeValue)
    {
        poppedRoute = null;
        poppedRouteText = routeValue;
    }

    boolean hasPoppedRoute()
    {
        return null != poppedRoute || null != poppedRouteText;
    }

    /** The popped Route, parsed on first call; null when there is none or its text does not parse. */
    Address poppedRoute()
    {
        if (null == poppedRoute && null != poppedRouteText)
        {
            try
            {
                poppedRoute = AddressCodec.address(poppedRouteText);
            }
            catch (final ServletParseException e)
            {
                poppedRoute = null;
            }
            poppedRouteText = null;
        }
        return poppedRoute;
    }
}
