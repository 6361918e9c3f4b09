package io.sipline.junit;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * One side of a dialog (RFC 3261 §12) as a {@link UserAgent} sees it: Call-ID, local and remote tags and URIs, the
 * remote target and the route set, and the local CSeq. In-dialog requests (§12.2.1.1) go to the remote target
 * through the route set (loose routing: Route headers, destination the first route), with the next CSeq; ACK of a
 * 2xx keeps the INVITE's number.
 * <p>
 * Threading: used by the test's thread; {@link ClientTransaction} builds and reads it under the agent's monitor.
 */
public final class Dialog
{
    private final UserAgent agent;
    private final String callId;
    private final String local;
    private final String remote;
    private final String remoteTag;
    private final String remoteTarget;
    private final List<String> routeSet;
    private long cseq;

    private Dialog(final UserAgent agent, final String callId, final String local, final String remote,
        final String remoteTag, final String remoteTarget, final List<String> routeSet, final long cseq)
    {
        this.agent = agent;
        this.callId = callId;
        this.local = local;
        this.remote = remote;
        this.remoteTag = remoteTag;
        this.remoteTarget = remoteTarget;
        this.routeSet = List.copyOf(routeSet);
        this.cseq = cseq;
    }

    /** §12.1.2: the caller's side, from the request sent and the response that made the dialog. */
    static Dialog asUac(final UserAgent agent, final SipMessage request, final SipMessage response)
    {
        final List<String> routes = new ArrayList<>(response.headers("Record-Route"));
        java.util.Collections.reverse(routes);
        final String contact = response.header("Contact");
        return new Dialog(agent, request.callId(), request.header("From"), response.header("To"), response.toTag(),
            null == contact ? request.requestUri() : SipMessage.uri(contact), routes, request.cseq());
    }

    /** §12.1.1: the callee's side, from the request received and the To (with this side's tag) of its answer. */
    static Dialog asUas(final UserAgent agent, final SipMessage request, final String to)
    {
        final String contact = request.header("Contact");
        if (null == contact)
        {
            throw new IllegalStateException("the request has no Contact, so no remote target: "
                + request.startLine());
        }
        return new Dialog(agent, request.callId(), to, request.header("From"), request.fromTag(),
            SipMessage.uri(contact), request.headers("Record-Route"), 0);
    }

    public String callId()
    {
        return callId;
    }

    public String remoteTag()
    {
        return remoteTag;
    }

    /** The URI in-dialog requests are addressed to (the peer's Contact). */
    public String remoteTarget()
    {
        return remoteTarget;
    }

    /** The Route headers in-dialog requests carry, in order. */
    public List<String> routeSet()
    {
        return routeSet;
    }

    /** A request in this dialog with the next CSeq, no Via yet ({@link #send} adds it). */
    public SipMessage createRequest(final String method)
    {
        synchronized (agent)
        {
            cseq++;
            return base(method, cseq);
        }
    }

    /** The ACK of a 2xx to the INVITE numbered {@code inviteCseq}. */
    SipMessage createAck(final long inviteCseq)
    {
        return base("ACK", inviteCseq);
    }

    private SipMessage base(final String method, final long number)
    {
        final SipMessage request = SipMessage.request(method, remoteTarget);
        for (final String route : routeSet)
        {
            request.add("Route", route);
        }
        return request.add("Max-Forwards", "70").add("From", local).add("To", remote).add("Call-ID", callId)
            .add("CSeq", number + " " + method).add("Contact", "<" + agent.uri() + ">");
    }

    /** Sends an in-dialog request (made by {@link #createRequest}) to the first route, else the remote target. */
    public ClientTransaction send(final SipMessage request)
    {
        return agent.send(request, destination());
    }

    /** Sends a BYE in this dialog (§15.1.1). */
    public ClientTransaction bye()
    {
        return send(createRequest("BYE"));
    }

    InetSocketAddress destination()
    {
        return SipUris.hostPort(routeSet.isEmpty() ? remoteTarget : SipMessage.uri(routeSet.getFirst()));
    }
}
