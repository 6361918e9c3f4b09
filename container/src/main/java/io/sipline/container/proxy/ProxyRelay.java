package io.sipline.container.proxy;

import io.sipline.container.api.HeaderText;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.api.ContainerShard;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.transaction.Transaction;
import io.sipline.sip.transaction.TransactionAttachment;

/**
 * A subsequent non-INVITE request (BYE, INFO, UPDATE, PRACK, NOTIFY...) of a dialog this container record-routed as a
 * proxy, forwarded by the container after the servlet saw it ({@code isInitial()} false) and did not ask for its
 * proxy: the received request itself goes on (RFC 3261 §16.6: Max-Forwards decremented, our Route already popped,
 * our Via added when written) on a client transaction of its own, and each response to it comes back on the received
 * request's server transaction as it was received, less our Via (§16.7 step 9). No {@link ProxyImpl}, branch, copy
 * of the request or of the response is made: one request and one response per transaction instead of two of each.
 * <p>
 * JSR 289 still holds: the servlet sees the request (doBye...) before it goes on and, when the dialog's proxy is
 * supervised, each response (doResponse) before it goes back; {@code getProxy()} on the request, or on a response,
 * still gives a proxy, made on demand as already started ({@link ProxyImpl#relayed}). A servlet that calls
 * {@code getProxy()} while it handles the request takes the full proxy path instead ({@link ProxyImpl}, as
 * {@code isSubsequent()}).
 * <p>
 * An instance is what the client transaction carries (its attachment): the received request, and the use of the
 * pooled transaction it was sent on. An INVITE (a re-INVITE) is not relayed: its CANCEL, its 2xx retransmissions and
 * its ACK need the proxy's state.
 * <p>
 * Threading: the request's shard.
 */
public final class ProxyRelay implements TransactionAttachment
{
    private final SipServletRequestImpl request;
    private final long transactionId;

    /**
     * @param tx the client transaction the received {@code request} was sent on.
     */
    public ProxyRelay(final SipServletRequestImpl request, final Transaction tx)
    {
        this.request = request;
        this.transactionId = tx.id();
    }

    /** The received request that was forwarded. */
    public SipServletRequestImpl request()
    {
        return request;
    }

    /** Whether {@code tx} is still the use of the pooled transaction this relay was sent on. */
    public boolean isOf(final Transaction tx)
    {
        return tx.id() == transactionId && 0 != transactionId;
    }

    /**
     * Whether the container forwards {@code request} itself: a non-INVITE subsequent request whose proxy the servlet
     * did not ask for.
     */
    public static boolean applies(final SipServletRequestImpl request)
    {
        return null == request.proxy() && !"INVITE".equals(request.getMethod()) && !request.isInitial();
    }

    /**
     * Sends the received request on (RFC 3261 §16.6 steps 3, 6): Max-Forwards decremented (the caller answered 483 to
     * 0), the next hop of a strict router handled; the request is committed from here on. {@code host} writes it
     * with our Via and sends it on a client transaction whose attachment is a {@link ProxyRelay}.
     */
    public static void start(final ContainerShard host, final SipServletRequestImpl request)
    {
        final int maxForwards = request.getMaxForwards();
        request.headers().set("Max-Forwards", HeaderText.decimal(maxForwards < 0 ? 70 : maxForwards - 1));
        ProxyRoutes.forStrictNextHop(request);
        request.relayed(true);
        request.markCommitted();
        host.send(request);
    }

    /**
     * A response to a relayed request (received, or made by the container on a timeout or transport error): to the
     * servlet first when the dialog's proxy is supervised (JSR 289 §10.2.4), then upstream on the request's server
     * transaction. After a final response went upstream nothing more does (a non-INVITE has one).
     */
    public static void onResponse(final ContainerShard host, final SipServletRequestImpl request,
        final SipServletResponseImpl response)
    {
        if (null != request.finalResponse())
        {
            return;
        }
        final int status = response.getStatus();
        final SipServletResponseImpl out = upstreamOf(request, response, status);
        if (status >= 200)
        {
            request.finalResponse(out); // from now the request can be answered no more (it is being proxied)
        }
        if (request.proxy() instanceof ProxyImpl proxy)
        {
            proxy.onRelayed(response); // the application asked for the proxy after the request went on
        }
        final SipSessionImpl session = request.sessionImpl();
        if (null != session.proxy() && !session.proxy().getSupervised())
        {
            send(host, out);
            return;
        }
        response.openForUpstream(); // the servlet may edit what goes upstream (JSR 289 §10.2.4)
        host.deliver(session, null, response, () ->
        {
            response.markCommitted();
            if (out != response)
            {
                out.shareBody(response);
            }
            send(host, out);
        });
    }

    /**
     * What goes upstream for {@code received}: the received response itself, written without our Via; a copy when
     * its status changes (503 goes up as 500, §16.7 step 6); a response of our own to the request when the container
     * made {@code received} (a timeout or transport error: it has no Via but ours).
     */
    private static SipServletResponseImpl upstreamOf(final SipServletRequestImpl request,
        final SipServletResponseImpl received, final int status)
    {
        if (null == received.remoteAddress())
        {
            return (SipServletResponseImpl)request.createResponse(ResponseContext.upstreamStatus(status),
                received.getReasonPhrase());
        }
        final int upstream = status >= 200 ? ResponseContext.upstreamStatus(status) : status;
        if (upstream != status)
        {
            return SipServletResponseImpl.forwardOf(request, received, upstream);
        }
        received.relayUpstream();
        return received;
    }

    private static void send(final ContainerShard host, final SipServletResponseImpl out)
    {
        out.markCommitted();
        host.send(out);
    }
}
