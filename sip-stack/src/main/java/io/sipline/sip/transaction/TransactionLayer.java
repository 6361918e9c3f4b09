package io.sipline.sip.transaction;

import java.net.InetSocketAddress;
import java.util.function.LongSupplier;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.message.ViaFlyweight;
import io.sipline.sip.timer.TimerHandler;
import io.sipline.sip.timer.TimerWheel;
import io.sipline.sip.transport.ResponseAddress;

/**
 * One shard's RFC 3261 §17 transaction layer: the facade between the transport below and the
 * {@link TransactionUser} (dialog layer, container) above.
 * <pre>
 *   transport --onIncoming(msg, source, reliable)--> match (§17.1.3 / §17.2.3) --> machine --> TransactionUser
 *   TransactionUser --sendRequest(buf, dest, reliable)--> new client tx --> TransactionTransport.send
 *   TransactionUser --respond(serverTx, buf, status)----> machine ---------> TransactionTransport.send
 *   shard loop --doWork(nowNs)--> TimerWheel.poll --> timers A..M fire (before the loop reads new datagrams)
 * </pre>
 *
 * <p>Stages: {@link TransactionKeys} (match keys), {@link LayerMessages} (the 100 Trying and non-2xx ACKs it writes),
 * {@link StatelessShedding} (overload refusals before any transaction), {@link PeerFailures} (a lost peer's
 * transactions failed a slice at a time), {@link TransactionPool} (the transaction objects: a registry by index
 * and per-machine free lists, a miss allocates one, counted; trimmed to recent use once a second), the four
 * transaction machines. The client and server {@link TransactionTable}s are primitive maps keyed by a hash; timers
 * live in the shard's {@link TimerWheel}.
 * In steady state the layer allocates nothing. Responses go where RFC 3261 §18.2.2 and RFC 3581 §4 say
 * ({@link ResponseAddress}). Errors are events, never exceptions.
 *
 * <p>Buffers: {@link #sendRequest} and {@link #respond} take ownership of theirs (kept for retransmission, released
 * when superseded, at termination, or at once when refused); the transport borrows them for each send.
 *
 * <p>Not thread-safe; owned by one shard, whose thread runs every method and callback. The shard calls
 * {@link #doWork} before it handles a batch of new datagrams (timers before inbound work).
 */
public final class TransactionLayer
{
    static final int KIND_INVITE_CLIENT = 0;
    static final int KIND_NON_INVITE_CLIENT = 1;
    static final int KIND_INVITE_SERVER = 2;
    static final int KIND_NON_INVITE_SERVER = 3;
    static final int KINDS = 4;
    private static final InviteResponse[] INVITE_RESPONSES = InviteResponse.values();

    private final TransactionConfig config;
    private final TransactionTransport transport;
    private final TransactionUser user;
    private final NanoClock clock;
    private final TimerWheel wheel;
    private final ByteBufAllocator allocator;
    /** Parses what the layer reads back from its own buffers (requests to send, ACK sources); never a caller's. */
    private final SipMessage scratch = new SipMessage();
    /** Reads the method, top Via branch and CSeq of a request to send, parsing it into {@link #scratch} if need be. */
    private final RequestKeyReader requestKey = new RequestKeyReader(scratch);
    /** Writes the Trying and ACKs the layer sends itself. */
    final LayerMessages messages;
    private final ViaFlyweight via = new ViaFlyweight();
    /** New requests refused without a transaction when the {@link Admission} says so. */
    private final StatelessShedding shedding;
    private final TransactionTable clientTable;
    private final TransactionTable serverTable;
    private final TimerHandler timerHandler = new LayerTimerHandler();
    /** The wall clock INVITE response times are read on ({@link TransactionConfig#realtimeClock()}). */
    private final LongSupplier realtimeClock;
    /** One histogram per {@link InviteResponse}, by ordinal; written here, read by metrics on any thread. */
    private final ResponseTimeHistogram[] inviteResponseTimes = new ResponseTimeHistogram[INVITE_RESPONSES.length];
    private final ResponseTimeHistogram[] inviteClientResponseTimes =
        new ResponseTimeHistogram[INVITE_RESPONSES.length];

    /** Every transaction object, by index ({@link Transaction#index}: timers carry it), and the free lists. */
    final TransactionPool pool;
    /** The transport failures of peers still being applied to the transactions, a slice per {@link #doWork}. */
    private final PeerFailures peerFailures = new PeerFailures(this);

    // --- counters (plain longs: read on the shard, or racily for metrics) ---------------------------------------
    private long absorbedRequests;
    private long absorbedResponses;
    private long strayResponses;
    private long unmatchedAcks;
    private long malformed;
    private long rejectedRequests;
    private long transportErrors;
    private long timeouts;
    private long deferredRetransmissions;

    /**
     * @param config    read once.
     * @param transport where messages go; borrowed for the layer's life.
     * @param user      who hears about requests, responses, timeouts, errors, terminations.
     * @param clock     the shard's clock (the same time base as {@code wheel}).
     * @param wheel     a timer wheel on the shard's clock, dedicated to this layer: every timer on it is read as a
     *                  transaction timer when it fires (give the container's own timers a wheel of their own).
     */
    public TransactionLayer(
        final TransactionConfig config,
        final TransactionTransport transport,
        final TransactionUser user,
        final NanoClock clock,
        final TimerWheel wheel)
    {
        this.config = config;
        this.transport = transport;
        this.user = user;
        this.clock = clock;
        this.wheel = wheel;
        this.allocator = config.allocator();
        this.messages = new LayerMessages(allocator, scratch);
        this.shedding = new StatelessShedding(allocator, transport);
        this.realtimeClock = config.realtimeClock();
        for (int i = 0; i < inviteResponseTimes.length; i++)
        {
            inviteResponseTimes[i] = new ResponseTimeHistogram();
            inviteClientResponseTimes[i] = new ResponseTimeHistogram();
        }
        this.clientTable = new TransactionTable(config.initialTableCapacity());
        this.serverTable = new TransactionTable(config.initialTableCapacity());
        this.pool = new TransactionPool(this, config.initialPoolSize(), config.timerDNs());
    }

    // ============================================================================================================
    // Inbound
    // ============================================================================================================

    /**
     * A message arrived from the transport.
     *
     * @param message  borrowed for the call: parsed (anything but {@link ParseResult#OK} is counted and refused).
     * @param source   the sender; kept (by reference) as the destination of responses by a new server transaction.
     * @param reliable whether it came over a reliable transport.
     * @return true when the layer dealt with it (matched, created a transaction, or passed it up as stateless);
     *         false when it was malformed and dropped (the transport answers 400 where it can).
     */
    public boolean onIncoming(final SipMessage message, final InetSocketAddress source, final boolean reliable)
    {
        return onIncoming(message, source, null, reliable);
    }

    /**
     * A message arrived from the transport on a given local socket.
     *
     * @param local the local address:port it arrived on (kept by reference by a new server transaction: its
     *              responses and retransmissions leave from there, RFC 3261 §18.2.2), or null when the transport
     *              picks.
     * @see #onIncoming(SipMessage, InetSocketAddress, boolean)
     */
    public boolean onIncoming(final SipMessage message, final InetSocketAddress source,
        final InetSocketAddress local, final boolean reliable)
    {
        if (message.result() != ParseResult.OK || message.topVia() < 0)
        {
            malformed++;
            return false;
        }
        return message.isRequest() ? onIncomingRequest(message, source, local, reliable) :
            onIncomingResponse(message, source);
    }

    private boolean onIncomingResponse(final SipMessage response, final InetSocketAddress source)
    {
        if (response.topViaBranchStart() < 0)
        {
            strayResponses++;
            user.onStatelessResponse(response, source);
            return true;
        }
        final long hash = TransactionKeys.hashBranch(response.buffer(), response.topViaBranchStart(),
            response.topViaBranchEnd(), response.cseqMethod(), response.buffer(), response.cseqMethodStart(),
            response.cseqMethodEnd());
        final ClientTransaction tx = findClient(hash, response.cseqMethod(), response.buffer(),
            response.cseqMethodStart(), response.cseqMethodEnd(), response.topViaBranchStart(),
            response.topViaBranchEnd());
        if (null == tx)
        {
            strayResponses++;
            user.onStatelessResponse(response, source); // §17.1.3 / RFC 6026 §7.1.1: to the core
            return true;
        }
        tx.onResponse(response);
        return true;
    }

    private boolean onIncomingRequest(
        final SipMessage request, final InetSocketAddress source, final InetSocketAddress local,
        final boolean reliable)
    {
        final int top = request.topVia();
        if (!via.wrap(request.buffer(), request.headerValueStart(top), request.headerValueEnd(top)))
        {
            malformed++;
            return false;
        }
        final int hostStart = via.hostStart();
        final int hostEnd = via.hostEnd();
        final int port = via.port();
        final boolean cookie = request.topViaHasMagicCookie();
        final SipMethod method = request.method();
        final SipMethod methodClass = method == SipMethod.ACK ? SipMethod.INVITE : method;
        final long hash = cookie ? TransactionKeys.hashBranch(request, methodClass)
            : TransactionKeys.hashLegacy(request);
        final ServerTransaction found = findServer(hash, request, methodClass, cookie, hostStart, hostEnd, port);

        if (method == SipMethod.ACK)
        {
            if (found instanceof InviteServerTransaction invite)
            {
                invite.onAck(request);
            }
            else if (!shedding.absorbsAck(request, hash))
            {
                unmatchedAcks++;
                user.onStatelessRequest(request, source, reliable); // the ACK for a 2xx: the dialog layer's
            }
            return true;
        }
        if (null != found)
        {
            found.onRetransmission(request);
            return true;
        }
        if (shedding.refuses(request, method, hash, via, source, local, reliable))
        {
            return true; // refused before any state is made: a stateless 503
        }
        // §9.2: the INVITE server transaction the CANCEL would match if its method were INVITE.
        final long inviteHash = method != SipMethod.CANCEL ? 0
            : cookie ? TransactionKeys.hashBranch(request, SipMethod.INVITE) : hash;
        final ServerTransaction invite = method != SipMethod.CANCEL ? null
            : findServer(inviteHash, request, SipMethod.INVITE, cookie, hostStart, hostEnd, port);
        if (method == SipMethod.CANCEL && null == invite
            && shedding.answersCancel(request, inviteHash, via, source, local, reliable))
        {
            return true; // the CANCEL of an INVITE refused statelessly: a stateless 481
        }

        final ServerTransaction tx = (ServerTransaction)pool.acquire(
            method == SipMethod.INVITE ? KIND_INVITE_SERVER : KIND_NON_INVITE_SERVER);
        tx.method = method;
        tx.reliable = reliable;
        tx.peer = source;
        tx.local = local;
        if (!reliable)
        {
            // RFC 3261 §18.2.2, RFC 3581 §4 (the top Via is wrapped above); port 0 in sent-by: back to the source.
            final InetSocketAddress to = ResponseAddress.select(via, source);
            tx.responseTo = null == to ? source : to;
        }
        tx.legacy = !cookie;
        tx.keyHash = hash;
        tx.maxForwardsExhausted = request.maxForwards() == 0;
        TransactionKeys.fillServerKey(tx, request, hostStart, hostEnd, port);
        if (null != invite)
        {
            tx.cancelledInvite = invite;
            tx.cancelledInviteId = invite.id;
        }
        serverTable.put(tx);
        tx.start(request);
        user.onRequest(tx, request);
        return true;
    }

    // ============================================================================================================
    // Outbound
    // ============================================================================================================

    /**
     * Sends a request statefully: creates and starts a client transaction. The caller builds the whole request
     * (e.g. with {@link SipMessageBuilder}, top Via carrying a fresh magic-cookie branch from
     * {@code io.sipline.sip.shard.ShardIds}); the layer reads branch, method and CSeq from its bytes
     * ({@link RequestKeyReader}: the request line, the top Via and the CSeq, parsing the whole request only when
     * these lines are not plain), so they can never disagree with the bytes on the wire.
     *
     * @param request     ownership taken: the transaction holds it for retransmission until it is no longer needed;
     *                    released at once when refused.
     * @param destination next hop (already resolved, RFC 3263 is the transport's).
     * @param reliable    true over TCP/TLS: no retransmission timers A/E, zero timers D/K.
     * @return the new transaction, or null when refused (not a request, a request line, top Via or CSeq that does not
     *         parse, a CSeq method other than the request's, an ACK, no magic-cookie branch, or a transaction with
     *         this branch and method already exists); counted in {@link #rejectedRequests()}.
     */
    public ClientTransaction sendRequest(
        final ByteBuf request, final InetSocketAddress destination, final boolean reliable)
    {
        return sendRequest(request, destination, null, reliable);
    }

    /**
     * Sends a request statefully from a given local socket: its retransmissions (timers A, E) and the ACK for a
     * non-2xx leave from there too.
     *
     * @param local the local address:port to send from, or null when the transport picks.
     * @see #sendRequest(ByteBuf, InetSocketAddress, boolean)
     */
    public ClientTransaction sendRequest(
        final ByteBuf request, final InetSocketAddress destination, final InetSocketAddress local,
        final boolean reliable)
    {
        final RequestKeyReader k = requestKey;
        if (!k.read(request) || k.method() == SipMethod.ACK || !k.magicCookie() || k.cseqMethod() != k.method())
        {
            rejectedRequests++;
            request.release(); // refused: the reference we were given
            return null;
        }
        final SipMethod method = k.method();
        final byte[] b = k.buffer();
        final long hash = TransactionKeys.hashBranch(b, k.branchStart(), k.branchEnd(), method, b, k.methodStart(),
            k.methodEnd());
        if (null != findClient(hash, method, b, k.methodStart(), k.methodEnd(), k.branchStart(), k.branchEnd()))
        {
            rejectedRequests++;
            request.release();
            return null;
        }
        final ClientTransaction tx = (ClientTransaction)pool.acquire(
            method == SipMethod.INVITE ? KIND_INVITE_CLIENT : KIND_NON_INVITE_CLIENT);
        tx.method = method;
        tx.reliable = reliable;
        tx.peer = destination;
        tx.local = local;
        tx.keyHash = hash;
        tx.cseq = k.cseqNumber();
        tx.segSet(Transaction.SEG_BRANCH, b, k.branchStart(), k.branchEnd());
        if (method == SipMethod.EXTENSION)
        {
            tx.segSet(Transaction.SEG_METHOD, b, k.methodStart(), k.methodEnd());
        }
        tx.outbound = request; // the transaction's reference from now on
        clientTable.put(tx);
        tx.start();
        return tx;
    }

    /**
     * Sends a response on a server transaction (§17.2.1, §17.2.2).
     *
     * @param response ownership taken: kept for retransmission until superseded or terminated; released at once when
     *                 refused.
     * @param status   the response's status code (the caller knows it; the layer does not re-parse).
     * @return false when the transaction's state allows no such response (terminated, already final, ...).
     */
    public boolean respond(final ServerTransaction tx, final ByteBuf response, final int status)
    {
        if (tx.state == TransactionState.TERMINATED || tx.transportFailed)
        {
            response.release(); // refused: the reference we were given
            return false;
        }
        return tx.sendResponse(response, status);
    }

    /**
     * The shard's duty cycle for the layer: fires due timers (retransmissions, timeouts, terminations), goes on
     * with the peer failures still being applied ({@link PeerFailures}) and, once a second, lets go of the free
     * transactions recent use does not need ({@link TransactionPool#trim}) and shrinks a table that has stayed mostly
     * empty over the pool's window ({@link TransactionTable#trim}), so that neither keeps a burst's high-water mark.
     *
     * @return the number of timers fired and transactions failed (0 means idle).
     */
    public int doWork(final long nowNs)
    {
        final int fired = wheel.poll(nowNs, timerHandler, config.timerPollLimit());
        final int failed = peerFailures.poll();
        final int trims = pool.trims();
        pool.trim(nowNs);
        if (trims != pool.trims())
        {
            clientTable.trim(pool.window());
            serverTable.trim(pool.window());
            requestKey.trim(); // before the scratch message it parses into: both between two sends
            scratch.trimScratch();
            via.forget();
            messages.trim();
            shedding.trim();
        }
        return fired + failed;
    }

    // ============================================================================================================
    // State for tests and metrics
    // ============================================================================================================

    public TransactionConfig config()
    {
        return config;
    }

    public TransactionUser user()
    {
        return user;
    }

    /** The table of client ({@code true}) or server transactions. */
    TransactionTable table(final boolean client)
    {
        return client ? clientTable : serverTable;
    }

    /** Transactions in use (in either table). */
    public int activeTransactions()
    {
        return clientTable.size() + serverTable.size();
    }

    /** Transactions waiting in the four free lists. */
    public int freeTransactions()
    {
        return pool.freeObjects();
    }

    /** The transaction objects this layer holds, in use and free (made, and not let go by the pool's trim). */
    public int transactionObjects()
    {
        return pool.objects();
    }

    public long poolAcquires()
    {
        return pool.acquires();
    }

    /** Acquires that found the free list empty and allocated. */
    public long poolMisses()
    {
        return pool.misses();
    }

    public long poolReleases()
    {
        return pool.releases();
    }

    /** Free transactions the pool let go once recent use no longer needed them. */
    public long poolTrimmed()
    {
        return pool.trimmed();
    }

    /** The overload refusals of this layer: set its {@link Admission} there; its counts (any thread). */
    public StatelessShedding shedding()
    {
        return shedding;
    }

    /** Retransmitted requests (and ACKs in Completed/Confirmed) absorbed by a server transaction. */
    public long absorbedRequests()
    {
        return absorbedRequests;
    }

    /** Retransmitted responses absorbed by a client transaction (not passed to the user twice). */
    public long absorbedResponses()
    {
        return absorbedResponses;
    }

    public long strayResponses()
    {
        return strayResponses;
    }

    public long unmatchedAcks()
    {
        return unmatchedAcks;
    }

    public long malformed()
    {
        return malformed;
    }

    public long rejectedRequests()
    {
        return rejectedRequests;
    }

    public long transportErrors()
    {
        return transportErrors;
    }

    /** Timers B, F and H that fired. */
    public long timeouts()
    {
        return timeouts;
    }

    /**
     * Retransmissions (timers A, E, G) put off because the stack's input lagged behind their due time (see
     * {@code putOff}): each time one was set again rather than sent. Shard thread; racy reads for metrics.
     */
    public long deferredRetransmissions()
    {
        return deferredRetransmissions;
    }

    /**
     * This shard's server-side INVITE response times of one kind: for each INVITE server transaction, once, the time
     * from the INVITE's arrival ({@code SipMessage.receivedAtNanos()}, the kernel's receive timestamp where the
     * transport reads one) to the moment the transaction handed its first 180 (or its first final response) to the
     * transport and the transport took it, on {@link TransactionConfig#realtimeClock()}. A response given by an
     * application on a virtual thread counts when the transaction sends it, on the shard. Not recorded: 100 Trying,
     * other 1xx, a retransmission of a response (timer G, a retransmitted INVITE), a 2xx re-sent or forked in
     * Accepted, a response whose send failed or whose destination is a Via {@code maddr} host name still being
     * located; counted as untimed when the INVITE's arrival time is unknown (0). Requests relayed without a server
     * transaction (a stateless proxy) are not covered.
     *
     * <p>Any thread (the histogram is read with opaque loads; the array of histograms is final).
     */
    public ResponseTimeHistogram inviteResponseTimes(final InviteResponse kind)
    {
        return inviteResponseTimes[kind.ordinal()];
    }

    /**
     * This shard's client-side INVITE response times of one kind: how long the next hop took to answer, as this
     * server saw it. For each INVITE client transaction, once, the time from the moment the transport took its INVITE
     * (first send, on {@link TransactionConfig#realtimeClock()}) to the arrival of its first 180 (or its first final
     * response: {@code SipMessage.receivedAtNanos()}, the kernel's receive timestamp where the transport reads one).
     * Beside {@link #inviteResponseTimes} it tells a B2BUA's or a proxy's own part from the far end's: a call's
     * server-side INVITE→180 is the server's two hops plus this. Counted as untimed when either time is unknown (an
     * INVITE sent later to a located Via {@code maddr}, a transport without receive times).
     *
     * <p>Any thread (the histogram is read with opaque loads; the array of histograms is final).
     */
    public ResponseTimeHistogram inviteClientResponseTimes(final InviteResponse kind)
    {
        return inviteClientResponseTimes[kind.ordinal()];
    }

    /** The wall clock now ({@link TransactionConfig#realtimeClock()}): when an INVITE client transaction sent. */
    long realtimeNanos()
    {
        return realtimeClock.getAsLong();
    }

    // ============================================================================================================
    // For the machines
    // ============================================================================================================

    /**
     * An INVITE server transaction handed the first response of {@code kind} to the transport: records the time since
     * {@code arrivalNs} (the INVITE's wall-clock arrival; 0 when unknown, then counted as untimed, the clock not read).
     */
    void recordInviteResponse(final InviteResponse kind, final long arrivalNs)
    {
        final long nowNs = 0 == arrivalNs ? 0 : realtimeClock.getAsLong();
        inviteResponseTimes[kind.ordinal()].recordBetween(arrivalNs, nowNs);
    }

    /**
     * An INVITE client transaction received the first response of {@code kind}: records the time from
     * {@code sentNs} (its INVITE taken by the transport) to {@code receivedNs} (the response's arrival), both on the
     * wall clock; untimed when either is unknown (0) or the wall clock was stepped back between them.
     */
    void recordInviteClientResponse(final InviteResponse kind, final long sentNs, final long receivedNs)
    {
        inviteClientResponseTimes[kind.ordinal()].recordBetween(sentNs, receivedNs);
    }

    long scheduleTimer(final Transaction tx, final char timer, final long delayNs)
    {
        return scheduleTimerAt(tx, timer, clock.nowNs() + delayNs);
    }

    long scheduleTimerAt(final Transaction tx, final char timer, final long deadlineNs)
    {
        return wheel.schedule(deadlineNs, ((long)tx.index << 8) | timer);
    }

    /** The layer's clock (the time base of its timers). */
    long nowNs()
    {
        return clock.nowNs();
    }

    void cancelTimer(final long timerId)
    {
        if (TimerWheel.NULL_TIMER_ID != timerId)
        {
            wheel.cancel(timerId);
        }
    }

    /**
     * The answer to {@link TransactionTransport#resolve}: the address of the transaction's host-name destination, or
     * null when it has none. The transaction sends its current message there (and everything after it); with no
     * address it reports a transport error (RFC 3261 §17.2.4) and terminates. Ignored when the transaction has ended
     * since ({@code id} differs). Shard thread only.
     */
    public void resolved(final Transaction tx, final long id, final InetSocketAddress address)
    {
        if (0 == id || tx.id != id || !tx.resolving)
        {
            return;
        }
        tx.resolving = false;
        if (null == address || address.isUnresolved())
        {
            failTransport(tx);
            return;
        }
        tx.responseTo = address;
        tx.sendOutbound();
        tx.onDeferredSend();
    }

    /** Sends a transaction's retained message; the buffer is borrowed by the transport. */
    void send(final Transaction tx, final ByteBuf buffer)
    {
        final InetSocketAddress to = tx.responseDestination();
        if (null != to && to.isUnresolved())
        {
            // A maddr host name (RFC 3261 §18.2.2): located once; the message current then goes when it is known.
            if (!tx.resolving)
            {
                tx.resolving = true;
                transport.resolve(this, tx, tx.id, to);
            }
            return;
        }
        if (!transport.send(buffer, to, tx.local, tx.reliable))
        {
            failTransport(tx);
        }
    }

    /** §17.1.4 / §17.2.4: report and terminate, from doWork, never inside the caller's call. */
    void failTransport(final Transaction tx)
    {
        transportErrors++;
        tx.cancelTimers();
        tx.transportFailed = true;
        tx.timeoutTimerId = scheduleTimer(tx, Transaction.TIMER_TRANSPORT_ERROR, 0);
    }

    /**
     * The transport lost a peer after the send was accepted: a connection closed, or its connect failed (RFC 3261
     * §17.1.4, §18.4). Every client transaction still waiting for its final response whose peer is that very object
     * (a connection's flow) gets a transport error and terminates, as for a failed send, from {@link #doWork}.
     * Server transactions find out when they next send. The transactions are looked at
     * {@link PeerFailures#PER_POLL} at a time, the first slice now and the others in the next {@link #doWork}s.
     *
     * @param peer compared by identity: the flow object the transactions were given as peer.
     * @return how many transactions were failed by the first slice.
     */
    public int failTransport(final InetSocketAddress peer)
    {
        return peerFailures.start(peer, false);
    }

    /**
     * An ICMP port unreachable came back from a UDP peer (RFC 3261 §18.4): every transaction with that peer that is
     * still going ends with a transport error from {@link #doWork} (§17.1.4 for a client transaction waiting for its
     * final response; §17.2.4 for a server transaction, whose responses could not reach it). Peers compare by address
     * and port. The transactions are looked at {@link PeerFailures#PER_POLL} at a time, as in {@link #failTransport}.
     *
     * @return how many transactions were failed by the first slice.
     */
    public int failDatagramPeer(final InetSocketAddress peer)
    {
        return peerFailures.start(peer, true);
    }

    /** Peer scans waiting to go on ({@link PeerFailures}). */
    int peerScansWaiting()
    {
        return peerFailures.waiting();
    }

    void countAbsorbedRequest()
    {
        absorbedRequests++;
    }

    void countAbsorbedResponse()
    {
        absorbedResponses++;
    }

    /**
     * At the shard's stop, after the timers have run their course: ends every transaction still live. An INVITE server
     * transaction in Proceeding has no timer of its own (RFC 3261 §17.2.1: it waits for its user's final response),
     * so without this its 100 Trying and last provisional would stay referenced after the stop.
     *
     * @return the transactions ended here.
     */
    public int terminateAll()
    {
        int ended = 0;
        for (int i = 0; i < pool.limit(); i++)
        {
            final Transaction tx = pool.registered(i);
            if (null != tx && 0 != tx.id && tx.state != TransactionState.TERMINATED)
            {
                terminate(tx);
                ended++;
            }
        }
        return ended;
    }

    /**
     * Ends a transaction: timers cancelled, out of its table, buffers released, the user told, back to the pool.
     * Called from timer handling (inside {@link #doWork}) and at stop ({@link #terminateAll}).
     */
    void terminate(final Transaction tx)
    {
        if (0 == tx.id)
        {
            return;
        }
        tx.state = TransactionState.TERMINATED;
        tx.cancelTimers();
        (tx.isClient() ? clientTable : serverTable).remove(tx);
        tx.releaseBuffers();
        user.onTerminated(tx);
        tx.reset();
        pool.release(tx);
    }

    // ============================================================================================================
    // Matching
    // ============================================================================================================

    /** The client transaction of this method (its bytes compared for an extension) and top Via branch, or null. */
    private ClientTransaction findClient(final long hash, final SipMethod method, final byte[] b,
        final int methodStart, final int methodEnd, final int branchStart, final int branchEnd)
    {
        final TransactionTable table = clientTable;
        for (int i = table.first(hash); i >= 0; i = table.next(i, hash))
        {
            final ClientTransaction t = (ClientTransaction)table.entry(i);
            if (t.matches(method, b, methodStart, methodEnd, branchStart, branchEnd))
            {
                return t;
            }
        }
        return null;
    }

    private ServerTransaction findServer(
        final long hash, final SipMessage request, final SipMethod methodClass, final boolean cookie,
        final int hostStart, final int hostEnd, final int port)
    {
        final TransactionTable table = serverTable;
        for (int i = table.first(hash); i >= 0; i = table.next(i, hash))
        {
            final ServerTransaction t = (ServerTransaction)table.entry(i);
            if (t.matchesRequest(request, methodClass, cookie, hostStart, hostEnd, port))
            {
                return t;
            }
        }
        return null;
    }

    /** The transaction at {@code index} of the registry ({@link Transaction#index}), or null for a hole. */
    Transaction registered(final int index)
    {
        return pool.registered(index);
    }

    /** Where a walk of the registry ends: every transaction's index is below it. */
    int registryLimit()
    {
        return pool.limit();
    }

    /** The id the next transaction acquired gets: every transaction live now has a lower one. */
    long nextId()
    {
        return pool.nextId();
    }

    /**
     * A retransmission (timer A, E or G) is put off while the stack's unread input may hold the reply it would be
     * retransmitting for: RFC 3261 retransmits a request (§17.1.1.2, §17.1.2.2) or a final response (§17.2.1) when
     * no reply came within the interval, and a reply that arrived but still waits in our own socket or hand-over queue
     * did come. The transport says how old the input it is reading now is ({@link TransactionTransport#inputLagNs}):
     * everything that arrived before {@code now - lag} has been read, so the interval is known to have passed without
     * a reply only once {@code now - lag} reaches the retransmission's due time. Until then the timer is set again for
     * {@code due + lag}: with a steady lag of a few milliseconds a retransmission goes out that much later, once; while
     * a backlog grows (a JIT-cold start at full rate, a stall) it waits until the shard has read up to its due time,
     * and the reply, if it is there, cancels it. Timeouts (B, F, H) are never put off, so a transaction still ends at
     * 64*T1. Counted in {@link #deferredRetransmissions()}.
     */
    private boolean putOff(final Transaction tx, final char timer, final long nowNs)
    {
        if (timer != Transaction.TIMER_A && timer != Transaction.TIMER_E && timer != Transaction.TIMER_G)
        {
            return false;
        }
        final long lag = transport.inputLagNs(nowNs);
        if (!retransmissionWaits(tx.retransmitDueNs, nowNs, lag))
        {
            return false;
        }
        deferredRetransmissions++;
        tx.retransmitTimerId = scheduleTimerAt(tx, timer, tx.retransmitDueNs + lag);
        return true;
    }

    /**
     * The rule of {@code putOff}, for every retransmission of the stack and of its users (the container's 2xx):
     * whether one due at {@code dueNs} must wait at {@code nowNs} while the input read lags {@code lagNs} behind (the
     * reply may be unread); if so it is set again for {@code dueNs + lagNs}. All times on the shard's clock.
     */
    public static boolean retransmissionWaits(final long dueNs, final long nowNs, final long lagNs)
    {
        return lagNs > nowNs - dueNs;
    }

    /** Routes wheel timers to their transactions; one instance, so polling allocates nothing. */
    private final class LayerTimerHandler implements TimerHandler
    {
        @Override
        public boolean onTimer(final long timerId, final long nowNs)
        {
            final long payload = wheel.payload(timerId);
            final Transaction tx = pool.registered((int)(payload >>> 8));
            final char timer = (char)(payload & 0xFF);
            if (null == tx)
            {
                return true; // the index of an object the pool let go: no live transaction had this timer
            }
            if (tx.retransmitTimerId == timerId)
            {
                tx.retransmitTimerId = TimerWheel.NULL_TIMER_ID;
                if (putOff(tx, timer, nowNs))
                {
                    return true;
                }
            }
            else if (tx.timeoutTimerId == timerId)
            {
                tx.timeoutTimerId = TimerWheel.NULL_TIMER_ID;
            }
            else
            {
                return true; // not this transaction's current timer: nothing to do
            }
            if (timer == Transaction.TIMER_TRANSPORT_ERROR)
            {
                user.onTransportError(tx);
                terminate(tx);
            }
            else
            {
                if (timer == Transaction.TIMER_B || timer == Transaction.TIMER_F || timer == Transaction.TIMER_H)
                {
                    timeouts++;
                }
                tx.onTimer(timer, nowNs);
            }
            return true;
        }
    }
}
