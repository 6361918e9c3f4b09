package io.sipline.junit;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A request a {@link UserAgent} sent and the responses that came back for it (RFC 3261 §17.1), for a test to wait
 * on ({@link #expect(int)}), acknowledge ({@link #ack()}), cancel ({@link #cancel()}) or continue as a dialog
 * ({@link #dialog()}). A retransmitted response is read once; a non-2xx final response to an INVITE is acknowledged
 * by the agent itself (§17.1.1.3), and a retransmitted 2xx is answered with the ACK already sent for it (§13.2.2.4).
 * <p>
 * Threading: the agent's reader adds responses and the test's thread takes them, both under the agent's monitor.
 */
public final class ClientTransaction
{
    private final UserAgent agent;
    private final SipMessage request;
    private final InetSocketAddress destination;
    private final ArrayDeque<SipMessage> pending = new ArrayDeque<>();
    private final List<String> seen = new ArrayList<>();
    private final Set<String> distinct = new HashSet<>();
    /** To tag of each acknowledged 2xx to the ACK sent for it. */
    private final Map<String, SipMessage> acks = new HashMap<>();
    private SipMessage last;
    private Dialog dialog;

    ClientTransaction(final UserAgent agent, final SipMessage request, final InetSocketAddress destination)
    {
        this.agent = agent;
        this.request = request;
        this.destination = destination;
    }

    /** The request as sent (a copy: changing it changes nothing on the wire). */
    public SipMessage request()
    {
        return request.copy();
    }

    /** The reader thread: one response to this transaction. */
    void received(final SipMessage response)
    {
        final int status = response.status();
        final boolean invite = "INVITE".equals(request.method());
        SipMessage resend = null;
        synchronized (agent)
        {
            final String id = status + " " + response.toTag() + " " + response.header("RSeq");
            if (!distinct.add(id))
            {
                if (invite && status >= 200 && status < 300)
                {
                    resend = acks.get(response.toTag()); // §13.2.2.4: every 2xx retransmission gets the ACK
                }
                else if (invite && status >= 300)
                {
                    resend = nonSuccessAck(response);
                }
            }
            else
            {
                pending.add(response);
                seen.add(response.startLine());
                if (invite && status >= 300)
                {
                    resend = nonSuccessAck(response);
                }
                agent.notifyAll();
            }
        }
        if (null != resend)
        {
            agent.transmit(resend, destination);
        }
    }

    /**
     * §17.1.1.3: the ACK of a non-2xx final response, in the INVITE's transaction: its Request-URI, top Via, Route,
     * From and Call-ID, the response's To, the INVITE's CSeq number.
     */
    private SipMessage nonSuccessAck(final SipMessage response)
    {
        final SipMessage ack = SipMessage.request("ACK", request.requestUri())
            .add("Via", request.header("Via"));
        for (final String route : request.headers("Route"))
        {
            ack.add("Route", route);
        }
        return ack.add("Max-Forwards", "70").add("From", request.header("From")).add("To", response.header("To"))
            .add("Call-ID", request.callId()).add("CSeq", request.cseq() + " ACK");
    }

    /** Waits (the agent's timeout) for the first response with {@code status}; see {@link #expect(int, Duration)}. */
    public SipMessage expect(final int status)
    {
        return expect(status, agent.timeout());
    }

    /**
     * Waits for the first response with {@code status}, skipping provisional responses of another status.
     *
     * @throws AssertionError when a final response of another status comes first, or nothing in time; the message
     *                        lists every response this transaction received.
     */
    public SipMessage expect(final int status, final Duration wait)
    {
        final long deadline = System.nanoTime() + wait.toNanos();
        synchronized (agent)
        {
            while (true)
            {
                final SipMessage next = pending.poll();
                if (null != next)
                {
                    if (next.status() == status)
                    {
                        last = next;
                        return next.copy();
                    }
                    if (next.status() >= 200)
                    {
                        throw new AssertionError(agent.user() + ": expected " + status + " to "
                            + request.startLine() + " but got " + next.startLine() + "; received: " + seen);
                    }
                    continue;
                }
                final long left = deadline - System.nanoTime();
                if (left <= 0)
                {
                    throw new AssertionError(agent.user() + ": no " + status + " to " + request.startLine()
                        + " within " + wait.toMillis() + " ms; received: " + seen);
                }
                agent.waitNanos(left);
            }
        }
    }

    /** Waits (the agent's timeout) for the next final response, whatever its status. */
    public SipMessage expectFinal()
    {
        final long deadline = System.nanoTime() + agent.timeout().toNanos();
        synchronized (agent)
        {
            while (true)
            {
                final SipMessage next = pending.poll();
                if (null != next && next.status() >= 200)
                {
                    last = next;
                    return next.copy();
                }
                final long left = deadline - System.nanoTime();
                if (null == next && left <= 0)
                {
                    throw new AssertionError(agent.user() + ": no final response to " + request.startLine()
                        + " within " + agent.timeout().toMillis() + " ms; received: " + seen);
                }
                if (null == next)
                {
                    agent.waitNanos(left);
                }
            }
        }
    }

    /**
     * The dialog of the last response {@link #expect} returned (a 2xx, or a provisional with a To tag), from the
     * UAC side (§12.1.2): route set the reversed Record-Route, remote target its Contact.
     *
     * @throws IllegalStateException when that response creates no dialog.
     */
    public Dialog dialog()
    {
        synchronized (agent)
        {
            if (null == last || null == last.toTag() || last.status() < 101 || last.status() >= 300)
            {
                throw new IllegalStateException("no dialog: " + (null == last ? "no response yet" : last.startLine()));
            }
            if (null == dialog || !dialog.remoteTag().equals(last.toTag()))
            {
                dialog = Dialog.asUac(agent, request, last);
            }
            return dialog;
        }
    }

    /**
     * Sends the ACK of the 2xx {@link #expect} returned (§13.2.2.4): a new transaction in the dialog, with the
     * INVITE's CSeq number, to the remote target through the route set.
     */
    public void ack()
    {
        ack(null, null);
    }

    /**
     * Sends the ACK of the 2xx {@link #expect} returned, as {@link #ack()}, carrying a body: the answer to the offer
     * the 2xx made when the INVITE had none (RFC 3261 §13.2.2.4, RFC 3264 §4).
     *
     * @param contentType the body's type, or null for no body.
     * @param body        the body.
     */
    public void ack(final String contentType, final String body)
    {
        final SipMessage ack;
        final Dialog d;
        synchronized (agent)
        {
            if (null == last || last.status() < 200 || last.status() >= 300 || !"INVITE".equals(request.method()))
            {
                throw new IllegalStateException("ack() acknowledges a 2xx to INVITE; last response: "
                    + (null == last ? "none" : last.startLine()));
            }
            d = dialog();
            ack = d.createAck(request.cseq());
            ack.add("Via", agent.via(UserAgent.newBranch()));
            if (null != contentType)
            {
                ack.body(contentType, body);
            }
            acks.put(last.toTag(), ack);
        }
        agent.transmit(ack, d.destination());
    }

    /**
     * Sends a CANCEL of this request (§9.1): its Request-URI, top Via, Route, From, To and Call-ID, its CSeq number.
     *
     * @return the CANCEL's own transaction (a 200 is expected on it, a 487 on this one).
     */
    public ClientTransaction cancel()
    {
        final SipMessage cancel = SipMessage.request("CANCEL", request.requestUri()).add("Via", request.header("Via"));
        for (final String route : request.headers("Route"))
        {
            cancel.add("Route", route);
        }
        cancel.add("Max-Forwards", "70").add("From", request.header("From")).add("To", request.header("To"))
            .add("Call-ID", request.callId()).add("CSeq", request.cseq() + " CANCEL");
        return agent.sendWithVia(cancel, destination);
    }
}
