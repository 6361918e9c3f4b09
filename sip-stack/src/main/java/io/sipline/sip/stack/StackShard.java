package io.sipline.sip.stack;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.sipline.sip.dialog.Dialog;
import io.sipline.sip.dialog.DialogLayer;
import io.sipline.sip.dialog.DialogListener;
import io.sipline.sip.dialog.DialogPool;
import io.sipline.sip.dialog.DialogTable;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.NameAddrFlyweight;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.message.SipUriFlyweight;
import io.sipline.sip.message.ViaFlyweight;
import io.sipline.sip.shard.ShardIds;
import io.sipline.sip.timer.TimerHandler;
import io.sipline.sip.timer.TimerWheel;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.NanoClock;
import io.sipline.sip.transaction.ResponseTimeHistogram;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.Transaction;
import io.sipline.sip.transaction.TransactionLayer;
import io.sipline.sip.transaction.TransactionTransport;
import io.sipline.sip.transaction.TransactionUser;
import io.sipline.sip.transport.MessageCounters;
import io.sipline.sip.transport.RealtimeClock;
import io.sipline.sip.transport.ResponseAddress;
import io.sipline.sip.transport.SipMessageHandler;
import io.sipline.sip.transport.StatelessResponder;
import io.sipline.sip.transport.UdpShardSockets;
import io.sipline.sip.transport.dns.SipLocator;
import io.sipline.sip.transport.tcp.StreamMessageHandler;
import io.sipline.sip.transport.tcp.TcpConnection;
import io.sipline.sip.transport.tcp.TcpFlow;
import io.sipline.sip.transport.tcp.TcpShardConnections;
import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscArrayQueue;

/**
 * One shard of the {@link SipStack}: the state one event-loop thread owns exclusively — its transaction layer, dialog
 * layer, two timer wheels (transaction timers, application timers), id generator, message builder — and the API its
 * {@link SipListener} uses to act: {@link #respond}, {@link #sendRequest}, {@link #sendStateless}, dialogs, timers.
 *
 * <pre>
 *   datagram on shard k --parse--> owner j = route(msg) --j == k--> TransactionLayer.onIncoming --> SipListener
 *                                        \--j != k--> copy into pooled buffer --MPSC offer--> shard j's inbox
 *   shard j: drain task (scheduled once when the inbox goes non-empty) --drain(limit)--> parse --> onIncoming
 *   every tick (1 ms, scheduleAtFixedRate once at start) and before each datagram when a tick has passed:
 *       timers first (RFC 3261 timers A-M, then application timers), then the inbox, then SipListener.onTick
 * </pre>
 *
 * <p><b>Input lag.</b> Each shard notes how long each message it handles waited since it arrived, keeping the
 * longest of the last 25-50 ms ({@link InputLag}); {@link #inputLagNs} is the largest over the shards. A
 * retransmission due within that window waits ({@code TransactionLayer}): the reply it would retransmit for may have
 * arrived and still be unread, as in a JIT-cold start at full rate, where a retransmitted INVITE reached a far end
 * that had answered long before.
 *
 * <p><b>Routing</b> ({@link #ownerOf}): a response goes to the shard encoded in its top Via branch, an in-dialog
 * request to the shard encoded in its To tag, when those are ids a {@link ShardIds} generator of this stack made; a
 * request outside a dialog that targets a dialog or application session of ours ({@link #targetedShard}: Replaces,
 * Join, an encoded Request-URI) to the shard that holds it; everything else to the shard encoded in the Call-ID (a
 * leg this stack created) or {@code hash(Call-ID) mod N}. All of these agree for every message of a call, because the
 * ids are generated on the shard the Call-ID rule picks. (The one exception: a CANCEL of a Replaces or Join INVITE
 * carries neither header; {@link #route} sends it where its INVITE went, remembered in {@link MovedInvites}.)
 *
 * <p><b>TLS identity.</b> A TLS connection this shard opens must prove, with its server certificate, the SIP domain
 * of the request that opens it (RFC 5922 §7.3: the host of its top Route, else of its Request-URI); a connection is
 * reused only for the same domain. A mismatch closes it and fails its transactions with a transport error.
 *
 * <p><b>Connections</b> (TCP, TLS): a message read on a connection has the connection's {@link TcpFlow} as its source;
 * a server transaction keeps it as its peer, so every response goes back on that connection (RFC 3261 §18.2.2),
 * from whichever shard owns the call: the flow travels with a hand-over, and {@link TcpConnection#send} may be called
 * from any thread. If the connection has closed by then, a response goes on a new connection to the source address
 * and the top Via's sent-by port (§18.2.2). Reliable transports start no retransmission timers (§17.1.1.2,
 * §17.1.2.2, §17.2.1). Outbound, the transport of a request (or a stateless message) is its top Via's (§18.1.1): {@code TCP} or
 * {@code TLS} send on this shard's open connection to the destination or open one ({@link TcpShardConnections#flowTo});
 * a destination that is already a flow sends on it. A connection that closes or fails to connect fails the client
 * transactions still waiting on it (transport error, §17.1.4).
 *
 * <p><b>UDP sockets.</b> Every message of a transaction leaves from one local address:port: a server transaction's from
 * the socket its request arrived on (RFC 3261 §18.2.2), also for a response given later or retransmitted by a timer;
 * a client transaction's from the socket of its first send (the one the message being handled arrived on, when it is
 * started while handling one, else the first socket of the destination's family).
 *
 * <p><b>Malformed messages</b> are counted ({@link #malformed()}, and per {@code ParseResult} by the transport) and
 * never reach the listener: a request that got far enough to carry Via, From, To, Call-ID and CSeq is answered
 * statelessly by the reading shard with its parse result's status and reason (RFC 3261 §8.2: {@code 400 <what is
 * wrong>}, {@code 505}), through the same code as the transport's {@code StatelessResponder}; an ACK, a response or
 * anything less is dropped.
 *
 * <p><b>Via maddr.</b> A response whose request's top Via has a {@code maddr} naming a host goes to the address this
 * shard's {@link SipLocator} finds for that name (RFC 3261 §18.2.2, RFC 3263 §4.2); none found is a transport error.
 *
 * <p><b>Buffer ownership.</b> {@link #respond}, {@link #sendRequest} and {@link #sendStateless} take ownership of
 * the buffer they are given (sent or released). A hand-over copies the datagram bytes once into a buffer from
 * {@link SipStackConfig#allocator()}; the reading shard owns it until the target's queue accepts it (when the queue is
 * full it releases it at once and counts the drop: UDP retransmits), the owning shard from then on, and releases it
 * right after parsing it (in {@code finally}). Messages passed to the listener are borrowed for the call.
 *
 * <p><b>Threading.</b> Every method runs on this shard's event loop only, except {@link #index()} and the counters
 * (racy reads of plain fields, for metrics), and the package-private hand-over offer made by other shards. Nothing
 * here blocks or takes a lock; the only cross-thread state is the MPSC inbox, the MPSC record return queue and an
 * atomic "drain scheduled" flag.
 */
public final class StackShard
{
    private static final Logger LOG = System.getLogger("io.sipline.sip.stack");
    /** Distinct error kinds already logged, stack-wide (any thread; grows only with new kinds). */
    private static final ConcurrentHashMap<String, Boolean> LOGGED = new ConcurrentHashMap<>();
    /** A loop that polled no timer for this many ticks was stalled; see {@link TickTask}. */
    static final int STALL_TICKS = 10;

    private final int index;
    private final SipStack stack;
    private final SipStackConfig config;
    private final StackShard[] all;
    private final ByteBufAllocator allocator;
    private final TimerWheel transactionWheel;
    private final TimerWheel appWheel;
    private final TransactionLayer transactions;
    private final DialogLayer dialogs;
    private final ShardIds ids;
    /** Answers malformed requests statelessly (RFC 3261 §8.2); shares {@link #ids} for its To tags. */
    private final StatelessResponder malformedAnswers;
    private final SipMessageBuilder builder = new SipMessageBuilder();
    /** Buffers of outbound messages and hand-over copies, reused once released (shard thread; see the class). */
    private final OutboundBuffers outboundBuffers;
    private final SipMessage handedOver = new SipMessage();
    /** Reads back outbound messages (their top Via's transport, a response's sent-by port); never a caller's. */
    private final SipMessage outbound = new SipMessage();
    private final ViaFlyweight outboundVia = new ViaFlyweight();
    /** The Request-URI and top Route of an outbound TLS request: the SIP domain its server must prove. */
    private final SipUriFlyweight outboundUri = new SipUriFlyweight();
    private final NameAddrFlyweight outboundRoute = new NameAddrFlyweight();
    private final Events events = new Events();
    private final MpscArrayQueue<Handoff> inbox;
    private final MpscArrayQueue<Handoff> returned;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = new DrainTask();
    private final Runnable tickTask = new TickTask();
    private final SipListener listener;

    private Handoff[] freeRecords;
    private int freeRecordCount;
    /** Set once at start by the starting thread; volatile because other shards read it to wake this one. */
    private volatile EventLoop loop;
    private UdpShardSockets udp;
    private TcpShardConnections tcp;
    /** RFC 3263 location, made on first use (a DNS socket per shard only when someone locates). */
    private SipLocator locator;
    /** The local address of the message being dispatched (responses leave from it, RFC 3581 §4), or null. */
    private InetSocketAddress currentLocal;
    private long lastPollNs;
    /** True for the one tick whose timers waited for the loop's I/O after a stall (see {@link TickTask}). */
    private boolean timersHeldForInput;
    private boolean stopping;
    /** How long the messages this shard handles waited since they arrived (retransmissions wait for the backlog). */
    private final InputLag inputLag;
    /**
     * Per message, how long it waited between its arrival (the kernel's receive timestamp) and its handling: read
     * from its socket by this shard ({@link #readLag}), or taken from this shard's hand-over inbox after another shard
     * read it ({@link #handoverLag}: the reading shard's wait, the copy and the inbox together).
     */
    private final ResponseTimeHistogram readLag = new ResponseTimeHistogram();
    private final ResponseTimeHistogram handoverLag = new ResponseTimeHistogram();

    // counters: plain longs written by this shard only, read racily for metrics
    private long handoffsOut;
    private long handoffsIn;
    private long handoffDrops;
    private long handoffRecordMisses;
    private long unreachableReports;
    private long malformed;
    private long listenerErrors;
    private long listenerRetransmissionsDeferred;
    private long ticks;
    /** Messages in and out by method and status class, retransmissions, mirrored gauges (opaque, for metrics). */
    private final MessageCounters traffic = new MessageCounters();
    /** True while the listener's own send ({@link #sendRequest}, {@link #respond}) runs: not a retransmission. */
    private boolean tuSending;
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
        this.inputLag = new InputLag(now);
        this.transactions = new TransactionLayer(config.transactionConfig(), events, events, NanoClock.SYSTEM,
            transactionWheel);
        this.dialogs = new DialogLayer(new DialogPool(config.initialDialogs(), config.initialDialogs()),
            new DialogTable(config.initialDialogs()), events);
        this.ids = new ShardIds(index, seed);
        this.malformedAnswers = new StatelessResponder(ids);
        this.inbox = new MpscArrayQueue<>(config.handoffQueueCapacity());
        // Every record this shard lends out fits in one return queue: at most one inbox-full per other shard.
        this.returned = new MpscArrayQueue<>(Math.max(2, config.handoffQueueCapacity() * Math.max(1, all.length)));
        this.freeRecords = new Handoff[Math.max(16, config.handoffQueueCapacity())];
        for (int i = 0; i < freeRecords.length; i++)
        {
            final Handoff h = new Handoff();
            h.origin = index;
            freeRecords[freeRecordCount++] = h;
        }
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
            final InetSocketAddress next = nextHop(request, destination);
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
        final InetSocketAddress next = nextHop(message, destination);
        if (null != next)
        {
            traffic.outbound(message); // before the send takes the buffer: counts what is handed to a transport
        }
        if (next instanceof TcpFlow flow)
        {
            return sendOnFlow(flow, message);
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
    // Transport selection (RFC 3261 §18.1.1, §18.2.2)
    // ================================================================================================================

    /**
     * Where an outbound message goes: a flow as given; otherwise by the transport of its top Via — TCP or TLS through
     * this shard's connection to the destination (reused or opened), anything else as a datagram.
     *
     * @return the destination to use, or null when its transport cannot be served (TLS without a client context).
     */
    private InetSocketAddress nextHop(final ByteBuf message, final InetSocketAddress destination)
    {
        if (destination instanceof TcpFlow || null == destination || null == tcp)
        {
            return destination;
        }
        final int transport = topViaTransport(message);
        if (TRANSPORT_UDP == transport)
        {
            return destination;
        }
        return TRANSPORT_TLS == transport ? tlsFlow(destination) : tcp.flowTo(destination, false);
    }

    /**
     * The TLS flow for the message {@link #topViaTransport} just parsed into {@link #outbound}, for the SIP domain
     * its server must prove (RFC 5922 §7.3, the host of the URI RFC 3263 located): for a request the host of its top
     * Route's URI (the next hop, RFC 3261 §8.1.2), else of its Request-URI; for a response the top Via's sent-by host
     * (RFC 3263 §6). A message without a usable host asks for the destination's address instead. Reusing an open
     * connection for the same domain allocates nothing.
     */
    private TcpFlow tlsFlow(final InetSocketAddress destination)
    {
        final SipMessage m = outbound;
        final byte[] b = m.buffer();
        if (m.isResponse())
        {
            return tcp.flowTo(destination, true, b, outboundVia.hostStart(), outboundVia.hostEnd());
        }
        final int route = m.firstHeader(HeaderName.ROUTE);
        final SipUriFlyweight uri;
        if (route >= 0)
        {
            uri = outboundRoute.wrap(b, m.headerValueStart(route), m.headerValueEnd(route)) ? outboundRoute.uri() :
                null;
        }
        else
        {
            uri = outboundUri.wrap(b, m.requestUriStart(), m.requestUriEnd()) ? outboundUri : null;
        }
        if (null == uri || uri.hostStart() < 0 || uri.hostEnd() <= uri.hostStart())
        {
            return tcp.flowTo(destination, true);
        }
        return tcp.flowTo(destination, true, b, uri.hostStart(), uri.hostEnd());
    }

    private static final int TRANSPORT_UDP = 0;
    private static final int TRANSPORT_TCP = 1;
    private static final int TRANSPORT_TLS = 2;

    /** The top Via's transport of an outbound message (UDP when it cannot be read: the datagram path judges it). */
    private int topViaTransport(final ByteBuf message)
    {
        final SipMessage m = outbound;
        if (SipMessageParser.parseDatagram(message, m) != ParseResult.OK || m.topVia() < 0
            || !outboundVia.wrap(m.buffer(), m.headerValueStart(m.topVia()), m.headerValueEnd(m.topVia())))
        {
            return TRANSPORT_UDP;
        }
        final byte[] b = m.buffer();
        final int start = outboundVia.transportStart();
        final int length = outboundVia.transportEnd() - start;
        if (3 == length && (b[start] | 0x20) == 't')
        {
            final int second = b[start + 1] | 0x20;
            final int third = b[start + 2] | 0x20;
            if (second == 'c' && third == 'p')
            {
                return TRANSPORT_TCP;
            }
            if (second == 'l' && third == 's')
            {
                return TRANSPORT_TLS;
            }
        }
        return TRANSPORT_UDP;
    }

    /**
     * Sends on a flow. When its connection has closed: a connection we opened is opened again (or another open one
     * to the same address is used); for one the peer opened, RFC 3261 §18.2.2 sends a response on a new connection to
     * the source address and the port of the top Via's sent-by (5060, or 5061 for TLS, when it has none), and
     * anything else fails.
     *
     * @param message ownership taken.
     */
    private boolean sendOnFlow(final TcpFlow flow, final ByteBuf message)
    {
        final TcpConnection connection = flow.connection();
        if (connection.isUsable() || null == tcp)
        {
            return connection.send(message);
        }
        if (connection.isOutbound())
        {
            // Reopened for the domain it was opened for (RFC 5922 §7.3: the new server must prove the same one).
            final String domain = connection.tlsDomain();
            final byte[] d = null == domain ? null : domain.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            final TcpFlow again = tcp.flowTo(flow, flow.isTls(), d, 0, null == d ? 0 : d.length);
            if (null == again)
            {
                message.release();
                return false;
            }
            return again.connection().send(message);
        }
        final SipMessage m = outbound;
        if (SipMessageParser.parseDatagram(message, m) != ParseResult.OK || !m.isResponse() || m.topVia() < 0
            || !outboundVia.wrap(m.buffer(), m.headerValueStart(m.topVia()), m.headerValueEnd(m.topVia())))
        {
            return connection.send(message); // not a response: fails and is counted by the closed connection
        }
        final int port = outboundVia.port() > 0 ? outboundVia.port() :
            (flow.isTls() ? SipStackConfig.TLS_PORT_DEFAULT : ResponseAddress.DEFAULT_SIP_PORT);
        // Over TLS the new connection's server must prove the sent-by host (RFC 3263 §6, RFC 5922 §7.3).
        final TcpFlow fresh = tcp.flowTo(new InetSocketAddress(flow.getAddress(), port), flow.isTls(), m.buffer(),
            outboundVia.hostStart(), outboundVia.hostEnd());
        if (null == fresh)
        {
            message.release();
            return false;
        }
        return fresh.connection().send(message);
    }

    // ================================================================================================================
    // Counters (racy reads from any thread, for metrics)
    // ================================================================================================================

    /** Datagrams this shard read for a call of another shard and handed over. */
    public long handoffsOut()
    {
        return handoffsOut;
    }

    /** Datagrams other shards handed to this one, processed. */
    public long handoffsIn()
    {
        return handoffsIn;
    }

    /** Hand-overs dropped because the target's queue was full (UDP retransmits). */
    public long handoffDrops()
    {
        return handoffDrops;
    }

    /** ICMP port unreachable reports from UDP peers seen by this shard (RFC 3261 §18.4). */
    public long unreachableReports()
    {
        return unreachableReports;
    }

    /** Hand-over records allocated because the free list was empty (pool growth). */
    public long handoffRecordMisses()
    {
        return handoffRecordMisses;
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
        return inbox.size();
    }

    /** True from start until the shard's event loop begins to shut down. Any thread. */
    public boolean isRunning()
    {
        final EventLoop l = loop;
        return null != l && !l.isShuttingDown();
    }

    // ================================================================================================================
    // Routing and hand-over
    // ================================================================================================================

    /**
     * The shard that owns the call of a parsed message (DESIGN.md, Threading): the shard encoded in the top Via
     * branch of a response or the To tag of a request when it is an id of this stack, else the one encoded in the
     * Call-ID, else {@code hash(Call-ID) mod shards}.
     */
    static int ownerOf(final SipMessage m, final int shards)
    {
        if (shards == 1)
        {
            return 0;
        }
        final byte[] b = m.buffer();
        int s = -1;
        if (m.isResponse())
        {
            if (m.topViaBranchStart() >= 0)
            {
                s = ShardIds.shardOf(b, m.topViaBranchStart(), m.topViaBranchEnd());
            }
        }
        else if (m.toTagStart() >= 0)
        {
            s = ShardIds.shardOf(b, m.toTagStart(), m.toTagEnd());
        }
        else
        {
            s = targetedShard(m);
        }
        if (s >= 0 && s < shards)
        {
            return s;
        }
        return callIdShard(m, shards);
    }

    /**
     * {@link #ownerOf}, plus what a CANCEL needs (RFC 3261 §9.2): an INVITE outside a dialog that goes to another
     * shard than its Call-ID's (session targeting) is remembered in the stack's {@link MovedInvites}, and a CANCEL
     * outside a dialog goes where its INVITE went. Called by the reading shard, before any hand-over.
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
                final int targeted = targetedShard(m);
                if (targeted < 0 || targeted >= shards)
                {
                    return callIdShard(m, shards);
                }
                if (targeted != callIdShard(m, shards))
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
        return ownerOf(m, shards);
    }

    /** The shard the Call-ID names: the one encoded in it (a leg this stack created), else its hash mod shards. */
    static int callIdShard(final SipMessage m, final int shards)
    {
        final byte[] b = m.buffer();
        final int s = ShardIds.shardOf(b, m.callIdStart(), m.callIdEnd());
        if (s >= 0 && s < shards)
        {
            return s;
        }
        return ShardIds.shardForCallId(b, m.callIdStart(), m.callIdEnd(), shards);
    }

    /**
     * The Request-URI parameter that names an application session of this stack's user (the container's encoded
     * URI, JSR 289 §15.11.1); its value is an id a {@link ShardIds} generator made, so it names its shard.
     */
    public static final String TARGET_URI_PARAMETER = "sipline-appsession";

    private static final byte[] TARGET_URI_PARAMETER_BYTES = (";" + TARGET_URI_PARAMETER + "=")
        .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] TO_TAG_BYTES = "to-tag=".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * Session targeting (JSR 289 §15.11.3) for a request outside a dialog: the shard that owns the dialog its
     * Replaces (RFC 3891) or Join (RFC 3911) header names, whose {@code to-tag} is that dialog's local tag here (RFC
     * 3891 §3 matches the to-tag against the local tag of the receiving UA's dialog), or the shard of the application session its
     * Request-URI's {@link #TARGET_URI_PARAMETER} names; -1 when neither is an id of this stack. Read in place.
     */
    static int targetedShard(final SipMessage m)
    {
        final byte[] b = m.buffer();
        int header = m.firstHeader(HeaderName.REPLACES);
        if (header < 0)
        {
            header = m.firstHeader(HeaderName.JOIN);
        }
        if (header >= 0)
        {
            final int s = shardOfParameter(b, m.headerValueStart(header), m.headerValueEnd(header), TO_TAG_BYTES);
            if (s >= 0)
            {
                return s;
            }
        }
        return m.requestUriStart() < 0 ? -1
            : shardOfParameter(b, m.requestUriStart(), m.requestUriEnd(), TARGET_URI_PARAMETER_BYTES);
    }

    /** The shard of the id that follows {@code name} in {@code [start, end)} (up to ';', '?', '>' or a blank). */
    private static int shardOfParameter(final byte[] b, final int start, final int end, final byte[] name)
    {
        final int at = Ascii.indexOf(b, start, end, name);
        if (at < 0)
        {
            return -1;
        }
        final int from = at + name.length;
        int to = from;
        while (to < end && b[to] != ';' && b[to] != '?' && b[to] != '>' && b[to] != ' ' && b[to] != ',')
        {
            to++;
        }
        return ShardIds.shardOf(b, from, to);
    }

    /** Reading shard: copy the datagram and offer it to the owner's inbox. */
    private boolean handOver(final StackShard target, final SipMessage m, final InetSocketAddress source,
        final InetSocketAddress local)
    {
        final Handoff h = acquireRecord();
        final int length = m.length();
        final ByteBuf copy = outboundBuffers.acquire(length); // released by the target shard after parsing
        // Not writeBytes: it would make a ByteBuffer view of the new buffer when Netty runs without Unsafe (JDK 25).
        io.sipline.sip.message.ByteBufCopy.write(m.buffer(), m.offset(), length, copy);
        h.datagram = copy;
        h.source = source;
        h.local = local;
        h.receivedAtNanos = m.receivedAtNanos();
        if (!target.inbox.offer(h))
        {
            // Queue full: the copy is still ours; release it and drop the datagram (the peer retransmits).
            copy.release();
            h.clear();
            freeRecords[freeRecordCount++] = h;
            handoffDrops++;
            return false;
        }
        handoffsOut++; // from here the copy belongs to the target shard
        target.wake();
        return true;
    }

    private Handoff acquireRecord()
    {
        if (0 == freeRecordCount)
        {
            returned.drain(events, freeRecords.length);
        }
        if (0 == freeRecordCount)
        {
            handoffRecordMisses++;
            final Handoff h = new Handoff();
            h.origin = index;
            return h;
        }
        final Handoff h = freeRecords[--freeRecordCount];
        freeRecords[freeRecordCount] = null;
        return h;
    }

    /** Any thread: make sure a drain of this shard's inbox is scheduled on its loop (one task, not one per message). */
    private void wake()
    {
        final EventLoop l = loop;
        // Plain read first: most offers find a drain already scheduled and skip the CAS.
        if (null != l && !drainScheduled.get() && drainScheduled.compareAndSet(false, true))
        {
            l.execute(drainTask);
        }
    }

    private int drainInbox()
    {
        return inbox.drain(events, config.drainLimit());
    }

    /** Owning shard: one handed-over datagram; releases its copy and returns the record to its origin. */
    private void onHandoff(final Handoff h)
    {
        final ByteBuf datagram = h.datagram;
        try
        {
            handoffsIn++;
            final long now = System.nanoTime();
            noteInputLag(now, h.receivedAtNanos, handoverLag); // before the timers: they read it
            pollTimersIfDue(now);
            if (SipMessageParser.parseDatagram(datagram, handedOver) == ParseResult.OK)
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
            final StackShard origin = all[h.origin];
            h.clear();
            if (origin != this)
            {
                origin.returned.offer(h); // a full return queue means the record is left to the GC
            }
            else
            {
                recycleLocal(h);
            }
        }
    }

    private void recycleLocal(final Handoff h)
    {
        if (freeRecordCount < freeRecords.length)
        {
            freeRecords[freeRecordCount++] = h;
        }
    }

    private boolean dispatch(final SipMessage m, final InetSocketAddress source, final InetSocketAddress local)
    {
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
    private void pollTimersIfDue(final long nowNs)
    {
        if (nowNs - lastPollNs >= config.tickNs() && !stalled(nowNs))
        {
            pollTimers(nowNs);
        }
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
    private void noteInputLag(final long nowNs, final long receivedAtNanos, final ResponseTimeHistogram histogram)
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
    private void flushIfOutsideRead()
    {
        if (null != udp && null == udp.currentLocal() && !batching)
        {
            udp.flush();
        }
    }

    private void onListenerError(final Throwable e)
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

    /** On this shard's loop, once: attach the shard's connections. */
    void attachStreams(final TcpShardConnections shard)
    {
        tcp = shard;
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
        releaseInbox();
        outboundBuffers.close(); // buffers still referenced (a write in flight, another shard's inbox) free later
    }

    /** Releases every datagram still queued (after the loops stopped, or on the loop at stop). */
    void releaseInbox()
    {
        Handoff h;
        while (null != (h = inbox.poll()))
        {
            h.datagram.release(); // never processed: the owning shard's copy, released here
            h.clear();
        }
    }

    // ================================================================================================================
    // The seams: transport handler, transaction transport and user, dialog listener, timer handler, drain consumer
    // ================================================================================================================

    private final class Events implements SipMessageHandler, StreamMessageHandler, TransactionTransport,
        TransactionUser, DialogListener, MessagePassingQueue.Consumer<Handoff>
    {
        final TimerHandler appTimers = new AppTimers();

        /** A message framed on a connection of this shard (RFC 3261 §18.3); its source is the connection's flow. */
        @Override
        public boolean onMessage(final TcpConnection connection, final SipMessage message)
        {
            final long now = System.nanoTime();
            noteInputLag(now, message.receivedAtNanos(), readLag); // before the timers: they read it
            pollTimersIfDue(now);
            final TcpFlow flow = connection.flow();
            if (message.result() != ParseResult.OK)
            {
                // As over UDP (RFC 3261 §8.2), but the answer goes back on the connection (§18.2.2).
                malformed++;
                final ByteBuf answer = malformedAnswers.malformedAnswer(allocator, message, flow);
                if (null != answer)
                {
                    traffic.outbound(answer);
                }
                return null != answer && connection.send(answer);
            }
            traffic.inbound(message);
            final int owner = route(message);
            if (owner != index)
            {
                return handOver(all[owner], message, flow, connection.localAddress());
            }
            return dispatch(message, flow, connection.localAddress());
        }

        /** One of this shard's connections closed or failed to connect: its waiting client transactions fail. */
        @Override
        public void onClosed(final TcpConnection connection)
        {
            if (transactions.failTransport(connection.flow()) > 0)
            {
                flushIfOutsideRead();
            }
        }

        @Override
        public boolean onMessage(final UdpShardSockets shard, final SipMessage message, final InetSocketAddress source)
        {
            if (null == udp)
            {
                udp = shard;
            }
            final long now = System.nanoTime();
            noteInputLag(now, message.receivedAtNanos(), readLag); // before the timers: they read it
            pollTimersIfDue(now);
            if (message.result() != ParseResult.OK)
            {
                // Counted here, and by the transport per ParseResult. Answered statelessly on the reading shard
                // (RFC 3261 §8.2: 400 with the reason, 505 for the version; never an ACK or a response): there is
                // no transaction to own it, and its Call-ID may be missing. The answer is built in a buffer of the
                // transport's allocator and passed to UdpShardSockets.send, which sends or releases it. A false return is
                // counted by the transport as a drop.
                malformed++;
                final boolean answered = malformedAnswers.answerMalformed(shard, message, source);
                if (answered)
                {
                    traffic.responseOut(message.result().statusCode());
                }
                return answered;
            }
            traffic.inbound(message);
            final int owner = route(message);
            if (owner != index)
            {
                return handOver(all[owner], message, source, shard.currentLocal());
            }
            return dispatch(message, source, shard.currentLocal());
        }

        /** RFC 3261 §18.4: a UDP peer refused our datagrams (ICMP); its transactions on this shard fail. */
        @Override
        public void onUnreachable(final UdpShardSockets shard, final InetSocketAddress local, final InetSocketAddress peer)
        {
            if (null == udp)
            {
                udp = shard;
            }
            unreachableReports++;
            if (transactions.failDatagramPeer(peer) > 0)
            {
                flushIfOutsideRead();
            }
        }

        /** Drain consumer: the inbox (records to process) and the return queue (records coming home). */
        @Override
        public void accept(final Handoff h)
        {
            if (null == h.datagram)
            {
                recycleLocal(h); // a record of ours, given back by the shard that processed it
            }
            else
            {
                onHandoff(h);
            }
        }

        @Override
        public long inputLagNs(final long nowNs)
        {
            return StackShard.this.inputLagNs(nowNs);
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
                sent = !stopping && sendOnFlow(flow, data.retainedDuplicate());
            }
            else if (stopping || null == udp)
            {
                return false;
            }
            else
            {
                // The transaction keeps its reference for retransmission; the write takes its own (released by Netty).
                // The buffer itself, not a duplicate: a datagram write moves no index, and the buffer's NIO view,
                // made when the message was written, is reused by the send (a duplicate would make a new one per
                // send when Netty runs without sun.misc.Unsafe, JDK 25).
                sent = udp.sendFrom(null != local ? local : currentLocal, data.retain(), destination);
            }
            if (sent)
            {
                countTransactionSend(data);
            }
            return sent;
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
            if (stopping)
            {
                layer.resolved(tx, id, null);
                return;
            }
            locator().locate(unresolved.getHostString(), unresolved.getPort(), "UDP", false, targets ->
            {
                layer.resolved(tx, id, targets.isEmpty() ? null : targets.get(0).address());
                flushIfOutsideRead();
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
            final int status = traffic.outbound(data);
            if (!tuSending && 100 != status && !(0 == status && isAck(data)))
            {
                traffic.retransmission();
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
                listener.onRequest(StackShard.this, tx, request);
            }
            catch (final RuntimeException e)
            {
                onListenerError(e);
            }
        }

        @Override
        public void onAck(final ServerTransaction tx, final SipMessage ack)
        {
            try
            {
                listener.onAck(StackShard.this, tx, ack);
            }
            catch (final RuntimeException e)
            {
                onListenerError(e);
            }
        }

        @Override
        public void onResponse(final ClientTransaction tx, final SipMessage response)
        {
            try
            {
                listener.onResponse(StackShard.this, tx, response);
            }
            catch (final RuntimeException e)
            {
                onListenerError(e);
            }
        }

        @Override
        public void onStatelessRequest(final SipMessage request, final InetSocketAddress source,
            final boolean reliable)
        {
            try
            {
                listener.onStatelessRequest(StackShard.this, request, source);
            }
            catch (final RuntimeException e)
            {
                onListenerError(e);
            }
        }

        @Override
        public void onStatelessResponse(final SipMessage response, final InetSocketAddress source)
        {
            try
            {
                listener.onStatelessResponse(StackShard.this, response, source);
            }
            catch (final RuntimeException e)
            {
                onListenerError(e);
            }
        }

        @Override
        public void onTimeout(final Transaction tx, final char timer)
        {
            if (stopping)
            {
                return;
            }
            try
            {
                listener.onTimeout(StackShard.this, tx, timer);
            }
            catch (final RuntimeException e)
            {
                onListenerError(e);
            }
        }

        @Override
        public void onTransportError(final Transaction tx)
        {
            if (stopping)
            {
                return;
            }
            try
            {
                listener.onTransportError(StackShard.this, tx);
            }
            catch (final RuntimeException e)
            {
                onListenerError(e);
            }
        }

        @Override
        public void onTerminated(final Transaction tx)
        {
            try
            {
                listener.onTerminated(StackShard.this, tx);
            }
            catch (final RuntimeException e)
            {
                onListenerError(e);
            }
        }

        @Override
        public void onDialogTerminated(final Dialog dialog, final io.sipline.sip.dialog.DialogEndReason reason)
        {
            // Dialog ends are visible through the DialogLayer's return values; nothing to do here yet.
        }
    }

    private final class AppTimers implements TimerHandler
    {
        @Override
        public boolean onTimer(final long timerId, final long nowNs)
        {
            try
            {
                listener.onTimer(StackShard.this, timerId, appWheel.payload(timerId), nowNs);
            }
            catch (final RuntimeException e)
            {
                onListenerError(e);
            }
            return true;
        }
    }

    /** Once per tick: copy the plain counters and the layer sizes into {@link #traffic} for other threads. */
    private void mirrorCounters()
    {
        traffic.mirror(MessageCounters.TRANSACTIONS_ACTIVE, transactions.activeTransactions());
        traffic.mirror(MessageCounters.DIALOGS_ACTIVE, dialogs.table().size());
        traffic.mirror(MessageCounters.HANDOFF_DROPS, handoffDrops);
        traffic.mirror(MessageCounters.MALFORMED, malformed);
        traffic.mirror(MessageCounters.LISTENER_ERRORS, listenerErrors);
        traffic.mirror(MessageCounters.HANDOFFS_OUT, handoffsOut);
        traffic.mirror(MessageCounters.RETRANSMISSIONS_DEFERRED,
            transactions.deferredRetransmissions() + listenerRetransmissionsDeferred);
    }

    /** Scheduled once when the inbox goes non-empty (see {@link #wake()}); no task object per message. */
    private final class DrainTask implements Runnable
    {
        @Override
        public void run()
        {
            // Clear the flag before draining: an offer after our last poll sees it clear and schedules another run,
            // so no datagram is left waiting; at worst one run finds the queue empty.
            drainScheduled.set(false);
            batching = true;
            try
            {
                drainInbox();
            }
            finally
            {
                endBatch(); // one flush for the drain (every 16 hand-overs within it: onHandoff)
            }
            if (!inbox.isEmpty())
            {
                wake();
            }
        }
    }

    /**
     * Every tick: timers first, then hand-overs, then the listener's tick; one flush at the end (what they send is
     * written meanwhile and flushed then, {@link #batching}). After a stall of the
     * loop (no timer poll for {@link #STALL_TICKS} ticks: a long call while the JIT is cold, a listener that blocks,
     * the machine's other work) the timers wait: this tick drains the hand-overs, and the loop's next turn reads a
     * batch from every readable socket, each noting how long its datagrams waited ({@link InputLag}), before the next
     * tick decides on any retransmission; that tick polls them whatever happened.
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
                if (stalled(now) && !timersHeldForInput)
                {
                    timersHeldForInput = true;
                }
                else
                {
                    timersHeldForInput = false;
                    pollTimers(now);
                }
                drainInbox();
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
