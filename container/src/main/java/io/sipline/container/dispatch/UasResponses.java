package io.sipline.container.dispatch;

import java.net.InetSocketAddress;
import io.netty.buffer.ByteBuf;
import io.sipline.container.api.MessageWriter;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.api.ReliableProvisionals;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.collection.RecentFreeList;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.Transaction;
import io.sipline.sip.transport.tcp.TcpFlow;

/**
 * The responses the container sends (RFC 3261 §17.2): on their server transaction, or statelessly for a proxied 2xx
 * once it ended (RFC 6026 §8.4); a UAS's 2xx to INVITE and reliable 1xx are retransmitted by the container
 * ({@link OkRetransmission}, {@link ReliableRetransmission}); and the release of a request the transaction no longer
 * needs to hold.
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard, created with it). A response is
 * borrowed; its bytes are written into a buffer handed to the stack, of which a retransmission keeps one reference.
 */
final class UasResponses
{
    /** At most this many ended 2xx retransmissions are kept: the ACKs of a burst's calls come within a few ms. */
    private static final int POOLED_OKS = 256;
    /** Ended 2xx retransmissions kept whatever the recent use (a trim lets go of the rest). */
    private static final int MIN_KEPT_OKS = 16;

    private final StackShard shard;
    private final ShardAddresses addresses;
    private final ServletInvoker invoker;
    private final TimerSlots timers;
    /** Ended 2xx retransmissions kept for reuse, as many as recent use needs ({@link #trim}). */
    private final RecentFreeList<OkRetransmission> freeOks = new RecentFreeList<>(POOLED_OKS, MIN_KEPT_OKS);

    UasResponses(final StackShard shard, final ShardAddresses addresses, final ServletInvoker invoker,
        final TimerSlots timers)
    {
        this.shard = shard;
        this.addresses = addresses;
        this.invoker = invoker;
        this.timers = timers;
    }

    StackShard shard()
    {
        return shard;
    }

    TimerSlots timers()
    {
        return timers;
    }

    ServletInvoker invoker()
    {
        return invoker;
    }

    void send(final SipServletResponseImpl response)
    {
        final SipServletRequestImpl request = response.requestImpl();
        final SipSessionImpl session = response.sessionImpl();
        final Transaction t = request.transaction();
        if (response.isForwarded() && !(t instanceof ServerTransaction))
        {
            forwardStateless(response); // a 2xx retransmission after the server transaction ended (RFC 6026 §8.4)
            session.onResponseSent(response);
            return;
        }
        if (!(t instanceof ServerTransaction tx))
        {
            ShardLog.logOnce("late-response", "a response was sent after its transaction ended; it is dropped ("
                + response + ")", null);
            endReliable(session, request, response.getStatus() >= 200 ? null : response);
            session.onResponseSent(response);
            invoker.afterSend(session);
            return;
        }
        final int status = response.getStatus();
        if (status > 100)
        {
            session.register();
        }
        if (status >= 200 && !response.isForwarded())
        {
            endReliable(session, request, null); // RFC 3262 §3: a final response ends the retransmissions
        }
        if (tx.peer() instanceof TcpFlow flow && !response.isForwarded())
        {
            // §12.1.1: the caller's requests come back the same way
            addresses.ownContact(response, addresses.transportOf(flow));
        }
        final ByteBuf out = shard.allocate(MessageWriter.estimate(response));
        MessageWriter.writeResponse(out, response);
        response.addresses(tx.peer(), null);
        final boolean inviteOk = status >= 200 && status < 300 && SipMethod.INVITE == tx.method();
        if (response.isForwarded())
        {
            // a proxy relays what its branch received; the UAS retransmits its own 2xx (RFC 3261 §16.7 step 5)
            if (!shard.respond(tx, out, status) && inviteOk)
            {
                forwardStateless(response);
            }
            session.onResponseSent(response);
            releaseIfDone(request, status);
            invoker.afterSend(session);
            return;
        }
        final boolean reliable = response.rseq() > 0 && status < 200;
        final ByteBuf keep = inviteOk || reliable ? out.retainedDuplicate() : null;
        if (!shard.respond(tx, out, status))
        {
            if (null != keep)
            {
                keep.release();
            }
            if (reliable)
            {
                endReliable(session, request, response);
            }
        }
        else if (reliable)
        {
            new ReliableRetransmission(this, tx, keep, request, response).start();
        }
        else if (null != keep)
        {
            okRetransmission(tx, keep, request, response).start();
        }
        session.onResponseSent(response);
        releaseIfDone(request, status);
        invoker.afterSend(session);
    }

    /** A 2xx retransmission for {@code ok}: a pooled one when there is one. */
    OkRetransmission okRetransmission(final ServerTransaction tx, final ByteBuf ok,
        final SipServletRequestImpl request, final SipServletResponseImpl response)
    {
        final OkRetransmission r = freeOks.take();
        if (null == r)
        {
            return new OkRetransmission(this, tx, ok, request, response);
        }
        r.reuse(tx, ok, request, response);
        return r;
    }

    /** An ended 2xx retransmission, kept for the next 2xx while the pool has room. */
    void recycle(final OkRetransmission ended)
    {
        freeOks.give(ended);
    }

    /** Once a second, from the shard's tick: lets go of the ended 2xx retransmissions a burst left. */
    void trim(final long nowNs)
    {
        freeOks.trim(nowNs);
    }

    /**
     * A non-INVITE transaction needs nothing of the container after its final response: a retransmitted request gets
     * the response again from the stack, a retransmitted response is absorbed (RFC 3261 §17.1.2.2, §17.2.2), so it
     * lets go of the request at once rather than holding it, its responses and its session for Timer J or K.
     */
    void releaseIfDone(final SipServletRequestImpl request, final int status)
    {
        if (status >= 200 && !"INVITE".equals(request.getMethod()))
        {
            release(request);
        }
    }

    void release(final SipServletRequestImpl request)
    {
        final Transaction tx = request.transaction();
        if (null == tx || tx.attachment() != request)
        {
            return;
        }
        final SipServletResponseImpl answer = request.finalResponse();
        if (!(tx instanceof ServerTransaction server) || SipMethod.INVITE != tx.method() || null == answer)
        {
            tx.attachment(null);
            return;
        }
        final SipSessionImpl session = request.sessionImpl();
        // our own UAS answered with the session's local tag (text it has); a proxy relayed the callee's
        final CharSequence toTag = null != session && null == session.proxy() && null != session.localTagChars()
            ? session.localTagChars() : answer.toTag();
        server.answeredToTag(toTag);
        tx.attachment(TransactionMark.ANSWERED_INVITE);
    }

    /**
     * Ends the wait for a PRACK of a reliable provisional response to {@code request} (RFC 3262 §3): its
     * retransmissions stop and it is no longer pending. With {@code only}, only when that response is the pending
     * one.
     */
    static void endReliable(final SipSessionImpl session, final SipServletRequestImpl request,
        final SipServletResponseImpl only)
    {
        final ReliableProvisionals rel = session.reliableProvisionalsIfAny();
        final SipServletResponseImpl pending = null == rel ? null : rel.pending();
        if (null == pending || pending.requestImpl() != request || (null != only && pending != only))
        {
            return;
        }
        if (null != rel.retransmission())
        {
            rel.retransmission().stop();
        }
        rel.retransmission(null);
        rel.pending(null);
    }

    /** A forwarded response sent without its transaction, where the request came from (RFC 3261 §18.2.2). */
    private void forwardStateless(final SipServletResponseImpl response)
    {
        final InetSocketAddress to = response.requestImpl().remoteAddress();
        if (null == to)
        {
            return;
        }
        final ByteBuf out = shard.allocate(MessageWriter.estimate(response));
        MessageWriter.writeResponse(out, response);
        shard.sendStateless(out, to);
    }
}
