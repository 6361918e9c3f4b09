package io.sipline.container.router;

import javax.servlet.sip.ar.SipRouteModifier;

/**
 * The route modifier column of a DAR tuple. The SIP Servlet 1.1 API ({@link SipRouteModifier}) knows
 * {@code ROUTE}, {@code ROUTE_BACK} and {@code NO_ROUTE}; {@code ROUTE_FINAL} comes from SIP Servlet 2.0 (JSR 359)
 * DAR files and is accepted here: the router returns it to the container as {@code ROUTE} and then ends the
 * application selection for that request (the next call returns {@code null}).
 * <p>
 * Threading: an enum, immutable.
 */
public enum DarRouteModifier
{
    /** No route: invoke the named application. */
    NO_ROUTE(SipRouteModifier.NO_ROUTE),

    /** Route the request to the tuple's route (external or internal). */
    ROUTE(SipRouteModifier.ROUTE),

    /** Push a route back to the container, then the tuple's route, so the request comes back after the route. */
    ROUTE_BACK(SipRouteModifier.ROUTE_BACK),

    /** Route to the tuple's route and select no further application for this request. */
    ROUTE_FINAL(SipRouteModifier.ROUTE);

    private final SipRouteModifier api;

    DarRouteModifier(final SipRouteModifier api)
    {
        this.api = api;
    }

    /**
     * @return the SIP Servlet 1.1 modifier handed to the container.
     */
    public SipRouteModifier toApi()
    {
        return api;
    }

    /**
     * @return whether the tuple's route column must name a route.
     */
    public boolean needsRoute()
    {
        return ROUTE == this || ROUTE_FINAL == this;
    }
}
