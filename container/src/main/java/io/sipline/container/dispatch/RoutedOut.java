package io.sipline.container.dispatch;

import java.net.InetSocketAddress;

import io.netty.buffer.ByteBuf;
import io.sipline.container.api.MessageWriter;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.TransactionAttachment;

/**
 * An initial request the application router sent out of the container without an application (JSR 289 §15.4.1,
 * route modifier {@code ROUTE} or {@code ROUTE_BACK} with an external first route; SipRouteModifier's Javadoc:
 * {@code ROUTE_BACK} "tells the container to push a route back to itself before pushing the external routes"). The
 * container forwards it as a transaction-stateful relay with no session and no servlet (RFC 3261 §16.6 steps 3, 4, 7
 * and 8 as a proxy does them: Max-Forwards decremented, the router's routes pushed, our Via on top, sent to the top
 * Route), and relays what comes back: responses but 100 ({@link #onResponse}), 408 or 500 when the branch fails
 * ({@link #fail}), a CANCEL from upstream ({@link #cancel}). The ACK of a non-2xx stays with the transactions (hop by
 * hop, §17.1.1.3); the ACK of a 2xx goes end to end past us, since nothing here record-routes.
 * <p>
 * The forwarded request goes on the transport its top Route asks for, as a request of the container does (RFC 3261
 * §18.1.1, §19.1.4, RFC 3263 §4.1: {@code transport=}, {@code sips:}, over 1300 bytes TCP), with our Via for that
 * transport; its CANCEL repeats that Via. Responses go upstream on the flow the request came on (the server
 * transaction's).
 * <p>
 * Threading: owned by the shard that received the request; every method on its event loop. It is the attachment of
 * both its server and its client transaction.
 */
final class RoutedOut implements TransactionAttachment
{
    private final SipServletRequestImpl received;
    private final SipServletRequestImpl forwarded;
    private final ServerTransaction serverTx;
    private ClientTransaction clientTx;
    private String branch;
    private InetSocketAddress destination;
    /** The transport index the forwarded request went on (its Via's; the CANCEL's too). */
    private int transport = Transports.UDP;
    private boolean provisional;
    private boolean finished;
    private boolean cancelPending;

    /**
     * @param received  the initial request as received (its Route to us, if any, popped).
     * @param forwarded the copy that goes out, with the router's routes pushed.
     * @param serverTx  the received request's server transaction.
     */
    RoutedOut(final SipServletRequestImpl received, final SipServletRequestImpl forwarded,
        final ServerTransaction serverTx)
    {
        this.received = received;
        this.forwarded = forwarded;
        this.serverTx = serverTx;
        serverTx.attachment(this); // a CANCEL finds it while the next hop is still being located
    }

    /** The request that goes out. */
    SipServletRequestImpl forwarded()
    {
        return forwarded;
    }

    /** Whether a final response went upstream (a CANCEL, a timeout or the next hop's answer). */
    boolean isFinished()
    {
        return finished;
    }

    /**
     * The transport index the forwarded request went on ({@link Transports#UDP}, {@code TCP}, {@code TLS}), which its
     * CANCEL's Via repeats (RFC 3261 §9.1); UDP before it was sent.
     */
    int transport()
    {
        return transport;
    }

    /**
     * Sends the forwarded request, written with our Via for {@code transport}, to {@code to} on a new client
     * transaction (the stack sends it on the transport the Via names: a connection for TCP/TLS, reused or opened).
     *
     * @param out ownership taken.
     * @return false when the transaction layer refused it (the caller answers upstream).
     */
    boolean send(final StackShard shard, final InetSocketAddress to, final String branch, final int transport,
        final ByteBuf out)
    {
        if (finished)
        {
            out.release();
            return true; // cancelled (and answered 487) while the next hop was being located
        }
        this.branch = branch;
        this.transport = transport;
        this.destination = to;
        forwarded.addresses(to, null);
        forwarded.sentTransport(Transports.NAMES[transport]);
        final ClientTransaction tx = shard.sendRequest(out, to);
        if (null == tx)
        {
            return false;
        }
        clientTx = tx;
        tx.attachment(this);
        return true;
    }

    /**
     * A response on the client transaction: relayed upstream (100 is hop by hop, §16.7 step 3 keeps it here) on the
     * server transaction without our Via (§16.7 steps 3 and 9); a 2xx retransmitted after the server transaction
     * ended goes where the request came from (RFC 6026 §8.4).
     */
    void onResponse(final StackShard shard, final SipMessage message, final InetSocketAddress from,
        final InetSocketAddress local, final CharSequence cancelVia)
    {
        final int status = message.statusCode();
        if (status < 200)
        {
            provisional = true;
            if (cancelPending)
            {
                cancelPending = false;
                sendCancel(shard, cancelVia);
            }
            if (100 == status)
            {
                return;
            }
        }
        final SipServletResponseImpl response = SipServletResponseImpl.received(message, received, from, local);
        final SipServletResponseImpl up = SipServletResponseImpl.forwardOf(received, response, status);
        final ByteBuf out = shard.allocate(MessageWriter.estimate(up));
        MessageWriter.writeResponse(out, up);
        if (status >= 200)
        {
            finished = true;
        }
        final boolean inviteOk = status >= 200 && status < 300 && SipMethod.INVITE == serverTx.method();
        if (!shard.respond(serverTx, out, status) && inviteOk && null != received.remoteAddress())
        {
            // RFC 6026 §8.4: a 2xx retransmission after the server transaction left Accepted goes on statelessly
            final ByteBuf again = shard.allocate(MessageWriter.estimate(up));
            MessageWriter.writeResponse(again, up);
            shard.sendStateless(again, received.remoteAddress());
        }
    }

    /**
     * The client transaction failed, and the request is answered upstream: Timer B or F, 408 (RFC 3261 §16.8); a
     * transport error, 500 (§16.9 treats it as a 503 of the branch, and §16.7 step 6 sends a 500 instead of a 503).
     */
    void fail(final StackShard shard, final int status, final String reason, final CharSequence toTag)
    {
        if (finished)
        {
            return;
        }
        finished = true;
        final ByteBuf out = shard.allocate(MessageWriter.estimate(received));
        final var b = shard.builder().startResponse(out, status, reason);
        for (int i = received.headers().find(HeaderName.VIA, 0); i >= 0;
            i = received.headers().find(HeaderName.VIA, i + 1))
        {
            b.header(HeaderName.VIA, received.headers().value(i));
        }
        b.header(HeaderName.FROM, received.getHeader("From"));
        final String to = received.getHeader("To");
        b.header(HeaderName.TO, null != to && !to.contains(";tag=") ? to + ";tag=" + toTag : to);
        b.header(HeaderName.CALL_ID, received.getHeader("Call-ID"));
        b.header(HeaderName.CSEQ, received.getHeader("CSeq"));
        b.end(null, 0, 0);
        shard.respond(serverTx, out, status);
    }

    /**
     * A CANCEL of the received INVITE (its 200 already sent): RFC 3261 §16.10 cancels the pending branch, §9.1 only
     * after a provisional response, else when one comes; the 487 the next hop answers goes upstream as any final
     * response.
     */
    void cancel(final StackShard shard, final CharSequence via, final CharSequence toTag)
    {
        if (finished)
        {
            return;
        }
        if (null == clientTx)
        {
            fail(shard, 487, "Request Terminated", toTag); // not sent yet: it never will be
            return;
        }
        if (!provisional)
        {
            cancelPending = true;
            return;
        }
        sendCancel(shard, via);
    }

    /** The Via of the forwarded request (its branch), which the CANCEL repeats (RFC 3261 §9.1). */
    String branch()
    {
        return branch;
    }

    private void sendCancel(final StackShard shard, final CharSequence via)
    {
        if (finished)
        {
            return;
        }
        // RFC 3261 §9.1: the Request-URI, Call-ID, To, From, the CSeq number and the Route of the request cancelled,
        // one Via with its branch
        final ByteBuf out = shard.allocate(256 + MessageWriter.estimate(forwarded));
        final var b = shard.builder().startRequest(out, "CANCEL", forwarded.requestUriText())
            .header(HeaderName.VIA, via).header(HeaderName.MAX_FORWARDS, 70);
        for (int i = forwarded.headers().find(HeaderName.ROUTE, 0); i >= 0;
            i = forwarded.headers().find(HeaderName.ROUTE, i + 1))
        {
            b.header(HeaderName.ROUTE, forwarded.headers().value(i));
        }
        b.header(HeaderName.FROM, forwarded.getHeader("From"));
        b.header(HeaderName.TO, forwarded.getHeader("To"));
        b.header(HeaderName.CALL_ID, forwarded.getHeader("Call-ID"));
        b.header(HeaderName.CSEQ, forwarded.cseqNumber() + " CANCEL");
        b.end(null, 0, 0);
        shard.sendRequest(out, destination);
    }
}
