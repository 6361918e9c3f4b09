package io.sipline.sip.stack.demo;

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
 * A stack-level UAC for tests and the bench: each shard places its share of {@code calls} calls to {@code target}
 * at its share of {@code ratePerSecond}, paced on the shard's tick: INVITE (client transaction; Via branch, From tag
 * and Call-ID from the shard's {@link io.sipline.sip.shard.ShardIds}, so every answer routes back to this shard),
 * then on the 2xx an ACK (stateless, one per 2xx received, RFC 3261 §13.2.2.4 / RFC 6026) and a BYE (client
 * transaction); a call completes on the BYE's final response.
 *
 * <p>One instance per shard; runs on that shard only. Call records come from a per-shard array and are found
 * through the client transaction's attachment. Totals are stack-wide {@link AtomicLong}s.
 */
public final class DemoUac implements SipListener
{
    /** Stack-wide counts; any thread. */
    public static final class Stats
    {
        public final AtomicLong started = new AtomicLong();
        public final AtomicLong answered = new AtomicLong();
        public final AtomicLong completed = new AtomicLong();
        public final AtomicLong failed = new AtomicLong();
    }

    private final Stats stats;
    private final InetSocketAddress target;
    private final int calls;
    private final double ratePerNs;
    private final StringBuilder uri = new StringBuilder(64);
    private final StringBuilder via = new StringBuilder(96);
    private final StringBuilder from = new StringBuilder(96);
    private final StringBuilder callId = new StringBuilder(64);
    private final StringBuilder contact = new StringBuilder(64);
    private String viaPrefix;
    private int placed;
    private long startNs;
    private Call[] records = new Call[64];
    private int recordCount;

    private DemoUac(final StackShard shard, final Stats stats, final InetSocketAddress target, final int calls,
        final double ratePerSecond)
    {
        this.stats = stats;
        this.target = target;
        final int n = shard.stack().config().shards();
        final int k = shard.index();
        this.calls = calls / n + (k < calls % n ? 1 : 0);
        this.ratePerNs = ratePerSecond / n / 1e9;
    }

    /** One UAC per shard; {@code calls} and {@code ratePerSecond} are totals over the shards. */
    public static SipListener.Factory factory(final Stats stats, final InetSocketAddress target, final int calls,
        final double ratePerSecond)
    {
        return shard -> new DemoUac(shard, stats, target, calls, ratePerSecond);
    }

    @Override
    public void onTick(final StackShard shard, final long nowNs)
    {
        if (placed >= calls)
        {
            return;
        }
        if (null == viaPrefix)
        {
            final InetSocketAddress local = shard.stack().localAddresses().get(0);
            final String host = local.getAddress().getHostAddress() + ':' + local.getPort();
            viaPrefix = "SIP/2.0/UDP " + host + ";rport;branch=";
            contact.append("<sip:uac@").append(host).append('>');
            uri.append("sip:service@").append(target.getAddress().getHostAddress()).append(':')
                .append(target.getPort());
            startNs = nowNs;
        }
        final long due = Math.min(calls, 1 + (long)((nowNs - startNs) * ratePerNs));
        while (placed < due)
        {
            placed++;
            invite(shard);
        }
    }

    private void invite(final StackShard shard)
    {
        via.setLength(0);
        shard.ids().appendBranch(via.append(viaPrefix));
        from.setLength(0);
        shard.ids().appendId(from.append(contact).append(";tag="));
        callId.setLength(0);
        shard.ids().appendId(callId).append("@sipline");
        final ByteBuf out = shard.allocate(512);
        shard.builder().startRequest(out, "INVITE", uri)
            .header(HeaderName.VIA, via)
            .header(HeaderName.MAX_FORWARDS, 70)
            .header(HeaderName.FROM, from)
            .header(HeaderName.TO, uri)
            .header(HeaderName.CALL_ID, callId)
            .header(HeaderName.CSEQ, "1 INVITE")
            .header(HeaderName.CONTACT, contact)
            .end(null, 0, 0);
        final ClientTransaction tx = shard.sendRequest(out, target);
        if (null == tx)
        {
            stats.failed.incrementAndGet();
            return;
        }
        stats.started.incrementAndGet();
        final Call c = acquire();
        c.byeSent = false;
        c.txId = tx.id();
        tx.attachment(c);
    }

    @Override
    public void onResponse(final StackShard shard, final ClientTransaction tx, final SipMessage response)
    {
        final int status = response.statusCode();
        if (status < 200)
        {
            return;
        }
        final Call c = tx.attachment() instanceof Call call && call.txId == tx.id() ? call : null;
        if (tx.method() == SipMethod.INVITE)
        {
            if (status >= 300)
            {
                stats.failed.incrementAndGet(); // the transaction ACKs a non-2xx itself (§17.1.1.3)
                return;
            }
            sendInDialog(shard, response, "ACK", 1, false); // every 2xx gets its ACK (RFC 6026 §8.4)
            if (null != c && !c.byeSent)
            {
                c.byeSent = true;
                stats.answered.incrementAndGet();
                sendInDialog(shard, response, "BYE", 2, true);
            }
        }
        else if (tx.method() == SipMethod.BYE)
        {
            if (status < 300)
            {
                stats.completed.incrementAndGet();
            }
            else
            {
                stats.failed.incrementAndGet();
            }
        }
    }

    /** ACK or BYE inside the dialog of the 2xx (RFC 3261 §12.2.1.1). */
    private void sendInDialog(final StackShard shard, final SipMessage ok, final String method, final long cseq,
        final boolean stateful)
    {
        via.setLength(0);
        shard.ids().appendBranch(via.append(viaPrefix));
        final ByteBuf out = shard.allocate(512);
        shard.builder().startRequestInDialog(out, ok, method, cseq, via).end(null, 0, 0);
        if (stateful)
        {
            if (null == shard.sendRequest(out, target))
            {
                stats.failed.incrementAndGet();
            }
        }
        else
        {
            shard.sendStateless(out, target);
        }
    }

    @Override
    public void onTimeout(final StackShard shard, final Transaction tx, final char timer)
    {
        stats.failed.incrementAndGet();
    }

    @Override
    public void onTransportError(final StackShard shard, final Transaction tx)
    {
        stats.failed.incrementAndGet();
    }

    @Override
    public void onTerminated(final StackShard shard, final Transaction tx)
    {
        if (tx.attachment() instanceof Call c)
        {
            release(c);
            tx.attachment(null);
        }
    }

    @Override
    public void onRequest(final StackShard shard, final ServerTransaction tx, final SipMessage request)
    {
        final ByteBuf out = shard.allocate(256 + request.length());
        shard.builder().startResponse(out, request, 200, "OK", null, tx.peer()).end(null, 0, 0);
        shard.respond(tx, out, 200);
    }

    private Call acquire()
    {
        for (int i = 0; i < recordCount; i++)
        {
            if (!records[i].inUse)
            {
                records[i].inUse = true;
                return records[i];
            }
        }
        if (recordCount == records.length)
        {
            records = java.util.Arrays.copyOf(records, 2 * recordCount);
        }
        final Call c = new Call();
        c.inUse = true;
        records[recordCount++] = c;
        return c;
    }

    private static void release(final Call c)
    {
        c.inUse = false;
    }

    /** One call in progress. */
    private static final class Call implements TransactionAttachment
    {
        boolean inUse;
        boolean byeSent;
        long txId;
    }
}
