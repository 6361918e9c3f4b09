package io.sipline.container.dispatch;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import io.netty.buffer.ByteBuf;
import io.sipline.container.api.MessageWriter;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.proxy.ProxyBranchImpl;
import io.sipline.container.proxy.ProxyRelay;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transport.tcp.FlowTokens;
import io.sipline.sip.transport.tcp.TcpFlow;
import io.sipline.sip.transport.dns.SipTarget;

/**
 * The requests the container sends (RFC 3261 §8.1.2, §18.1.1; RFC 3263 §4): the next hop of each (the cluster's
 * front for an initial request of a node that has one), located by the shard's SipLocator when named by a host name,
 * the transport it leaves on, and our Via, Contact and Record-Route written for that transport; a WebSocket client is
 * reached only on its connection, found by its {@code .invalid} Contact host (RFC 7118 §5) or by the flow token of
 * the Route of ours the request was routed through (RFC 5626 §5.3); CANCEL (§9.1) and ACK retransmission; a request
 * that cannot be sent is answered by the container as if from the network (JSR 289 §11.1.4).
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard, created with it). A request is
 * borrowed; the buffer it is written into is allocated here and handed to the stack, which takes ownership.
 */
final class OutboundRequests
{
    private final StackShard shard;
    private final ShardAddresses addresses;
    private final ContainerIds ids;
    private final ServletInvoker invoker;
    private final NextHop nextHop;
    private final ApplicationRegistry registry;
    private ApplicationComposition composition;
    private InboundResponses responses;

    OutboundRequests(final StackShard shard, final ShardAddresses addresses, final ContainerIds ids,
        final ServletInvoker invoker, final NextHop nextHop, final ApplicationRegistry registry)
    {
        this.registry = registry;
        this.shard = shard;
        this.addresses = addresses;
        this.ids = ids;
        this.invoker = invoker;
        this.nextHop = nextHop;
    }

    /** Completes the wiring with the stages that call back into this one (once, before the shard starts). */
    void wire(final ApplicationComposition applicationComposition, final InboundResponses inboundResponses)
    {
        this.composition = applicationComposition;
        this.responses = inboundResponses;
    }

    void send(final SipServletRequestImpl request)
    {
        final String method = request.getMethod();
        if ("CANCEL".equals(method))
        {
            sendCancel(request);
            return;
        }
        if ("BYE".equals(method))
        {
            ackBeforeBye(request.sessionImpl());
        }
        if (request.isInitial() && !"ACK".equals(method))
        {
            composition.composeIfRouted(request);
            throughClusterFront(request);
        }
        if (sentOnRoutedFlow(request))
        {
            return;
        }
        final NextHop.Hop hop = nextHop.of(request);
        if (null == hop)
        {
            noRoute(request, "no route to " + request.requestUriText());
            return;
        }
        if (null != hop.host() && hop.host().regionMatches(true, hop.host().length() - 8, ".invalid", 0, 8))
        {
            sendToWebSocketClient(request, hop);
            return;
        }
        final int asked = Transports.asked(hop);
        if (Transports.isWebSocket(asked))
        {
            sendToWebSocketClient(request, hop); // never dialled (RFC 7118 §5): only a connection of the client's
            return;
        }
        if (Transports.UNSUPPORTED == asked)
        {
            noRoute(request, "transport " + hop.transport() + " is not supported");
            return;
        }
        if (null != hop.numeric())
        {
            // RFC 3263 §4.1: a numeric host without a transport parameter: UDP for sip, TLS (over TCP) for sips
            sendTo(request, hop.numeric(), Transports.NONE == asked ? Transports.UDP : asked, Transports.NONE != asked);
            return;
        }
        // RFC 3263 §4: a host name is located by the shard's SipLocator (NAPTR, SRV, A/AAAA, TTL-cached) on this
        // loop; the request leaves once it answers, to the first target on a transport this container listens on.
        final String transport = Transports.NONE == asked || null == hop.transport() ? null : hop.transport();
        try
        {
            shard.locator().locate(hop.host(), hop.port(), transport, hop.sips(), targets -> located(request, hop,
                targets, Transports.NONE != asked));
        }
        catch (final RuntimeException e)
        {
            ShardLog.logOnce("locate:" + e.getClass().getName(), "locating " + hop.host() + " failed", e);
            noRoute(request, "locating " + hop.host() + " failed: " + e.getClass().getSimpleName());
        }
    }

    /**
     * In a cluster with a front ({@code --cluster-front}): an initial request this node sends as a user agent, with no
     * Route of its own, gets a Route to the front (RFC 3261 §8.1.2, a pre-existing route set of the outbound proxy),
     * so that the front Record-Routes the dialog and the far end's in-dialog requests reach a live node even when
     * this one died. A proxy's branches are not routed so: the front already saw the request before this node.
     */
    private void throughClusterFront(final SipServletRequestImpl request)
    {
        final String front = registry.frontRoute();
        if (null != front && null == request.proxyBranch() && !request.isRelayed()
            && null == request.headers().get(HeaderName.ROUTE))
        {
            request.headers().add("Route", front);
        }
    }

    /**
     * RFC 7118 §5: a {@code .invalid} host is a WebSocket client's, reachable only on the connection it opened (which
     * the stack learned from its requests); the request goes on that flow. Without one it fails with 430 Flow Failed
     * (RFC 5626 §5.3), an ACK is dropped.
     */
    private void sendToWebSocketClient(final SipServletRequestImpl request, final NextHop.Hop hop)
    {
        final TcpFlow flow = null == hop.host() ? null : shard.webSocketFlow(hop.host());
        if (null != flow)
        {
            sendTo(request, flow, addresses.transportOf(flow), true);
            return;
        }
        flowFailed(request, 430, "Flow Failed");
    }

    /**
     * RFC 5626 §5.3: a request whose popped Route of ours carried a flow token (our Record-Route or Path for a
     * WebSocket client) goes out on the flow it names, with our Via, Contact and Record-Route for that flow's
     * transport; when the connection is gone it gets 430 Flow Failed, and 403 when the token is not one of ours
     * (forged or altered). A request that came on that very flow (the client's own, in its dialog) is routed as any.
     *
     * @return whether the request was taken care of here.
     */
    private boolean sentOnRoutedFlow(final SipServletRequestImpl request)
    {
        String token = request.flowToken();
        InetSocketAddress from = request.remoteAddress(); // a received request's source (its token's only reader)
        if (null == token && request.proxyBranch() instanceof ProxyBranchImpl branch)
        {
            token = branch.routedFlowToken();
            from = branch.upstream();
        }
        final FlowTokens tokens = null == token ? null : shard.flowTokens();
        if (null == tokens)
        {
            return false;
        }
        final TcpFlow flow = tokens.flowOf(token);
        if (null == flow)
        {
            if (tokens.isAuthentic(token))
            {
                flowFailed(request, 430, "Flow Failed");
            }
            else
            {
                flowFailed(request, 403, "Forbidden (RFC 5626: the flow token is not valid)");
            }
            return true;
        }
        if (from instanceof TcpFlow f && f.connection() == flow.connection())
        {
            return false; // the client's own request, on its flow: on to its Request-URI
        }
        sendTo(request, flow, addresses.transportOf(flow), true);
        return true;
    }

    /** A request for a flow that is gone or was never ours: an ACK is dropped (logged once), any other answered. */
    private void flowFailed(final SipServletRequestImpl request, final int status, final String reason)
    {
        if ("ACK".equals(request.getMethod()))
        {
            ShardLog.logOnce("ack-no-flow", "an ACK for a WebSocket client whose connection is gone; dropped", null);
            return;
        }
        if (!request.isRelayed())
        {
            request.sessionImpl().begin(request);
        }
        failRequest(request, status, reason);
    }

    /**
     * RFC 3261 §13.2.2.4: "The UAC core MUST generate an ACK request for each 2xx received from the transaction
     * layer." An application that ends with BYE a dialog whose 2xx it has not acknowledged gets the ACK sent first:
     * typically a B2BUA that relays a caller's BYE which overtook the caller's ACK (a caller sends the two back to
     * back, and UDP keeps no order between datagrams), so that its own ACK, relayed from the caller's, never comes.
     * Without it the callee retransmits its 2xx until 64*T1 (§13.3.1.4) and sees a BYE in a dialog it was never
     * told is confirmed. The ACK carries no body: a 2xx with an offer gets no answer, and the BYE ends that session
     * anyway.
     */
    private void ackBeforeBye(final SipSessionImpl session)
    {
        final SipServletResponseImpl ok = null == session ? null : session.unacknowledged2xx();
        if (null == ok)
        {
            return;
        }
        try
        {
            ok.createAck().send();
        }
        catch (final IOException | RuntimeException e)
        {
            ShardLog.logOnce("ack-before-bye", "acknowledging a 2xx before the application's BYE failed", e);
        }
    }

    /**
     * The SipLocator's answer for a request's next hop (on this shard's loop): sent to the first target whose
     * transport this container listens on (RFC 3263 §4.1: NAPTR/SRV order, or the URI's transport).
     *
     * @param explicit the URI asked for the transport (no switch to TCP for size then).
     */
    private void located(final SipServletRequestImpl request, final NextHop.Hop hop, final List<SipTarget> targets,
        final boolean explicit)
    {
        for (int i = 0; i < targets.size(); i++)
        {
            final SipTarget t = targets.get(i);
            final int transport = Transports.index(t.transport());
            if (transport >= 0 && addresses.listensOn(transport))
            {
                sendTo(request, t.address(), transport, explicit);
                return;
            }
        }
        // RFC 3263 §4.3 and RFC 3261 §8.1.3.1: no server could be located; the request fails as on a transport error
        noRoute(request, targets.isEmpty() ? "RFC 3263: no DNS record locates " + hop.host()
            : "RFC 3263: " + hop.host() + " is reached only over " + targets.getFirst().transport()
                + ", on which this container does not listen");
    }

    /** A request with nowhere to go: an ACK is dropped (logged once), any other request gets a 503 (§11.1.4). */
    private void noRoute(final SipServletRequestImpl request, final String why)
    {
        if ("ACK".equals(request.getMethod()))
        {
            ShardLog.logOnce("ack-no-route", "an ACK has no route (" + why + "); dropped", null);
            return;
        }
        if (!request.isRelayed()) // a relayed request is already the session's (its server transaction)
        {
            request.sessionImpl().begin(request);
        }
        failRequest(request, 503, "Service Unavailable (" + why + ")");
    }

    /**
     * Writes and sends a request to its resolved destination (a client transaction, or statelessly for ACK) on
     * {@code transport}: its Via names it, and the stack sends on it (StackShard: a TCP/TLS Via goes on the shard's
     * connection to the destination, reused or opened). RFC 3261 §18.1.1: a UDP request larger than
     * {@link Transports#UDP_SIZE_LIMIT} goes over TCP instead, unless the URI named UDP ({@code explicit}) or there is
     * no TCP. A transport this container does not listen on fails the request with a 503 (JSR 289: a request that
     * cannot be sent), the shard serving on.
     */
    private void sendTo(final SipServletRequestImpl request, final InetSocketAddress destination, final int asked,
        final boolean explicit)
    {
        if (!addresses.listensOn(asked))
        {
            noRoute(request, Transports.NAMES[asked] + " is needed to reach " + request.requestUriText()
                + " but this container does not listen on " + Transports.NAMES[asked]);
            return;
        }
        final SipSessionImpl session = request.sessionImpl();
        final String method = request.getMethod();
        request.destination(destination);
        request.branch(ids.origin(), ids.newBranchRandom());
        final ByteBuf out = shard.allocate(MessageWriter.estimate(request));
        final int transport = write(out, request, asked, explicit, true);
        if (request.isRelayed())
        {
            sendRelayed(request, out, destination); // a received request: getTransport() stays the one it came on
            return;
        }
        request.sentTransport(Transports.NAMES[transport]);
        request.addresses(destination, null);
        if ("ACK".equals(method))
        {
            shard.sendStateless(out, destination);
            return;
        }
        session.register();
        session.begin(request);
        final ClientTransaction tx = shard.sendRequest(out, destination);
        if (null == tx)
        {
            failRequest(request, 503, "Service Unavailable (the request was refused by the transaction layer)");
            return;
        }
        tx.attachment(request);
        request.transaction(tx);
        invoker.afterSend(session);
    }

    /**
     * A proxy branch's request with our Record-Route (RFC 3261 §16.6 step 4): its entries are fitted to the transport
     * the proxied request came on and the one this request leaves on (RFC 5658 §4: two entries when they differ, the
     * outgoing side's on top; one with that transport's URI when they are the same), each with our listening port
     * for its transport. UDP on both sides changes nothing.
     */
    private void fitRecordRoute(final SipServletRequestImpl request, final int out)
    {
        if (request.proxyBranch() instanceof ProxyBranchImpl branch)
        {
            final InetSocketAddress upstream = branch.upstream();
            final int in = addresses.transportOf(upstream);
            final int[] ports = addresses.ownPorts();
            branch.fitRecordRoute(Transports.NAMES[in], ports[in], Transports.NAMES[out], ports[out],
                flowToken(request.destination(), upstream));
        }
    }

    /**
     * RFC 5626 §5.3: the flow token of the WebSocket client on either side of a proxy branch (the one it goes to
     * first), for our Record-Route and Path; null when neither side is a WebSocket client's connection.
     */
    private String flowToken(final InetSocketAddress downstream, final InetSocketAddress upstream)
    {
        final TcpFlow flow = downstream instanceof TcpFlow d && d.isWebSocket() ? d
            : upstream instanceof TcpFlow u && u.isWebSocket() ? u : null;
        final FlowTokens tokens = null == flow ? null : shard.flowTokens();
        return null == tokens ? null : tokens.tokenOf(flow);
    }

    /**
     * A received request a proxy forwards as it is ({@link ProxyRelay}): on a client transaction that carries the
     * relay, while the request keeps its server transaction and its addresses for the responses going back.
     */
    private void sendRelayed(final SipServletRequestImpl request, final ByteBuf out,
        final InetSocketAddress destination)
    {
        final ClientTransaction tx = shard.sendRequest(out, destination);
        if (null == tx)
        {
            failRequest(request, 503, "Service Unavailable (the request was refused by the transaction layer)");
            return;
        }
        tx.attachment(new ProxyRelay(request, tx));
    }

    /**
     * Writes a request for {@code asked} with our Via, its entries of ours fitted to that transport first (the
     * {@code ROUTE_BACK} route always; with {@code ownEntries}, a request the container sends as a UA or proxy branch,
     * also its Contact and Record-Route); a UDP request over {@link Transports#UDP_SIZE_LIMIT} goes over TCP instead,
     * unless the URI named UDP ({@code explicit}) or there is no TCP (RFC 3261 §18.1.1: the top Via and our entries
     * change with the transport).
     *
     * @return the transport written for.
     */
    int write(final ByteBuf out, final SipServletRequestImpl request, final int asked, final String branch,
        final boolean explicit, final boolean ownEntries)
    {
        int transport = asked;
        fitTo(request, transport, ownEntries);
        MessageWriter.writeRequest(out, request, via(transport, request, branch));
        if (Transports.UDP == transport && !explicit && out.readableBytes() > Transports.UDP_SIZE_LIMIT
            && addresses.listensOn(Transports.TCP))
        {
            transport = Transports.TCP;
            fitTo(request, transport, ownEntries);
            out.clear();
            MessageWriter.writeRequest(out, request, via(transport, request, branch));
        }
        return transport;
    }

    /** {@link #write(ByteBuf, SipServletRequestImpl, int, String, boolean, boolean)} with the request's branch. */
    int write(final ByteBuf out, final SipServletRequestImpl request, final int asked, final boolean explicit,
        final boolean ownEntries)
    {
        return write(out, request, asked, null, explicit, ownEntries);
    }

    /** Our Via with {@code branch}, or with the request's own branch when null (written in place, no String). */
    private CharSequence via(final int transport, final SipServletRequestImpl request, final String branch)
    {
        return null == branch ? addresses.via(transport, request) : addresses.via(transport, branch);
    }

    private void fitTo(final SipServletRequestImpl request, final int transport, final boolean ownEntries)
    {
        if (ownEntries)
        {
            addresses.ownContact(request, transport);
            fitRecordRoute(request, transport);
        }
        composition.fitRouteBack(request, transport);
    }

    /** RFC 3261 §9.1: a CANCEL goes after a provisional response, with the INVITE's branch, to its destination. */
    private void sendCancel(final SipServletRequestImpl cancel)
    {
        final SipServletRequestImpl invite = cancel.cancelled();
        if (null != invite.finalResponse())
        {
            return; // too late: the INVITE completed
        }
        if (!invite.provisionalReceived())
        {
            invite.pendingCancel(cancel);
            return;
        }
        // RFC 3261 §9.1: the CANCEL's Via is the INVITE's top Via, transport included, and it goes where it went
        final int transport = Math.max(Transports.UDP, Transports.index(invite.sentTransport()));
        final ByteBuf out = shard.allocate(MessageWriter.estimate(cancel));
        MessageWriter.writeRequest(out, cancel, addresses.via(transport, invite));
        cancel.sentTransport(Transports.NAMES[transport]);
        cancel.addresses(invite.destination(), null);
        final ClientTransaction tx = shard.sendRequest(out, invite.destination());
        if (null != tx)
        {
            tx.attachment(cancel);
            cancel.transaction(tx);
        }
    }

    void sendPendingCancel(final SipServletRequestImpl invite)
    {
        final SipServletRequestImpl cancel = invite.pendingCancel();
        if (null != cancel && invite.provisionalReceived())
        {
            invite.pendingCancel(null);
            sendCancel(cancel);
        }
    }

    /** Sends again the ACK of a 2xx that came again, when one was sent (RFC 3261 §13.2.2.4). */
    void resendAck(final SipServletRequestImpl ack)
    {
        if (null == ack || null == ack.destination())
        {
            return;
        }
        final ByteBuf out = shard.allocate(MessageWriter.estimate(ack));
        // the ACK again as it went: its Via names the transport it was sent on (RFC 3261 §18.1.1)
        final int transport = Math.max(Transports.UDP, Transports.index(ack.sentTransport()));
        MessageWriter.writeRequest(out, ack, addresses.via(transport, ack));
        shard.sendStateless(out, ack.destination());
    }

    /** A request that could not be sent gets a response from the container, as if from the network (§11.1.4). */
    void failRequest(final SipServletRequestImpl request, final int status, final String reason)
    {
        final SipMessage m = synthesize(request, status, reason);
        if (null == m)
        {
            return;
        }
        responses.deliverResponse(request, SipServletResponseImpl.received(m, request, null, null));
    }

    private SipMessage synthesize(final SipServletRequestImpl request, final int status, final String reason)
    {
        final StringBuilder sb = new StringBuilder(256).append("SIP/2.0 ").append(status).append(' ')
            .append(reason).append("\r\nVia: ")
            .append(addresses.via(Transports.UDP, null == request.branch() ? "z9hG4bK0" : request.branch()))
            .append("\r\n");
        for (final String name : new String[] {"From", "To", "Call-ID", "CSeq"})
        {
            sb.append(name).append(": ").append(request.getHeader(name)).append("\r\n");
        }
        sb.append("Content-Length: 0\r\n\r\n");
        final byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        final SipMessage m = new SipMessage();
        return SipMessageParser.parseDatagram(bytes, 0, bytes.length, m) == ParseResult.OK ? m : null;
    }
}
