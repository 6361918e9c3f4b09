package io.sipline.container.dispatch;

import java.net.InetSocketAddress;
import javax.servlet.sip.Proxy;
import io.sipline.container.api.HeaderText;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.proxy.ProxyImpl;
import io.sipline.container.proxy.ProxyRelay;
import io.sipline.container.proxy.ProxyRoutes;
import io.sipline.container.api.SessionTable;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.transaction.ServerTransaction;

/**
 * The container side of {@link Proxy} (JSR 289 §10): the proxy of a received request, and the subsequent requests and
 * ACKs of a dialog this container record-routed as a proxy (RFC 3261 §16.4, §16.11), which go to the servlet and then
 * on to their Request-URI.
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard, created with it). The stack's
 * message is borrowed; a forwarded ACK is the received request itself, handed to {@link OutboundRequests}.
 */
final class ProxyDispatch
{
    private final ContainerShardImpl container;
    private final ShardAddresses addresses;
    private final SessionTable sessions;
    private final ServletInvoker invoker;
    private final OutboundRequests outbound;

    ProxyDispatch(final ContainerShardImpl container, final ShardAddresses addresses, final ServletInvoker invoker,
        final OutboundRequests outbound)
    {
        this.container = container;
        this.addresses = addresses;
        this.sessions = container.sessions();
        this.invoker = invoker;
        this.outbound = outbound;
    }

    Proxy proxyFor(final SipServletRequestImpl request)
    {
        return request.isRelayed() ? ProxyImpl.relayed(request, container)
            : new ProxyImpl(request, container, !request.isInitial());
    }

    /**
     * Where the key of a record-routing proxy session of ours is in a subsequent request: the value of the
     * {@value ProxyRoutes#ROUTE_PARAMETER} URI parameter in its top Route, or in its Request-URI when a strict router
     * before us put our Record-Route there (RFC 3261 §16.4). Read in place, so no String is made for any request.
     *
     * @return the key's start and end in the message's buffer, packed as {@code start << 32 | end}, or -1.
     */
    static long proxyKeySpan(final SipMessage message)
    {
        final int route = message.firstHeader(HeaderName.ROUTE);
        final long inRoute = route < 0 ? -1
            : ProxyRoutes.keySpan(message.buffer(), message.headerValueStart(route), message.headerValueEnd(route));
        return inRoute >= 0 ? inRoute
            : ProxyRoutes.keySpan(message.buffer(), message.requestUriStart(), message.requestUriEnd());
    }

    /**
     * A request in a dialog this container record-routed as a proxy (JSR 289 §10.2.2; RFC 3261 §16.4): our Route
     * popped, the servlet sees it ({@code isInitial()} false), then the container proxies it to its Request-URI
     * unless the servlet answered it.
     *
     * @return false when the key names no live session of ours (the request is then handled as any other).
     */
    boolean proxySubsequent(final ServerTransaction tx, final SipMessage message, final long key)
    {
        final SipServletRequestImpl request = inProxiedDialog(message, key, tx, tx.peer());
        if (null == request)
        {
            return false;
        }
        tx.attachment(request);
        request.sessionImpl().begin(request);
        invoker.invoke(request.sessionImpl(), request, null, () -> proxyOnward(request));
        return true;
    }

    /**
     * A request of a dialog this container record-routed as a proxy, in the session the key names, with the
     * Request-URI a strict router replaced restored and our Route popped (RFC 3261 §16.4); null when the key names no
     * live proxy session of ours.
     */
    private SipServletRequestImpl inProxiedDialog(final SipMessage message, final long key,
        final ServerTransaction tx, final InetSocketAddress remote)
    {
        final SipSessionImpl session = sessions.dialog(message, (int)(key >>> 32), (int)key);
        if (null == session || !session.isValid() || null == session.proxy())
        {
            return null;
        }
        final SipServletRequestImpl request = SipServletRequestImpl.received(message, tx, remote, addresses.local());
        request.session(session);
        final boolean restored = ProxyRoutes.restoreRequestUri(request);
        final int route = message.firstHeader(HeaderName.ROUTE);
        if (!restored && route >= 0 && (int)(key >>> 32) >= message.headerValueStart(route)
            && (int)key <= message.headerValueEnd(route))
        {
            // RFC 5626 §5.3: our entry toward a WebSocket client names its flow
            final String token = addresses.topRouteFlowToken(message);
            ProxyRoutes.popKeyedRoute(request); // the key was in the top Route: it is ours, nothing to parse
            if (null != token)
            {
                request.flowToken(token);
            }
        }
        else
        {
            final String token = addresses.topRouteFlowToken(message);
            if (null != ProxyRoutes.popOwnRoute(request, addresses.host(), addresses.ownPorts()) && null != token)
            {
                request.flowToken(token);
            }
        }
        return request;
    }

    /** After the servlet saw a subsequent request of a proxied dialog: on to its Request-URI (unless answered). */
    private void proxyOnward(final SipServletRequestImpl request)
    {
        if (null != request.finalResponse() || null == request.transaction())
        {
            return;
        }
        if (0 == request.getMaxForwards())
        {
            DirectAnswers.sendQuietly(request, 483, "Too Many Hops");
            return;
        }
        if (ProxyRelay.applies(request))
        {
            ProxyRelay.start(container, request); // the received request itself, no proxy object (JSR 289 allows it)
            return;
        }
        ProxyImpl proxy = request.proxy() instanceof ProxyImpl p ? p : null;
        if (null == proxy)
        {
            proxy = new ProxyImpl(request, container, true);
            request.proxy(proxy);
        }
        if (proxy.isStarted())
        {
            return;
        }
        try
        {
            proxy.proxyTo(request.getRequestURI());
        }
        catch (final RuntimeException e)
        {
            DirectAnswers.sendQuietly(request, 400, "Bad Request (" + e.getMessage() + ")");
        }
    }

    /** The ACK of a 2xx in a dialog this container record-routed as a proxy: to the servlet, then on statelessly. */
    boolean proxyAck(final SipMessage message, final long key, final InetSocketAddress source)
    {
        final SipServletRequestImpl ack = inProxiedDialog(message, key, null, source);
        if (null == ack)
        {
            return false;
        }
        final SipSessionImpl session = ack.sessionImpl();
        ack.principal(session.initialPrincipal()); // the ACK has its INVITE's user (never challenged)
        invoker.invoke(session, ack, null, () ->
        {
            final int maxForwards = ack.getMaxForwards();
            if (0 != maxForwards)
            {
                // RFC 3261 §16.11: the ACK of a 2xx goes on without a transaction, and nothing else is done with
                // it, so the received request itself is forwarded (with what the servlet changed), not a copy:
                // Max-Forwards decremented (§16.6 step 3), our Route already popped, our Via added when written
                ack.headers().set("Max-Forwards", HeaderText.decimal(maxForwards < 0 ? 70 : maxForwards - 1));
                ProxyRoutes.forStrictNextHop(ack);
                ack.markCommitted();
                outbound.send(ack);
            }
        });
        return true;
    }
}
