package io.sipline.container.proxy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import javax.servlet.sip.ProxyBranch;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.URI;

import io.sipline.container.address.SipAddresses;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.api.ContainerShard;
import io.sipline.container.api.SessionProxy;
import io.sipline.container.api.SipSessionImpl;

/**
 * The proxy of one received request (JSR 289 §10, RFC 3261 §16): its branches, forked in parallel or one after the
 * other, and the response context from which it forwards the best final response upstream.
 * <pre>
 *   proxyTo / startProxy      branches sent (our Via with the loop hash, Max-Forwards - 1, Record-Route, Path)
 *   1xx on a branch           supervised: doProvisionalResponse; forwarded upstream (not 100: hop by hop)
 *   2xx on a branch           supervised: doSuccessResponse; forwarded at once, every one (forks too); the other
 *                             branches are cancelled (unless noCancel)
 *   3xx, recurse              the Contacts become new branches (recursed branches); the 3xx is then not kept
 *   other finals              kept in the response context; a 6xx cancels the others and ends the search;
 *                             supervised: doBranchResponse while other branches are still going
 *   all branches complete     the best response (§16.7 step 6), supervised: doResponse first, where the application
 *                             may proxy again; else forwarded, with every 401/407 challenge (step 7); 503 as 500
 *   timeout of a branch       with a provisional: CANCEL; without: the branch ends without a response (408 when
 *                             nothing better comes); a sequential search goes to the next branch at once
 *   CANCEL from upstream      every pending branch cancelled, no new branch; their 487 is what goes upstream
 * </pre>
 * Its branches are kept by {@link ProxyBranches}. A subsequent request in a dialog this proxy record-routed gets a
 * proxy of its own ({@link #isSubsequent()}), which the container sends on unless the servlet answered it. Threading:
 * the shard of the request's application session; a call from an application's own thread is handed to the shard.
 */
public final class ProxyImpl implements SessionProxy
{
    /** Proxy and sequential-search timeout when the application sets none, seconds (RFC 3261 timer C > 3 min). */
    public static final int DEFAULT_TIMEOUT_SECONDS = 180;

    private final SipServletRequestImpl original;
    private final SipSessionImpl session;
    private final ContainerShard host;
    private final boolean subsequent;
    /** The suffix of our Via branches (RFC 3261 §16.6 step 8) for the request as received: a dot and its hash. */
    private final String branchSuffix;
    private final ProxyBranches branches = new ProxyBranches();
    private final ResponseContext context = new ResponseContext();

    private boolean parallel = true;
    private boolean recurse = true;
    private boolean recordRoute;
    private boolean supervised = true;
    private boolean addToPath;
    private boolean noCancel;
    private int proxyTimeout = DEFAULT_TIMEOUT_SECONDS;
    private int sequentialSearchTimeout = DEFAULT_TIMEOUT_SECONDS;
    private SipURI recordRouteUri;
    private SipURI pathUri;

    private boolean started;
    private boolean cancelled;
    /** A 6xx arrived: no new branches (§16.7 step 5). */
    private boolean global;
    /** A best final response went upstream. */
    private boolean finished;
    private boolean forwarded2xx;
    /** The best response is with the servlet (doResponse). */
    private boolean deciding;
    /** The request is forwarded as it is by {@link ProxyRelay}; this proxy only describes it. */
    private boolean relay;

    /**
     * @param subsequent a request in a dialog this container record-routed as a proxy.
     */
    public ProxyImpl(final SipServletRequestImpl original, final ContainerShard host, final boolean subsequent)
    {
        this.original = original;
        this.session = original.sessionImpl();
        this.host = host;
        this.subsequent = subsequent;
        this.branchSuffix = LoopDetection.branchSuffix(original);
        if (!subsequent)
        {
            session.proxy(this);
        }
        else if (null != session.proxy())
        {
            supervised = session.proxy().getSupervised();
        }
    }

    /**
     * The proxy of a subsequent request the container already forwards as it is ({@link ProxyRelay}), made when the
     * application asks for it: started, with one branch that is the request itself; no other branch can be added.
     */
    public static ProxyImpl relayed(final SipServletRequestImpl request, final ContainerShard host)
    {
        final ProxyImpl p = new ProxyImpl(request, host, true);
        p.relay = true;
        p.started = true;
        final ProxyBranchImpl branch = new ProxyBranchImpl(p, request);
        p.branches.add(branch);
        p.finished = null != request.finalResponse();
        return p;
    }

    // ================================================================================================================
    // Container view
    // ================================================================================================================

    /** A response the relay of this proxy's request forwards: recorded on its branch, marked as proxied. */
    void onRelayed(final SipServletResponseImpl response)
    {
        final ProxyBranchImpl branch = branches.get(0);
        branch.onRelayed(response);
        response.proxied(this, branch, false);
        if (response.getStatus() >= 200)
        {
            finished = true;
        }
    }

    SipSessionImpl session()
    {
        return session;
    }

    ContainerShard host()
    {
        return host;
    }

    /** What our Via branches end with: a dot and the loop-detection hash of the request as received. */
    String branchSuffix()
    {
        return branchSuffix;
    }

    SipServletRequestImpl original()
    {
        return original;
    }

    public boolean isSubsequent()
    {
        return subsequent;
    }

    /** Whether a branch was sent (a CANCEL from upstream is then the proxy's to pass on). */
    public boolean isStarted()
    {
        return started;
    }

    /** Whether a final response went upstream (2xx or best). */
    public boolean isFinished()
    {
        return finished || forwarded2xx;
    }

    /** The Record-Route value this proxy writes: our URI with the application's parameters and the session key. */
    String recordRouteValue()
    {
        return recordRouteValue("UDP", host.localPort(), null);
    }

    /**
     * Our Record-Route value for one side of the proxy, reachable on {@code transport} ("UDP", "TCP", "TLS", "WS" or
     * "WSS") at our {@code port} for it (RFC 3261 §16.6 step 4: the URI must reach this proxy the way the peer on
     * that side sends; RFC 5658 §4 when the two sides differ): {@code sip:host:port} for UDP, {@code ;transport=tcp}
     * for TCP, {@code sips:} for TLS, {@code ;transport=ws} for WS and WSS (RFC 7118 §5.2; as our Contact per
     * transport), then {@code lr}, the application's parameters and the session key. With a {@code flowToken} (a
     * WebSocket client on one side, RFC 5626 §5.3) the token is the URI's user part and {@code ob} is added, so that
     * a request routed through this entry goes out on the client's connection.
     */
    String recordRouteValue(final String transport, final int port, final String flowToken)
    {
        String key = session.proxyRouteKey();
        if (null == key)
        {
            key = host.newTag();
            session.registerProxyRoute(key);
        }
        final boolean tls = "TLS".equals(transport);
        final boolean tcp = "TCP".equals(transport);
        final boolean ws = "WS".equals(transport) || "WSS".equals(transport);
        if (null == recordRouteUri)
        {
            // the application never touched the URI: no parameters of its own, so no URI object is made
            final StringBuilder b = new StringBuilder(96 + key.length()).append(tls ? "<sips:" : "<sip:");
            if (null != flowToken)
            {
                b.append(flowToken).append('@');
            }
            b.append(host.localHost()).append(':').append(port);
            if (tcp || ws)
            {
                b.append(tcp ? ";transport=tcp" : ";transport=ws");
            }
            b.append(";lr");
            if (null != flowToken)
            {
                b.append(";ob");
            }
            return b.append(';').append(ProxyRoutes.ROUTE_PARAMETER).append('=').append(key).append('>').toString();
        }
        final SipURI uri = (SipURI)recordRouteUri.clone();
        uri.setPort(port);
        if (tls)
        {
            uri.setSecure(true);
        }
        if (tcp || ws)
        {
            uri.setTransportParam(tcp ? "tcp" : "ws");
        }
        if (null != flowToken)
        {
            uri.setUser(flowToken);
            uri.setParameter("ob", "");
        }
        uri.setParameter(ProxyRoutes.ROUTE_PARAMETER, key);
        return "<" + uri + ">";
    }

    /**
     * Our Path value for a REGISTER from a WebSocket client (RFC 5626 §5.1): the flow token as the user part and
     * {@code ob}, reachable from the registrar's side on {@code transport} at {@code port}, so that a request the
     * registrar routes through it goes out on the client's connection.
     */
    String pathValue(final String transport, final int port, final String flowToken)
    {
        final StringBuilder b = new StringBuilder(96).append("TLS".equals(transport) ? "<sips:" : "<sip:")
            .append(flowToken).append('@').append(host.localHost()).append(':').append(port);
        if ("TCP".equals(transport))
        {
            b.append(";transport=tcp");
        }
        else if ("WS".equals(transport) || "WSS".equals(transport))
        {
            b.append(";transport=ws");
        }
        return b.append(";lr;ob>").toString();
    }

    /** The Path value this proxy pushes on a REGISTER (RFC 3327). */
    String pathValue()
    {
        return "<" + getPathURI() + ">";
    }

    /** The timeout of a branch that sets none of its own, seconds. */
    int branchTimeout()
    {
        return parallel ? proxyTimeout : sequentialSearchTimeout;
    }

    /** An upstream CANCEL (RFC 3261 §16.10): pending branches cancelled, none started any more. */
    public void cancelFromUpstream()
    {
        if (isFinished())
        {
            return;
        }
        cancelled = true;
        branches.clearWaiting();
        branches.cancelPending(null, null);
        checkDone();
    }

    // ================================================================================================================
    // Branch events (from ProxyBranchImpl)
    // ================================================================================================================

    /** A provisional response (101-199) on a branch. */
    void onProvisional(final ProxyBranchImpl branch, final SipServletResponseImpl response)
    {
        if (isFinished())
        {
            return;
        }
        response.proxied(this, branch, false);
        if (supervised)
        {
            response.openForUpstream();
            host.deliver(session, null, response, () -> forward(response));
        }
        else
        {
            forward(response);
        }
    }

    private void forward(final SipServletResponseImpl response)
    {
        response.markCommitted();
        if (!isFinished())
        {
            sendUpstream(SipServletResponseImpl.forwardOf(original, response, response.getStatus()));
        }
    }

    private void forward2xx(final SipServletResponseImpl response)
    {
        response.markCommitted();
        sendUpstream(SipServletResponseImpl.forwardOf(original, response, response.getStatus()));
    }

    /**
     * A final response on a branch; {@code late} when the branch had already ended (a 2xx retransmission, or a
     * response after the branch timed out).
     */
    void onFinal(final ProxyBranchImpl branch, final SipServletResponseImpl response, final boolean late)
    {
        final int status = response.getStatus();
        if (status < 300)
        {
            response.proxied(this, branch, false);
            if (!forwarded2xx && !noCancel)
            {
                branches.clearWaiting();
                branches.cancelPending(branch, "SIP;cause=200;text=\"Call completed elsewhere\"");
            }
            forwarded2xx = true;
            if (supervised && !late)
            {
                response.openForUpstream();
                host.deliver(session, null, response, () -> forward2xx(response));
            }
            else
            {
                forward2xx(response); // RFC 6026 §8.4 / RFC 3261 §16.7 step 5: every 2xx goes upstream
            }
            return;
        }
        if (late || isFinished())
        {
            return; // after a final response only 2xx go on (§16.7 step 5)
        }
        boolean keep = true;
        if (status < 400 && branch.getRecurse() && !cancelled && !global)
        {
            keep = !recurseOn(branch, response);
        }
        if (keep)
        {
            context.add(response);
        }
        if (status >= 600)
        {
            global = true;
            branches.clearWaiting();
            if (!noCancel)
            {
                branches.cancelPending(branch, null);
            }
        }
        if (supervised && keep && (branches.inFlight(false) || branches.hasWaiting()))
        {
            response.proxied(this, branch, true); // doBranchResponse: an intermediate final response
            host.deliver(session, null, response, this::advance);
        }
        else
        {
            advance();
        }
    }

    /** A branch ended without a response: its timer fired before any provisional response. */
    void onBranchTimeout(final ProxyBranchImpl branch)
    {
        advance();
    }

    /** The branch's timer fired after a provisional response: the branch is cancelled and the search goes on. */
    void onBranchCancelledByTimeout(final ProxyBranchImpl branch)
    {
        if (!parallel)
        {
            startNextIfIdle();
        }
    }

    /**
     * §16.7 step 4 and JSR 289 recursion: the 3xx's Contacts that are SIP URIs and not yet targets become branches
     * of {@code branch}.
     *
     * @return whether every Contact was recursed on (the 3xx is then not kept).
     */
    private boolean recurseOn(final ProxyBranchImpl branch, final SipServletResponseImpl response)
    {
        final List<String> contacts = response.headers().getAll("Contact");
        final List<ProxyBranchImpl> made = new ArrayList<>(contacts.size());
        int usable = 0;
        for (final String contact : contacts)
        {
            final URI uri;
            try
            {
                uri = SipAddresses.parseAddress(contact).getURI();
            }
            catch (final ServletParseException | IllegalArgumentException e)
            {
                continue;
            }
            if (!uri.isSipURI())
            {
                continue;
            }
            usable++;
            if (null == branches.branchFor(uri))
            {
                final ProxyBranchImpl child = new ProxyBranchImpl(this, uri, branch);
                branches.addRecursed(child);
                made.add(child);
            }
        }
        if (made.isEmpty())
        {
            return usable > 0 && usable == contacts.size();
        }
        branch.recursed(made);
        if (parallel)
        {
            for (final ProxyBranchImpl b : made)
            {
                b.start();
            }
        }
        else
        {
            for (int i = made.size() - 1; i >= 0; i--)
            {
                branches.queueFirst(made.get(i));
            }
        }
        return usable == contacts.size();
    }

    /** After a branch completed: the next branch of a sequential search, then the end of the search if it came. */
    private void advance()
    {
        if (!parallel)
        {
            startNextIfIdle();
        }
        checkDone();
    }

    private void startNextIfIdle()
    {
        while (branches.hasWaiting() && !branches.inFlight(true) && !cancelled && !global && !isFinished())
        {
            branches.nextWaiting().start();
        }
    }

    /** §16.7 step 6, when every branch completed: the best response upstream (supervised: doResponse first). */
    private void checkDone()
    {
        if (isFinished() || deciding || branches.inFlight(false) || branches.hasWaiting())
        {
            return;
        }
        final SipServletResponseImpl best = context.best();
        if (null == best)
        {
            finished = true;
            final SipServletResponseImpl timeout = (SipServletResponseImpl)original.createResponse(408);
            sendUpstream(timeout);
            return;
        }
        if (!supervised)
        {
            forwardBest(best);
            return;
        }
        best.proxied(this, best.getProxyBranch(), false);
        best.openForUpstream();
        final int kept = context.responses().size();
        deciding = true;
        host.deliver(session, null, best, () ->
        {
            deciding = false;
            if (isFinished() || branches.inFlight(false) || branches.hasWaiting())
            {
                return; // the application proxied again in doResponse, or a 2xx came meanwhile
            }
            if (context.responses().size() != kept)
            {
                checkDone(); // new branches ended during doResponse: choose again
                return;
            }
            forwardBest(best);
        });
    }

    private void forwardBest(final SipServletResponseImpl best)
    {
        finished = true;
        best.markCommitted();
        final int status = ResponseContext.upstreamStatus(best.getStatus());
        final List<String[]> challenges = 401 == status || 407 == status ? context.otherChallenges(best) : List.of();
        final SipServletResponseImpl out = challenges.isEmpty()
            ? SipServletResponseImpl.forwardOf(original, best, status)
            : SipServletResponseImpl.editableForwardOf(original, best, status);
        for (final String[] challenge : challenges)
        {
            out.headers().add(challenge[0], challenge[1]);
        }
        sendUpstream(out);
    }

    private void sendUpstream(final SipServletResponseImpl out)
    {
        if (out.getStatus() >= 200 && null == original.finalResponse())
        {
            original.finalResponse(out);
        }
        out.markCommitted();
        host.send(out);
    }

    private void checkCanBranch()
    {
        if (relay)
        {
            throw new IllegalStateException("the container already proxies this subsequent request on its route");
        }
        if (cancelled)
        {
            throw new IllegalStateException("the proxy was cancelled");
        }
        if (isFinished())
        {
            throw new IllegalStateException("the proxy already sent a final response upstream");
        }
        if (global)
        {
            throw new IllegalStateException("a 6xx ended the search (RFC 3261 §16.7 step 5)");
        }
        if (null != original.finalResponse())
        {
            throw new IllegalStateException("the request was already answered");
        }
    }

    /**
     * Adds a branch for each target not tried yet (indexed loops: no iterator, no list of its own).
     *
     * @return where the new branches begin among the application's branches.
     */
    private int make(final List<? extends URI> targets)
    {
        if (null == targets)
        {
            throw new NullPointerException("targets");
        }
        final int n = targets.size();
        for (int i = 0; i < n; i++)
        {
            final URI uri = targets.get(i);
            if (null == uri || !uri.isSipURI())
            {
                throw new IllegalArgumentException("a proxy target must be a sip or sips URI: " + uri);
            }
        }
        final int from = branches.size();
        for (int i = 0; i < n; i++)
        {
            final URI uri = targets.get(i);
            if (null != branches.branchFor(uri))
            {
                continue; // a target is tried once (RFC 3261 §16.5)
            }
            branches.add(new ProxyBranchImpl(this, uri, null));
        }
        return from;
    }

    /** Starts the application's branches from index {@code from} that are not started yet. */
    private void start(final int from)
    {
        started = true;
        final int n = branches.size();
        if (parallel)
        {
            for (int i = from; i < n; i++)
            {
                final ProxyBranchImpl b = branches.get(i);
                if (!b.isStarted())
                {
                    b.start();
                }
            }
        }
        else
        {
            for (int i = from; i < n; i++)
            {
                final ProxyBranchImpl b = branches.get(i);
                if (!b.isStarted())
                {
                    branches.queue(b);
                }
            }
            startNextIfIdle();
        }
        checkDone(); // nothing to try (every target a duplicate): the search ends now
    }

    /** Runs {@code action} on the proxy's shard: at once when there, else as a task (an application thread). */
    void onShard(final Runnable action)
    {
        if (host.onShardThread())
        {
            action.run();
        }
        else
        {
            host.execute(action);
        }
    }

    // ================================================================================================================
    // Proxy
    // ================================================================================================================

    @Override
    public void cancel()
    {
        cancel(null, null, null);
    }

    /** JSR 289 §10.2.5: cancels the pending branches, with RFC 3326 Reason headers when given. */
    @Override
    public void cancel(final String[] protocol, final int[] reasonCode, final String[] reasonText)
    {
        if (isFinished())
        {
            throw new IllegalStateException("the proxy already sent a final response upstream");
        }
        final String reason = ProxyBranchImpl.reason(protocol, reasonCode, reasonText);
        onShard(() ->
        {
            cancelled = true;
            branches.clearWaiting();
            branches.cancelPending(null, reason);
            checkDone();
        });
    }

    @Override
    public List<ProxyBranch> createProxyBranches(final List<? extends URI> targets)
    {
        return host.callAndWait(() ->
        {
            checkCanBranch();
            final int from = make(targets);
            return Collections.unmodifiableList(new ArrayList<>(branches.top().subList(from, branches.size())));
        });
    }

    @Override
    public void startProxy()
    {
        host.callAndWait(() ->
        {
            checkCanBranch();
            if (branches.top().stream().allMatch(ProxyBranchImpl::isStarted))
            {
                throw new IllegalStateException("no branch to start: createProxyBranches first");
            }
            start(0);
            return null;
        });
    }

    @Override
    public void proxyTo(final List<? extends URI> targets)
    {
        if (host.onShardThread())
        {
            checkCanBranch(); // the usual case, a servlet on its shard: no task to hand over
            start(make(targets));
            return;
        }
        host.callAndWait(() ->
        {
            checkCanBranch();
            start(make(targets));
            return null;
        });
    }

    @Override
    public void proxyTo(final URI target)
    {
        proxyTo(Collections.singletonList(target));
    }

    @Override
    public boolean getAddToPath()
    {
        return addToPath;
    }

    @Override
    public void setAddToPath(final boolean value)
    {
        addToPath = value;
    }

    @Override
    public SipURI getPathURI()
    {
        if (!addToPath)
        {
            throw new IllegalStateException("addToPath is not enabled");
        }
        if (null == pathUri)
        {
            pathUri = ownUri();
        }
        return pathUri;
    }

    private SipURI ownUri()
    {
        final SipURI uri = SipAddresses.sipUri(null, host.localHost());
        uri.setPort(host.localPort());
        uri.setLrParam(true);
        return uri;
    }

    @Override
    public SipServletRequest getOriginalRequest()
    {
        return original;
    }

    @Override
    public boolean getParallel()
    {
        return parallel;
    }

    @Override
    public void setParallel(final boolean value)
    {
        parallel = value;
    }

    @Override
    public ProxyBranch getProxyBranch(final URI uri)
    {
        return null == uri ? null : host.callAndWait(() -> branches.branchFor(uri));
    }

    @Override
    public List<ProxyBranch> getProxyBranches()
    {
        return host.callAndWait(() -> Collections.unmodifiableList(new ArrayList<>(branches.top())));
    }

    @Override
    public int getProxyTimeout()
    {
        return proxyTimeout;
    }

    /** JSR 289 §10.2.3: the time each branch waits for a final response; for a sequential search too. */
    @Override
    public void setProxyTimeout(final int seconds)
    {
        if (seconds <= 0)
        {
            throw new IllegalArgumentException("the proxy timeout must be positive: " + seconds);
        }
        proxyTimeout = seconds;
        sequentialSearchTimeout = seconds;
    }

    @Override
    public boolean getRecordRoute()
    {
        return recordRoute;
    }

    @Override
    public void setRecordRoute(final boolean value)
    {
        if (started)
        {
            throw new IllegalStateException("record-routing is decided before the proxy starts");
        }
        if (subsequent && value)
        {
            throw new IllegalStateException("a subsequent request keeps the dialog's route set");
        }
        recordRoute = value;
    }

    @Override
    public SipURI getRecordRouteURI()
    {
        if (!recordRoute)
        {
            throw new IllegalStateException("record-routing is not enabled (setRecordRoute(true))");
        }
        return recordRouteUri();
    }

    /** Our Record-Route URI, where the application's parameters go (made on first use). */
    SipURI recordRouteUri()
    {
        if (null == recordRouteUri)
        {
            recordRouteUri = ownUri();
        }
        return recordRouteUri;
    }

    @Override
    public boolean getRecurse()
    {
        return recurse;
    }

    @Override
    public void setRecurse(final boolean value)
    {
        recurse = value;
    }

    @Override
    @SuppressWarnings("deprecation") // deprecated in JSR 289 Proxy, which still requires it
    public int getSequentialSearchTimeout()
    {
        return sequentialSearchTimeout;
    }

    @Override
    @SuppressWarnings("deprecation") // deprecated in JSR 289 Proxy, which still requires it
    public void setSequentialSearchTimeout(final int seconds)
    {
        if (seconds <= 0)
        {
            throw new IllegalArgumentException("the sequential search timeout must be positive: " + seconds);
        }
        sequentialSearchTimeout = seconds;
    }

    /** Always stateful (JSR 289 deprecates stateless proxying; §16.11 stateless forwarding is the ACK's only). */
    @Override
    @SuppressWarnings("deprecation") // deprecated in JSR 289 Proxy, which still requires it
    public boolean getStateful()
    {
        return true;
    }

    @Override
    @SuppressWarnings("deprecation") // deprecated in JSR 289 Proxy, which still requires it
    public void setStateful(final boolean value)
    {
        if (!value)
        {
            throw new IllegalArgumentException(
                "Sipline proxies statefully only (setStateful is deprecated by JSR 289)");
        }
    }

    @Override
    public boolean getSupervised()
    {
        return supervised;
    }

    @Override
    public void setSupervised(final boolean value)
    {
        supervised = value;
    }

    @Override
    public boolean getNoCancel()
    {
        return noCancel;
    }

    @Override
    public void setNoCancel(final boolean value)
    {
        noCancel = value;
    }

    @Override
    public void setOutboundInterface(final InetAddress address)
    {
        session.setOutboundInterface(address);
    }

    @Override
    public void setOutboundInterface(final InetSocketAddress address)
    {
        session.setOutboundInterface(address);
    }

    @Override
    public String toString()
    {
        return "Proxy[" + original + ", " + branches.all().size() + " branches" + (isFinished() ? ", finished" : "")
            + "]";
    }
}
