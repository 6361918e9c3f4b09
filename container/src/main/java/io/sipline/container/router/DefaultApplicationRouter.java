package io.sipline.container.router;

import java.io.Serializable;
import java.net.URI;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.ar.SipApplicationRouter;
import javax.servlet.sip.ar.SipApplicationRouterInfo;
import javax.servlet.sip.ar.SipApplicationRoutingDirective;
import javax.servlet.sip.ar.SipApplicationRoutingRegion;
import javax.servlet.sip.ar.SipRouteModifier;
import javax.servlet.sip.ar.SipTargetedRequestInfo;

/**
 * The default application router (JSR 289 §15.4 and Appendix C): selects applications for an initial request by
 * walking the {@link DarConfiguration} tuples of the request's method in order; the state info it hands the container
 * is the position of the tuple it selected, and tuples of applications not deployed are skipped (the rules are on
 * {@link #getNextApplication}). Without any DAR configuration, when exactly one application is deployed, that
 * application receives every initial request once.
 * <p>
 * Threading: {@link #getNextApplication} is called concurrently by every shard and takes no lock: it reads two
 * volatile references to immutable values (the configuration and the set of deployed applications). Deployment
 * callbacks, rare and off the shards, replace the set under this object's monitor.
 */
public final class DefaultApplicationRouter implements SipApplicationRouter
{
    /** State info returned in single-application mode. */
    static final String SOLE_APPLICATION_STATE = "sole";

    private static final String[] NO_ROUTES = new String[0];

    private volatile DarConfiguration configuration;
    private volatile Deployment deployed = Deployment.of(Set.of());

    /**
     * A router configured by {@link #init()} (the {@value DarConfiguration#CONFIGURATION_PROPERTY} system property)
     * or {@link #init(Properties)}.
     */
    public DefaultApplicationRouter()
    {
        this.configuration = null;
    }

    /**
     * @param configuration the parsed DAR file (the server parses it at start so that a bad line stops the start).
     */
    public DefaultApplicationRouter(final DarConfiguration configuration)
    {
        this.configuration = configuration;
    }

    /**
     * Reads the DAR file named by the {@value DarConfiguration#CONFIGURATION_PROPERTY} system property (a path or a
     * {@code file:} URI), unless the router was constructed with a configuration; no property means no DAR.
     *
     * @throws IllegalStateException when the file is malformed, with the file, line and reason.
     */
    @Override
    public void init()
    {
        if (null != configuration)
        {
            return;
        }
        final String location = System.getProperty(DarConfiguration.CONFIGURATION_PROPERTY);
        if (null == location || location.isBlank())
        {
            configuration = DarConfiguration.empty();
            return;
        }
        try
        {
            final Path file = location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
            configuration = DarConfiguration.load(file);
        }
        catch (final DarConfigurationException ex)
        {
            throw new IllegalStateException(ex.getMessage(), ex);
        }
    }

    /**
     * @param properties the DAR configuration as properties (method to tuples); empty means {@link #init()}.
     * @throws IllegalStateException when a value is malformed.
     */
    @Override
    public void init(final Properties properties)
    {
        if (null == properties || properties.isEmpty())
        {
            init();
            return;
        }
        try
        {
            configuration = DarConfiguration.fromProperties(properties, "application router properties");
        }
        catch (final DarConfigurationException ex)
        {
            throw new IllegalStateException(ex.getMessage(), ex);
        }
    }

    @Override
    public void applicationDeployed(final List<String> newlyDeployedApplicationNames)
    {
        synchronized (this)
        {
            final Set<String> next = new LinkedHashSet<>(deployed.names());
            next.addAll(newlyDeployedApplicationNames);
            deployed = Deployment.of(next);
        }
    }

    @Override
    public void applicationUndeployed(final List<String> undeployedApplicationNames)
    {
        synchronized (this)
        {
            final Set<String> next = new LinkedHashSet<>(deployed.names());
            next.removeAll(undeployedApplicationNames);
            deployed = Deployment.of(next);
        }
    }

    @Override
    public void destroy()
    {
        synchronized (this)
        {
            deployed = Deployment.of(Set.of());
        }
    }

    /**
     * @return the applications currently deployed, in deployment order.
     */
    public Set<String> deployedApplications()
    {
        return deployed.names();
    }

    /**
     * @return the configuration in use ({@link DarConfiguration#empty()} before {@link #init()} with no DAR).
     */
    public DarConfiguration configuration()
    {
        final DarConfiguration current = configuration;
        return null == current ? DarConfiguration.empty() : current;
    }

    /**
     * The next application for an initial request: the walk of the method's tuples, as follows.
     * <ul>
     *   <li>State info: the router hands the container, as state info, the position (a decimal {@code String}) of
     *       the tuple it selected; the container passes it back when the same request (or one derived from it with
     *       the {@code CONTINUE} or {@code REVERSE} directive) needs the next application, and the walk resumes
     *       after that position. With the {@code NEW} directive, or state info that is not ours, the walk starts at
     *       the first tuple. The state info column of the file is kept in {@link DarTuple} but not trusted for the
     *       position.</li>
     *   <li>Tuples naming an application that is not deployed ({@link #applicationDeployed}/{@link
     *       #applicationUndeployed}) are skipped, except {@code ROUTE}/{@code ROUTE_FINAL} tuples and
     *       {@code ROUTE_BACK} tuples with a route, whose route decides where the request goes (JSR 289 §15.4.1: for
     *       an external route the container ignores the application name).</li>
     *   <li>A request an application sent (it owns the request's application session) is never routed back to that
     *       application in the region of the tuple that selected it (the first tuple for a {@code NEW} request), as
     *       the reference container's router does: a chat room's own MESSAGE to a user leaves the container instead
     *       of reaching the chat room again.</li>
     *   <li>The subscriber URI is the URI of the named header ({@code DAR:From}), or the literal URI of the
     *       tuple.</li>
     *   <li>When the walk is exhausted the router returns {@code null}: the container then routes the request by
     *       its Request-URI, or answers 404 if no application was ever selected (JSR 289 §15.4.1).</li>
     *   <li>Without any DAR configuration, when exactly one application is deployed, that application receives
     *       every initial request once (region {@code NEUTRAL}); requests that the application itself originated
     *       (it already owns their application session) are not routed back to it.</li>
     *   <li>Targeted requests (encoded URI, Join, Replaces; §15.11.3) go to the targeted application, with the
     *       region and subscriber of its first tuple for that method, if any.</li>
     * </ul>
     */
    @Override
    public SipApplicationRouterInfo getNextApplication(
        final SipServletRequest initialRequest,
        final SipApplicationRoutingRegion region,
        final SipApplicationRoutingDirective directive,
        final SipTargetedRequestInfo targetedRequestInfo,
        final Serializable stateInfo)
    {
        if (null == initialRequest)
        {
            return null;
        }
        final DarConfiguration config = configuration();
        final Deployment deployment = deployed;
        final Set<String> applications = deployment.names();
        if (null != targetedRequestInfo)
        {
            return targeted(initialRequest, config, applications, targetedRequestInfo);
        }
        if (config.isEmpty())
        {
            return soleApplication(initialRequest, deployment.sole(), directive, stateInfo);
        }
        final List<DarTuple> tuples = config.tuples(initialRequest.getMethod());
        final int previous = SipApplicationRoutingDirective.NEW == directive ? -1 : position(stateInfo);
        if (previous >= 0 && previous < tuples.size()
            && DarRouteModifier.ROUTE_FINAL == tuples.get(previous).modifier())
        {
            return null;
        }
        final String origin = tuples.isEmpty() ? null : originatingApplication(initialRequest);
        for (int i = previous + 1; i < tuples.size(); i++)
        {
            final DarTuple tuple = tuples.get(i);
            if (tuple.applicationName().equals(origin)
                && tuple.region().getType() == tuples.get(Math.max(previous, 0)).region().getType())
            {
                continue; // never twice in a row to the same application in the same region (as the reference DAR)
            }
            if (tuple.modifier().needsRoute() || applications.contains(tuple.applicationName())
                || (DarRouteModifier.ROUTE_BACK == tuple.modifier() && !tuple.route().isEmpty()))
            {
                return info(initialRequest, tuple, Integer.toString(i));
            }
        }
        return null;
    }

    private SipApplicationRouterInfo targeted(
        final SipServletRequest request,
        final DarConfiguration config,
        final Set<String> applications,
        final SipTargetedRequestInfo targeted)
    {
        final String name = targeted.getApplicationName();
        if (null == name || !applications.contains(name))
        {
            return null;
        }
        final List<DarTuple> tuples = config.tuples(request.getMethod());
        for (int i = 0; i < tuples.size(); i++)
        {
            final DarTuple tuple = tuples.get(i);
            if (name.equals(tuple.applicationName()) && !tuple.modifier().needsRoute())
            {
                return new SipApplicationRouterInfo(name, tuple.region(), subscriber(request, tuple), NO_ROUTES,
                    SipRouteModifier.NO_ROUTE, Integer.toString(i));
            }
        }
        return new SipApplicationRouterInfo(name, SipApplicationRoutingRegion.NEUTRAL_REGION, null, NO_ROUTES,
            SipRouteModifier.NO_ROUTE, SOLE_APPLICATION_STATE);
    }

    private static SipApplicationRouterInfo soleApplication(
        final SipServletRequest request,
        final SipApplicationRouterInfo sole,
        final SipApplicationRoutingDirective directive,
        final Serializable stateInfo)
    {
        if (null == sole)
        {
            return null;
        }
        if (SipApplicationRoutingDirective.NEW != directive && SOLE_APPLICATION_STATE.equals(stateInfo))
        {
            return null; // already given to the application once: now it leaves the container
        }
        if (originatedBy(request, sole.getNextApplicationName()))
        {
            return null;
        }
        return sole;
    }

    /**
     * The deployed applications, in deployment order, and, when there is exactly one, the answer that gives it every
     * initial request (made once per deployment change: the container only reads it, so one immutable answer serves
     * every request).
     */
    private record Deployment(Set<String> names, SipApplicationRouterInfo sole)
    {
        static Deployment of(final Set<String> names)
        {
            final Set<String> copy = Collections.unmodifiableSet(new LinkedHashSet<>(names));
            return new Deployment(copy, 1 != copy.size() ? null : new SipApplicationRouterInfo(
                copy.iterator().next(), SipApplicationRoutingRegion.NEUTRAL_REGION, null, NO_ROUTES,
                SipRouteModifier.NO_ROUTE, SOLE_APPLICATION_STATE));
        }
    }

    private static boolean originatedBy(final SipServletRequest request, final String application)
    {
        return application.equals(originatingApplication(request));
    }

    /** The application that sent or proxies {@code request}; null for a request from the network. */
    private static String originatingApplication(final SipServletRequest request)
    {
        try
        {
            final SipApplicationSession session = request.getApplicationSession(false);
            return null == session ? null : session.getApplicationName();
        }
        catch (final RuntimeException ex)
        {
            return null; // a request not yet bound to the container's sessions
        }
    }

    private static SipApplicationRouterInfo info(final SipServletRequest request, final DarTuple tuple,
        final String state)
    {
        final String[] routes = tuple.route().isEmpty() || DarRouteModifier.NO_ROUTE == tuple.modifier()
            ? NO_ROUTES : new String[] {tuple.route()};
        return new SipApplicationRouterInfo(tuple.applicationName(), tuple.region(), subscriber(request, tuple), routes,
            tuple.modifier().toApi(), state);
    }

    private static String subscriber(final SipServletRequest request, final DarTuple tuple)
    {
        if (null != tuple.subscriberUri())
        {
            return tuple.subscriberUri();
        }
        final String header = tuple.subscriberHeader();
        if (null == header)
        {
            return null;
        }
        try
        {
            final Address address = request.getAddressHeader(header);
            if (null != address && null != address.getURI())
            {
                return address.getURI().toString();
            }
        }
        catch (final ServletParseException | IllegalArgumentException ex)
        {
            // not an address header: fall back to its raw value below
        }
        return rawUri(request.getHeader(header));
    }

    private static String rawUri(final String value)
    {
        if (null == value)
        {
            return null;
        }
        final int open = value.indexOf('<');
        final int close = value.indexOf('>', open + 1);
        if (open >= 0 && close > open)
        {
            return value.substring(open + 1, close).strip();
        }
        final int semicolon = value.indexOf(';');
        return (semicolon >= 0 ? value.substring(0, semicolon) : value).strip();
    }

    private static int position(final Serializable stateInfo)
    {
        if (stateInfo instanceof String text && !text.isEmpty() && text.length() <= 9)
        {
            int value = 0;
            for (int i = 0; i < text.length(); i++)
            {
                final char c = text.charAt(i);
                if (c < '0' || c > '9')
                {
                    return -1;
                }
                value = value * 10 + (c - '0');
            }
            return value;
        }
        return -1;
    }
}
