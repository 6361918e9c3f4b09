package io.sipline.container.dispatch;

import java.io.IOException;
import java.net.InetSocketAddress;
import javax.servlet.sip.SipSession;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.proxy.ProxyBranchImpl;
import io.sipline.container.proxy.ProxyRelay;
import io.sipline.container.api.ReliableProvisionals;
import io.sipline.container.api.SessionTable;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.Transaction;
import io.sipline.sip.transport.tcp.TcpFlow;

/**
 * The responses the stack receives for this shard and the events of its client transactions: a response goes to its
 * request's session, or to the session derived for another dialog of a forked INVITE (JSR 289 §6.2.3.2); a
 * retransmitted 2xx gets its ACK again and a 2xx with no session left is ended ({@link StrayTwoHundreds}); Timer B or
 * F and a transport error give the request a response from the container (JSR 289 §11.1.4).
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard, created with it). The stack's
 * message is borrowed; what a servlet keeps is a {@link SipServletResponseImpl} made from it.
 */
final class InboundResponses
{
    private final ContainerShardImpl container;
    private final StackShard shard;
    private final ShardAddresses addresses;
    private final ContainerIds ids;
    private final SessionTable sessions;
    private final ServletInvoker invoker;
    private final OutboundRequests outbound;
    private final UasResponses uas;
    private final StrayTwoHundreds strays;
    private final ContainerShardImpl.Counters counters;

    InboundResponses(final ContainerShardImpl container, final ShardAddresses addresses, final ContainerIds ids,
        final ServletInvoker invoker, final OutboundRequests outbound, final UasResponses uas,
        final StrayTwoHundreds strays, final ContainerShardImpl.Counters counters)
    {
        this.container = container;
        this.shard = container.shard();
        this.addresses = addresses;
        this.ids = ids;
        this.sessions = container.sessions();
        this.invoker = invoker;
        this.outbound = outbound;
        this.uas = uas;
        this.strays = strays;
        this.counters = counters;
    }

    void onResponse(final ClientTransaction tx, final SipMessage response)
    {
        if (tx.attachment() instanceof RoutedOut routed)
        {
            routed.onResponse(shard, response, tx.peer(), addresses.local(),
                addresses.via(routed.transport(), routed.branch()));
            return;
        }
        if (tx.attachment() instanceof ProxyRelay relay)
        {
            if (relay.isOf(tx) && 100 != response.statusCode()) // 100 Trying is hop by hop
            {
                final SipServletRequestImpl request = relay.request();
                ProxyRelay.onResponse(container, request, SipServletResponseImpl.received(response, request, tx.peer(),
                    addresses.local()));
            }
            return;
        }
        if (!(tx.attachment() instanceof SipServletRequestImpl request) || request.transaction() != tx)
        {
            if (null == tx.attachment() && StrayTwoHundreds.isOurInvite2xx(response))
            {
                stray2xx(response, tx.peer()); // the INVITE was released: every session of its call ended
            }
            return;
        }
        final int status = response.statusCode();
        if ("CANCEL".equals(request.getMethod()))
        {
            return; // the 200 to a CANCEL stays with the container (JSR 289 §11.1.5)
        }
        if (SipMethod.INVITE == tx.method() && status >= 200 && status < 300 && null != request.last2xx()
            && null == request.proxyBranch() && isRetransmitted2xx(request, response, tx.peer()))
        {
            return;
        }
        if (100 == status)
        {
            request.provisionalReceived(true);
            outbound.sendPendingCancel(request);
            return; // 100 Trying is hop by hop: not given to applications
        }
        final SipServletResponseImpl r = SipServletResponseImpl.received(response, request, tx.peer(),
            addresses.local());
        deliverResponse(request, r);
    }

    void deliverResponse(final SipServletRequestImpl request, final SipServletResponseImpl response)
    {
        if (request.isRelayed())
        {
            ProxyRelay.onResponse(container, request, response); // the container's own 408 or 503 to a relayed request
            return;
        }
        final int status = response.getStatus();
        if (request.proxyBranch() instanceof ProxyBranchImpl branch)
        {
            if (status < 200)
            {
                request.provisionalReceived(true);
            }
            else if (null == request.finalResponse())
            {
                request.finalResponse(response);
            }
            branch.onResponse(response);
            outbound.sendPendingCancel(request);
            return;
        }
        final SipSessionImpl session = dialogOf(request, response, status);
        if (session != request.sessionImpl())
        {
            response.session(session); // JSR 289 §6.2.3.2: resp.getSession() is the derived session
        }
        if (request == session.containerBye())
        {
            session.onResponseReceived(response); // the container's own BYE: its response is not the servlet's
            uas.releaseIfDone(request, status);
            invoker.afterSend(session);
            return;
        }
        if (status < 200 && !acceptReliable(session, response))
        {
            request.provisionalReceived(true);
            outbound.sendPendingCancel(request);
            return; // RFC 3262 §4: a retransmitted or out-of-order reliable provisional response is not delivered
        }
        final boolean forked = session != request.sessionImpl();
        if (status < 200)
        {
            request.provisionalReceived(true);
        }
        else if (!forked) // a derived dialog's 2xx: the INVITE's final response and ACK stay the first dialog's
        {
            request.finalResponse(response);
            if (status < 300 && "INVITE".equals(request.getMethod()))
            {
                request.last2xx(response);
            }
            else if (status >= 300 && "INVITE".equals(request.getMethod()))
            {
                session.endEarlyForks(null); // RFC 3261 §13.2.2.3
            }
        }
        session.onResponseReceived(response);
        if (forked && status >= 200)
        {
            invoker.invoke(session, null, response, () -> endUnwantedDialog(session, response));
        }
        else
        {
            invoker.invoke(session, null, response);
        }
        outbound.sendPendingCancel(request);
        uas.releaseIfDone(request, status);
    }

    /**
     * The session of a response's dialog. A tagged 1xx or a 2xx to a UAC session's initial INVITE whose To tag is not
     * the session's dialog (a proxy downstream forked it: RFC 3261 §12.1.2, §13.2.2.4) goes to the session derived
     * for that tag (JSR 289 §6.2.3.2), made on its first response; while the session has no confirmed dialog yet, a
     * 2xx confirms the session's own (its early dialog, if it had another tag, is dropped), so an application that
     * linked the session sees the answered call in it. Any other response goes to its request's session.
     */
    private static SipSessionImpl dialogOf(final SipServletRequestImpl request, final SipServletResponseImpl response,
        final int status)
    {
        final SipSessionImpl session = request.sessionImpl();
        if (status <= 100 || status >= 300 || request != session.original() || request.isIncoming()
            || !session.hasRemoteTag() || !session.isValid() || !"INVITE".equals(request.getMethod()))
        {
            return session;
        }
        if (status >= 200 && SipSession.State.CONFIRMED != session.getState())
        {
            if (session.hasForks())
            {
                session.endEarlyForks(response.toTag()); // that early dialog is confirmed as the session's own
            }
            return session;
        }
        final String tag = response.toTag();
        if (null == tag || tag.equals(session.remoteTag()))
        {
            return session;
        }
        final SipSessionImpl known = session.dialogFor(tag);
        return null != known ? known : session.derive(response);
    }

    /**
     * The safety net for a forked 2xx (RFC 3261 §13.2.2.4: "The UAC core MUST generate an ACK request for each 2xx
     * received from the transaction layer"; a UAC that does not want the dialog sends BYE after the ACK): JSR 289
     * §6.2.3.2 gives the 2xx to the application in its derived session and leaves the ACK to it, as for any 2xx. If
     * the servlet call returned (for an application on virtual threads: its call ended) and the application neither
     * created the ACK ({@code createAck}) nor relayed the 2xx upstream ({@code createResponseToOriginalRequest} on the
     * derived session, where the ACK follows the caller's), the container takes that as the application not wanting
     * the dialog (JSR 289 names no later moment, and the far end retransmits the 2xx meanwhile, RFC 3261
     * §13.3.1.4): it ACKs the 2xx and ends the dialog with a BYE, whose response stays with the container. An
     * application that wants to decide later ACKs first. Logged once per application.
     */
    private void endUnwantedDialog(final SipSessionImpl session, final SipServletResponseImpl ok)
    {
        if (ok.getStatus() >= 300 || !"INVITE".equals(ok.getMethod()) || ok.isCommitted() || session.isRelayed()
            || !session.isValid() || SipSession.State.CONFIRMED != session.getState())
        {
            return;
        }
        ShardLog.logOnce("forked-2xx:" + session.appSession().getApplicationName(), "application "
            + session.appSession().getApplicationName() + " neither acknowledged nor relayed the 2xx of a forked "
            + "dialog (To tag " + session.remoteTag() + "); the container sends its ACK and a BYE (RFC 3261 "
            + "§13.2.2.4)", null);
        try
        {
            ok.createAck().send();
            final SipServletRequestImpl bye = (SipServletRequestImpl)session.createRequest("BYE");
            session.containerBye(bye);
            bye.send();
        }
        catch (final IOException | RuntimeException e)
        {
            ShardLog.logOnce("forked-2xx-bye", "ending a forked dialog failed", e);
        }
    }

    /**
     * RFC 3262 §4 for a received 1xx (UAC): one with Require 100rel and an RSeq is reliable; it is delivered when it is
     * the first of its early dialog or one higher than the last, absorbed when it repeats an RSeq already seen, and
     * discarded when out of order. Any other 1xx is delivered as it is.
     *
     * @return whether the response goes to the application.
     */
    private static boolean acceptReliable(final SipSessionImpl session, final SipServletResponseImpl response)
    {
        if (!response.requires100rel())
        {
            return true;
        }
        final long rseq = ReliableProvisionals.parseRseq(response.getHeader("RSeq"));
        if (rseq < 0)
        {
            ShardLog.logOnce("rseq-missing", "a 1xx with Require: 100rel has no valid RSeq; delivered as unreliable ("
                + response + ")", null);
            return true;
        }
        response.markReliable(rseq);
        return ReliableProvisionals.Verdict.DELIVER == session.reliableProvisionals().received(response,
            response.toTag());
    }

    /**
     * Whether a 2xx to an INVITE that already had one is a retransmission of a dialog's 2xx (RFC 3261 §13.2.2.4):
     * of the first dialog, or of a derived one (JSR 289 §6.2.3.2) that already had its 2xx; the ACK goes again when
     * one was sent. False for the first 2xx of another dialog, which is delivered.
     */
    private boolean isRetransmitted2xx(final SipServletRequestImpl invite, final SipMessage response,
        final InetSocketAddress source)
    {
        final String tag = response.toTag();
        if (null == tag || tag.equals(invite.last2xx().toTag()))
        {
            outbound.resendAck(invite.ack());
            return true;
        }
        final SipSessionImpl invited = invite.sessionImpl();
        final SipSessionImpl head = sessions.dialog(invited.callId(), invited.localTagChars());
        final SipSessionImpl dialog = null == head ? null : head.dialogFor(tag);
        if (null != dialog && null != dialog.derived2xx())
        {
            outbound.resendAck(dialog.derivedAck());
            return true;
        }
        if (null == head && StrayTwoHundreds.isOurInvite2xx(response))
        {
            stray2xx(response, source); // the call is over: nothing takes a new dialog
        }
        return null == head;
    }

    /**
     * A 2xx of our INVITE with no session left for it: ACKed, its dialog ended with BYE ({@link StrayTwoHundreds}).
     *
     * @param source where it came from (a {@link TcpFlow} over a connection).
     */
    private void stray2xx(final SipMessage response, final InetSocketAddress source)
    {
        if (strays.end(response, source))
        {
            counters.stray2xx.incrementAndGet();
            ShardLog.logOnce("stray-2xx", "a 2xx to an INVITE arrived after every session of its call had ended; "
                + "the container ACKs it and ends its dialog with a BYE (RFC 3261 §13.2.2.4); counted in stray2xx",
                null);
        }
    }

    void onStatelessResponse(final SipMessage response, final InetSocketAddress source)
    {
        if (SipMethod.INVITE != response.cseqMethod() || response.statusCode() < 200 || response.statusCode() >= 300)
        {
            return;
        }
        final SipSessionImpl session = sessions.dialog(response, true);
        if (null == session && StrayTwoHundreds.isOurInvite2xx(response))
        {
            stray2xx(response, source); // after Timer M, with no session of the call left
            return;
        }
        final SipServletRequestImpl invite = null == session ? null : session.original();
        if (null == invite || invite.isIncoming() || null == invite.last2xx())
        {
            return;
        }
        final String tag = response.toTag();
        if (null == tag || tag.equals(invite.last2xx().toTag()))
        {
            outbound.resendAck(invite.ack());
        }
        else if (tag.equals(session.remoteTag()) && null != session.derived2xx())
        {
            outbound.resendAck(session.derivedAck());
        }
    }

    /** Timer B or F: the request gets a 408 from the container (JSR 289 §11.1.4). */
    void onTimeout(final Transaction tx)
    {
        if (tx.isClient() && tx.attachment() instanceof RoutedOut routed)
        {
            routed.fail(shard, 408, "Request Timeout", ids.newTagOnShard()); // RFC 3261 §16.8
            return;
        }
        if (tx.attachment() instanceof ProxyRelay relay && relay.isOf(tx))
        {
            outbound.failRequest(relay.request(), 408, "Request Timeout");
            return;
        }
        if (tx.isClient() && tx.attachment() instanceof SipServletRequestImpl request && request.transaction() == tx
            && null == request.finalResponse() && !"CANCEL".equals(request.getMethod()))
        {
            outbound.failRequest(request, 408, "Request Timeout");
        }
    }

    void onTransportError(final Transaction tx)
    {
        if (tx.isClient() && tx.attachment() instanceof RoutedOut routed)
        {
            routed.fail(shard, 500, "Server Internal Error (transport error towards the next hop)",
                ids.newTagOnShard());
            return; // RFC 3261 §16.9: a 503 of the branch, which §16.7 step 6 sends on as 500
        }
        if (tx.attachment() instanceof ProxyRelay relay && relay.isOf(tx))
        {
            outbound.failRequest(relay.request(), 503, "Service Unavailable (transport error)");
            return;
        }
        if (tx.isClient() && tx.attachment() instanceof SipServletRequestImpl request && request.transaction() == tx
            && null == request.finalResponse() && !"CANCEL".equals(request.getMethod()))
        {
            outbound.failRequest(request, 503, "Service Unavailable (transport error)");
        }
    }

    void onTerminated(final Transaction tx)
    {
        if (tx.attachment() instanceof SipServletRequestImpl request && request.transaction() == tx
            && request.isIncoming() && null == request.finalResponse() && null != request.sessionImpl())
        {
            request.sessionImpl().end(request); // the server transaction ended without a final response
            request.sessionImpl().appSession().checkReady();
        }
        else if (tx.attachment() instanceof SipServletRequestImpl request && request.transaction() == tx
            && SipMethod.INVITE == tx.method() && null != request.sessionImpl())
        {
            if (!request.isIncoming())
            {
                endEarlyDialogs(request.sessionImpl());
            }
            request.sessionImpl().settle(request);
        }
        tx.attachment(null);
    }

    /**
     * RFC 3261 §13.2.2.4: the INVITE client transaction of a UAC session ended (64*T1 after its first 2xx); "all the
     * early dialogs that have not transitioned to established dialogs are terminated": the derived sessions still
     * EARLY end, and so does the session that took over the table's entry from the INVITE's session (which ended
     * first) if it is still EARLY.
     */
    private void endEarlyDialogs(final SipSessionImpl session)
    {
        final SipSessionImpl head = session.isValid() ? session : sessions.dialog(session.callId(),
            session.localTagChars());
        if (null == head || !head.isValid())
        {
            return;
        }
        boolean ended = head.endEarlyForks(null);
        if (head != session && SipSession.State.EARLY == head.getState())
        {
            head.terminate();
            ended = true;
        }
        if (ended)
        {
            head.appSession().checkReady();
        }
    }
}
