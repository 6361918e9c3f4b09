package io.sipline.container.proxy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import javax.servlet.sip.Proxy;
import javax.servlet.sip.ProxyBranch;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.URI;

import io.sipline.container.api.MessageHeaders;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.api.SuffixedBranch;
import io.sipline.container.api.ContainerShard;
import io.sipline.sip.message.HeaderName;

/**
 * One branch of a {@link ProxyImpl} (JSR 289 §10.2.1): one target, the request sent to it (made when the branch is
 * created, so that the application can add headers before it starts), its last response, its own timeout, and the
 * branches made from its 3xx when it recurses.
 * <p>
 * States: created → started (sent; timer running) → [provisional] → done (a final response, or the timer fired
 * before any provisional response). A timer that fires after a provisional response CANCELs the branch
 * ({@link #isTimedOut()}); its 487 then completes it.
 * <p>
 * Threading: the proxy's shard.
 */
public final class ProxyBranchImpl implements SuffixedBranch, ContainerShard.TimerTarget
{
    private final ProxyImpl proxy;
    private final URI target;
    private final ProxyBranchImpl parent;
    private final SipServletRequestImpl request;
    private List<ProxyBranchImpl> recursed = List.of();
    private boolean recordRoute;
    /** Our Record-Route was put on the request (start); the dispatch layer fits it to the transports. */
    private boolean recordRouted;
    /** Our Record-Route is two entries, the outgoing side's and the incoming side's (RFC 5658 §4). */
    private boolean doubleRecordRoute;
    private boolean recurse;
    private boolean addToPath;
    /** This branch pushed our Path on its REGISTER (RFC 3327 §5.1). */
    private boolean pathAdded;
    private int timeoutSeconds;
    private boolean started;
    private boolean done;
    private boolean timedOut;
    private boolean cancelSent;
    private SipServletResponseImpl response;
    private long timer = -1;

    ProxyBranchImpl(final ProxyImpl proxy, final URI target, final ProxyBranchImpl parent)
    {
        this.proxy = proxy;
        this.target = target;
        this.parent = parent;
        final ProxyBranchImpl from = parent;
        this.recordRoute = null == from ? proxy.getRecordRoute() : from.recordRoute;
        this.recurse = null == from ? proxy.getRecurse() : from.recurse;
        this.addToPath = null == from ? proxy.getAddToPath() : from.addToPath;
        this.timeoutSeconds = null == from ? 0 : from.timeoutSeconds;
        this.request = SipServletRequestImpl.forwardOf(proxy.original(), target.toString());
        request.proxyBranch(this);
    }

    @Override
    public String branchSuffix()
    {
        return proxy.branchSuffix();
    }

    /**
     * The one branch of a relayed subsequent request's proxy ({@link ProxyImpl#relayed}): the received request
     * itself, already sent by {@link ProxyRelay}.
     */
    ProxyBranchImpl(final ProxyImpl proxy, final SipServletRequestImpl relayed)
    {
        this.proxy = proxy;
        this.target = relayed.getRequestURI();
        this.parent = null;
        this.request = relayed;
        this.started = true;
        final SipServletResponseImpl answered = relayed.finalResponse();
        this.response = answered;
        this.done = null != answered;
    }

    /** A response to the relayed request of this branch (the relay forwards it; the branch only records it). */
    void onRelayed(final SipServletResponseImpl r)
    {
        if (!done)
        {
            response = r;
            done = r.getStatus() >= 200;
        }
    }

    URI target()
    {
        return target;
    }

    boolean isDone()
    {
        return done;
    }

    boolean isTimedOut()
    {
        return timedOut;
    }

    void recursed(final List<ProxyBranchImpl> made)
    {
        final List<ProxyBranchImpl> list = new ArrayList<>(recursed);
        list.addAll(made);
        recursed = list;
    }

    /** Sends the branch's request (RFC 3261 §16.6 steps 4-10) and starts its timer. */
    void start()
    {
        if (started)
        {
            return;
        }
        started = true;
        final ContainerShard host = proxy.host();
        if (recordRoute && !proxy.isSubsequent())
        {
            request.headers().addFirst("Record-Route", proxy.recordRouteValue()); // §16.6 step 4
            recordRouted = true; // UDP's; host.send fits it to the transports once it chose the outgoing one
        }
        if (addToPath && "REGISTER".equals(request.getMethod()))
        {
            request.headers().addFirst("Path", proxy.pathValue()); // RFC 3327 §5.1
            pathAdded = true; // UDP's; host.send gives it the client's flow token when the client is on WebSocket
        }
        ProxyRoutes.forStrictNextHop(request);
        request.markCommitted();
        final int seconds = timeoutSeconds > 0 ? timeoutSeconds : proxy.branchTimeout();
        timer = host.schedule(seconds * 1000L, this);
        host.send(request); // may answer at once (no route: 503) through onResponse
    }

    /**
     * Fits our Record-Route to the transports of the two sides, once the dispatch layer chose the outgoing one (and
     * again when it changes it, RFC 3261 §18.1.1: a request over 1300 bytes goes over TCP): RFC 3261 §16.6 step 4
     * wants a URI that reaches this proxy from each side, and RFC 5658 §4 has a proxy that receives on one transport
     * and sends on another write two entries, the topmost for the outgoing side (the UAS's route set starts with it)
     * and the second for the incoming side (the UAC's, reversed, starts with that one). With the same transport on
     * both sides there is one entry, with that transport's URI. UDP in and UDP out leaves the entry
     * {@link #start} wrote as it is (nothing is made).
     *
     * <p>When a WebSocket client is on one side, {@code flowToken} names its connection (RFC 5626 §5.3): every entry
     * carries it, and the Path this branch added on a REGISTER from that client too (§5.1), for the side the request
     * leaves on.
     *
     * @param in        the transport the proxied request came on ("UDP", "TCP", "TLS", "WS", "WSS").
     * @param inPort    our listening port for {@code in}.
     * @param out       the transport the branch's request goes on.
     * @param outPort   our listening port for {@code out}.
     * @param flowToken the flow token of the WebSocket client's connection on either side, or null.
     */
    public void fitRecordRoute(final String in, final int inPort, final String out, final int outPort,
        final String flowToken)
    {
        if (pathAdded && null != flowToken)
        {
            final MessageHeaders h = request.headers();
            final int path = h.find(HeaderName.PATH, 0);
            if (path >= 0)
            {
                h.setValue(path, proxy.pathValue(out, outPort, flowToken));
            }
        }
        if (!recordRouted || (!doubleRecordRoute && null == flowToken && "UDP".equals(in) && "UDP".equals(out)))
        {
            return;
        }
        final MessageHeaders h = request.headers();
        final int top = h.find(HeaderName.RECORD_ROUTE, 0);
        if (top < 0)
        {
            return;
        }
        if (doubleRecordRoute)
        {
            h.removeAt(top + 1); // the incoming side's entry of an earlier fit, right under ours
            doubleRecordRoute = false;
        }
        h.setValue(top, proxy.recordRouteValue(out, outPort, flowToken));
        if (!in.equals(out))
        {
            h.insert(top + 1, "Record-Route", proxy.recordRouteValue(in, inPort, flowToken));
            doubleRecordRoute = true;
        }
    }

    /** Where the proxied request came from: a {@code TcpFlow} when over TCP or TLS, else the UDP source. */
    public InetSocketAddress upstream()
    {
        return proxy.original().remoteAddress();
    }

    /**
     * The RFC 5626 flow token of the Route of ours popped from the proxied request (a request routed back to a
     * WebSocket client through our Record-Route or Path), or null.
     */
    public String routedFlowToken()
    {
        return proxy.original().flowToken();
    }

    /** A response on this branch (the dispatch layer did the transaction bookkeeping; 100 never comes here). */
    public void onResponse(final SipServletResponseImpl r)
    {
        if (r.getStatus() < 200)
        {
            if (!done)
            {
                response = r;
                proxy.onProvisional(this, r);
            }
            return;
        }
        final boolean late = done;
        if (!late)
        {
            done = true;
            response = r;
            stopTimer();
            proxy.session().end(request);
        }
        proxy.onFinal(this, r, late);
    }

    @Override
    public void onTimer(final long timerId)
    {
        if (timerId != timer || done)
        {
            return;
        }
        timer = -1;
        timedOut = true;
        if (request.provisionalReceived() && "INVITE".equals(request.getMethod()))
        {
            cancelBranch("SIP;cause=408;text=\"Proxy branch timeout\"");
            proxy.onBranchCancelledByTimeout(this);
            return;
        }
        done = true; // no provisional: the client transaction runs on alone; a late 2xx is still forwarded
        proxy.session().end(request);
        proxy.onBranchTimeout(this);
    }

    /** Sends a CANCEL for this branch's INVITE (after its first provisional response, RFC 3261 §9.1). */
    void cancelBranch(final String reason)
    {
        if (cancelSent || done || !started || !"INVITE".equals(request.getMethod()))
        {
            return;
        }
        cancelSent = true;
        stopTimer();
        final SipServletRequestImpl cancel = (SipServletRequestImpl)request.createCancel();
        if (null != reason)
        {
            cancel.headers().add("Reason", reason);
        }
        cancel.markCommitted();
        proxy.host().send(cancel);
    }

    private void stopTimer()
    {
        if (timer >= 0)
        {
            proxy.host().cancel(timer);
            timer = -1;
        }
    }

    /** RFC 3326 Reason values from the three arrays of {@code cancel(String[], int[], String[])}, or null. */
    static String reason(final String[] protocol, final int[] reasonCode, final String[] reasonText)
    {
        if (null == protocol || null == reasonCode || null == reasonText)
        {
            return null;
        }
        if (protocol.length != reasonCode.length || protocol.length != reasonText.length)
        {
            throw new IllegalArgumentException("protocol, reasonCode and reasonText must have the same length");
        }
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < protocol.length; i++)
        {
            if (i > 0)
            {
                sb.append(", ");
            }
            sb.append(protocol[i]).append(";cause=").append(reasonCode[i]).append(";text=\"")
                .append(reasonText[i].replace("\"", "'")).append('"');
        }
        return protocol.length == 0 ? null : sb.toString();
    }

    private void checkNotStarted()
    {
        if (started)
        {
            throw new IllegalStateException("the branch was already started");
        }
    }

    // ================================================================================================================
    // ProxyBranch
    // ================================================================================================================

    @Override
    public void cancel()
    {
        cancel(null, null, null);
    }

    @Override
    public void cancel(final String[] protocol, final int[] reasonCode, final String[] reasonText)
    {
        if (done)
        {
            throw new IllegalStateException("the branch already has a final response");
        }
        final String reason = reason(protocol, reasonCode, reasonText);
        proxy.onShard(() -> cancelBranch(reason));
    }

    @Override
    public boolean getAddToPath()
    {
        return addToPath;
    }

    @Override
    public void setAddToPath(final boolean value)
    {
        checkNotStarted();
        addToPath = value;
    }

    @Override
    public SipURI getPathURI()
    {
        if (!addToPath)
        {
            throw new IllegalStateException("addToPath is not enabled on this branch");
        }
        proxy.setAddToPath(true);
        return proxy.getPathURI();
    }

    @Override
    public Proxy getProxy()
    {
        return proxy;
    }

    @Override
    public int getProxyBranchTimeout()
    {
        return timeoutSeconds > 0 ? timeoutSeconds : proxy.branchTimeout();
    }

    @Override
    public void setProxyBranchTimeout(final int seconds)
    {
        if (seconds <= 0)
        {
            throw new IllegalArgumentException("the branch timeout must be positive: " + seconds);
        }
        if (proxy.getParallel() ? seconds > proxy.getProxyTimeout() : seconds > proxy.getSequentialSearchTimeout())
        {
            throw new IllegalArgumentException("a branch timeout may not exceed the proxy's (JSR 289 §10.2.3)");
        }
        timeoutSeconds = seconds;
    }

    @Override
    public boolean getRecordRoute()
    {
        return recordRoute;
    }

    @Override
    public void setRecordRoute(final boolean value)
    {
        checkNotStarted();
        recordRoute = value;
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
    public SipURI getRecordRouteURI()
    {
        if (!recordRoute)
        {
            throw new IllegalStateException("record-routing is not enabled on this branch");
        }
        return proxy.recordRouteUri();
    }

    @Override
    public List<ProxyBranch> getRecursedProxyBranches()
    {
        return Collections.unmodifiableList(new ArrayList<>(recursed));
    }

    @Override
    public SipServletRequest getRequest()
    {
        return request;
    }

    @Override
    public SipServletResponse getResponse()
    {
        return response;
    }

    @Override
    public boolean isStarted()
    {
        return started;
    }

    @Override
    public void setOutboundInterface(final InetAddress address)
    {
        proxy.setOutboundInterface(address);
    }

    @Override
    public void setOutboundInterface(final InetSocketAddress address)
    {
        proxy.setOutboundInterface(address);
    }

    @Override
    public String toString()
    {
        return "ProxyBranch[" + target + (null != parent ? ", recursed" : "") + (done ? ", done" : started
            ? ", started" : "") + "]";
    }
}
