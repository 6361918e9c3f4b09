package io.sipline.sip.stack;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.sipline.sip.dialog.Dialog;
import io.sipline.sip.dialog.DialogLayer;
import io.sipline.sip.dialog.DialogPool;
import io.sipline.sip.dialog.DialogTable;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.ParsedCopy;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.shard.ShardIds;
import io.sipline.sip.timer.TimerWheel;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.NanoClock;
import io.sipline.sip.transaction.ResponseTimeHistogram;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.TransactionLayer;
import io.sipline.sip.transport.MessageCounters;
import io.sipline.sip.transport.RealtimeClock;
import io.sipline.sip.transport.SipMessageHandler;
import io.sipline.sip.transport.StatelessResponder;
import io.sipline.sip.transport.UdpShardSockets;
import io.sipline.sip.transport.dns.SipLocator;
import io.sipline.sip.transport.tcp.StreamMessageHandler;
import io.sipline.sip.transport.tcp.TcpFlow;
import io.sipline.sip.transport.tcp.TcpShardConnections;

/**
 * One shard of the {@link SipStack}: the state one event-loop thread owns (transaction and dialog layers, transaction
 * and application timer wheels, id generator, message builder) and the API its {@link SipListener} acts through:
 * {@link #respond}, {@link #sendRequest}, {@link #sendStateless}, dialogs, timers. A message's path through the
 * shards is drawn in {@code docs/architecture.md} (Threading).
 *
 * <p>Stages: {@link ShardRouting} (which shard owns a call), {@link ShardInbox} (the hand-over between shards),
 * {@link ShardEvents} (transport, transaction and listener seams), {@link TransportSelection} (the transport of
 * outbound messages, RFC 3261 §18). Every tick runs the timers (RFC 3261 timers A-M, then application timers), the
 * inbox, then {@link SipListener#onTick}. A retransmission due within the shards' {@link #inputLagNs input lag}
 * waits: the reply it is for may have arrived and still be unread. A malformed request that carries Via, From, To,
 * Call-ID and CSeq is answered statelessly by the reading shard (RFC 3261 §8.2).
 *
 * <p>Buffers: {@link #respond}, {@link #sendRequest} and {@link #sendStateless} take ownership of theirs. A hand-over
 * copy belongs to the reading shard until the target's inbox accepts it (a full inbox drops it: UDP retransmits),
 * then to the owning shard, which releases it right after reading it (bytes and parse) into its own message. Messages
 * passed to the listener are borrowed.
 *
 * <p>Not thread-safe; owned by its event loop, except {@link #index()}, the counters (racy reads, for metrics) and
 * the hand-over offer made by other shards. Nothing blocks or locks; the only cross-thread state is the MPSC inbox,
 * the MPSC record return queue and an atomic "drain scheduled" flag.
 */
public final class StackShard
{
    private static final Logger LOG = System.getLogger("io.sipline.sip.stack");
    /** Distinct error kinds already logged, stack-wide (any thread; grows only with new kinds). */
    private static final ConcurrentHashMap<String, Boolean> LOGGED = new ConcurrentHashMap<>();
    /** A loop that polled no timer for this many ticks was stalled; see {@link TickTask}. */
    static final int STALL_TICKS = 10;
    private static final long NOT_HELD = Long.MIN_VALUE;
    /** How often the shard's reused messages let go of a burst's arrays ({@link #trimScratch}). */
    static final long SCRATCH_TRIM_PERIOD_NS = 1_000_000_000L;

    final int index;
    private final SipStack stack;
    private final SipStackConfig config;
    final StackShard[] all;
    final ByteBufAllocator allocator;
    private final TimerWheel transactionWheel;
    final TimerWheel appWheel;
    final TransactionLayer transactions;
    private final DialogLayer dialogs;
    private final ShardIds ids;
    /** Answers malformed requests statelessly (RFC 3261 §8.2); shares {@link #ids} for its To tags. */
    final StatelessResponder malformedAnswers;
    private final SipMessageBuilder builder = new SipMessageBuilder();
    /** Buffers of outbound messages and hand-over copies, reused once released (shard thread; see the class). */
    private final OutboundBuffers outboundBuffers;
    private final SipMessage handedOver = new SipMessage();
    private long nextScratchTrimNs;
    private final ShardEvents events = new ShardEvents(this);
    /** Picks the transport of each outbound message and sends on connections (RFC 3261 §18.1.1, §18.2.2). */
    final TransportSelection transports = new TransportSelection();
    /** The hand-over from and to the other shards. */
    private final ShardInbox inbox;
    private final Runnable tickTask = new TickTask();
    final SipListener listener;

    /** Set once at start by the starting thread; volatile because other shards read it to wake this one. */
    private volatile EventLoop loop;
    UdpShardSockets udp;
    /** RFC 3263 location, made on first use (a DNS socket per shard only when someone locates). */
    private SipLocator locator;
    /** The local address of the message being dispatched (responses leave from it, RFC 3581 §4), or null. */
    InetSocketAddress currentLocal;
    private long lastPollNs;
    /**
     * When a tick last held its timers for the loop's I/O after a stall ({@link TickTask}), {@link #NOT_HELD} once a
     * tick polled them again.
     */
    private long timersHeldAtNs = NOT_HELD;
    boolean stopping;
    /** How long the messages this shard handles waited since they arrived (retransmissions wait for the backlog). */
    private final InputLag inputLag;
    /**
     * Per message, how long it waited between its arrival (the kernel's receive timestamp) and its handling: read
     * from its socket by this shard ({@link #readLag}), or taken from this shard's hand-over inbox after another shard
     * read it ({@link #handoverLag}: the reading shard's wait, the copy and the inbox together).
     */
    final ResponseTimeHistogram readLag = new ResponseTimeHistogram();
    private final ResponseTimeHistogram handoverLag = new ResponseTimeHistogram();

    private long handoffsIn;
    long unreachableReports;
    long malformed;
    /** Messages that arrived (read here or handed over) after {@link #stopOnLoop}; dropped, never dispatched. */
    long droppedAfterStop;
    private long listenerErrors;
    private long listenerRetransmissionsDeferred;
    private long ticks;
    /** Messages in and out by method and status class, retransmissions, mirrored gauges (opaque, for metrics). */
    final MessageCounters traffic = new MessageCounters();
    /** True while the listener's own send ({@link #sendRequest}, {@link #respond}) runs: not a retransmission. */
    boolean tuSending;
    /** True while a drain of the inbox or a tick runs: its sends are flushed once, when it ends (shard thread). */
    private boolean batching;
    /** Hand-overs handled in the current batch since its last flush. */
    private int handoffsSinceFlush;
    /** Hand-overs handled between two flushes of a batch: as many as the transport reads between two of its own. */
    static final int HANDOFFS_PER_FLUSH = 16;

    StackShard(final SipStack stack, final int index, final SipStackConfig config, final StackShard[] all,
        final SipListener.Factory listeners, final long seed)
    {
        this.stack = stack;
        this.index = index;
        this.config = config;
        this.all = all;
        this.allocator = config.allocator();
        this.outboundBuffers = new OutboundBuffers(allocator, config.outboundBuffers());
        final long now = System.nanoTime();
        this.transactionWheel = new TimerWheel(now, config.tickNs(), TimerWheel.DEFAULT_TICKS_PER_WHEEL,
            config.timerSpokeCapacity());
        this.appWheel = new TimerWheel(now, config.tickNs(), TimerWheel.DEFAULT_TICKS_PER_WHEEL,
            TimerWheel.DEFAULT_SPOKE_CAPACITY);
        this.lastPollNs = now;
        this.nextScratchTrimNs = now + SCRATCH_TRIM_PERIOD_NS;
        this.inputLag = new InputLag(now);
        this.transactions = new TransactionLayer(config.transactionConfig(), events, events, NanoClock.SYSTEM,
            transactionWheel);
        this.dialogs = new DialogLayer(new DialogPool(config.initialDialogs(), config.initialDialogs()),
            new DialogTable(config.initialDialogs()), events);
        this.ids = new ShardIds(index, Math.max(0, config.node()), seed);
        this.malformedAnswers = new StatelessResponder(ids);
        this.inbox = new ShardInbox(this, all, config, events);
        this.listener = listeners.create(this);
    }

    // ================================================================================================================
    // API for the listener (this shard's thread)
    // ================================================================================================================

    /** This shard's index, 0..N-1. Any thread. */
    public int index()
    {
        return index;
    }

    public SipStack stack()
    {
        return stack;
    }

    /** The shard's clock (the time base of its timers). */
    public long nowNs()
    {
        return System.nanoTime();
    }

    /**
     * How far behind its input the stack is at {@code nowNs} ({@link #nowNs()}'s clock): the largest {@link InputLag}
     * of its shards, since a reply may reach any of them ({@code SO_REUSEPORT}, connected peers, hand-overs).
     * Everything that arrived before {@code nowNs} minus this has been handled; a retransmission due after that point
     * may be answered by what is still unread, and waits (the transaction layer's timers A, E, G; the container's 2xx
     * and reliable provisional retransmissions). 0 while every shard keeps up. Any thread.
     */
    public long inputLagNs(final long nowNs)
    {
        long max = 0;
        for (final StackShard s : all)
        {
            if (null != s)
            {
                max = Math.max(max, s.inputLag.lagNs(nowNs));
            }
        }
        return max;
    }

    /**
     * The listener put off a retransmission of its own (a 2xx to INVITE, a reliable provisional response) because of
     * {@link #inputLagNs}: counted with the transaction layer's in {@code sipline_sip_retransmissions_deferred_total}.
     * This shard's thread.
     */
    public void countDeferredRetransmission()
    {
        listenerRetransmissionsDeferred++;
    }

    /**
     * A direct buffer for an outbound message, with at least {@code initialCapacity} bytes of room; the caller owns its
     * reference until it passes the buffer to a send method (or releases it). The buffer comes from this shard's
     * {@link OutboundBuffers}: once every reference handed out is released it is reused, so never touch a buffer
     * after giving up its reference.
     */
    public ByteBuf allocate(final int initialCapacity)
    {
        return outboundBuffers.acquire(initialCapacity);
    }

    /** This shard's message builder (one per shard; finish one message before starting the next). */
    public SipMessageBuilder builder()
    {
        return builder;
    }

    /** This shard's id generator: branches, tags and Call-IDs that route back to this shard. */
    public ShardIds ids()
    {
        return ids;
    }

    /** This shard's dialog layer (RFC 3261 §12): create, match, update and end dialogs. */
    public DialogLayer dialogs()
    {
        return dialogs;
    }

    /** This shard's transaction layer (for its counters; send through the methods below). */
    public TransactionLayer transactions()
    {
        return transactions;
    }

    /**
     * Creates (or confirms) the dialog a UAS response with a To tag establishes (RFC 3261 §12.1.1).
     *
     * @param request borrowed; the dialog-creating request.
     * @return the dialog, or null ({@link DialogLayer#lastFailure()} says why).
     */
    public Dialog createUasDialog(final SipMessage request, final CharSequence localTag, final int status)
    {
        return dialogs.createUas(request, localTag, status, false);
    }

    /** The dialog an in-dialog request (with a To tag) belongs to, or null; borrowed message. */
    public Dialog findDialog(final SipMessage request)
    {
        return dialogs.table().findForRequest(request);
    }

    /**
     * Sends a request statefully (RFC 3261 §17.1): a client transaction retransmits it and reports its responses,
     * timeout or transport error. The top Via must carry a fresh magic-cookie branch, best one of {@link #ids()} so
     * that responses come back to this shard without a hash.
     *
     * @param request     ownership taken.
     * @param destination the next hop.
     * @return the transaction, or null when refused (the buffer is released then).
     */
    public ClientTransaction sendRequest(final ByteBuf request, final InetSocketAddress destination)
    {
        final boolean outer = tuSending;
        tuSending = true;
        try
        {
            final InetSocketAddress next = transports.nextHop(request, destination);
            if (null == next)
            {
                request.release(); // refused: no connection can be made for its transport
                return null;
            }
            if (next instanceof TcpFlow)
            {
                return transactions.sendRequest(request, next, true);
            }
            // RFC 3261 §18.2.2 in spirit, for the client side: every retransmission (timers A, E) and the ACK for a
            // non-2xx leave from the socket the first send used, so the peer sees one address:port for the
            // transaction (inside a dispatch the socket the current message arrived on, else the first one of the
            // destination's family).
            final InetSocketAddress local = null == udp ? null : udp.localFor(currentLocal, next);
            return transactions.sendRequest(request, next, local, false);
        }
        finally
        {
            tuSending = outer;
            flushIfOutsideRead();
        }
    }

    /**
     * Sends a message without a transaction (an ACK for a 2xx, §13.2.2.4; a stateless response; a proxy forward).
     *
     * @param message ownership taken.
     * @return false when it could not be handed to a socket (released, counted by the transport).
     */
    public boolean sendStateless(final ByteBuf message, final InetSocketAddress destination)
    {
        final InetSocketAddress next = transports.nextHop(message, destination);
        if (null != next)
        {
            traffic.outbound(message); // before the send takes the buffer: counts what is handed to a transport
        }
        if (next instanceof TcpFlow flow)
        {
            return transports.sendOnFlow(flow, message);
        }
        if (null == next)
        {
            message.release(); // refused: no connection can be made for its transport
            return false;
        }
        final boolean sent = udp.sendFrom(currentLocal, message, next);
        flushIfOutsideRead();
        return sent;
    }

    /**
     * Sends a response on a server transaction (RFC 3261 §17.2); the transaction retransmits it as its state says.
     * A 2xx to INVITE is retransmitted by the caller until the ACK (§13.3.1.4): call this again with a new buffer.
     *
     * @param response ownership taken.
     * @param status   its status code.
     * @return false when the transaction's state allows no such response (the buffer is released then).
     */
    public boolean respond(final ServerTransaction tx, final ByteBuf response, final int status)
    {
        final boolean outer = tuSending;
        tuSending = true;
        try
        {
            return transactions.respond(tx, response, status);
        }
        finally
        {
            tuSending = outer;
            flushIfOutsideRead();
        }
    }

    /**
     * This shard's RFC 3263 next-hop locator: from a URI's host, port and transport to the transports and addresses
     * to try, with a TTL-respecting DNS cache; numeric hosts need no DNS. Build the request with the chosen
     * target's transport in its Via, then {@link #sendRequest} it to the target's address. Made on first use;
     * this shard's loop only.
     */
    public SipLocator locator()
    {
        if (null == locator)
        {
            locator = new SipLocator(loop, stack.transport().sharesPorts(), config.dnsServers(),
                config.dnsTimeoutMillis(), System::nanoTime, new java.util.Random());
        }
        return locator;
    }

    /** Schedules an application timer; {@link SipListener#onTimer} gets the payload. Returns the timer id. */
    public long schedule(final long deadlineNs, final long payload)
    {
        return appWheel.schedule(deadlineNs, payload);
    }

    /** Cancels an application timer; O(1), allocates nothing. */
    public boolean cancel(final long timerId)
    {
        return appWheel.cancel(timerId);
    }

    // ================================================================================================================
    // Counters (racy reads from any thread, for metrics)
    // ================================================================================================================

    /** Datagrams this shard read for a call of another shard and handed over. */
    public long handoffsOut()
    {
        return inbox.handoffsOut;
    }

    /** Datagrams other shards handed to this one, processed. */
    public long handoffsIn()
    {
        return handoffsIn;
    }

    /** Hand-overs dropped because the target's queue was full (UDP retransmits). */
    public long handoffDrops()
    {
        return inbox.handoffDrops;
    }

    /** ICMP port unreachable reports from UDP peers seen by this shard (RFC 3261 §18.4). */
    public long unreachableReports()
    {
        return unreachableReports;
    }

    /** Hand-over records allocated because the free list was empty (pool growth). */
    public long handoffRecordMisses()
    {
        return inbox.handoffRecordMisses;
    }

    /** Messages that arrived after this shard stopped, dropped undispatched. On the shard's loop. */
    public long droppedAfterStop()
    {
        return droppedAfterStop;
    }

    /** Messages that did not parse or had no usable top Via (counted here and by the transport). */
    public long malformed()
    {
        return malformed;
    }

    /** Outbound buffers handed out again from this shard's pool ({@link OutboundBuffers}); racy read. */
    public long outboundBuffersReused()
    {
        return outboundBuffers.reused();
    }

    /** Outbound buffers made because none kept was free; racy read. */
    public long outboundBuffersMade()
    {
        return outboundBuffers.made();
    }

    /** Outbound buffers this shard's pool keeps now, in use or free ({@link OutboundBuffers}); racy read. */
    public int outboundBuffersKept()
    {
        return outboundBuffers.kept();
    }

    /**
     * Direct memory held in Netty chunks by the allocator of this shard's outbound buffers ({@link OutboundBuffers});
     * 0 when they come from {@link SipStackConfig#allocator()} (not a pooled one). Any thread.
     */
    public long outboundBufferMemory()
    {
        return outboundBuffers.ownMemory();
    }

    /** Exceptions thrown by the listener, caught and counted. */
    public long listenerErrors()
    {
        return listenerErrors;
    }

    public long ticks()
    {
        return ticks;
    }

    /** Messages in and out by method and status class, retransmissions, mirrored gauges; readable from any thread. */
    public MessageCounters traffic()
    {
        return traffic;
    }

    /** Hand-overs waiting in this shard's inbox (JCTools' size: any thread, a consistent estimate). */
    public int handoffQueueDepth()
    {
        return inbox.depth();
    }

    /** True from start until the shard's event loop begins to shut down. Any thread. */
    public boolean isRunning()
    {
        final EventLoop l = loop;
        return null != l && !l.isShuttingDown();
    }

    /**
     * {@link ShardRouting#ownerOf}, plus what a CANCEL needs (RFC 3261 §9.2): an INVITE outside a dialog that goes to
     * another shard than its Call-ID's (session targeting) is remembered in the stack's {@link MovedInvites}, and a
     * CANCEL outside a dialog goes where its INVITE went. Called by the reading shard, before any hand-over.
     */
    int route(final SipMessage m)
    {
        final int shards = all.length;
        if (shards > 1 && m.isRequest() && m.toTagStart() < 0)
        {
            final SipMethod method = m.method();
            if (SipMethod.INVITE == method)
            {
                // ownerOf's rule for a request outside a dialog, each shard worked out once
                final int targeted = ShardRouting.targetedShard(m);
                if (targeted < 0 || targeted >= shards)
                {
                    return ShardRouting.callIdShard(m, shards);
                }
                if (targeted != ShardRouting.callIdShard(m, shards))
                {
                    stack.movedInvites.moved(m, targeted, System.nanoTime());
                }
                return targeted;
            }
            if (SipMethod.CANCEL == method)
            {
                final int s = stack.movedInvites.shardOf(m, System.nanoTime());
                if (s >= 0 && s < shards)
                {
                    return s;
                }
            }
        }
        return ShardRouting.ownerOf(m, shards);
    }

    /**
     * The Request-URI parameter that names an application session of this stack's user (the container's encoded
     * URI, JSR 289 §15.11.1); its value is an id a {@link ShardIds} generator made, so it names its shard.
     */
    public static final String TARGET_URI_PARAMETER = "sipline-appsession";

    /** Owning shard: one handed-over datagram; releases its copy and returns the record to its origin. */
    void onHandoff(final Handoff h)
    {
        final ByteBuf datagram = h.datagram;
        try
        {
            handoffsIn++;
            final long now = System.nanoTime();
            noteInputLag(now, h.receivedAtNanos, handoverLag); // before the timers: they read it
            pollTimersIfDue(now);
            // The reading shard's parse rides with the bytes (ParsedCopy): rebind it, no second parse.
            if (ParsedCopy.read(datagram, handedOver) == ParseResult.OK)
            {
                handedOver.receivedAtNanos(h.receivedAtNanos); // when the reading shard got it, not now
                dispatch(handedOver, h.source, h.local);
            }
            else
            {
                malformed++;
            }
        }
        catch (final RuntimeException e)
        {
            onListenerError(e);
        }
        finally
        {
            if (batching && ++handoffsSinceFlush >= HANDOFFS_PER_FLUSH && null != udp)
            {
                handoffsSinceFlush = 0;
                udp.flush(); // a long drain sends its answers every 16 messages, not only at its end
            }
            datagram.release(); // release rule (Handoff): the owning shard releases the copy once, here
            inbox.returnRecord(h);
        }
    }

    boolean dispatch(final SipMessage m, final InetSocketAddress source, final InetSocketAddress local)
    {
        if (stopping)
        {
            droppedAfterStop++; // the transactions were ended at stop: a new one now would never end or release
            return true;
        }
        currentLocal = local;
        try
        {
            // A flow means a connection: reliable, no retransmission timers (RFC 3261 §17.1.1.2, §17.2.1).
            final boolean handled = transactions.onIncoming(m, source, local, source instanceof TcpFlow);
            if (!handled)
            {
                malformed++;
            }
            return handled;
        }
        finally
        {
            currentLocal = null;
        }
    }

    // ================================================================================================================
    // Timers and the tick
    // ================================================================================================================

    /**
     * Timers first (reSIProcate): before a datagram is handled, fire what is due if a tick has passed. The caller has
     * noted the datagram's wait ({@link #noteInputLag}) just before, so that a retransmission due while it waited is
     * put off until the backlog it belongs to is read. Not after a stall of the loop ({@link #STALL_TICKS} ticks
     * without a poll): this datagram's socket is not the only one, and another may hold older datagrams, among them
     * the replies to what the timers would retransmit; the tick task decides once the loop has read all of them
     * ({@link TickTask}).
     */
    void pollTimersIfDue(final long nowNs)
    {
        if (nowNs - lastPollNs >= config.tickNs() && !stalled(nowNs))
        {
            pollTimers(nowNs);
        }
    }

    /**
     * From the tick: whether its timers wait for the loop's I/O, after a stall and unless the tick before held them
     * already. A hold that a new stall followed does not count: the loop stalled again before its I/O turn (a server
     * whose first tick came late, then a listener that blocked), and the replies of that stall are still unread.
     */
    private boolean holdTimersForInput(final long nowNs)
    {
        return stalled(nowNs) && (NOT_HELD == timersHeldAtNs || nowNs - timersHeldAtNs > STALL_TICKS * config.tickNs());
    }

    /** Whether the loop polled no timer for {@link #STALL_TICKS} ticks before {@code nowNs}. */
    private boolean stalled(final long nowNs)
    {
        return nowNs - lastPollNs > STALL_TICKS * config.tickNs();
    }

    /**
     * Per message handled: how long it waited since it arrived ({@link InputLag}, and {@code histogram}: read or
     * handed over; a message with no arrival time, built locally, is not counted). The wall clock comes from the
     * monotonic reading the caller already has.
     */
    void noteInputLag(final long nowNs, final long receivedAtNanos, final ResponseTimeHistogram histogram)
    {
        if (0 != receivedAtNanos)
        {
            final long lagNs = RealtimeClock.fromMonotonic(nowNs) - receivedAtNanos;
            inputLag.note(nowNs, lagNs);
            if (lagNs >= 0)
            {
                histogram.record(lagNs);
            }
        }
    }

    /**
     * This shard's input lag histogram (see {@link #noteInputLag}): {@code handedOver} false for the messages it read
     * from its own sockets, true for those another shard read and handed over. Any thread (opaque reads).
     */
    public ResponseTimeHistogram inputLagTimes(final boolean handedOver)
    {
        return handedOver ? handoverLag : readLag;
    }

    private void pollTimers(final long nowNs)
    {
        lastPollNs = nowNs;
        transactions.doWork(nowNs);
        appWheel.poll(nowNs, events.appTimers, Integer.MAX_VALUE);
        outboundBuffers.trim(nowNs); // once a second: free kept buffers a burst left behind
    }

    /**
     * Once a second, from the tick task (never from a read, whose datagram is in the receive message): the reused
     * messages and views of this shard let go of what a burst of large messages grew and of their spans into the
     * last message ({@link SipMessage#trimScratch}), and the timer wheels of the spokes a burst grew
     * ({@link TimerWheel#trim}).
     */
    private void trimScratch(final long nowNs)
    {
        if (nowNs - nextScratchTrimNs < 0)
        {
            return;
        }
        nextScratchTrimNs = nowNs + SCRATCH_TRIM_PERIOD_NS;
        handedOver.trimScratch();
        transactionWheel.trim(); // spokes a burst of timers grew
        appWheel.trim();
        transports.trim();
        malformedAnswers.trim();
        if (null != udp)
        {
            udp.trim();
        }
    }

    /** Ends a drain's or a tick's batch ({@link #batching}): what it wrote leaves now. */
    private void endBatch()
    {
        batching = false;
        handoffsSinceFlush = 0;
        if (null != udp)
        {
            udp.flush();
        }
    }

    /**
     * Flushes what was just written unless a batch is under way that flushes once at its end: a read batch of the
     * transport ({@code currentLocal} set), or a drain of the hand-over inbox or a tick ({@link #batching}), so that
     * the answers to a drained batch leave in one write of each connected socket rather than one per message.
     */
    void flushIfOutsideRead()
    {
        if (null != udp && null == udp.currentLocal() && !batching)
        {
            udp.flush();
        }
    }

    void onListenerError(final Throwable e)
    {
        listenerErrors++;
        final String kind = e.getClass().getName() + ": " + e.getMessage();
        if (null == LOGGED.putIfAbsent(kind, Boolean.TRUE))
        {
            LOG.log(Level.WARNING, "shard " + index + ": listener error (logged once per kind)", e);
        }
    }

    // ================================================================================================================
    // Lifecycle (called by SipStack)
    // ================================================================================================================

    SipMessageHandler handler()
    {
        return events;
    }

    /** On this shard's loop, once: attach the transport shard. */
    void attach(final UdpShardSockets shard)
    {
        udp = shard;
    }

    /** What this shard's connections report to (their messages, their closes). */
    StreamMessageHandler streamHandler()
    {
        return events;
    }

    /**
     * The flow to a WebSocket client by the {@code .invalid} host of its Contact (RFC 7118 §5), learned from the
     * requests it sent on its connection; null when that connection is gone (RFC 5626 §5.3: 430 Flow Failed).
     * On this shard's loop.
     */
    public TcpFlow webSocketFlow(final String host)
    {
        return transports.webSocketFlow(host);
    }

    /**
     * The RFC 5626 flow tokens of the stack's WebSocket connections (shared by the shards), or null without
     * WebSocket/TCP listeners. Any thread once the shard started.
     */
    public io.sipline.sip.transport.tcp.FlowTokens flowTokens()
    {
        return transports.flowTokens();
    }

    /** On this shard's loop, once: attach the shard's connections. */
    void attachStreams(final TcpShardConnections shard)
    {
        transports.attach(shard);
    }

    /** Starting thread, once: publish the loop (volatile store) so that hand-overs can wake this shard. */
    void loop(final EventLoop value)
    {
        loop = value;
    }

    Runnable tickTask()
    {
        return tickTask;
    }

    /**
     * On this shard's loop, at stop: the listener releases what it holds, every send fails from now on so that each
     * live transaction ends through its transport-error path and releases its buffer, and the inbox is emptied.
     */
    void stopOnLoop()
    {
        try
        {
            listener.onStop(this);
        }
        catch (final RuntimeException e)
        {
            onListenerError(e);
        }
        stopping = true;
        if (null != locator)
        {
            locator.close();
        }
        long now = System.nanoTime();
        for (int round = 0; round < 64 && transactions.activeTransactions() > 0; round++)
        {
            now += 600_000_000_000L; // far past every timer: retransmissions fail, timeouts and terminations fire
            transactions.doWork(now);
        }
        transactions.terminateAll(); // what no timer ends: an INVITE server transaction still waiting for its answer
        releaseInbox();
        outboundBuffers.close(); // buffers still referenced (a write in flight, another shard's inbox) free later
    }

    /** Releases every datagram still queued (after the loops stopped, or on the loop at stop). */
    void releaseInbox()
    {
        inbox.releaseAll();
    }

    /** The hand-over from and to the other shards (another shard offers to it and wakes it). */
    ShardInbox inbox()
    {
        return inbox;
    }

    /** The loop, once published by the starting thread; null before. Any thread. */
    EventLoop loop()
    {
        return loop;
    }

    /** On this shard's loop: one drain of the inbox as one batch, flushed once at its end (and every 16 messages). */
    void drainBatch()
    {
        batching = true;
        try
        {
            inbox.drain();
        }
        finally
        {
            endBatch(); // one flush for the drain (every 16 hand-overs within it: onHandoff)
        }
    }

    /** Once per tick: copy the plain counters and the layer sizes into {@link #traffic} for other threads. */
    private void mirrorCounters()
    {
        traffic.mirror(MessageCounters.TRANSACTIONS_ACTIVE, transactions.activeTransactions());
        traffic.mirror(MessageCounters.DIALOGS_ACTIVE, dialogs.table().size());
        traffic.mirror(MessageCounters.HANDOFF_DROPS, inbox.handoffDrops);
        traffic.mirror(MessageCounters.MALFORMED, malformed);
        traffic.mirror(MessageCounters.LISTENER_ERRORS, listenerErrors);
        traffic.mirror(MessageCounters.HANDOFFS_OUT, inbox.handoffsOut);
        traffic.mirror(MessageCounters.RETRANSMISSIONS_DEFERRED,
            transactions.deferredRetransmissions() + listenerRetransmissionsDeferred);
    }

    /**
     * Every tick: timers first, then hand-overs, then the listener's tick; one flush at the end (what they send is
     * written meanwhile and flushed then, {@link #batching}). After a stall of the
     * loop (no timer poll for {@link #STALL_TICKS} ticks: a long call while the JIT is cold, a listener that blocks,
     * the machine's other work) the timers wait: this tick drains the hand-overs, and the loop's next turn reads a
     * batch from every readable socket, each noting how long its datagrams waited ({@link InputLag}), before the next
     * tick decides on any retransmission; that tick polls them whatever happened, unless the loop stalled again in
     * between ({@link #holdTimersForInput}).
     */
    private final class TickTask implements Runnable
    {
        @Override
        public void run()
        {
            final long now = System.nanoTime();
            ticks++;
            inputLag.alive(now);
            batching = true;
            try
            {
                if (holdTimersForInput(now))
                {
                    timersHeldAtNs = now;
                }
                else
                {
                    timersHeldAtNs = NOT_HELD;
                    pollTimers(now);
                }
                inbox.wakeDeferred(); // what a read batch left deferred, if any
                inbox.drain();
                trimScratch(now);
                mirrorCounters();
                try
                {
                    listener.onTick(StackShard.this, now);
                }
                catch (final RuntimeException e)
                {
                    onListenerError(e);
                }
            }
            finally
            {
                endBatch(); // one flush for the tick's retransmissions, hand-overs and listener sends
            }
        }
    }
}
