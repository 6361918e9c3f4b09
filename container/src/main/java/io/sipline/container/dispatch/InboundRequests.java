package io.sipline.container.dispatch;

import java.io.Serializable;
import java.net.InetSocketAddress;
import javax.servlet.sip.URI;
import javax.servlet.sip.ar.SipApplicationRouterInfo;
import javax.servlet.sip.ar.SipApplicationRoutingRegion;
import io.netty.buffer.ByteBuf;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.proxy.ProxyImpl;
import io.sipline.container.security.ApplicationSecurity;
import io.sipline.container.api.AckWait;
import io.sipline.container.api.ReliableProvisionals;
import io.sipline.container.api.RouterStates;
import io.sipline.container.api.SessionTable;
import io.sipline.container.api.SipApplicationSessionImpl;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.Transaction;

/**
 * The requests the stack receives for this shard (JSR 289 §15): a CANCEL (RFC 3261 §9.2), a subsequent request to its
 * dialog's session, an initial request (overload control refused it in the stack if it had to) through the
 * application router, servlet selection and the
 * application's security to new sessions; the ACK of a 2xx (§13.3.1.4) to its session.
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard, created with it). The stack's
 * message is borrowed for the call; what a servlet keeps is a {@link SipServletRequestImpl} made from it.
 */
final class InboundRequests
{
    private final ApplicationRegistry registry;
    private final StackShard shard;
    private final ShardAddresses addresses;
    private final ContainerIds ids;
    private final SessionTable sessions;
    private final ServletInvoker invoker;
    private final DirectAnswers answers;
    private final ApplicationComposition composition;
    private final ProxyDispatch proxies;
    private final UasResponses uas;
    private final ContainerShardImpl container;
    /** In-dialog requests of calls another node of the cluster left in the grid. */
    private final CallTakeover takeover;
    /** The router's answers as this shard's requests and sessions share them. */
    private final RouterStates routerStates = new RouterStates();
    /** Overload control, which the stack asks before a request makes a transaction; told of calls completed. */
    private final ShardAdmission admission;

    InboundRequests(final ContainerShardImpl container, final ApplicationRegistry registry,
        final ShardAddresses addresses, final ContainerIds ids, final ServletInvoker invoker,
        final DirectAnswers answers, final ApplicationComposition composition, final ProxyDispatch proxies,
        final UasResponses uas, final ShardAdmission admission)
    {
        this.container = container;
        this.registry = registry;
        this.shard = container.shard();
        this.addresses = addresses;
        this.ids = ids;
        this.sessions = container.sessions();
        this.invoker = invoker;
        this.answers = answers;
        this.composition = composition;
        this.proxies = proxies;
        this.uas = uas;
        this.admission = admission;
        this.takeover = new CallTakeover(registry, container, answers, this::redispatch);
    }

    /** A request of a call just taken over from another node ({@link CallTakeover}): a second miss is a 481. */
    private void redispatch(final ServerTransaction tx, final SipMessage request)
    {
        onSubsequent(tx, request, false);
    }

    /** Calls this node claimed when their owner left the grid, to be restored on this shard (shard only). */
    void adopt(final java.util.List<io.sipline.container.replication.ApplicationSnapshot> snapshots)
    {
        takeover.adopt(snapshots);
    }

    /** Application sessions this shard took over from other nodes (tests and metrics). */
    long takenOver()
    {
        return takeover.restored();
    }

    void onRequest(final ServerTransaction tx, final SipMessage request)
    {
        if (registry.isEmpty())
        {
            answers.noApplication(tx, request);
            return;
        }
        try
        {
            // A new request past overload control was refused by the stack before it made a transaction
            // (ShardAdmission, StatelessShedding): what comes here is served.
            if (SipMethod.CANCEL == request.method())
            {
                onCancel(tx, request);
            }
            else if (request.toTagStart() >= 0)
            {
                onSubsequent(tx, request, true);
            }
            else
            {
                onInitial(tx, request);
            }
        }
        catch (final RuntimeException e)
        {
            ShardLog.logOnce("dispatch:" + e.getClass().getName(), "dispatch failed on shard " + shard.index(), e);
            answers.answer(tx, request, 500, "Server Internal Error (" + e.getClass().getName() + ")");
        }
    }

    /**
     * An initial request (JSR 289 §15): the router's decision ({@link ApplicationComposition#route}), the servlet the
     * application's mapping selects, its security, then the application session (targeted, keyed or new) and a new
     * SIP session, and the servlet is invoked; 404 when no application or servlet takes it.
     */
    private void onInitial(final ServerTransaction tx, final SipMessage message)
    {
        final SipServletRequestImpl request = SipServletRequestImpl.received(message, tx, tx.peer(), addresses.local());
        request.initial(true);
        if (composition.route(tx, message, request))
        {
            return; // answered (a loop, the router failed) or sent out to the router's external route
        }
        final SipApplicationRouterInfo info = composition.decision();
        final SipApplicationSessionImpl targeted = composition.targeted();
        final RunningApplicationImpl app = null == info ? null : registry.application(info.getNextApplicationName());
        if (null == app)
        {
            answers.answer(tx, message, 404, "Not Found (no application for this request)");
            return;
        }
        final String servlet = app.deployed().descriptor().selectServlet(request);
        if (null == servlet || null == app.servlet(servlet))
        {
            answers.answer(tx, message, 404, "Not Found (no servlet of " + app.name() + " matches)");
            return;
        }
        if (!authorized(app, servlet, tx, message, request))
        {
            return;
        }
        final String key = null != targeted && targeted.isValid() ? null : app.applicationKey(request);
        SipApplicationSessionImpl appSession = null != targeted && targeted.isValid() ? targeted
            : null == key ? null : sessions.applicationByKey(app.name(), key);
        if (null == appSession || !appSession.isValid())
        {
            appSession = new SipApplicationSessionImpl(app, container, key);
        }
        final SipSessionImpl session = SipSessionImpl.forReceived(appSession, request, servlet);
        final URI subscriber = ApplicationComposition.subscriber(info.getSubscriberURI());
        final SipApplicationRoutingRegion region = info.getRoutingRegion();
        final Serializable state = info.getStateInfo();
        routerStates.route(request, session, region, subscriber, state);
        tx.attachment(request);
        session.begin(request);
        invoker.invoke(session, request, null);
    }

    /**
     * JSR 289 security (RFC 3261 §22): the application's security for the selected servlet. A request
     * that may not go on is answered here (401/407 with the challenges, 403, 400) without a session and the servlet
     * is skipped; otherwise the authenticated user, if any, is kept on the request.
     *
     * @return whether the servlet may run.
     */
    private boolean authorized(final RunningApplicationImpl app, final String servlet, final ServerTransaction tx,
        final SipMessage message, final SipServletRequestImpl request)
    {
        if (!app.security().guards(servlet, request.getMethod()))
        {
            return true; // no constraint: anonymous, and nothing of the request is read
        }
        final ApplicationSecurity.Verdict verdict = app.security().check(servlet, request.getMethod(),
            request.requestUriText(), name -> request.headers().getAll(name));
        if (verdict.proceed())
        {
            request.principal(verdict.principal());
            return true;
        }
        final ByteBuf out = shard.allocate(512 + message.length());
        final SipMessageBuilder builder = shard.builder().startResponse(out, message, verdict.status(),
            verdict.reasonPhrase(), ids.newTagOnShard());
        for (final String value : verdict.headerValues())
        {
            builder.header(verdict.headerName(), value);
        }
        builder.end(null, 0, 0);
        shard.respond(tx, out, verdict.status());
        return false;
    }

    /** @param mayTakeOver whether a request of no known session may be a call another node left in the grid. */
    private void onSubsequent(final ServerTransaction tx, final SipMessage message, final boolean mayTakeOver)
    {
        final long proxyKey = ProxyDispatch.proxyKeySpan(message);
        if (proxyKey >= 0 && proxies.proxySubsequent(tx, message, proxyKey))
        {
            return;
        }
        final SipSessionImpl session = sessions.dialog(message, false);
        if (null == session || !session.isValid())
        {
            if (!mayTakeOver || !takeover.missed(tx, message))
            {
                answers.answer(tx, message, 481, "Call/Transaction Does Not Exist");
            }
            return;
        }
        final int refusal = session.matchInDialog(message);
        if (0 != refusal)
        {
            // RFC 3261 §12.2.2: a request of another dialog with our tag gets 481; one whose CSeq is lower than the
            // dialog's remote CSeq is out of order and MUST be rejected with 500; no application sees either
            answers.answer(tx, message, refusal, 481 == refusal ? "Call/Transaction Does Not Exist"
                : "Server Internal Error (CSeq out of order)");
            return;
        }
        final AckWait pending = session.awaitingAck();
        if (SipMethod.BYE == message.method() && null != pending)
        {
            // RFC 3261 §15.1.2: the BYE ends the dialog our 2xx confirmed, and the caller's ACK may come after it
            // (it sends the two back to back; UDP keeps no order) or never. Retransmitting the 2xx of an ended
            // dialog until 64*T1 (§13.3.1.4) would only draw ACKs for nothing: it stops here, and a late ACK finds
            // no dialog and is discarded.
            pending.end(session);
        }
        final SipServletRequestImpl request = SipServletRequestImpl.received(message, tx, tx.peer(), addresses.local());
        if (SipMethod.PRACK == message.method() && !acknowledgesPending(session, request))
        {
            // RFC 3262 §3: "If a PRACK request is received by the UA core that does not match any unacknowledged
            // reliable provisional response, the UAS MUST respond to the PRACK with a 481 response."
            answers.answer(tx, message, 481, "Call/Transaction Does Not Exist (no reliable provisional response awaits "
                + "this RAck)");
            return;
        }
        request.session(session);
        tx.attachment(request);
        session.begin(request);
        invoker.invoke(session, request, null);
    }

    /**
     * RFC 3262 §3: whether a received PRACK's RAck names the session's pending reliable provisional response; if so
     * its retransmissions stop and it is acknowledged. The PRACK then goes to the servlet (doPrack), which answers
     * it (JSR 289 §5.7.1).
     */
    private static boolean acknowledgesPending(final SipSessionImpl session, final SipServletRequestImpl prack)
    {
        final ReliableProvisionals rel = session.reliableProvisionalsIfAny();
        if (null == rel || !rel.acknowledges(prack.headers().get(HeaderName.RACK)))
        {
            return false;
        }
        UasResponses.endReliable(session, rel.pending().requestImpl(), rel.pending());
        return true;
    }

    /**
     * RFC 3261 §9.2 and JSR 289 §11.2.3: 200 to the CANCEL, 487 to the INVITE if it has no final response yet, then
     * the CANCEL to the servlet; 481 when it matches no INVITE.
     */
    private void onCancel(final ServerTransaction tx, final SipMessage message)
    {
        final ServerTransaction inviteTx = tx.cancelledInvite();
        if (null != inviteTx && TransactionMark.ANSWERED_INVITE == inviteTx.attachment())
        {
            // §9.2: the INVITE has its final response and its call is over; the CANCEL has no effect but a 200,
            // with the To tag of that final response
            answers.answer(tx, message, 200, "OK", inviteTx.answeredToTag());
            return;
        }
        if (null != inviteTx && inviteTx.attachment() instanceof RoutedOut relay)
        {
            answers.answer(tx, message, 200, "OK"); // RFC 3261 §16.10
            relay.cancel(shard, addresses.via(relay.transport(), null == relay.branch() ? "" : relay.branch()),
                ids.newTagOnShard());
            return;
        }
        final SipServletRequestImpl invite = null == inviteTx ? null
            : inviteTx.attachment() instanceof SipServletRequestImpl r && r.transaction() == inviteTx ? r : null;
        if (null == invite)
        {
            answers.answer(tx, message, 481, "Call/Transaction Does Not Exist");
            return;
        }
        final SipSessionImpl session = invite.sessionImpl();
        if (invite.proxy() instanceof ProxyImpl proxy && proxy.isStarted())
        {
            // RFC 3261 §16.10: 200 to the CANCEL, the pending branches cancelled; their 487 goes upstream
            answers.answer(tx, message, 200, "OK");
            final SipServletRequestImpl cancel = SipServletRequestImpl.received(message, tx, tx.peer(),
                addresses.local());
            cancel.session(session);
            cancel.principal(invite.principal());
            invoker.invoke(session, cancel, null, proxy::cancelFromUpstream);
            return;
        }
        answers.answer(tx, message, 200, "OK", session.localTagForResponse());
        if (null != invite.finalResponse())
        {
            return;
        }
        final SipServletResponseImpl terminated = (SipServletResponseImpl)invite.createResponse(487);
        invite.finalResponse(terminated);
        terminated.markCommitted();
        invoker.enter(); // the session stays valid for doCancel: readiness is checked after it
        try
        {
            uas.send(terminated);
        }
        finally
        {
            invoker.exit();
        }
        final SipServletRequestImpl cancel = SipServletRequestImpl.received(message, tx, tx.peer(), addresses.local());
        cancel.session(session);
        cancel.principal(invite.principal()); // the CANCEL is never challenged: it has its INVITE's user
        invoker.invoke(session, cancel, null);
    }

    void onAck(final ServerTransaction tx, final SipMessage ack)
    {
        if (tx.attachment() instanceof SipServletRequestImpl invite && invite.transaction() == tx)
        {
            // the ACK of a 2xx sent in a forked dialog's UAS session (its own To tag) goes to that session
            final SipSessionImpl byTag = sessions.dialog(ack, false);
            deliverAck(null != byTag && byTag.isValid() ? byTag : invite.sessionImpl(), ack, tx);
        }
    }

    void onStatelessRequest(final SipMessage request, final InetSocketAddress source)
    {
        if (SipMethod.ACK != request.method() || request.toTagStart() < 0)
        {
            return;
        }
        final long proxyKey = ProxyDispatch.proxyKeySpan(request);
        if (proxyKey >= 0 && proxies.proxyAck(request, proxyKey, source))
        {
            completed();
            return;
        }
        final SipSessionImpl session = sessions.dialog(request, false);
        if (null != session && session.isValid())
        {
            deliverAck(session, request, null);
        }
    }

    /** The ACK of a 2xx (once per INVITE): stops the retransmissions and goes to the servlet's doAck. */
    private void deliverAck(final SipSessionImpl session, final SipMessage ack, final Transaction tx)
    {
        final AckWait pending = session.awaitingAck();
        if (null == pending || pending.cseq() != ack.cseqNumber())
        {
            return; // a retransmitted ACK, or one for no 2xx of ours
        }
        final SipServletRequestImpl invite = pending.request();
        pending.end(session); // pending is pooled again: read nothing of it after
        completed();
        final SipServletRequestImpl request = SipServletRequestImpl.received(ack, null, null, addresses.local());
        request.session(session);
        request.principal(invite.principal()); // the ACK is never challenged: it has its INVITE's user
        invoker.invoke(session, request, null);
    }

    /** A call completed (its 2xx acknowledged): the admission limit's measure of what the shard sustains. */
    private void completed()
    {
        if (null != admission)
        {
            admission.completed();
        }
    }
}
