package io.sipline.sip.stack.demo;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.dialog.Dialog;
import io.sipline.sip.dialog.InDialogResult;
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
 * A stack-level UAS for tests and the bench: INVITE gets 100 (from the transaction layer), 180 and 200 with a To tag
 * from the shard's id generator, and a confirmed dialog; the 200 is retransmitted by this UAS core until the ACK
 * (RFC 3261 §13.3.1.4, T1 doubling to T2, given up after 64*T1); BYE inside a dialog gets 200 and ends it (§15.1.2),
 * 481 outside one (§12.2.2); OPTIONS and anything else get 200, statefully (one server transaction each).
 *
 * <p>One instance per shard ({@link #factory}); runs on that shard only. Pending 200s live in a per-shard pool of
 * records found through the transaction's attachment and the timer payload; each holds one reference to its 200
 * (a retained duplicate), released on ACK, on give-up, on the transaction's end or at stop. Totals are stack-wide
 * {@link AtomicLong}s (one increment per transaction; fine for a demo).
 */
public final class DemoUas implements SipListener
{
    /** Stack-wide counts; any thread. */
    public static final class Stats
    {
        public final AtomicLong invites = new AtomicLong();
        public final AtomicLong acks = new AtomicLong();
        public final AtomicLong byes = new AtomicLong();
        public final AtomicLong others = new AtomicLong();
        public final AtomicLong okRetransmissions = new AtomicLong();
    }

    private final Stats stats;
    private final StringBuilder tag = new StringBuilder(32);
    private final StringBuilder contact = new StringBuilder(64);
    private Pending[] pending = new Pending[64];
    private int pendingCount;
    private Pending[] free = new Pending[64];
    private int freeCount;

    private DemoUas(final Stats stats)
    {
        this.stats = stats;
    }

    /** One UAS per shard, all counting into {@code stats}. */
    public static SipListener.Factory factory(final Stats stats)
    {
        return shard -> new DemoUas(stats);
    }

    @Override
    public void onRequest(final StackShard shard, final ServerTransaction tx, final SipMessage request)
    {
        final SipMethod method = request.method();
        if (method == SipMethod.INVITE)
        {
            stats.invites.incrementAndGet();
            onInvite(shard, tx, request);
        }
        else if (method == SipMethod.BYE)
        {
            stats.byes.incrementAndGet();
            final InDialogResult r = shard.dialogs().onRequest(request);
            final Dialog d = shard.dialogs().matched();
            final int status = r == InDialogResult.OK ? 200 : r == InDialogResult.OUT_OF_ORDER ? 500 : 481;
            respond(shard, tx, request, status, null, false);
            if (200 == status && null != d)
            {
                shard.dialogs().onUasResponse(d, request, 200);
            }
        }
        else
        {
            stats.others.incrementAndGet();
            respond(shard, tx, request, 200, null, false);
        }
    }

    private void onInvite(final StackShard shard, final ServerTransaction tx, final SipMessage request)
    {
        if (0 == contact.length())
        {
            final InetSocketAddress local = shard.stack().localAddresses().get(0);
            contact.append("<sip:sipline@").append(local.getAddress().getHostAddress()).append(':')
                .append(local.getPort()).append('>');
        }
        tag.setLength(0);
        shard.ids().appendId(tag);
        respond(shard, tx, request, 180, tag, true);
        final ByteBuf ok = build(shard, request, tx.peer(), 200, tag, true);
        final ByteBuf keep = ok.retainedDuplicate(); // our reference for §13.3.1.4 retransmissions
        shard.createUasDialog(request, tag, 200);
        if (!shard.respond(tx, ok, 200))
        {
            keep.release();
            return;
        }
        final Pending p = acquire();
        p.tx = tx;
        p.txId = tx.id();
        p.ok = keep;
        p.intervalNs = shard.stack().config().t1Ns();
        p.giveUpNs = shard.nowNs() + 64 * p.intervalNs;
        p.timerId = shard.schedule(shard.nowNs() + p.intervalNs, p.slot);
        p.callIdHash = callIdHash(request);
        tx.attachment(p);
    }

    private static long callIdHash(final SipMessage m)
    {
        final byte[] b = m.buffer();
        long h = 0xcbf29ce484222325L;
        for (int i = m.callIdStart(); i < m.callIdEnd(); i++)
        {
            h = (h ^ (b[i] & 0xFF)) * 0x100000001b3L;
        }
        return h;
    }

    @Override
    public void onAck(final StackShard shard, final ServerTransaction tx, final SipMessage ack)
    {
        stats.acks.incrementAndGet();
        if (tx.attachment() instanceof Pending p && p.txId == tx.id())
        {
            finish(shard, p);
        }
    }

    @Override
    public void onStatelessRequest(final StackShard shard, final SipMessage request, final InetSocketAddress source)
    {
        if (request.method() == SipMethod.ACK)
        {
            // The ACK for a 2xx carries a new branch (RFC 3261 §13.2.2.4), so it usually matches no transaction:
            // find the pending 200 of its call (by Call-ID; the few 200s in flight are scanned) and stop it.
            stats.acks.incrementAndGet();
            final long hash = callIdHash(request);
            for (int i = 0; i < pendingCount; i++)
            {
                final Pending p = pending[i];
                if (null != p.ok && p.callIdHash == hash)
                {
                    finish(shard, p);
                    return;
                }
            }
        }
    }

    @Override
    public void onTimer(final StackShard shard, final long timerId, final long payload, final long nowNs)
    {
        final Pending p = pending[(int)payload];
        if (null == p.ok || p.timerId != timerId)
        {
            return;
        }
        p.timerId = -1;
        if (nowNs - p.giveUpNs >= 0 || !shard.respond(p.tx, p.ok.retainedDuplicate(), 200))
        {
            finish(shard, p);
            return;
        }
        stats.okRetransmissions.incrementAndGet();
        p.intervalNs = Math.min(2 * p.intervalNs, shard.stack().config().t2Ns());
        p.timerId = shard.schedule(nowNs + p.intervalNs, p.slot);
    }

    @Override
    public void onTerminated(final StackShard shard, final Transaction tx)
    {
        if (tx.attachment() instanceof Pending p && p.txId == tx.id())
        {
            finish(shard, p);
        }
        tx.attachment(null);
    }

    @Override
    public void onResponse(final StackShard shard, final ClientTransaction tx, final SipMessage response)
    {
    }

    @Override
    public void onStop(final StackShard shard)
    {
        for (int i = 0; i < pendingCount; i++)
        {
            if (null != pending[i].ok)
            {
                finish(shard, pending[i]);
            }
        }
    }

    private void respond(final StackShard shard, final ServerTransaction tx, final SipMessage request,
        final int status, final CharSequence toTag, final boolean withContact)
    {
        shard.respond(tx, build(shard, request, tx.peer(), status, toTag, withContact), status);
    }

    /** The response, its top Via stamped for the request's source (RFC 3261 §18.2.1, RFC 3581 §4). */
    private ByteBuf build(final StackShard shard, final SipMessage request, final InetSocketAddress source,
        final int status, final CharSequence toTag, final boolean withContact)
    {
        final ByteBuf out = shard.allocate(256 + request.length());
        shard.builder().startResponse(out, request, status, reason(status), toTag, source);
        if (withContact)
        {
            shard.builder().header(HeaderName.CONTACT, contact);
        }
        shard.builder().end(null, 0, 0);
        return out;
    }

    private static String reason(final int status)
    {
        return switch (status)
        {
            case 180 -> "Ringing";
            case 200 -> "OK";
            case 481 -> "Call/Transaction Does Not Exist";
            case 500 -> "Server Internal Error";
            default -> "Unknown";
        };
    }

    private Pending acquire()
    {
        if (freeCount > 0)
        {
            return free[--freeCount];
        }
        if (pendingCount == pending.length)
        {
            pending = java.util.Arrays.copyOf(pending, 2 * pendingCount);
            free = java.util.Arrays.copyOf(free, 2 * pendingCount);
        }
        final Pending p = new Pending(pendingCount);
        pending[pendingCount++] = p;
        return p;
    }

    private void finish(final StackShard shard, final Pending p)
    {
        if (null == p.ok)
        {
            return;
        }
        p.ok.release(); // our retransmission reference, released once
        p.ok = null;
        if (p.timerId >= 0)
        {
            shard.cancel(p.timerId);
            p.timerId = -1;
        }
        if (p.tx.attachment() == p)
        {
            p.tx.attachment(null);
        }
        p.tx = null;
        free[freeCount++] = p;
    }

    /** A 200 to INVITE waiting for its ACK. */
    private static final class Pending implements TransactionAttachment
    {
        final int slot;
        ServerTransaction tx;
        long txId;
        ByteBuf ok;
        long timerId = -1;
        long intervalNs;
        long giveUpNs;
        long callIdHash;

        Pending(final int slot)
        {
            this.slot = slot;
        }
    }
}
