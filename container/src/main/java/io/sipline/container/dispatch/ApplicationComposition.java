package io.sipline.container.dispatch;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.URI;
import javax.servlet.sip.ar.SipApplicationRouterInfo;
import javax.servlet.sip.ar.SipApplicationRoutingDirective;
import javax.servlet.sip.ar.SipRouteModifier;
import javax.servlet.sip.ar.SipTargetedRequestInfo;
import javax.servlet.sip.ar.SipTargetedRequestType;
import io.netty.buffer.ByteBuf;
import io.sipline.container.address.SipAddresses;
import io.sipline.container.api.HeaderText;
import io.sipline.container.api.MessageHeaders;
import io.sipline.container.api.MessageWriter;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.proxy.LoopDetection;
import io.sipline.container.proxy.ProxyRoutes;
import io.sipline.container.api.SessionTable;
import io.sipline.container.api.SipApplicationSessionImpl;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transaction.ServerTransaction;

/**
 * Application composition through the application router (JSR 289 §15): the router's decision for a received initial
 * request, session targeting (§15.11.3), the router's external routes (§15.4.1: the request leaves through
 * {@link RoutedOut}), and the initial requests an application sends, which go through the router again and come back
 * to this container with a Route carrying the decision ({@link #COMPOSITION_PARAMETER}).
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard, created with it). Received
 * messages are borrowed.
 */
final class ApplicationComposition
{
    private final ApplicationRegistry registry;
    private final StackShard shard;
    private final ShardAddresses addresses;
    private final ContainerIds ids;
    private final SessionTable sessions;
    private final NextHop nextHop;
    private final ContainerShardImpl.Counters counters;
    private final OutboundRequests outbound;
    private final DirectAnswers answers;
    /**
     * Router decisions for initial requests an application sent that the router gave to another application here
     * (JSR 289 §15.4 composition): the request goes out to this container's own address with a Route carrying the
     * token, and comes back to this shard (its Call-ID is this shard's) where the token names the decision.
     */
    private final java.util.Map<String, SipApplicationRouterInfo> composed = new java.util.HashMap<>();
    /** The decision of the last {@link #route} (shard thread; read right after it returns). */
    private SipApplicationRouterInfo decision;
    /** The application session the last {@link #route} joins, or null (shard thread; read right after it). */
    private SipApplicationSessionImpl targeted;

    ApplicationComposition(final ApplicationRegistry registry, final StackShard shard, final ShardAddresses addresses,
        final ContainerIds ids, final SessionTable sessions, final NextHop nextHop,
        final ContainerShardImpl.Counters counters, final OutboundRequests outbound, final DirectAnswers answers)
    {
        this.registry = registry;
        this.shard = shard;
        this.addresses = addresses;
        this.ids = ids;
        this.sessions = sessions;
        this.nextHop = nextHop;
        this.counters = counters;
        this.outbound = outbound;
        this.answers = answers;
    }

    /**
     * The router's decision for a received initial request (JSR 289 §15.4), kept for {@link #decision} and
     * {@link #targeted}: a composition Route of ours names it (§15.5), else the router is asked, {@code NEW} with the
     * session the request targets (§15.11.3) or, for a request back through our {@code ROUTE_BACK} route,
     * {@code CONTINUE} from the router's state info. A request with our Via that looped is answered 482 (RFC 3261
     * §16.3 step 4), and our own Route is popped (§16.4).
     *
     * @return whether the request was taken care of here (answered, or sent to the router's external route).
     */
    boolean route(final ServerTransaction tx, final SipMessage message, final SipServletRequestImpl request)
    {
        decision = null;
        targeted = null;
        SipApplicationRouterInfo info = composedDecision(request);
        final SipApplicationRouterInfo back = null != info && SipRouteModifier.ROUTE_BACK == info.getRouteModifier()
            ? info : null;
        if (null == info)
        {
            if (addresses.carriesOurVia(message)
                && LoopDetection.looped(request, addresses.host(), addresses.ownPorts()))
            {
                answers.answer(tx, message, 482, "Loop Detected"); // RFC 3261 §16.3 step 4
                return true;
            }
            // RFC 5626 §5.3: our Path or Record-Route toward a WebSocket client names its flow
            final String token = addresses.topRouteFlowToken(message);
            if (null != ProxyRoutes.popOwnRoute(request, addresses.host(), addresses.ownPorts()) // §16.4
                && null != token)
            {
                request.flowToken(token);
            }
        }
        SipApplicationSessionImpl joined = null;
        try
        {
            if (null != back)
            {
                // JSR 289 §15.4.1, ROUTE_BACK: the request came back through the route to us pushed under the
                // external routes; application selection goes on from the router's state info
                info = registry.router().getNextApplication(request, back.getRoutingRegion(),
                    SipApplicationRoutingDirective.CONTINUE, null, back.getStateInfo());
            }
            else if (null == info)
            {
                final SipApplicationSessionImpl target = targetOf(message, request);
                final SipTargetedRequestInfo targetInfo = null == target ? null
                    : new SipTargetedRequestInfo(targeting, target.getApplicationName());
                info = registry.router().getNextApplication(request, null, SipApplicationRoutingDirective.NEW,
                    targetInfo, null);
                // JSR 289 §15.11.3: the request joins the targeted application session when the router gives it to
                // that application
                joined = null != target && null != info
                    && target.getApplicationName().equals(info.getNextApplicationName()) ? target : null;
            }
        }
        catch (final RuntimeException e)
        {
            ShardLog.logOnce("router:" + e.getClass().getName(), "the application router failed", e);
            answers.answer(tx, message, 500, "Server Internal Error (" + e.getClass().getName()
                + " in the router)");
            return true;
        }
        decision = info;
        targeted = joined;
        return null != info && routedOut(tx, message, request, info);
    }

    /** The decision of the last {@link #route} (null: no application); shard thread, read right after it. */
    SipApplicationRouterInfo decision()
    {
        return decision;
    }

    /** The application session the last {@link #route} joins (§15.11.3), or null; read right after it. */
    SipApplicationSessionImpl targeted()
    {
        return targeted;
    }

    /** The Route parameter of a composition hop back into this container. */
    static final String COMPOSITION_PARAMETER = "sipline-ar";

    /**
     * JSR 289 §15.4: an initial request an application sends goes through the router again (its directive and state
     * info); when the router names a deployed application, the request is routed back to this container with a
     * Route that carries the decision ({@link #COMPOSITION_PARAMETER}), so that it reaches that application as an
     * initial request of its own.
     */
    void composeIfRouted(final SipServletRequestImpl request)
    {
        if (registry.isEmpty())
        {
            return;
        }
        final SipApplicationRouterInfo info;
        try
        {
            info = registry.router().getNextApplication(request, request.region(), request.directive(), null,
                request.stateInfo());
        }
        catch (final RuntimeException e)
        {
            ShardLog.logOnce("router-out:" + e.getClass().getName(),
                "the application router failed on an outgoing request", e);
            return;
        }
        if (null == info)
        {
            return;
        }
        final String[] external = externalRoutes(info);
        if (null != external)
        {
            pushRoutes(request, info, external);
            return;
        }
        if (null == registry.application(info.getNextApplicationName()))
        {
            return;
        }
        final String token = ids.newTag();
        if (composed.size() < 100_000)
        {
            composed.put(token, info);
            // to ourselves: UDP, or TCP if too large
            request.headers().addFirst("Route", routeBack(Transports.UDP, token));
        }
    }

    /**
     * JSR 289 §15.4.1, route modifiers {@code ROUTE} and {@code ROUTE_BACK} (the DAR's {@code ROUTE_FINAL} reaches
     * the container as {@code ROUTE}): the router's routes, when the first names another host (an external route:
     * the request leaves the container, and the application name is ignored); null for {@code NO_ROUTE}, no routes,
     * or a first route that names this container (an internal route: see {@link #routedOut}).
     */
    private String[] externalRoutes(final SipApplicationRouterInfo info)
    {
        final SipRouteModifier modifier = info.getRouteModifier();
        final String[] routes = info.getRoutes();
        if ((SipRouteModifier.ROUTE != modifier && SipRouteModifier.ROUTE_BACK != modifier) || null == routes
            || 0 == routes.length || null == routes[0]
            || ProxyRoutes.isOurs(HeaderText.uri(routes[0]), addresses.host(), addresses.ownPorts()))
        {
            return null;
        }
        return routes;
    }

    /**
     * Pushes the router's external routes on a request, the first on top. For {@code ROUTE_BACK}, first a route back
     * to this container (SipRouteModifier: "push a route back to itself before pushing the external routes"), whose
     * {@link #COMPOSITION_PARAMETER} names the router's decision, so the request comes back as an initial request
     * that continues application selection from the router's state info and region.
     */
    private void pushRoutes(final SipServletRequestImpl request, final SipApplicationRouterInfo info,
        final String[] routes)
    {
        if (SipRouteModifier.ROUTE_BACK == info.getRouteModifier() && composed.size() < 100_000)
        {
            final String token = ids.newTag();
            composed.put(token, info);
            request.headers().addFirst("Route", routeBack(Transports.UDP, token));
            request.routeBackToken(token); // fitted to the transport the request leaves on (fitRouteBack)
        }
        for (int i = routes.length - 1; i >= 0; i--)
        {
            final String route = routes[i].strip();
            request.headers().addFirst("Route", route.startsWith("<") ? route : "<" + route + ">");
        }
        ProxyRoutes.forStrictNextHop(request);
    }

    /**
     * Our route back for {@code ROUTE_BACK}, reachable on {@code transport} at our port for it (as our Contact and
     * Record-Route per transport, RFC 3261 §16.6 step 4 and RFC 5658 §4): {@code sip:host:port} for UDP,
     * {@code ;transport=tcp} for TCP, {@code sips:} for TLS, {@code ;transport=ws} for WS and WSS, then {@code lr}
     * and the decision's token.
     */
    private String routeBack(final int transport, final String token)
    {
        return Transports.uri(new StringBuilder(96).append('<'), transport, null, addresses.host(),
            addresses.ownPorts()[transport]).append(";lr;").append(COMPOSITION_PARAMETER).append('=').append(token)
            .append('>').toString();
    }

    /**
     * A request with our {@code ROUTE_BACK} route leaves on {@code transport}: the route names that transport, so
     * that the external hop (one that sends the request back the way it came, the usual case) returns it over a
     * transport we listen on for it; a TCP or TLS request's return is not forced onto UDP, where a large request
     * would not fit (RFC 3261 §18.1.1). Every other request: one field read.
     */
    void fitRouteBack(final SipServletRequestImpl request, final int transport)
    {
        final String token = request.routeBackToken();
        if (null == token)
        {
            return;
        }
        final MessageHeaders headers = request.headers();
        for (int i = headers.find(HeaderName.ROUTE, 0); i >= 0; i = headers.find(HeaderName.ROUTE, i + 1))
        {
            if (token.equals(HeaderText.routeUriParam(headers.value(i), COMPOSITION_PARAMETER)))
            {
                headers.setValue(i, routeBack(transport, token));
                return;
            }
        }
    }

    /**
     * JSR 289 §15.4.1 for a received initial request: with {@code ROUTE}/{@code ROUTE_BACK} and an external first
     * route, the container pushes the routes and sends the request out, invoking no application ({@link RoutedOut});
     * with an internal first route, that route becomes the request's popped route ({@code getPoppedRoute}) and the
     * named application is invoked.
     *
     * @return whether the request was taken care of here (sent out, or answered).
     */
    private boolean routedOut(final ServerTransaction tx, final SipMessage message,
        final SipServletRequestImpl request, final SipApplicationRouterInfo info)
    {
        final String[] routes = externalRoutes(info);
        if (null == routes)
        {
            final String[] all = info.getRoutes();
            if (SipRouteModifier.ROUTE == info.getRouteModifier() && null != all && all.length > 0 && null != all[0])
            {
                final String route = all[0].strip(); // a bare URI: its parameters are the URI's (lr, ...)
                request.poppedRoute(route.startsWith("<") ? route : "<" + route + ">");
            }
            return false;
        }
        if (0 == request.getMaxForwards())
        {
            answers.answer(tx, message, 483, "Too Many Hops"); // RFC 3261 §16.3 step 3
            return true;
        }
        final SipServletRequestImpl out = SipServletRequestImpl.forwardOf(request, request.requestUriText());
        pushRoutes(out, info, routes);
        final RoutedOut relay = new RoutedOut(request, out, tx);
        counters.routedOut.incrementAndGet();
        final NextHop.Hop hop = nextHop.of(NextHop.uriOf(out));
        if (null == hop)
        {
            relay.fail(shard, 503, "Service Unavailable (no route to " + NextHop.uriOf(out) + ")", ids.newTagOnShard());
            return true;
        }
        final int asked = Transports.asked(hop);
        if (Transports.UNSUPPORTED == asked || Transports.isWebSocket(asked))
        {
            // RFC 7118 §5: a WebSocket hop is a client's connection, never an external route's server
            relay.fail(shard, 503, "Service Unavailable (transport " + hop.transport() + " is not supported)",
                ids.newTagOnShard());
            return true;
        }
        if (null != hop.numeric())
        {
            // RFC 3263 §4.1: a numeric host without a transport parameter: UDP for sip, TLS for sips
            sendRoutedOut(relay, hop.numeric(), Transports.NONE == asked ? Transports.UDP : asked,
                Transports.NONE != asked);
            return true;
        }
        final String transport = Transports.NONE == asked || null == hop.transport() ? null : hop.transport();
        shard.locator().locate(hop.host(), hop.port(), transport, hop.sips(), targets ->
        {
            for (int i = 0; i < targets.size(); i++)
            {
                final int t = Transports.index(targets.get(i).transport());
                if (t >= 0 && addresses.listensOn(t))
                {
                    sendRoutedOut(relay, targets.get(i).address(), t, Transports.NONE != asked);
                    return;
                }
            }
            relay.fail(shard, 503, "Service Unavailable (RFC 3263: " + (targets.isEmpty() ? "no DNS record locates "
                + hop.host() : hop.host() + " is reached only over " + targets.getFirst().transport()
                + ", on which this container does not listen") + ")", ids.newTagOnShard());
        });
        return true;
    }

    /**
     * Sends the router's relay to {@code to} on the transport its top Route asked for, as {@link OutboundRequests} does
     * for a request of the container (RFC 3261 §18.1.1: the Via names the transport, and a UDP request over
     * {@link Transports#UDP_SIZE_LIMIT} bytes goes over TCP unless the URI named UDP); a transport this container does
     * not listen on gets the request a 503.
     */
    private void sendRoutedOut(final RoutedOut relay, final InetSocketAddress to, final int asked,
        final boolean explicit)
    {
        if (!addresses.listensOn(asked))
        {
            relay.fail(shard, 503, "Service Unavailable (" + Transports.NAMES[asked] + " is needed to reach "
                + NextHop.uriOf(relay.forwarded()) + " but this container does not listen on " + Transports.NAMES[asked]
                + ")", ids.newTagOnShard());
            return;
        }
        if (relay.isFinished())
        {
            return; // cancelled (and answered 487) while the next hop was being located
        }
        final String branch = ids.newBranch();
        final SipServletRequestImpl forwarded = relay.forwarded();
        final ByteBuf out = shard.allocate(MessageWriter.estimate(forwarded));
        final int transport = outbound.write(out, forwarded, asked, branch, explicit, false);
        if (!relay.send(shard, to, branch, transport, out))
        {
            relay.fail(shard, 503, "Service Unavailable (the request was refused by the transaction layer)",
                ids.newTagOnShard());
        }
    }

    /** The router decision a composition Route of ours carries; the Route is popped (JSR 289 §15.5). */
    private SipApplicationRouterInfo composedDecision(final SipServletRequestImpl request)
    {
        final String route = request.headers().get(HeaderName.ROUTE);
        final String token = io.sipline.container.api.HeaderText.routeUriParam(route, COMPOSITION_PARAMETER);
        if (null == token)
        {
            return null;
        }
        final SipApplicationRouterInfo info = composed.remove(token);
        if (null != info)
        {
            request.headers().removeAt(request.headers().find(HeaderName.ROUTE, 0));
            request.poppedRoute(route);
        }
        return info;
    }

    static URI subscriber(final String uri)
    {
        if (null == uri)
        {
            return null;
        }
        try
        {
            return SipAddresses.parseUri(uri);
        }
        catch (final ServletParseException e)
        {
            return null;
        }
    }

    /** The kind of the last targeting {@link #targetOf} found (shard thread; read right after it returns). */
    private SipTargetedRequestType targeting;

    private static final byte[] ENCODED_URI_BYTES = (";" + SessionTable.ENCODED_URI_PARAMETER + "=")
        .getBytes(StandardCharsets.US_ASCII);

    /**
     * Session targeting (JSR 289 §15.11.3) of an initial request: the application session its Request-URI names (an
     * encoded URI, §15.11.1, {@code SipApplicationSession.encodeURI}), else the one that owns the dialog its Join
     * (RFC 3911) or Replaces (RFC 3891) header names: Call-ID, {@code to-tag} our local tag, {@code from-tag} the
     * remote one (RFC 3891 §3). The stack hands such a request to the shard that holds the dialog or application
     * session (its ids name it, {@code ShardRouting.targetedShard}), so they are looked up on this shard. The kind of
     * targeting is kept on the request ({@link SipServletRequestImpl#targeting()}). Null when the request targets
     * nothing of ours that is still valid: it is then routed as any initial request. A request without those headers
     * or parameter is checked in place (no String is made).
     */
    private SipApplicationSessionImpl targetOf(final SipMessage message, final SipServletRequestImpl request)
    {
        final byte[] b = message.buffer();
        if (message.requestUriStart() >= 0
            && Ascii.indexOf(b, message.requestUriStart(), message.requestUriEnd(), ENCODED_URI_BYTES) >= 0)
        {
            final String uri = request.requestUriText();
            final int at = uri.indexOf(";" + SessionTable.ENCODED_URI_PARAMETER + "=");
            final int from = at + SessionTable.ENCODED_URI_PARAMETER.length() + 2;
            final String id = at < 0 ? null : uri.substring(from, HeaderText.firstOf(uri, from, ";?>"));
            final SipApplicationSessionImpl app = null == id ? null : sessions.application(id);
            if (null != app && app.isValid())
            {
                targeting = SipTargetedRequestType.ENCODED_URI;
                return app;
            }
        }
        int header = message.firstHeader(HeaderName.REPLACES);
        SipTargetedRequestType type = SipTargetedRequestType.REPLACES;
        if (header < 0)
        {
            header = message.firstHeader(HeaderName.JOIN);
            type = SipTargetedRequestType.JOIN;
        }
        if (header < 0)
        {
            return null;
        }
        final SipSessionImpl dialog = dialogNamedBy(request.getHeader(SipTargetedRequestType.JOIN == type ? "Join"
            : "Replaces"));
        if (null == dialog)
        {
            return null;
        }
        targeting = type;
        return dialog.appSession();
    }

    /** The valid session of the dialog a Join/Replaces value ({@code callid;to-tag=..;from-tag=..}) names, or null. */
    private SipSessionImpl dialogNamedBy(final String value)
    {
        if (null == value)
        {
            return null;
        }
        final int semicolon = value.indexOf(';');
        if (semicolon < 0)
        {
            return null;
        }
        final String callId = value.substring(0, semicolon).strip();
        final String params = "<x:x>" + value.substring(semicolon);
        final String toTag = HeaderText.param(params, "to-tag");
        final String fromTag = HeaderText.param(params, "from-tag");
        SipSessionImpl dialog = null == toTag ? null : sessions.dialog(callId, toTag);
        if (null != dialog && null != fromTag && !fromTag.equals(dialog.remoteTag()))
        {
            dialog = dialog.dialogFor(fromTag); // a derived session of a forked INVITE (JSR 289 §6.2.3.2)
        }
        return null != dialog && dialog.isValid() && dialog.appSession().isValid() ? dialog : null;
    }
}
