package io.sipline.junit;

import java.net.InetSocketAddress;
import java.util.Map;

/**
 * A request a {@link UserAgent} received, for a test to read and answer (RFC 3261 §8.2.6, §17.2): responses copy
 * its Via, From, Call-ID and CSeq, and its To with one tag of this side for every response but 100; a 1xx or 2xx to
 * a dialog-creating request copies its Record-Route and carries this agent's Contact (§12.1.1). Responses go to the
 * address the request came from (RFC 3581). A retransmission of the request is answered with the last response.
 * <p>
 * Threading: answered from the test's thread; the agent's reader re-sends the last response under the agent's
 * monitor.
 */
public final class ServerTransaction
{
    private static final Map<Integer, String> REASONS = Map.ofEntries(Map.entry(100, "Trying"),
        Map.entry(180, "Ringing"), Map.entry(181, "Call Is Being Forwarded"), Map.entry(183, "Session Progress"),
        Map.entry(200, "OK"), Map.entry(202, "Accepted"), Map.entry(302, "Moved Temporarily"),
        Map.entry(400, "Bad Request"), Map.entry(401, "Unauthorized"), Map.entry(403, "Forbidden"),
        Map.entry(404, "Not Found"), Map.entry(408, "Request Timeout"), Map.entry(480, "Temporarily Unavailable"),
        Map.entry(481, "Call/Transaction Does Not Exist"), Map.entry(486, "Busy Here"),
        Map.entry(487, "Request Terminated"), Map.entry(488, "Not Acceptable Here"),
        Map.entry(500, "Server Internal Error"), Map.entry(503, "Service Unavailable"), Map.entry(603, "Decline"));

    private final UserAgent agent;
    private final SipMessage request;
    private final InetSocketAddress source;
    private String toTag;
    private SipMessage lastResponse;
    private int finalStatus;
    private Dialog dialog;

    ServerTransaction(final UserAgent agent, final SipMessage request, final InetSocketAddress source)
    {
        this.agent = agent;
        this.request = request;
        this.source = source;
        this.toTag = request.toTag();
    }

    /** The request as received (a copy). */
    public SipMessage request()
    {
        return request.copy();
    }

    /** Where the request came from. */
    public InetSocketAddress source()
    {
        return source;
    }

    /** A response to the request, to change before {@link #send}ing it. */
    public SipMessage createResponse(final int status)
    {
        final SipMessage response = SipMessage.response(status, REASONS.getOrDefault(status, "Status " + status));
        for (final String via : request.headers("Via"))
        {
            response.add("Via", via);
        }
        response.add("From", request.header("From"));
        synchronized (agent)
        {
            if (100 != status && null == toTag)
            {
                toTag = UserAgent.newTag();
            }
            response.add("To", 100 == status || null != request.toTag() ? request.header("To")
                : request.header("To") + ";tag=" + toTag);
        }
        response.add("Call-ID", request.callId()).add("CSeq", request.header("CSeq"));
        if (status > 100 && status < 300 && createsDialog())
        {
            for (final String route : request.headers("Record-Route"))
            {
                response.add("Record-Route", route);
            }
            response.add("Contact", "<" + agent.uri() + ">");
        }
        return response;
    }

    private boolean createsDialog()
    {
        final String method = request.method();
        return null == request.toTag() && ("INVITE".equals(method) || "SUBSCRIBE".equals(method));
    }

    /** Sends a response made by {@link #createResponse}. */
    public ServerTransaction send(final SipMessage response)
    {
        synchronized (agent)
        {
            lastResponse = response.copy();
            if (response.status() >= 200 && 0 == finalStatus)
            {
                finalStatus = response.status();
            }
            if (null == dialog && createsDialog() && response.status() > 100 && response.status() < 300)
            {
                dialog = Dialog.asUas(agent, request, response.header("To"));
            }
        }
        agent.transmit(response, source);
        return this;
    }

    /** Sends a response with {@code status} and no body. */
    public ServerTransaction respond(final int status)
    {
        return send(createResponse(status));
    }

    /** Sends a response with {@code status} and a body of {@code contentType}. */
    public ServerTransaction respond(final int status, final String contentType, final String body)
    {
        return send(createResponse(status).body(contentType, body));
    }

    /**
     * The callee's side of the dialog a 1xx or 2xx response made (§12.1.1): remote target the request's Contact,
     * route set its Record-Route.
     *
     * @throws IllegalStateException before such a response was sent.
     */
    public Dialog dialog()
    {
        synchronized (agent)
        {
            if (null == dialog)
            {
                throw new IllegalStateException("no dialog: no 1xx or 2xx with a tag sent to " + request.startLine());
            }
            return dialog;
        }
    }

    /** The first final status sent, 0 before. */
    int finalStatus()
    {
        return finalStatus;
    }

    /** The reader thread, under the agent's monitor: the request came again. */
    void retransmitted()
    {
        if (null != lastResponse)
        {
            agent.transmit(lastResponse, source);
        }
    }
}
