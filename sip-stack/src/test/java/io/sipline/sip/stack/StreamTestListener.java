package io.sipline.sip.stack;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.Transaction;
import io.sipline.sip.transport.tcp.TcpFlow;

/**
 * A listener for the connection tests: OPTIONS and anything else are answered 200, INVITE 486 (so that the server
 * transaction would retransmit it over UDP until an ACK, RFC 3261 §17.2.1), each with a To tag; a MESSAGE read on a
 * connection is answered 200 only once that connection has closed (checked every tick), to exercise RFC 3261
 * §18.2.2's new connection. What reaches the listener is recorded in thread-safe queues the test polls. One instance
 * per shard, sharing one {@link Record}.
 */
final class StreamTestListener implements SipListener
{
    /** What the shards saw; any thread. */
    static final class Record
    {
        final ConcurrentLinkedQueue<String> requests = new ConcurrentLinkedQueue<>();
        /** The shard that handled each Call-ID's request; -1 when two did, or one did twice. */
        final Map<String, Integer> shardOf = new ConcurrentHashMap<>();
        final ConcurrentLinkedQueue<InetSocketAddress> sources = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> responses = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Character> timeouts = new ConcurrentLinkedQueue<>();
        final AtomicInteger transportErrors = new AtomicInteger();
        final AtomicInteger reliableRequests = new AtomicInteger();
    }

    private final Record record;
    /** MESSAGE answers waiting for their connection to close; this shard's thread only. */
    private final List<Deferred> deferred = new ArrayList<>();

    private record Deferred(ServerTransaction tx, long id, ByteBuf response)
    {
    }

    StreamTestListener(final Record record)
    {
        this.record = record;
    }

    static SipListener.Factory factory(final Record record)
    {
        return shard -> new StreamTestListener(record);
    }

    @Override
    public void onRequest(final StackShard shard, final ServerTransaction tx, final SipMessage request)
    {
        record.requests.add(request.callId());
        record.shardOf.merge(request.callId(), shard.index(), (a, b) -> -1);
        record.sources.add(tx.peer());
        if (tx.isReliable())
        {
            record.reliableRequests.incrementAndGet();
        }
        final int status = request.method() == SipMethod.INVITE ? 486 : 200;
        final ByteBuf out = shard.allocate(256 + request.length());
        final StringBuilder tag = shard.ids().appendId(new StringBuilder());
        shard.builder().startResponse(out, request, status, 200 == status ? "OK" : "Busy Here", tag, tx.peer())
            .end(null, 0, 0);
        if (request.method() == SipMethod.MESSAGE && tx.peer() instanceof TcpFlow)
        {
            deferred.add(new Deferred(tx, tx.id(), out)); // answered by onTick once the connection is gone
            return;
        }
        shard.respond(tx, out, status);
    }

    @Override
    public void onTick(final StackShard shard, final long nowNs)
    {
        for (final Iterator<Deferred> it = deferred.iterator(); it.hasNext(); )
        {
            final Deferred d = it.next();
            if (d.tx.id() != d.id)
            {
                it.remove();
                d.response.release(); // the transaction ended without our answer
            }
            else if (!((TcpFlow)d.tx.peer()).connection().isActive())
            {
                it.remove();
                shard.respond(d.tx, d.response, 200); // ownership passes to respond
            }
        }
    }

    @Override
    public void onStop(final StackShard shard)
    {
        for (final Deferred d : deferred)
        {
            d.response.release();
        }
        deferred.clear();
    }

    @Override
    public void onResponse(final StackShard shard, final ClientTransaction tx, final SipMessage response)
    {
        record.responses.add(response.statusCode() + " " + response.callId());
    }

    @Override
    public void onTimeout(final StackShard shard, final Transaction tx, final char timer)
    {
        record.timeouts.add(timer);
    }

    @Override
    public void onTransportError(final StackShard shard, final Transaction tx)
    {
        record.transportErrors.incrementAndGet();
    }
}
