package io.sipline.bench.stack;

import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.stack.SipListener;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.ServerTransaction;

/**
 * The {@code stateful} server of {@code bin/sipline bench stack} (and of {@code bench ws}): every request gets a
 * 200 through its server transaction (RFC 3261 §17.2), so that the bench measures the transaction layer over the
 * transport.
 *
 * <p>One instance per shard; runs on that shard only. The count of answered requests is stack-wide.
 */
public final class StatefulResponder implements SipListener
{
    private final AtomicLong answered;

    private StatefulResponder(final AtomicLong answered)
    {
        this.answered = answered;
    }

    /** One responder per shard, all counting into {@code answered}. */
    public static SipListener.Factory factory(final AtomicLong answered)
    {
        return shard -> new StatefulResponder(answered);
    }

    @Override
    public void onRequest(final StackShard shard, final ServerTransaction tx, final SipMessage request)
    {
        answered.incrementAndGet();
        final ByteBuf out = shard.allocate(256 + request.length());
        shard.builder().startResponse(out, request, 200, "OK", null, tx.peer()).end(null, 0, 0);
        shard.respond(tx, out, 200);
    }

    @Override
    public void onResponse(final StackShard shard, final ClientTransaction tx, final SipMessage response)
    {
    }
}
