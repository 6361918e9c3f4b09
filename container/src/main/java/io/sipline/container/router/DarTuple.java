package io.sipline.container.router;

import java.util.Objects;

import javax.servlet.sip.ar.SipApplicationRoutingRegion;

/**
 * One tuple of a DAR line (JSR 289 Appendix C): {@code ("application name", "subscriber identity", "routing region",
 * "route", "route modifier", "state info")}.
 * <p>
 * Threading: an immutable record.
 *
 * @param applicationName  the application to invoke.
 * @param subscriberHeader the header whose URI is the subscriber ({@code DAR:From} gives {@code From}), or
 *                         {@code null} when the identity is a literal URI or empty.
 * @param subscriberUri    the literal subscriber URI, or {@code null}.
 * @param region           the routing region.
 * @param route            the route URI, or the empty string.
 * @param modifier         the route modifier.
 * @param stateInfo        the state info column as written (the router keeps its own position, see
 *                         {@link DefaultApplicationRouter}).
 * @param line             the line of the DAR file, 0 when unknown.
 */
public record DarTuple(
    String applicationName,
    String subscriberHeader,
    String subscriberUri,
    SipApplicationRoutingRegion region,
    String route,
    DarRouteModifier modifier,
    String stateInfo,
    int line)
{
    /** Checks the mandatory parts. */
    public DarTuple
    {
        Objects.requireNonNull(applicationName, "applicationName");
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(modifier, "modifier");
    }
}
