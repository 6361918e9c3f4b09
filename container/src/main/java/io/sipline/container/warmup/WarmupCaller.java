package io.sipline.container.warmup;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.stack.SipListener;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.Transaction;
import io.sipline.sip.transaction.TransactionAttachment;

/**
 * The callers of the {@link Warmup}, on a stack of their own: each shard places its share of the calls at its share
 * of the rate, paced on the shard's tick. A call is an INVITE (client transaction), on its 2xx the ACK (stateless,
 * one per 2xx received, RFC 3261 §13.2.2.4 and RFC 6026 §8.4) and a BYE (client transaction); it ends with the BYE's
 * final response. Branches, From tags and Call-IDs come from the shard's identifiers, so every answer routes back to
 * the shard that placed the call.
 *
 * <p>Threading: one instance per shard, used on that shard only; the totals are stack-wide atomics.
 */
final class WarmupCaller implements SipListener
{
    /** Marks an INVITE transaction whose first 2xx was answered with a BYE already. */
    private static final TransactionAttachment HUNG_UP = new TransactionAttachment()
    {
    };

    /** Stack-wide counts of the calls; any thread. */
    static final class Totals
    {
        final AtomicLong completed = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final AtomicLong failed = new AtomicLong();

        /** Calls that ended, whichever way. */
        long ended()
        {
            return completed.get() + refused.get() + failed.get();
        }
    }

    private final Totals totals;
    private final InetSocketAddress target;
    private final int calls;
    private final double callsPerNs;
    private final StringBuilder requestUri = new StringBuilder(64);
    private final StringBuilder via = new StringBuilder(96);
    private final StringBuilder fromValue = new StringBuilder(96);
    private final StringBuilder callIdValue = new StringBuilder(64);
    private final StringBuilder contactValue = new StringBuilder(64);
    private String viaStart;
    private int sent;
    private long firstTickNs;

    private WarmupCaller(final StackShard shard, final Totals totals, final InetSocketAddress target, final int calls,
        final double perSecond)
    {
        this.totals = totals;
        this.target = target;
        final int shards = shard.stack().config().shards();
        this.calls = calls / shards + (shard.index() < calls % shards ? 1 : 0);
        this.callsPerNs = perSecond / shards / 1e9;
    }

    /** One caller per shard; {@code calls} and {@code perSecond} are totals over the shards. */
    static SipListener.Factory factory(final Totals totals, final InetSocketAddress target, final int calls,
        final double perSecond)
    {
        return shard -> new WarmupCaller(shard, totals, target, calls, perSecond);
    }

    @Override
    public void onTick(final StackShard shard, final long nowNs)
    {
        if (sent == calls)
        {
            return;
        }
        if (null == viaStart)
        {
            final InetSocketAddress local = shard.stack().localAddresses().getFirst();
            final String hostPort = local.getAddress().getHostAddress() + ':' + local.getPort();
            viaStart = "SIP/2.0/UDP " + hostPort + ";rport;branch=";
            contactValue.append("<sip:warmup-caller@").append(hostPort).append('>');
            requestUri.append("sip:warmup@").append(target.getAddress().getHostAddress()).append(':')
                .append(target.getPort());
            firstTickNs = nowNs;
        }
        final long due = Math.min(calls, 1 + (long)((nowNs - firstTickNs) * callsPerNs));
        for (; sent < due; sent++)
        {
            if (null == shard.sendRequest(invite(shard), target))
            {
                totals.failed.incrementAndGet();
            }
        }
    }

    @Override
    public void onResponse(final StackShard shard, final ClientTransaction tx, final SipMessage response)
    {
        final int status = response.statusCode();
        if (status < 200)
        {
            return;
        }
        final boolean invite = tx.method() == SipMethod.INVITE;
        if (status >= 300)
        {
            // the transaction ACKs a non-2xx itself (§17.1.1.3)
            (503 == status ? totals.refused : totals.failed).incrementAndGet();
        }
        else if (!invite)
        {
            totals.completed.incrementAndGet();
        }
        else
        {
            shard.sendStateless(inDialog(shard, "ACK", 1, response), target);
            if (tx.attachment() != HUNG_UP)
            {
                tx.attachment(HUNG_UP); // a retransmitted 2xx gets its ACK, not a second BYE
                if (null == shard.sendRequest(inDialog(shard, "BYE", 2, response), target))
                {
                    totals.failed.incrementAndGet();
                }
            }
        }
    }

    /** A new call's INVITE. */
    private ByteBuf invite(final StackShard shard)
    {
        nextVia(shard);
        fromValue.setLength(0);
        shard.ids().appendId(fromValue.append(contactValue).append(";tag="));
        callIdValue.setLength(0);
        shard.ids().appendId(callIdValue).append("@sipline");
        final ByteBuf out = shard.allocate(512);
        shard.builder().startRequest(out, "INVITE", requestUri).header(HeaderName.VIA, via)
            .header(HeaderName.MAX_FORWARDS, 70).header(HeaderName.FROM, fromValue).header(HeaderName.TO, requestUri)
            .header(HeaderName.CALL_ID, callIdValue).header(HeaderName.CSEQ, "1 INVITE")
            .header(HeaderName.CONTACT, contactValue).end(null, 0, 0);
        return out;
    }

    /** A request inside the dialog of that 2xx (RFC 3261 §12.2.1.1). */
    private ByteBuf inDialog(final StackShard shard, final String method, final long cseq, final SipMessage answer)
    {
        nextVia(shard);
        final ByteBuf out = shard.allocate(512);
        shard.builder().startRequestInDialog(out, answer, method, cseq, via).end(null, 0, 0);
        return out;
    }

    private void nextVia(final StackShard shard)
    {
        via.setLength(0);
        shard.ids().appendBranch(via.append(viaStart));
    }

    @Override
    public void onTimeout(final StackShard shard, final Transaction tx, final char timer)
    {
        totals.failed.incrementAndGet();
    }

    @Override
    public void onTransportError(final StackShard shard, final Transaction tx)
    {
        totals.failed.incrementAndGet();
    }

    @Override
    public void onTerminated(final StackShard shard, final Transaction tx)
    {
        tx.attachment(null);
    }

    @Override
    public void onRequest(final StackShard shard, final ServerTransaction tx, final SipMessage request)
    {
        final ByteBuf out = shard.allocate(256 + request.length());
        shard.builder().startResponse(out, request, 200, "OK", null, tx.peer()).end(null, 0, 0);
        shard.respond(tx, out, 200);
    }
}
