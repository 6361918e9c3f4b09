package io.sipline.sip.stack;

import java.net.InetSocketAddress;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.dialog.Dialog;
import io.sipline.sip.dialog.DialogLayer;
import io.sipline.sip.dialog.DialogListener;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.timer.TimerHandler;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.Transaction;
import io.sipline.sip.transaction.TransactionLayer;
import io.sipline.sip.transaction.TransactionTransport;
import io.sipline.sip.transaction.TransactionUser;
import io.sipline.sip.transport.SipMessageHandler;
import io.sipline.sip.transport.UdpShardSockets;
import io.sipline.sip.transport.dns.SipLocator;
import io.sipline.sip.transport.tcp.StreamMessageHandler;
import io.sipline.sip.transport.tcp.TcpConnection;
import io.sipline.sip.transport.tcp.TcpFlow;
import org.jctools.queues.MessagePassingQueue;

/**
 * The seams of a {@link StackShard}, one object per shard: the handler of its UDP sockets and connections (inbound
 * messages, closes, ICMP reports), the transport and user of its transaction layer (sends, retransmission counts,
 * the listener's callbacks), its dialog listener, its application timer handler, and the consumer of its hand-over
 * inbox and record return queue.
 *
 * <p>Not thread-safe; every method runs on the shard's event loop. Messages passed on are borrowed for the call;
 * the buffers it sends are taken (sent or released).
 */
final class ShardEvents implements SipMessageHandler, StreamMessageHandler, TransactionTransport, TransactionUser,
    DialogListener, MessagePassingQueue.Consumer<Handoff>
{
    private final StackShard stackShard;
    /** The shard's application timers ({@link StackShard#schedule}): the listener's {@code onTimer}. */
    final TimerHandler appTimers = new AppTimers();

    ShardEvents(final StackShard stackShard)
    {
        this.stackShard = stackShard;
    }

    /** A message framed on a connection of this shard (RFC 3261 §18.3); its source is the connection's flow. */
    @Override
    public boolean onMessage(final TcpConnection connection, final SipMessage message)
    {
        final long now = System.nanoTime();
        stackShard.noteInputLag(now, message.receivedAtNanos(), stackShard.readLag); // before the timers: they read it
        stackShard.pollTimersIfDue(now);
        final TcpFlow flow = connection.flow();
        if (message.result() != ParseResult.OK)
        {
            // As over UDP (RFC 3261 §8.2), but the answer goes back on the connection (§18.2.2).
            stackShard.malformed++;
            final ByteBuf answer = stackShard.malformedAnswers.malformedAnswer(stackShard.allocator, message, flow);
            if (null != answer)
            {
                stackShard.traffic.outbound(answer);
            }
            return null != answer && connection.send(answer);
        }
        stackShard.traffic.inbound(message);
        final int owner = stackShard.route(message);
        if (owner != stackShard.index)
        {
            return stackShard.inbox().handOver(stackShard.all[owner], message, flow, connection.localAddress(), false);
        }
        return stackShard.dispatch(message, flow, connection.localAddress());
    }

    /** One of this shard's connections closed or failed to connect: its waiting client transactions fail. */
    @Override
    public void onClosed(final TcpConnection connection)
    {
        if (stackShard.transactions.failTransport(connection.flow()) > 0)
        {
            stackShard.flushIfOutsideRead();
        }
    }

    @Override
    public boolean onMessage(final UdpShardSockets shard, final SipMessage message, final InetSocketAddress source)
    {
        if (null == stackShard.udp)
        {
            stackShard.udp = shard;
        }
        final long now = System.nanoTime();
        stackShard.noteInputLag(now, message.receivedAtNanos(), stackShard.readLag); // before the timers: they read it
        stackShard.pollTimersIfDue(now);
        if (message.result() != ParseResult.OK)
        {
            // Counted here, and by the transport per ParseResult. Answered statelessly on the reading shard
            // (RFC 3261 §8.2: 400 with the reason, 505 for the version; never an ACK or a response): there is
            // no transaction to own it, and its Call-ID may be missing. The answer is built in a buffer of the
            // transport's allocator and passed to UdpShardSockets.send, which sends or releases it. A false return is
            // counted by the transport as a drop.
            stackShard.malformed++;
            final boolean answered = stackShard.malformedAnswers.answerMalformed(shard, message, source);
            if (answered)
            {
                stackShard.traffic.responseOut(message.result().statusCode());
            }
            return answered;
        }
        stackShard.traffic.inbound(message);
        final int owner = stackShard.route(message);
        if (owner != stackShard.index)
        {
            // the owner is woken once, when this read batch ends (onReadBatchEnd)
            return stackShard.inbox().handOver(stackShard.all[owner], message, source, shard.currentLocal(), true);
        }
        return stackShard.dispatch(message, source, shard.currentLocal());
    }

    @Override
    public void onReadBatchEnd(final UdpShardSockets shard)
    {
        stackShard.inbox().wakeDeferred();
    }

    /** RFC 3261 §18.4: a UDP peer refused our datagrams (ICMP); its transactions on this shard fail. */
    @Override
    public void onUnreachable(final UdpShardSockets shard, final InetSocketAddress local, final InetSocketAddress peer)
    {
        if (null == stackShard.udp)
        {
            stackShard.udp = shard;
        }
        stackShard.unreachableReports++;
        if (stackShard.transactions.failDatagramPeer(peer) > 0)
        {
            stackShard.flushIfOutsideRead();
        }
    }

    /** Drain consumer: the inbox (records to process) and the return queue (records coming home). */
    @Override
    public void accept(final Handoff h)
    {
        if (null == h.datagram)
        {
            stackShard.inbox().recycleLocal(h); // a record of ours, given back by the shard that processed it
        }
        else
        {
            stackShard.onHandoff(h);
        }
    }

    @Override
    public long inputLagNs(final long nowNs)
    {
        return stackShard.inputLagNs(nowNs);
    }

    @Override
    public boolean send(final ByteBuf data, final InetSocketAddress destination, final boolean reliable)
    {
        return send(data, destination, null, reliable);
    }

    /**
     * A transaction's send: over UDP from the transaction's own socket (the one its request arrived on, or its
     * first send used; RFC 3261 §18.2.2), else the one the message being dispatched arrived on.
     */
    @Override
    public boolean send(final ByteBuf data, final InetSocketAddress destination, final InetSocketAddress local,
        final boolean reliable)
    {
        final boolean sent;
        if (destination instanceof TcpFlow flow)
        {
            // The transaction keeps its reference; the connection's write takes its own (released by Netty).
            sent = !stackShard.stopping && stackShard.transports.sendOnFlow(flow, data.retainedDuplicate());
        }
        else if (stackShard.stopping || null == stackShard.udp)
        {
            return false;
        }
        else
        {
            // The transaction keeps its reference for retransmission; the write takes its own (released by Netty).
            // The buffer itself, not a duplicate: a datagram write moves no index, and the buffer's NIO view,
            // made when the message was written, is reused by the send (a duplicate would make a new one per
            // send when Netty runs without sun.misc.Unsafe, JDK 25).
            sent = stackShard.udp.sendFrom(null != local ? local : stackShard.currentLocal, data.retain(), destination);
        }
        if (sent)
        {
            countTransactionSend(data);
        }
        return sent;
    }

    /** A stateless 503 of overload ({@code StatelessShedding}): counted as a message out, not a retransmission. */
    @Override
    public boolean sendStateless(final ByteBuf data, final InetSocketAddress destination,
        final InetSocketAddress local, final boolean reliable)
    {
        final boolean outer = stackShard.tuSending;
        stackShard.tuSending = true;
        try
        {
            return send(data, destination, local, reliable);
        }
        finally
        {
            stackShard.tuSending = outer;
            data.release();
        }
    }

    /**
     * A server transaction's responses go to a Via {@code maddr} naming a host (RFC 3261 §18.2.2): this shard's
     * {@link SipLocator} finds its address like any host with a port (A/AAAA, RFC 3263 §4.2, cached for the
     * records' TTL) and the transaction sends there, to the first address found; none found is a transport
     * error. The callback runs on this shard's loop (the locator's).
     */
    @Override
    public void resolve(final TransactionLayer layer, final Transaction tx, final long id,
        final InetSocketAddress unresolved)
    {
        if (stackShard.stopping)
        {
            layer.resolved(tx, id, null);
            return;
        }
        stackShard.locator().locate(unresolved.getHostString(), unresolved.getPort(), "UDP", false, targets ->
        {
            layer.resolved(tx, id, targets.isEmpty() ? null : targets.get(0).address());
            stackShard.flushIfOutsideRead();
        });
    }

    /**
     * Counts a transaction's send. Sends the transaction makes on its own, not inside the listener's
     * {@code respond}/{@code sendRequest}, are retransmissions (RFC 3261 §17.1.1.2 timer A, §17.1.2.2 timer E,
     * §17.2.1 timer G, the last response again for a retransmitted request, §17.2.1/§17.2.2) except a 100 (the
     * INVITE server transaction's own Trying, §17.2.1) and an ACK (the client transaction's ACK for a 3xx-6xx,
     * §17.1.1.3, counted as a message out only, also when it is re-passed for a retransmitted final response).
     */
    private void countTransactionSend(final ByteBuf data)
    {
        final int status = stackShard.traffic.outbound(data);
        if (!stackShard.tuSending && 100 != status && !(0 == status && isAck(data)))
        {
            stackShard.traffic.retransmission();
        }
    }

    private boolean isAck(final ByteBuf data)
    {
        final int at = data.readerIndex();
        return data.readableBytes() > 4 && data.getByte(at) == 'A' && data.getByte(at + 1) == 'C'
            && data.getByte(at + 2) == 'K' && data.getByte(at + 3) == ' ';
    }

    @Override
    public void onRequest(final ServerTransaction tx, final SipMessage request)
    {
        try
        {
            stackShard.listener.onRequest(stackShard, tx, request);
        }
        catch (final RuntimeException e)
        {
            stackShard.onListenerError(e);
        }
    }

    @Override
    public void onAck(final ServerTransaction tx, final SipMessage ack)
    {
        try
        {
            stackShard.listener.onAck(stackShard, tx, ack);
        }
        catch (final RuntimeException e)
        {
            stackShard.onListenerError(e);
        }
    }

    @Override
    public void onResponse(final ClientTransaction tx, final SipMessage response)
    {
        try
        {
            stackShard.listener.onResponse(stackShard, tx, response);
        }
        catch (final RuntimeException e)
        {
            stackShard.onListenerError(e);
        }
    }

    @Override
    public void onStatelessRequest(final SipMessage request, final InetSocketAddress source,
        final boolean reliable)
    {
        try
        {
            stackShard.listener.onStatelessRequest(stackShard, request, source);
        }
        catch (final RuntimeException e)
        {
            stackShard.onListenerError(e);
        }
    }

    @Override
    public void onStatelessResponse(final SipMessage response, final InetSocketAddress source)
    {
        try
        {
            stackShard.listener.onStatelessResponse(stackShard, response, source);
        }
        catch (final RuntimeException e)
        {
            stackShard.onListenerError(e);
        }
    }

    @Override
    public void onTimeout(final Transaction tx, final char timer)
    {
        if (stackShard.stopping)
        {
            return;
        }
        try
        {
            stackShard.listener.onTimeout(stackShard, tx, timer);
        }
        catch (final RuntimeException e)
        {
            stackShard.onListenerError(e);
        }
    }

    @Override
    public void onTransportError(final Transaction tx)
    {
        if (stackShard.stopping)
        {
            return;
        }
        try
        {
            stackShard.listener.onTransportError(stackShard, tx);
        }
        catch (final RuntimeException e)
        {
            stackShard.onListenerError(e);
        }
    }

    @Override
    public void onTerminated(final Transaction tx)
    {
        try
        {
            stackShard.listener.onTerminated(stackShard, tx);
        }
        catch (final RuntimeException e)
        {
            stackShard.onListenerError(e);
        }
    }

    @Override
    public void onDialogTerminated(final Dialog dialog, final io.sipline.sip.dialog.DialogEndReason reason)
    {
        // Dialog ends are visible through the DialogLayer's return values; nothing to do here yet.
    }

    private final class AppTimers implements TimerHandler
    {
        @Override
        public boolean onTimer(final long timerId, final long nowNs)
        {
            try
            {
                stackShard.listener.onTimer(stackShard, timerId, stackShard.appWheel.payload(timerId), nowNs);
            }
            catch (final RuntimeException e)
            {
                stackShard.onListenerError(e);
            }
            return true;
        }
    }
}
