package io.sipline.container.dispatch;

import java.io.IOException;
import java.io.Serializable;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipErrorEvent;
import javax.servlet.sip.SipErrorListener;
import javax.servlet.sip.Proxy;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.TooManyHopsException;
import javax.servlet.sip.URI;
import javax.servlet.sip.ar.SipApplicationRouterInfo;
import javax.servlet.sip.ar.SipApplicationRoutingDirective;
import javax.servlet.sip.ar.SipApplicationRoutingRegion;
import javax.servlet.sip.ar.SipRouteModifier;
import javax.servlet.sip.ar.SipTargetedRequestInfo;
import javax.servlet.sip.ar.SipTargetedRequestType;

import io.netty.buffer.ByteBuf;
import io.sipline.container.address.SipAddresses;
import io.sipline.container.message.HeaderText;
import io.sipline.container.message.MessageHeaders;
import io.sipline.container.message.MessageWriter;
import io.sipline.container.message.SipServletMessageImpl;
import io.sipline.container.message.SipServletRequestImpl;
import io.sipline.container.message.SipServletResponseImpl;
import io.sipline.container.proxy.LoopDetection;
import io.sipline.container.proxy.ProxyBranchImpl;
import io.sipline.container.proxy.ProxyImpl;
import io.sipline.container.proxy.ProxyRelay;
import io.sipline.container.proxy.ProxyRoutes;
import io.sipline.container.security.ApplicationSecurity;
import io.sipline.container.session.AckWait;
import io.sipline.container.session.ReliableProvisionals;
import io.sipline.container.session.ResponseRetransmission;
import io.sipline.container.session.SessionTable;
import io.sipline.container.session.ShardHost;
import io.sipline.container.session.SipApplicationSessionImpl;
import io.sipline.container.session.SipSessionImpl;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.shard.ShardIds;
import io.sipline.sip.stack.SipListener;
import io.sipline.sip.stack.SipShard;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.Transaction;
import io.sipline.sip.transaction.TransactionLayer;
import io.sipline.sip.transport.RealtimeClock;
import io.sipline.sip.transport.StatelessResponder;
import io.sipline.sip.transport.dns.SipTarget;
import io.sipline.sip.transport.tcp.TcpFlow;

/**
 * The container on one shard (JSR 289 §15 dispatch): the {@link SipListener} the stack calls for every event of the
 * calls this shard owns, and the {@link ShardHost} its sessions and messages use to send and to schedule.
 *
 * <pre>
 *   onRequest  CANCEL            → 200, 487 to the INVITE, then doCancel (§11.2.3)
 *              To tag            → the session of (Call-ID, To tag) → servlet (481 when none)
 *              no To tag         → application router (§15.4) → application → servlet selection → new sessions
 *   onResponse                   → the request's session (via the client transaction's attachment) → servlet;
 *                                  another To tag of a forked INVITE → a derived session (JSR 289 §6.2.3.2)
 *   onAck / stateless ACK        → the session → doAck; stops the 2xx retransmissions (RFC 3261 §13.3.1.4)
 *   onTimeout (B, F)             → a 408 from the container to the servlet (§11.1.4)
 *   onTimer                      → servlet timers, session expiry, 2xx retransmissions
 * </pre>
 *
 * A servlet runs on this shard's thread with the application's class loader as context class loader. An exception
 * it throws while handling a request is answered {@code 500} with the exception's class in the reason (unless it
 * already answered) and never reaches the shard. With no application deployed the shard answers as the server did
 * without a container: OPTIONS 200, other requests 404 No Application Deployed.
 * <p>
 * Threading: every method on this shard's event loop, except {@link #execute}, {@link #onShardThread} and the id
 * generators (see {@link ShardHost}).
 */
public final class ShardRuntime implements SipListener, ShardHost
{
    private static final Logger LOG = System.getLogger("io.sipline.container.dispatch");
    /** Distinct problems already logged (one line per kind, process-wide). */
    private static final ConcurrentHashMap<String, Boolean> LOGGED = new ConcurrentHashMap<>();

    private final ApplicationRegistry registry;
    private final SipShard shard;
    private final SessionTable sessions = new SessionTable();
    private final NextHop nextHop = new NextHop();
    private final StrayTwoHundreds strays;
    private final StringBuilder ids = new StringBuilder(64);
    /**
     * Router decisions for initial requests an application sent that the router gave to another application here
     * (JSR 289 §15.4 composition): the request goes out to this container's own address with a Route carrying the
     * token, and comes back to this shard (its Call-ID is this shard's) where the token names the decision.
     */
    private final java.util.Map<String, SipApplicationRouterInfo> composed = new java.util.HashMap<>();
    /** The Via value being written (reused: no String per request). */
    private final StringBuilder viaValue = new StringBuilder(96);
    /** Ids made off the shard (an application thread); guarded by its own monitor, never used on the shard. */
    private final ShardIds offShardIds;
    private final Counters counters;
    /** New requests that waited longer than this are refused with 503 ({@link #overloaded}); 0: never. */
    private final long overloadWaitNs;
    /** The wall clock the overload check reads ({@link RealtimeClock#nanos()}; a test's own clock in tests). */
    private final LongSupplier wallClock;
    private volatile long threadId = -1;
    private volatile Thread thread;
    private String host;
    private int port;
    private String contact;
    /**
     * The container's Via up to the branch value per transport ({@link #UDP}, {@link #TCP}, {@link #TLS}):
     * {@code SIP/2.0/TCP host:port;branch=} with that transport's listening port (RFC 3261 §18.1.1: the sent-by is
     * where responses come back); null for a transport this container does not listen on.
     */
    private final String[] viaPrefixes = new String[3];
    /**
     * The container's Contact per transport: the UDP one ({@link #contact}), {@code ;transport=tcp} on the TCP port,
     * {@code sips:} on the TLS port (RFC 3261 §8.1.1.8, §19.1.4: the remote target must reach us the same way).
     */
    private final String[] contacts = new String[3];
    /**
     * The container's listening port per transport ({@link #UDP}, {@link #TCP}, {@link #TLS}; -1 where it does not
     * listen): a Route naming our host on any of them is ours (RFC 3261 §16.4), and each side of a proxy's
     * Record-Route names the port of its transport (RFC 5658).
     */
    private final int[] ownPorts = {-1, -1, -1};
    /** The stack's first listening address (what received messages report as local), once known. */
    private InetSocketAddress localAddress;
    /**
     * {@code host:port} as our Via's sent-by, in bytes, once per distinct port we listen on (UDP, TCP, TLS; TCP
     * usually shares UDP's port): a request we proxied over TLS that comes back carries our TLS sent-by.
     */
    private byte[][] ourSentBys = new byte[0][];

    // timers: handle = slot | generation << 32; the wheel's payload is the slot
    private ShardHost.TimerTarget[] timerTargets = new ShardHost.TimerTarget[256];
    private long[] timerWheelIds = new long[256];
    private int[] timerGenerations = new int[256];
    private int[] freeSlots = new int[256];
    private int freeCount;
    private int slotCount;

    /** Calls in progress into applications on this shard (re-entrant sends check readiness only at depth 0). */
    private int dispatchDepth;
    /** When the current servlet call started (0 when none), for the slow-call watchdog. */
    private volatile long callStartNs;
    private volatile RunningApplication callApplication;
    private volatile String callHandler;
    private long reportedCallStartNs;

    /** Container-wide counters (any thread). */
    public static final class Counters
    {
        public final AtomicLong servletErrors = new AtomicLong();
        public final AtomicLong slowCalls = new AtomicLong();
        public final AtomicLong noApplication = new AtomicLong();
        /** 2xx to our INVITEs that came when no session of their call was left: ACKed and ended with BYE. */
        public final AtomicLong stray2xx = new AtomicLong();
        /** Initial requests the application router sent out to an external route (JSR 289 §15.4.1). */
        public final AtomicLong routedOut = new AtomicLong();
        /** New requests refused with 503 because they waited longer than the overload limit (see {@link #shed}). */
        public final AtomicLong overloaded = new AtomicLong();
    }

    ShardRuntime(final ApplicationRegistry registry, final SipShard shard, final Counters counters,
        final long overloadWaitNs, final LongSupplier wallClock)
    {
        this.registry = registry;
        this.shard = shard;
        this.counters = counters;
        this.overloadWaitNs = overloadWaitNs;
        this.wallClock = wallClock;
        this.strays = new StrayTwoHundreds(this, shard, nextHop);
        this.offShardIds = new ShardIds(shard.index(), System.nanoTime() ^ 0x5bd1e995L * (shard.index() + 1));
    }

    /** Publishes the shard's thread and the local address (after the stack started). */
    void started(final long shardThreadId, final InetSocketAddress local)
    {
        threadId = shardThreadId;
        final String h = local.getAddress().isAnyLocalAddress() ? "127.0.0.1" : local.getAddress().getHostAddress();
        host = h.indexOf(':') >= 0 ? "[" + h + "]" : h;
        port = local.getPort();
        contact = "<sip:" + host + ":" + port + ">";
        viaPrefixes[UDP] = "SIP/2.0/UDP " + host + ":" + port + ";branch=";
        contacts[UDP] = contact;
        ownPorts[UDP] = port;
        final int tcpPort = portOf(shard.stack().tcpAddresses(), local);
        if (tcpPort > 0)
        {
            ownPorts[TCP] = tcpPort;
            viaPrefixes[TCP] = "SIP/2.0/TCP " + host + ":" + tcpPort + ";branch=";
            contacts[TCP] = "<sip:" + host + ":" + tcpPort + ";transport=tcp>";
        }
        final int tlsPort = portOf(shard.stack().tlsAddresses(), local);
        if (tlsPort > 0)
        {
            ownPorts[TLS] = tlsPort;
            viaPrefixes[TLS] = "SIP/2.0/TLS " + host + ":" + tlsPort + ";branch=";
            contacts[TLS] = "<sips:" + host + ":" + tlsPort + ">";
        }
        ourSentBys = java.util.Arrays.stream(ownPorts).filter(p -> p > 0).distinct()
            .mapToObj(p -> (host + ":" + p).getBytes(StandardCharsets.US_ASCII)).toArray(byte[][]::new);
    }

    /** The port of the endpoint on {@code local}'s address, else of the first endpoint; -1 when there is none. */
    private static int portOf(final List<InetSocketAddress> endpoints, final InetSocketAddress local)
    {
        for (final InetSocketAddress e : endpoints)
        {
            if (e.getAddress().equals(local.getAddress()))
            {
                return e.getPort();
            }
        }
        return endpoints.isEmpty() ? -1 : endpoints.getFirst().getPort();
    }

    SipShard shard()
    {
        return shard;
    }

    // ================================================================================================================
    // ShardHost
    // ================================================================================================================

    @Override
    public int index()
    {
        return shard.index();
    }

    @Override
    public boolean onShardThread()
    {
        return Thread.currentThread().threadId() == threadId;
    }

    @Override
    public void execute(final Runnable task)
    {
        if (onShardThread())
        {
            task.run();
        }
        else
        {
            shard.stack().execute(shard.index(), () ->
            {
                dispatchDepth++;
                try
                {
                    task.run();
                }
                catch (final RuntimeException e)
                {
                    logOnce("task", "an application task failed on shard " + shard.index(), e);
                }
                finally
                {
                    dispatchDepth--;
                }
            });
        }
    }

    @Override
    public String newTag()
    {
        if (onShardThread())
        {
            ids.setLength(0);
            return shard.ids().appendId(ids).toString();
        }
        synchronized (offShardIds)
        {
            return offShardIds.appendId(new StringBuilder(ShardIds.ID_LENGTH)).toString();
        }
    }

    @Override
    public String newCallId()
    {
        if (onShardThread())
        {
            ids.setLength(0);
            return shard.ids().appendId(ids).append('@').append(host).toString();
        }
        synchronized (offShardIds)
        {
            return offShardIds.appendId(new StringBuilder(40)).append('@').append(host).toString();
        }
    }

    @Override
    public String newBranch()
    {
        if (onShardThread())
        {
            ids.setLength(0);
            return shard.ids().appendBranch(ids).toString();
        }
        synchronized (offShardIds)
        {
            return offShardIds.appendBranch(new StringBuilder(24)).toString();
        }
    }

    /** A fresh branch with {@code suffix} appended (a proxy's loop hash), as one String. */
    private String newBranch(final String suffix)
    {
        if (onShardThread())
        {
            ids.setLength(0);
            return shard.ids().appendBranch(ids).append(suffix).toString();
        }
        return newBranch() + suffix;
    }

    @Override
    public long currentTimeMillis()
    {
        return System.currentTimeMillis();
    }

    @Override
    public long schedule(final long delayMillis, final ShardHost.TimerTarget target)
    {
        final int slot;
        if (freeCount > 0)
        {
            slot = freeSlots[--freeCount];
        }
        else
        {
            if (slotCount == timerTargets.length)
            {
                final int n = slotCount * 2;
                timerTargets = Arrays.copyOf(timerTargets, n);
                timerWheelIds = Arrays.copyOf(timerWheelIds, n);
                timerGenerations = Arrays.copyOf(timerGenerations, n);
                freeSlots = Arrays.copyOf(freeSlots, n);
            }
            slot = slotCount++;
        }
        timerTargets[slot] = target;
        final int generation = ++timerGenerations[slot] & 0x7FFFFFFF;
        timerWheelIds[slot] = shard.schedule(shard.nowNs() + Math.max(0, delayMillis) * 1_000_000L, slot);
        return ((long)generation << 32) | slot;
    }

    @Override
    public void cancel(final long timerId)
    {
        final int slot = (int)timerId;
        if (slot < 0 || slot >= slotCount || (timerGenerations[slot] & 0x7FFFFFFF) != (int)(timerId >>> 32)
            || null == timerTargets[slot])
        {
            return;
        }
        shard.cancel(timerWheelIds[slot]);
        freeSlot(slot);
    }

    private void freeSlot(final int slot)
    {
        timerTargets[slot] = null;
        timerGenerations[slot]++;
        freeSlots[freeCount++] = slot;
    }

    @Override
    public SessionTable sessions()
    {
        return sessions;
    }

    @Override
    public String localHost()
    {
        return host;
    }

    @Override
    public int localPort()
    {
        return port;
    }

    @Override
    public String contact()
    {
        return contact;
    }

    // ================================================================================================================
    // Sending (ShardHost)
    // ================================================================================================================

    @Override
    public void send(final SipServletRequestImpl request)
    {
        final String method = request.getMethod();
        if ("CANCEL".equals(method))
        {
            sendCancel(request);
            return;
        }
        if ("BYE".equals(method))
        {
            ackBeforeBye(request.sessionImpl());
        }
        if (request.isInitial() && !"ACK".equals(method))
        {
            composeIfRouted(request);
        }
        final NextHop.Hop hop = nextHop.of(null != request.nextHopUri() ? request.nextHopUri()
            : NextHop.uriOf(request));
        if (null == hop)
        {
            noRoute(request, "no route to " + request.requestUriText());
            return;
        }
        final int asked = askedTransport(hop);
        if (UNSUPPORTED == asked)
        {
            noRoute(request, "transport " + hop.transport() + " is not supported");
            return;
        }
        if (null != hop.numeric())
        {
            // RFC 3263 §4.1: a numeric host without a transport parameter: UDP for sip, TLS (over TCP) for sips
            sendTo(request, hop.numeric(), NONE == asked ? UDP : asked, NONE != asked);
            return;
        }
        // RFC 3263 §4: a host name is located by the shard's SipLocator (NAPTR, SRV, A/AAAA, TTL-cached) on this
        // loop; the request leaves once it answers, to the first target on a transport this container listens on.
        final String transport = NONE == asked || null == hop.transport() ? null : hop.transport();
        try
        {
            shard.locator().locate(hop.host(), hop.port(), transport, hop.sips(), targets -> located(request, hop,
                targets, NONE != asked));
        }
        catch (final RuntimeException e)
        {
            logOnce("locate:" + e.getClass().getName(), "locating " + hop.host() + " failed", e);
            noRoute(request, "locating " + hop.host() + " failed: " + e.getClass().getSimpleName());
        }
    }

    /**
     * RFC 3261 §13.2.2.4: "The UAC core MUST generate an ACK request for each 2xx received from the transaction
     * layer." An application that ends with BYE a dialog whose 2xx it has not acknowledged gets the ACK sent first:
     * typically a B2BUA that relays a caller's BYE which overtook the caller's ACK (a caller sends the two back to
     * back, and UDP keeps no order between datagrams), so that its own ACK, relayed from the caller's, never comes.
     * Without it the callee retransmits its 2xx until 64*T1 (§13.3.1.4) and sees a BYE in a dialog it was never
     * told is confirmed. The ACK carries no body: a 2xx with an offer gets no answer, and the BYE ends that session
     * anyway.
     */
    private void ackBeforeBye(final SipSessionImpl session)
    {
        final SipServletResponseImpl ok = null == session ? null : session.unacknowledged2xx();
        if (null == ok)
        {
            return;
        }
        try
        {
            ok.createAck().send();
        }
        catch (final IOException | RuntimeException e)
        {
            logOnce("ack-before-bye", "acknowledging a 2xx before the application's BYE failed", e);
        }
    }

    /**
     * The SipLocator's answer for a request's next hop (on this shard's loop): sent to the first target whose
     * transport this container listens on (RFC 3263 §4.1: NAPTR/SRV order, or the URI's transport).
     *
     * @param explicit the URI asked for the transport (no switch to TCP for size then).
     */
    private void located(final SipServletRequestImpl request, final NextHop.Hop hop, final List<SipTarget> targets,
        final boolean explicit)
    {
        for (int i = 0; i < targets.size(); i++)
        {
            final SipTarget t = targets.get(i);
            final int transport = transportIndex(t.transport());
            if (transport >= 0 && null != viaPrefixes[transport])
            {
                sendTo(request, t.address(), transport, explicit);
                return;
            }
        }
        // RFC 3263 §4.3 and RFC 3261 §8.1.3.1: no server could be located; the request fails as on a transport error
        noRoute(request, targets.isEmpty() ? "RFC 3263: no DNS record locates " + hop.host()
            : "RFC 3263: " + hop.host() + " is reached only over " + targets.getFirst().transport()
                + ", on which this container does not listen");
    }

    /** Transport indexes ({@link #viaPrefixes}, {@link #contacts}, {@link #TRANSPORTS}). */
    static final int UDP = 0;
    static final int TCP = 1;
    static final int TLS = 2;
    /** No transport asked for by the next-hop URI. */
    static final int NONE = -1;
    /** A transport parameter this container cannot send on (SCTP, WS, ...). */
    static final int UNSUPPORTED = -2;
    /** Transport names as in a Via (RFC 3261 §20.42), by index. */
    static final String[] TRANSPORTS = {"UDP", "TCP", "TLS"};
    /**
     * RFC 3261 §18.1.1: with no known path MTU, a request larger than 1300 bytes MUST go on a congestion-controlled
     * transport (TCP), unless the next-hop URI named its transport.
     */
    static final int UDP_SIZE_LIMIT = 1300;

    /**
     * The transport the next-hop URI asks for (RFC 3261 §19.1.4, RFC 3263 §4.1): its {@code transport} parameter,
     * TLS for a SIPS URI (over TCP: {@code sips:...;transport=tcp} is TLS too), else {@link #NONE}.
     */
    static int askedTransport(final NextHop.Hop hop)
    {
        if (null == hop.transport())
        {
            return hop.sips() ? TLS : NONE;
        }
        final int named = transportIndex(hop.transport());
        if (named < 0)
        {
            return UNSUPPORTED;
        }
        return hop.sips() ? TLS : named;
    }

    /** {@code udp}, {@code tcp}, {@code tls} (any case) as an index; -1 for anything else. */
    private static int transportIndex(final String name)
    {
        for (int i = 0; i < TRANSPORTS.length; i++)
        {
            if (TRANSPORTS[i].equalsIgnoreCase(name))
            {
                return i;
            }
        }
        return -1;
    }

    /** A request with nowhere to go: an ACK is dropped (logged once), any other request gets a 503 (§11.1.4). */
    private void noRoute(final SipServletRequestImpl request, final String why)
    {
        if ("ACK".equals(request.getMethod()))
        {
            logOnce("ack-no-route", "an ACK has no route (" + why + "); dropped", null);
            return;
        }
        if (!request.isRelayed()) // a relayed request is already the session's (its server transaction)
        {
            request.sessionImpl().begin(request);
        }
        failRequest(request, 503, "Service Unavailable (" + why + ")");
    }

    /**
     * Writes and sends a request to its resolved destination (a client transaction, or statelessly for ACK) on
     * {@code transport}: its Via names it, and the stack sends on it (SipShard: a TCP/TLS Via goes on the shard's
     * connection to the destination, reused or opened). RFC 3261 §18.1.1: a UDP request larger than
     * {@link #UDP_SIZE_LIMIT} goes over TCP instead, unless the URI named UDP ({@code explicit}) or there is no TCP.
     * A transport this container does not listen on fails the request with a 503 (JSR 289: a request that cannot
     * be sent), the shard serving on.
     */
    private void sendTo(final SipServletRequestImpl request, final InetSocketAddress destination, final int asked,
        final boolean explicit)
    {
        if (null == viaPrefixes[asked])
        {
            noRoute(request, TRANSPORTS[asked] + " is needed to reach " + request.requestUriText()
                + " but this container does not listen on " + TRANSPORTS[asked]);
            return;
        }
        final SipSessionImpl session = request.sessionImpl();
        final String method = request.getMethod();
        request.destination(destination);
        final String branch = null == request.branchSuffix() ? newBranch() : newBranch(request.branchSuffix());
        request.branch(branch);
        final ByteBuf out = shard.allocate(MessageWriter.estimate(request));
        final int transport = write(out, request, asked, branch, explicit, true);
        if (request.isRelayed())
        {
            sendRelayed(request, out, destination); // a received request: getTransport() stays the one it came on
            return;
        }
        request.sentTransport(TRANSPORTS[transport]);
        request.addresses(destination, null);
        if ("ACK".equals(method))
        {
            shard.sendStateless(out, destination);
            return;
        }
        session.register();
        session.begin(request);
        final ClientTransaction tx = shard.sendRequest(out, destination);
        if (null == tx)
        {
            failRequest(request, 503, "Service Unavailable (the request was refused by the transaction layer)");
            return;
        }
        tx.attachment(request);
        request.transaction(tx);
        afterSend(session);
    }

    /**
     * A proxy branch's request with our Record-Route (RFC 3261 §16.6 step 4): its entries are fitted to the transport
     * the proxied request came on and the one this request leaves on (RFC 5658 §4: two entries when they differ, the
     * outgoing side's on top; one with that transport's URI when they are the same), each with our listening port
     * for its transport. UDP on both sides changes nothing.
     */
    private void fitRecordRoute(final SipServletRequestImpl request, final int out)
    {
        if (request.proxyBranch() instanceof ProxyBranchImpl branch)
        {
            final int in = transportOf(branch.upstream());
            branch.fitRecordRoute(TRANSPORTS[in], ownPorts[in], TRANSPORTS[out], ownPorts[out]);
        }
    }

    /** The transport a message came on or goes to: {@link #TCP} or {@link #TLS} for a connection's flow, else UDP. */
    private int transportOf(final InetSocketAddress peer)
    {
        if (peer instanceof TcpFlow flow)
        {
            final int t = flow.isTls() ? TLS : TCP;
            return ownPorts[t] > 0 ? t : UDP; // a connection we opened without listening there: UDP's entry still works
        }
        return UDP;
    }

    /**
     * A received request a proxy forwards as it is ({@link ProxyRelay}): on a client transaction that carries the
     * relay, while the request keeps its server transaction and its addresses for the responses going back.
     */
    private void sendRelayed(final SipServletRequestImpl request, final ByteBuf out,
        final InetSocketAddress destination)
    {
        final ClientTransaction tx = shard.sendRequest(out, destination);
        if (null == tx)
        {
            failRequest(request, 503, "Service Unavailable (the request was refused by the transaction layer)");
            return;
        }
        tx.attachment(new ProxyRelay(request, tx));
    }

    /**
     * JSR 289 §15.4: an initial request an application sends goes through the router again (its directive and state
     * info); when the router names a deployed application, the request is routed back to this container with a
     * Route that carries the decision ({@link #COMPOSITION_PARAMETER}), so that it reaches that application as an
     * initial request of its own.
     */
    private void composeIfRouted(final SipServletRequestImpl request)
    {
        if (registry.isEmpty())
        {
            return;
        }
        final SipApplicationRouterInfo info;
        try
        {
            info = registry.router().getNextApplication(request, request.region(), request.directive(), null,
                request.stateInfo());
        }
        catch (final RuntimeException e)
        {
            logOnce("router-out:" + e.getClass().getName(), "the application router failed on an outgoing request", e);
            return;
        }
        if (null == info)
        {
            return;
        }
        final String[] external = externalRoutes(info);
        if (null != external)
        {
            pushRoutes(request, info, external);
            return;
        }
        if (null == registry.application(info.getNextApplicationName()))
        {
            return;
        }
        final String token = newTag();
        if (composed.size() < 100_000)
        {
            composed.put(token, info);
            request.headers().addFirst("Route", routeBack(UDP, token)); // to ourselves: UDP, or TCP if too large
        }
    }

    /** The Route parameter of a composition hop back into this container. */
    static final String COMPOSITION_PARAMETER = "sipline-ar";

    /**
     * JSR 289 §15.4.1, route modifiers {@code ROUTE} and {@code ROUTE_BACK} (the DAR's {@code ROUTE_FINAL} reaches
     * the container as {@code ROUTE}): the router's routes, when the first names another host (an external route:
     * the request leaves the container, and the application name is ignored); null for {@code NO_ROUTE}, no routes,
     * or a first route that names this container (an internal route: see {@link #routedOut}).
     */
    private String[] externalRoutes(final SipApplicationRouterInfo info)
    {
        final SipRouteModifier modifier = info.getRouteModifier();
        final String[] routes = info.getRoutes();
        if ((SipRouteModifier.ROUTE != modifier && SipRouteModifier.ROUTE_BACK != modifier) || null == routes
            || 0 == routes.length || null == routes[0]
            || ProxyRoutes.isOurs(HeaderText.uri(routes[0]), host, ownPorts))
        {
            return null;
        }
        return routes;
    }

    /**
     * Pushes the router's external routes on a request, the first on top. For {@code ROUTE_BACK}, first a route back
     * to this container (SipRouteModifier: "push a route back to itself before pushing the external routes"), whose
     * {@link #COMPOSITION_PARAMETER} names the router's decision, so the request comes back as an initial request
     * that continues application selection from the router's state info and region.
     */
    private void pushRoutes(final SipServletRequestImpl request, final SipApplicationRouterInfo info,
        final String[] routes)
    {
        if (SipRouteModifier.ROUTE_BACK == info.getRouteModifier() && composed.size() < 100_000)
        {
            final String token = newTag();
            composed.put(token, info);
            request.headers().addFirst("Route", routeBack(UDP, token));
            request.routeBackToken(token); // fitted to the transport the request leaves on (fitRouteBack)
        }
        for (int i = routes.length - 1; i >= 0; i--)
        {
            final String route = routes[i].strip();
            request.headers().addFirst("Route", route.startsWith("<") ? route : "<" + route + ">");
        }
        ProxyRoutes.forStrictNextHop(request);
    }

    /**
     * Our route back for {@code ROUTE_BACK}, reachable on {@code transport} at our port for it (as our Contact and
     * Record-Route per transport, RFC 3261 §16.6 step 4 and RFC 5658 §4): {@code sip:host:port} for UDP,
     * {@code ;transport=tcp} for TCP, {@code sips:} for TLS, then {@code lr} and the decision's token.
     */
    private String routeBack(final int transport, final String token)
    {
        return (TLS == transport ? "<sips:" : "<sip:") + host + ":" + ownPorts[transport]
            + (TCP == transport ? ";transport=tcp" : "") + ";lr;" + COMPOSITION_PARAMETER + "=" + token + ">";
    }

    /**
     * A request with our {@code ROUTE_BACK} route leaves on {@code transport}: the route names that transport, so
     * that the external hop (one that sends the request back the way it came, the usual case) returns it over a
     * transport we listen on for it; a TCP or TLS request's return is not forced onto UDP, where a large request
     * would not fit (RFC 3261 §18.1.1). Every other request: one field read.
     */
    private void fitRouteBack(final SipServletRequestImpl request, final int transport)
    {
        final String token = request.routeBackToken();
        if (null == token)
        {
            return;
        }
        final MessageHeaders headers = request.headers();
        for (int i = headers.find(HeaderName.ROUTE, 0); i >= 0; i = headers.find(HeaderName.ROUTE, i + 1))
        {
            if (token.equals(HeaderText.routeUriParam(headers.value(i), COMPOSITION_PARAMETER)))
            {
                headers.setValue(i, routeBack(transport, token));
                return;
            }
        }
    }

    /**
     * JSR 289 §15.4.1 for a received initial request: with {@code ROUTE}/{@code ROUTE_BACK} and an external first
     * route, the container pushes the routes and sends the request out, invoking no application ({@link RoutedOut});
     * with an internal first route, that route becomes the request's popped route ({@code getPoppedRoute}) and the
     * named application is invoked.
     *
     * @return whether the request was taken care of here (sent out, or answered).
     */
    private boolean routedOut(final ServerTransaction tx, final SipMessage message,
        final SipServletRequestImpl request, final SipApplicationRouterInfo info)
    {
        final String[] routes = externalRoutes(info);
        if (null == routes)
        {
            final String[] all = info.getRoutes();
            if (SipRouteModifier.ROUTE == info.getRouteModifier() && null != all && all.length > 0 && null != all[0])
            {
                final String route = all[0].strip(); // a bare URI: its parameters are the URI's (lr, ...)
                request.poppedRoute(route.startsWith("<") ? route : "<" + route + ">");
            }
            return false;
        }
        if (0 == request.getMaxForwards())
        {
            answer(tx, message, 483, "Too Many Hops"); // RFC 3261 §16.3 step 3
            return true;
        }
        final SipServletRequestImpl out = SipServletRequestImpl.forwardOf(request, request.requestUriText());
        pushRoutes(out, info, routes);
        final RoutedOut relay = new RoutedOut(request, out, tx);
        counters.routedOut.incrementAndGet();
        final NextHop.Hop hop = nextHop.of(NextHop.uriOf(out));
        if (null == hop)
        {
            relay.fail(shard, 503, "Service Unavailable (no route to " + NextHop.uriOf(out) + ")", newTagOnShard());
            return true;
        }
        final int asked = askedTransport(hop);
        if (UNSUPPORTED == asked)
        {
            relay.fail(shard, 503, "Service Unavailable (transport " + hop.transport() + " is not supported)",
                newTagOnShard());
            return true;
        }
        if (null != hop.numeric())
        {
            // RFC 3263 §4.1: a numeric host without a transport parameter: UDP for sip, TLS for sips
            sendRoutedOut(relay, hop.numeric(), NONE == asked ? UDP : asked, NONE != asked);
            return true;
        }
        final String transport = NONE == asked || null == hop.transport() ? null : hop.transport();
        shard.locator().locate(hop.host(), hop.port(), transport, hop.sips(), targets ->
        {
            for (int i = 0; i < targets.size(); i++)
            {
                final int t = transportIndex(targets.get(i).transport());
                if (t >= 0 && null != viaPrefixes[t])
                {
                    sendRoutedOut(relay, targets.get(i).address(), t, NONE != asked);
                    return;
                }
            }
            relay.fail(shard, 503, "Service Unavailable (RFC 3263: " + (targets.isEmpty() ? "no DNS record locates "
                + hop.host() : hop.host() + " is reached only over " + targets.getFirst().transport()
                + ", on which this container does not listen") + ")", newTagOnShard());
        });
        return true;
    }

    /**
     * Sends the router's relay to {@code to} on the transport its top Route asked for, as {@link #sendTo} does for a
     * request of the container (RFC 3261 §18.1.1: the Via names the transport, and a UDP request over
     * {@link #UDP_SIZE_LIMIT} bytes goes over TCP unless the URI named UDP); a transport this container does not
     * listen on gets the request a 503.
     */
    private void sendRoutedOut(final RoutedOut relay, final InetSocketAddress to, final int asked,
        final boolean explicit)
    {
        if (null == viaPrefixes[asked])
        {
            relay.fail(shard, 503, "Service Unavailable (" + TRANSPORTS[asked] + " is needed to reach "
                + NextHop.uriOf(relay.forwarded()) + " but this container does not listen on " + TRANSPORTS[asked]
                + ")", newTagOnShard());
            return;
        }
        if (relay.isFinished())
        {
            return; // cancelled (and answered 487) while the next hop was being located
        }
        final String branch = newBranch();
        final SipServletRequestImpl forwarded = relay.forwarded();
        final ByteBuf out = shard.allocate(MessageWriter.estimate(forwarded));
        final int transport = write(out, forwarded, asked, branch, explicit, false);
        if (!relay.send(shard, to, branch, transport, out))
        {
            relay.fail(shard, 503, "Service Unavailable (the request was refused by the transaction layer)",
                newTagOnShard());
        }
    }

    /**
     * Writes a request for {@code asked} with our Via, its entries of ours fitted to that transport first (the
     * {@code ROUTE_BACK} route always; with {@code ownEntries}, a request the container sends as a UA or proxy
     * branch, also its Contact and Record-Route); a UDP request over {@link #UDP_SIZE_LIMIT} goes over TCP instead,
     * unless the URI named UDP ({@code explicit}) or there is no TCP (RFC 3261 §18.1.1: the top Via and our entries
     * change with the transport).
     *
     * @return the transport written for.
     */
    private int write(final ByteBuf out, final SipServletRequestImpl request, final int asked, final String branch,
        final boolean explicit, final boolean ownEntries)
    {
        int transport = asked;
        fitTo(request, transport, ownEntries);
        MessageWriter.writeRequest(out, request, via(transport, branch));
        if (UDP == transport && !explicit && out.readableBytes() > UDP_SIZE_LIMIT && null != viaPrefixes[TCP])
        {
            transport = TCP;
            fitTo(request, transport, ownEntries);
            out.clear();
            MessageWriter.writeRequest(out, request, via(transport, branch));
        }
        return transport;
    }

    private void fitTo(final SipServletRequestImpl request, final int transport, final boolean ownEntries)
    {
        if (ownEntries)
        {
            ownContact(request, transport);
            fitRecordRoute(request, transport);
        }
        fitRouteBack(request, transport);
    }

    /**
     * A message's Contact, when it is the one the container wrote for another transport, becomes this transport's
     * (RFC 3261 §8.1.1.8: a {@code transport=tcp} or {@code sips:} URI on our listener, so that the peer's requests
     * in the dialog come back the same way). A Contact the application set is left alone. For UDP nothing is read
     * (the container's requests are made with its UDP Contact; no String on that path).
     */
    private void ownContact(final SipServletMessageImpl message, final int transport)
    {
        if (UDP == transport || null == contacts[transport])
        {
            return;
        }
        final MessageHeaders headers = message.headers();
        final int i = headers.find(HeaderName.CONTACT, 0);
        if (i < 0)
        {
            return;
        }
        final String value = headers.value(i);
        final String wanted = contacts[transport];
        if (!value.equals(wanted) && (value.equals(contacts[UDP]) || value.equals(contacts[TCP])
            || value.equals(contacts[TLS])))
        {
            headers.setValue(i, wanted);
        }
    }

    /** As {@link #via}, for the dispatch helpers of this package. */
    CharSequence viaFor(final String branch)
    {
        return via(branch);
    }

    /** Our Via on {@code transport} ({@link #UDP}, {@link #TCP}, {@link #TLS}), for the dispatch helpers. */
    CharSequence viaFor(final int transport, final String branch)
    {
        return via(transport, branch);
    }

    /** Whether this container listens on (and so can write a Via for) {@code transport}. */
    boolean listensOn(final int transport)
    {
        return transport >= 0 && null != viaPrefixes[transport];
    }

    /** The container's UDP Via with {@code branch}; valid until the next call (shard thread only). */
    private CharSequence via(final String branch)
    {
        return via(UDP, branch);
    }

    /** The container's Via on {@code transport} with {@code branch}; valid until the next call (shard thread only). */
    private CharSequence via(final int transport, final String branch)
    {
        viaValue.setLength(0);
        return viaValue.append(viaPrefixes[transport]).append(branch).append(";rport");
    }

    /** RFC 3261 §9.1: a CANCEL goes after a provisional response, with the INVITE's branch, to its destination. */
    private void sendCancel(final SipServletRequestImpl cancel)
    {
        final SipServletRequestImpl invite = cancel.cancelled();
        if (null != invite.finalResponse())
        {
            return; // too late: the INVITE completed
        }
        if (!invite.provisionalReceived())
        {
            invite.pendingCancel(cancel);
            return;
        }
        // RFC 3261 §9.1: the CANCEL's Via is the INVITE's top Via, transport included, and it goes where it went
        final int transport = Math.max(UDP, transportIndex(invite.sentTransport()));
        final ByteBuf out = shard.allocate(MessageWriter.estimate(cancel));
        MessageWriter.writeRequest(out, cancel, via(transport, invite.branch()));
        cancel.sentTransport(TRANSPORTS[transport]);
        cancel.addresses(invite.destination(), null);
        final ClientTransaction tx = shard.sendRequest(out, invite.destination());
        if (null != tx)
        {
            tx.attachment(cancel);
            cancel.transaction(tx);
        }
    }

    @Override
    public void send(final SipServletResponseImpl response)
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
            logOnce("late-response", "a response was sent after its transaction ended; it is dropped ("
                + response + ")", null);
            endReliable(session, request, response.getStatus() >= 200 ? null : response);
            session.onResponseSent(response);
            afterSend(session);
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
            ownContact(response, flow.isTls() ? TLS : TCP); // §12.1.1: the caller's requests come back the same way
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
            afterSend(session);
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
            new ReliableRetransmission(tx, keep, request, response).start();
        }
        else if (null != keep)
        {
            new OkRetransmission(tx, keep, request, response).start();
        }
        session.onResponseSent(response);
        releaseIfDone(request, status);
        afterSend(session);
    }

    /**
     * A non-INVITE transaction needs nothing of the container after its final response: a retransmitted request gets
     * the response again from the stack, a retransmitted response is absorbed (RFC 3261 §17.1.2.2, §17.2.2), so it
     * lets go of the request at once rather than holding it, its responses and its session for Timer J or K.
     */
    private void releaseIfDone(final SipServletRequestImpl request, final int status)
    {
        if (status >= 200 && !"INVITE".equals(request.getMethod()))
        {
            release(request);
        }
    }

    @Override
    public void release(final SipServletRequestImpl request)
    {
        final Transaction tx = request.transaction();
        if (null == tx || tx.attachment() != request)
        {
            return;
        }
        final SipServletResponseImpl answer = request.finalResponse();
        if (!(tx instanceof ServerTransaction) || SipMethod.INVITE != tx.method() || null == answer)
        {
            tx.attachment(null);
            return;
        }
        final SipSessionImpl session = request.sessionImpl();
        // our own UAS answered with the session's local tag (a String it has); a proxy relayed the callee's
        tx.attachment(new AnsweredInvite(null != session && null == session.proxy() && null != session.localTag()
            ? session.localTag() : answer.toTag()));
    }

    /** What an INVITE server transaction keeps once its request was released: the To tag a late CANCEL's 200 has. */
    private record AnsweredInvite(String toTag)
    {
    }

    /**
     * Ends the wait for a PRACK of a reliable provisional response to {@code request} (RFC 3262 §3): its
     * retransmissions stop and it is no longer pending. With {@code only}, only when that response is the pending
     * one.
     */
    private static void endReliable(final SipSessionImpl session, final SipServletRequestImpl request,
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

    private void afterSend(final SipSessionImpl session)
    {
        if (0 == dispatchDepth)
        {
            session.appSession().checkReady();
        }
    }

    /** A request that could not be sent gets a response from the container, as if from the network (§11.1.4). */
    private void failRequest(final SipServletRequestImpl request, final int status, final String reason)
    {
        final SipMessage m = synthesize(request, status, reason);
        if (null == m)
        {
            return;
        }
        deliverResponse(request, SipServletResponseImpl.received(m, request, null, null));
    }

    private SipMessage synthesize(final SipServletRequestImpl request, final int status, final String reason)
    {
        final StringBuilder sb = new StringBuilder(256).append("SIP/2.0 ").append(status).append(' ')
            .append(reason).append("\r\nVia: ").append(via(null == request.branch() ? "z9hG4bK0" : request.branch()))
            .append("\r\n");
        for (final String name : new String[] {"From", "To", "Call-ID", "CSeq"})
        {
            sb.append(name).append(": ").append(request.getHeader(name)).append("\r\n");
        }
        sb.append("Content-Length: 0\r\n\r\n");
        final byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        final SipMessage m = new SipMessage();
        return SipMessageParser.parseDatagram(bytes, 0, bytes.length, m) == ParseResult.OK ? m : null;
    }

    // ================================================================================================================
    // SipListener: requests
    // ================================================================================================================

    @Override
    public void onRequest(final SipShard s, final ServerTransaction tx, final SipMessage request)
    {
        if (registry.isEmpty())
        {
            noApplication(tx, request);
            return;
        }
        try
        {
            final SipMethod method = request.method();
            if (SipMethod.CANCEL == method)
            {
                onCancel(tx, request);
            }
            else if (request.toTagStart() >= 0)
            {
                onSubsequent(tx, request);
            }
            else if (overloaded(request))
            {
                shed(tx, request);
            }
            else
            {
                onInitial(tx, request);
            }
        }
        catch (final RuntimeException e)
        {
            logOnce("dispatch:" + e.getClass().getName(), "dispatch failed on shard " + shard.index(), e);
            answer(tx, request, 500, "Server Internal Error (" + e.getClass().getName() + ")");
        }
    }

    /**
     * Overload control ({@code SipStackConfig#overloadWaitNs}): whether this new request waited longer than the limit
     * since the kernel received it. A shard that far behind its input would only add to its backlog by routing it:
     * its retransmissions and those of the calls already up would come next, and the socket buffers would overflow.
     */
    private boolean overloaded(final SipMessage request)
    {
        if (0 == overloadWaitNs)
        {
            return false;
        }
        final long received = request.receivedAtNanos();
        return 0 != received && wallClock.getAsLong() - received > overloadWaitNs;
    }

    /**
     * Refuses a new request of an overloaded shard: {@code 503 Service Unavailable} with {@code Retry-After}
     * (RFC 3261 §21.5.4), on its server transaction, which absorbs the request's retransmissions and, for an INVITE,
     * retransmits the 503 until the ACK (§17.2.1). No application sees it.
     */
    private void shed(final ServerTransaction tx, final SipMessage request)
    {
        counters.overloaded.incrementAndGet();
        final ByteBuf out = shard.allocate(256 + request.length());
        shard.builder().startResponse(out, request, 503, OVERLOADED, newTagOnShard())
            .header(HeaderName.RETRY_AFTER, RETRY_AFTER_SECONDS)
            .end(null, 0, 0);
        shard.respond(tx, out, 503);
    }

    /** The reason phrase of an overload 503. */
    static final String OVERLOADED = "Service Unavailable (overloaded)";
    /** Retry-After of an overload 503, seconds: the least the header can say. */
    static final String RETRY_AFTER_SECONDS = "1";

    /** Without applications: what the server answered before the container (StatelessResponder's rules). */
    private void noApplication(final ServerTransaction tx, final SipMessage request)
    {
        counters.noApplication.incrementAndGet();
        if (SipMethod.OPTIONS == request.method())
        {
            final ByteBuf out = shard.allocate(512 + request.length());
            shard.builder().startResponse(out, request, 200, "OK", newTagOnShard())
                .header(HeaderName.ALLOW, StatelessResponder.ALLOW)
                .header(HeaderName.ACCEPT, "application/sdp")
                .header(HeaderName.SUPPORTED, "")
                .end(null, 0, 0);
            shard.respond(tx, out, 200);
            return;
        }
        if (tx.maxForwardsExhausted())
        {
            answer(tx, request, 483, "Too Many Hops");
            return;
        }
        answer(tx, request, 404, StatelessResponder.NO_APPLICATION);
    }

    /** A response built straight from the borrowed request (no session). */
    private void answer(final ServerTransaction tx, final SipMessage request, final int status, final String reason)
    {
        final ByteBuf out = shard.allocate(256 + request.length());
        shard.builder().startResponse(out, request, status, reason, status > 100 ? newTagOnShard() : null)
            .end(null, 0, 0);
        shard.respond(tx, out, status);
    }

    private CharSequence newTagOnShard()
    {
        ids.setLength(0);
        return shard.ids().appendId(ids);
    }

    private void onInitial(final ServerTransaction tx, final SipMessage message)
    {
        final SipServletRequestImpl request = SipServletRequestImpl.received(message, tx, tx.peer(), local());
        request.initial(true);
        SipApplicationRouterInfo info = composedDecision(request);
        final SipApplicationRouterInfo back = null != info && SipRouteModifier.ROUTE_BACK == info.getRouteModifier()
            ? info : null;
        if (null == info)
        {
            if (carriesOurVia(message) && LoopDetection.looped(request, host, ownPorts))
            {
                answer(tx, message, 482, "Loop Detected"); // RFC 3261 §16.3 step 4
                return;
            }
            ProxyRoutes.popOwnRoute(request, host, ownPorts); // §16.4
        }
        SipApplicationSessionImpl targeted = null;
        try
        {
            if (null != back)
            {
                // JSR 289 §15.4.1, ROUTE_BACK: the request came back through the route to us pushed under the
                // external routes; application selection goes on from the router's state info
                info = registry.router().getNextApplication(request, back.getRoutingRegion(),
                    SipApplicationRoutingDirective.CONTINUE, null, back.getStateInfo());
            }
            else if (null == info)
            {
                final SipApplicationSessionImpl target = targetOf(message, request);
                final SipTargetedRequestInfo targetInfo = null == target ? null
                    : new SipTargetedRequestInfo(targeting, target.getApplicationName());
                info = registry.router().getNextApplication(request, null, SipApplicationRoutingDirective.NEW,
                    targetInfo, null);
                // JSR 289 §15.11.3: the request joins the targeted application session when the router gives it to
                // that application
                targeted = null != target && null != info
                    && target.getApplicationName().equals(info.getNextApplicationName()) ? target : null;
            }
        }
        catch (final RuntimeException e)
        {
            logOnce("router:" + e.getClass().getName(), "the application router failed", e);
            answer(tx, message, 500, "Server Internal Error (" + e.getClass().getName() + " in the router)");
            return;
        }
        if (null != info && routedOut(tx, message, request, info))
        {
            return;
        }
        final RunningApplication app = null == info ? null : registry.application(info.getNextApplicationName());
        if (null == app)
        {
            answer(tx, message, 404, "Not Found (no application for this request)");
            return;
        }
        final String servlet = app.deployed().descriptor().selectServlet(request);
        if (null == servlet || null == app.servlet(servlet))
        {
            answer(tx, message, 404, "Not Found (no servlet of " + app.name() + " matches)");
            return;
        }
        if (!authorized(app, servlet, tx, message, request))
        {
            return;
        }
        final String key = null != targeted && targeted.isValid() ? null : app.applicationKey(request);
        SipApplicationSessionImpl appSession = null != targeted && targeted.isValid() ? targeted
            : null == key ? null : sessions.applicationByKey(app.name(), key);
        if (null == appSession || !appSession.isValid())
        {
            appSession = new SipApplicationSessionImpl(app, this, key);
        }
        final SipSessionImpl session = SipSessionImpl.forReceived(appSession, request, servlet);
        final URI subscriber = subscriber(info.getSubscriberURI());
        final SipApplicationRoutingRegion region = info.getRoutingRegion();
        final Serializable state = info.getStateInfo();
        session.routing(region, subscriber, state);
        request.routing(region, subscriber, state);
        tx.attachment(request);
        session.begin(request);
        invoke(session, request, null);
    }

    /**
     * Issue 5 §2 (JSR 289, Security; RFC 3261 §22): the application's security for the selected servlet. A request
     * that may not go on is answered here (401/407 with the challenges, 403, 400) without a session and the servlet
     * is skipped; otherwise the authenticated user, if any, is kept on the request.
     *
     * @return whether the servlet may run.
     */
    private boolean authorized(final RunningApplication app, final String servlet, final ServerTransaction tx,
        final SipMessage message, final SipServletRequestImpl request)
    {
        if (!app.security().guards(servlet, request.getMethod()))
        {
            return true; // no constraint: anonymous, and nothing of the request is read
        }
        final ApplicationSecurity.Verdict verdict = app.security().check(servlet, request.getMethod(),
            request.requestUriText(), name -> request.headers().getAll(name));
        if (verdict.proceed())
        {
            request.principal(verdict.principal());
            return true;
        }
        final ByteBuf out = shard.allocate(512 + message.length());
        final SipMessageBuilder builder = shard.builder().startResponse(out, message, verdict.status(),
            verdict.reasonPhrase(), newTagOnShard());
        for (final String value : verdict.headerValues())
        {
            builder.header(verdict.headerName(), value);
        }
        builder.end(null, 0, 0);
        shard.respond(tx, out, verdict.status());
        return false;
    }

    /** The kind of the last targeting {@link #targetOf} found (shard thread; read right after it returns). */
    private SipTargetedRequestType targeting;

    private static final byte[] ENCODED_URI_BYTES = (";" + SessionTable.ENCODED_URI_PARAMETER + "=")
        .getBytes(StandardCharsets.US_ASCII);

    /**
     * Session targeting (JSR 289 §15.11.3) of an initial request: the application session its Request-URI names (an
     * encoded URI, §15.11.1, {@code SipApplicationSession.encodeURI}), else the one that owns the dialog its Join
     * (RFC 3911) or Replaces (RFC 3891) header names: Call-ID, {@code to-tag} our local tag, {@code from-tag} the
     * remote one (RFC 3891 §3). The stack hands such a request to the shard that holds the dialog or application
     * session (its ids name it, {@code SipShard.targetedShard}), so they are looked up on this shard. The kind of
     * targeting is kept on the request ({@link SipServletRequestImpl#targeting()}). Null when the request targets
     * nothing of ours that is still valid: it is then routed as any initial request. A request without those headers
     * or parameter is checked in place (no String is made).
     */
    private SipApplicationSessionImpl targetOf(final SipMessage message, final SipServletRequestImpl request)
    {
        final byte[] b = message.buffer();
        if (message.requestUriStart() >= 0
            && Ascii.indexOf(b, message.requestUriStart(), message.requestUriEnd(), ENCODED_URI_BYTES) >= 0)
        {
            final String uri = request.requestUriText();
            final int at = uri.indexOf(";" + SessionTable.ENCODED_URI_PARAMETER + "=");
            final int from = at + SessionTable.ENCODED_URI_PARAMETER.length() + 2;
            final String id = at < 0 ? null : uri.substring(from, HeaderText.firstOf(uri, from, ";?>"));
            final SipApplicationSessionImpl app = null == id ? null : sessions.application(id);
            if (null != app && app.isValid())
            {
                targeting = SipTargetedRequestType.ENCODED_URI;
                return app;
            }
        }
        int header = message.firstHeader(HeaderName.REPLACES);
        SipTargetedRequestType type = SipTargetedRequestType.REPLACES;
        if (header < 0)
        {
            header = message.firstHeader(HeaderName.JOIN);
            type = SipTargetedRequestType.JOIN;
        }
        if (header < 0)
        {
            return null;
        }
        final SipSessionImpl dialog = dialogNamedBy(request.getHeader(SipTargetedRequestType.JOIN == type ? "Join"
            : "Replaces"));
        if (null == dialog)
        {
            return null;
        }
        targeting = type;
        return dialog.appSession();
    }

    /** The valid session of the dialog a Join/Replaces value ({@code callid;to-tag=..;from-tag=..}) names, or null. */
    private SipSessionImpl dialogNamedBy(final String value)
    {
        if (null == value)
        {
            return null;
        }
        final int semicolon = value.indexOf(';');
        if (semicolon < 0)
        {
            return null;
        }
        final String callId = value.substring(0, semicolon).strip();
        final String params = "<x:x>" + value.substring(semicolon);
        final String toTag = HeaderText.param(params, "to-tag");
        final String fromTag = HeaderText.param(params, "from-tag");
        SipSessionImpl dialog = null == toTag ? null : sessions.dialog(callId, toTag);
        if (null != dialog && null != fromTag && !fromTag.equals(dialog.remoteTag()))
        {
            dialog = dialog.dialogFor(fromTag); // a derived session of a forked INVITE (JSR 289 §6.2.3.2)
        }
        return null != dialog && dialog.isValid() && dialog.appSession().isValid() ? dialog : null;
    }

    /** The router decision a composition Route of ours carries; the Route is popped (JSR 289 §15.5). */
    private SipApplicationRouterInfo composedDecision(final SipServletRequestImpl request)
    {
        final String route = request.headers().get(HeaderName.ROUTE);
        final String token = io.sipline.container.message.HeaderText.routeUriParam(route, COMPOSITION_PARAMETER);
        if (null == token)
        {
            return null;
        }
        final SipApplicationRouterInfo info = composed.remove(token);
        if (null != info)
        {
            request.headers().removeAt(request.headers().find(HeaderName.ROUTE, 0));
            request.poppedRoute(route);
        }
        return info;
    }

    private static URI subscriber(final String uri)
    {
        if (null == uri)
        {
            return null;
        }
        try
        {
            return SipAddresses.parseUri(uri);
        }
        catch (final ServletParseException e)
        {
            return null;
        }
    }

    private void onSubsequent(final ServerTransaction tx, final SipMessage message)
    {
        final long proxyKey = proxyKeySpan(message);
        if (proxyKey >= 0 && proxySubsequent(tx, message, proxyKey))
        {
            return;
        }
        final SipSessionImpl session = sessions.dialog(message, false);
        if (null == session || !session.isValid())
        {
            answer(tx, message, 481, "Call/Transaction Does Not Exist");
            return;
        }
        final AckWait pending = session.awaitingAck();
        if (SipMethod.BYE == message.method() && null != pending)
        {
            // RFC 3261 §15.1.2: the BYE ends the dialog our 2xx confirmed, and the caller's ACK may come after it
            // (it sends the two back to back; UDP keeps no order) or never. Retransmitting the 2xx of an ended
            // dialog until 64*T1 (§13.3.1.4) would only draw ACKs for nothing: it stops here, and a late ACK finds
            // no dialog and is discarded.
            pending.end(session);
        }
        final SipServletRequestImpl request = SipServletRequestImpl.received(message, tx, tx.peer(), local());
        if (SipMethod.PRACK == message.method() && !acknowledgesPending(session, request))
        {
            // RFC 3262 §3: "If a PRACK request is received by the UA core that does not match any unacknowledged
            // reliable provisional response, the UAS MUST respond to the PRACK with a 481 response."
            answer(tx, message, 481, "Call/Transaction Does Not Exist (no reliable provisional response awaits "
                + "this RAck)");
            return;
        }
        request.session(session);
        tx.attachment(request);
        session.onSubsequentRequest(request);
        session.begin(request);
        invoke(session, request, null);
    }

    /**
     * RFC 3262 §3: whether a received PRACK's RAck names the session's pending reliable provisional response; if so
     * its retransmissions stop and it is acknowledged. The PRACK then goes to the servlet (doPrack), which answers
     * it (JSR 289 §5.7.1).
     */
    private static boolean acknowledgesPending(final SipSessionImpl session, final SipServletRequestImpl prack)
    {
        final ReliableProvisionals rel = session.reliableProvisionalsIfAny();
        if (null == rel || !rel.acknowledges(prack.headers().get(HeaderName.RACK)))
        {
            return false;
        }
        endReliable(session, rel.pending().requestImpl(), rel.pending());
        return true;
    }

    /**
     * Where the key of a record-routing proxy session of ours is in a subsequent request: the value of the
     * {@value ProxyRoutes#ROUTE_PARAMETER} URI parameter in its top Route, or in its Request-URI when a strict router
     * before us put our Record-Route there (RFC 3261 §16.4). Read in place, so no String is made for any request.
     *
     * @return the key's start and end in the message's buffer, packed as {@code start << 32 | end}, or -1.
     */
    private static long proxyKeySpan(final SipMessage message)
    {
        final int route = message.firstHeader(HeaderName.ROUTE);
        final long inRoute = route < 0 ? -1
            : ProxyRoutes.keySpan(message.buffer(), message.headerValueStart(route), message.headerValueEnd(route));
        return inRoute >= 0 ? inRoute
            : ProxyRoutes.keySpan(message.buffer(), message.requestUriStart(), message.requestUriEnd());
    }

    /** Whether a Via of the borrowed request names our host:port (the cheap test before loop detection). */
    private boolean carriesOurVia(final SipMessage m)
    {
        for (int i = m.firstHeader(HeaderName.VIA); i >= 0; i = m.nextHeader(HeaderName.VIA, i))
        {
            for (final byte[] sentBy : ourSentBys)
            {
                if (contains(m.buffer(), m.headerValueStart(i), m.headerValueEnd(i), sentBy))
                {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean contains(final byte[] b, final int start, final int end, final byte[] what)
    {
        return Ascii.indexOf(b, start, end, what) >= 0;
    }

    /**
     * A request in a dialog this container record-routed as a proxy (JSR 289 §10.2.2; RFC 3261 §16.4): our Route
     * popped, the servlet sees it ({@code isInitial()} false), then the container proxies it to its Request-URI
     * unless the servlet answered it.
     *
     * @return false when the key names no live session of ours (the request is then handled as any other).
     */
    private boolean proxySubsequent(final ServerTransaction tx, final SipMessage message, final long key)
    {
        final SipServletRequestImpl request = inProxiedDialog(message, key, tx, tx.peer());
        if (null == request)
        {
            return false;
        }
        tx.attachment(request);
        request.sessionImpl().begin(request);
        invoke(request.sessionImpl(), request, null, () -> proxyOnward(request));
        return true;
    }

    /**
     * A request of a dialog this container record-routed as a proxy, in the session the key names, with the
     * Request-URI a strict router replaced restored and our Route popped (RFC 3261 §16.4); null when the key names no
     * live proxy session of ours.
     */
    private SipServletRequestImpl inProxiedDialog(final SipMessage message, final long key,
        final ServerTransaction tx, final InetSocketAddress remote)
    {
        final SipSessionImpl session = sessions.dialog(message, (int)(key >>> 32), (int)key);
        if (null == session || !session.isValid() || null == session.proxy())
        {
            return null;
        }
        final SipServletRequestImpl request = SipServletRequestImpl.received(message, tx, remote, local());
        request.session(session);
        final boolean restored = ProxyRoutes.restoreRequestUri(request);
        final int route = message.firstHeader(HeaderName.ROUTE);
        if (!restored && route >= 0 && (int)(key >>> 32) >= message.headerValueStart(route)
            && (int)key <= message.headerValueEnd(route))
        {
            ProxyRoutes.popKeyedRoute(request); // the key was in the top Route: it is ours, nothing to parse
        }
        else
        {
            ProxyRoutes.popOwnRoute(request, host, ownPorts);
        }
        return request;
    }

    /** After the servlet saw a subsequent request of a proxied dialog: on to its Request-URI (unless answered). */
    private void proxyOnward(final SipServletRequestImpl request)
    {
        if (null != request.finalResponse() || null == request.transaction())
        {
            return;
        }
        if (0 == request.getMaxForwards())
        {
            sendQuietly(request, 483, "Too Many Hops");
            return;
        }
        if (ProxyRelay.applies(request))
        {
            ProxyRelay.start(this, request); // the received request itself, no proxy object (JSR 289 allows it)
            return;
        }
        ProxyImpl proxy = request.proxy() instanceof ProxyImpl p ? p : null;
        if (null == proxy)
        {
            proxy = new ProxyImpl(request, this, true);
            request.proxy(proxy);
        }
        if (proxy.isStarted())
        {
            return;
        }
        try
        {
            proxy.proxyTo(request.getRequestURI());
        }
        catch (final RuntimeException e)
        {
            sendQuietly(request, 400, "Bad Request (" + e.getMessage() + ")");
        }
    }

    private static void sendQuietly(final SipServletRequestImpl request, final int status, final String reason)
    {
        try
        {
            request.createResponse(status, reason).send();
        }
        catch (final Exception e)
        {
            logOnce("answer:" + status, "a " + status + " could not be sent", e);
        }
    }

    /** The ACK of a 2xx in a dialog this container record-routed as a proxy: to the servlet, then on statelessly. */
    private boolean proxyAck(final SipMessage message, final long key, final InetSocketAddress source)
    {
        final SipServletRequestImpl ack = inProxiedDialog(message, key, null, source);
        if (null == ack)
        {
            return false;
        }
        final SipSessionImpl session = ack.sessionImpl();
        ack.principal(session.initialPrincipal()); // the ACK has its INVITE's user (never challenged)
        invoke(session, ack, null, () ->
        {
            final int maxForwards = ack.getMaxForwards();
            if (0 != maxForwards)
            {
                // RFC 3261 §16.11: the ACK of a 2xx goes on without a transaction, and nothing else is done with
                // it, so the received request itself is forwarded (with what the servlet changed), not a copy:
                // Max-Forwards decremented (§16.6 step 3), our Route already popped, our Via added when written
                ack.headers().set("Max-Forwards", HeaderText.decimal(maxForwards < 0 ? 70 : maxForwards - 1));
                ProxyRoutes.forStrictNextHop(ack);
                ack.markCommitted();
                send(ack);
            }
        });
        return true;
    }

    /**
     * RFC 3261 §9.2 and JSR 289 §11.2.3: 200 to the CANCEL, 487 to the INVITE if it has no final response yet, then
     * the CANCEL to the servlet; 481 when it matches no INVITE.
     */
    private void onCancel(final ServerTransaction tx, final SipMessage message)
    {
        final ServerTransaction inviteTx = tx.cancelledInvite();
        if (null != inviteTx && inviteTx.attachment() instanceof AnsweredInvite answered)
        {
            // §9.2: the INVITE has its final response and its call is over; the CANCEL has no effect but a 200,
            // with the To tag of that final response
            final ByteBuf out = shard.allocate(256 + message.length());
            shard.builder().startResponse(out, message, 200, "OK", answered.toTag).end(null, 0, 0);
            shard.respond(tx, out, 200);
            return;
        }
        if (null != inviteTx && inviteTx.attachment() instanceof RoutedOut relay)
        {
            answer(tx, message, 200, "OK"); // RFC 3261 §16.10
            relay.cancel(shard, via(relay.transport(), null == relay.branch() ? "" : relay.branch()),
                newTagOnShard());
            return;
        }
        final SipServletRequestImpl invite = null == inviteTx ? null
            : inviteTx.attachment() instanceof SipServletRequestImpl r && r.transaction() == inviteTx ? r : null;
        if (null == invite)
        {
            answer(tx, message, 481, "Call/Transaction Does Not Exist");
            return;
        }
        final SipSessionImpl session = invite.sessionImpl();
        if (invite.proxy() instanceof ProxyImpl proxy && proxy.isStarted())
        {
            // RFC 3261 §16.10: 200 to the CANCEL, the pending branches cancelled; their 487 goes upstream
            answer(tx, message, 200, "OK");
            final SipServletRequestImpl cancel = SipServletRequestImpl.received(message, tx, tx.peer(), local());
            cancel.session(session);
            cancel.principal(invite.principal());
            invoke(session, cancel, null, proxy::cancelFromUpstream);
            return;
        }
        final ByteBuf out = shard.allocate(256 + message.length());
        shard.builder().startResponse(out, message, 200, "OK", session.localTagForResponse()).end(null, 0, 0);
        shard.respond(tx, out, 200);
        if (null != invite.finalResponse())
        {
            return;
        }
        final SipServletResponseImpl terminated = (SipServletResponseImpl)invite.createResponse(487);
        invite.finalResponse(terminated);
        terminated.markCommitted();
        dispatchDepth++; // the session stays valid for doCancel: readiness is checked after it
        try
        {
            send(terminated);
        }
        finally
        {
            dispatchDepth--;
        }
        final SipServletRequestImpl cancel = SipServletRequestImpl.received(message, tx, tx.peer(), local());
        cancel.session(session);
        cancel.principal(invite.principal()); // the CANCEL is never challenged: it has its INVITE's user
        invoke(session, cancel, null);
    }

    @Override
    public void onAck(final SipShard s, final ServerTransaction tx, final SipMessage ack)
    {
        if (tx.attachment() instanceof SipServletRequestImpl invite && invite.transaction() == tx)
        {
            // the ACK of a 2xx sent in a forked dialog's UAS session (its own To tag) goes to that session
            final SipSessionImpl byTag = sessions.dialog(ack, false);
            deliverAck(null != byTag && byTag.isValid() ? byTag : invite.sessionImpl(), ack, tx);
        }
    }

    @Override
    public void onStatelessRequest(final SipShard s, final SipMessage request, final InetSocketAddress source)
    {
        if (SipMethod.ACK != request.method() || request.toTagStart() < 0)
        {
            return;
        }
        final long proxyKey = proxyKeySpan(request);
        if (proxyKey >= 0 && proxyAck(request, proxyKey, source))
        {
            return;
        }
        final SipSessionImpl session = sessions.dialog(request, false);
        if (null != session && session.isValid())
        {
            deliverAck(session, request, null);
        }
    }

    /** The ACK of a 2xx (once per INVITE): stops the retransmissions and goes to the servlet's doAck. */
    private void deliverAck(final SipSessionImpl session, final SipMessage ack, final Transaction tx)
    {
        final AckWait pending = session.awaitingAck();
        if (null == pending || pending.cseq() != ack.cseqNumber())
        {
            return; // a retransmitted ACK, or one for no 2xx of ours
        }
        pending.end(session);
        final SipServletRequestImpl request = SipServletRequestImpl.received(ack, null, null, local());
        request.session(session);
        request.principal(pending.request().principal()); // the ACK is never challenged: it has its INVITE's user
        session.onSubsequentRequest(request);
        invoke(session, request, null);
    }

    // ================================================================================================================
    // SipListener: responses and transaction events
    // ================================================================================================================

    @Override
    public void onResponse(final SipShard s, final ClientTransaction tx, final SipMessage response)
    {
        if (tx.attachment() instanceof RoutedOut routed)
        {
            routed.onResponse(shard, response, tx.peer(), local(), via(routed.transport(), routed.branch()));
            return;
        }
        if (tx.attachment() instanceof ProxyRelay relay)
        {
            if (relay.isOf(tx) && 100 != response.statusCode()) // 100 Trying is hop by hop
            {
                final SipServletRequestImpl request = relay.request();
                ProxyRelay.onResponse(this, request, SipServletResponseImpl.received(response, request, tx.peer(),
                    local()));
            }
            return;
        }
        if (!(tx.attachment() instanceof SipServletRequestImpl request) || request.transaction() != tx)
        {
            if (null == tx.attachment() && StrayTwoHundreds.isOurInvite2xx(response))
            {
                stray2xx(response, tx.peer()); // the INVITE was released: every session of its call ended
            }
            return;
        }
        final int status = response.statusCode();
        if ("CANCEL".equals(request.getMethod()))
        {
            return; // the 200 to a CANCEL stays with the container (JSR 289 §11.1.5)
        }
        if (SipMethod.INVITE == tx.method() && status >= 200 && status < 300 && null != request.last2xx()
            && null == request.proxyBranch() && isRetransmitted2xx(request, response, tx.peer()))
        {
            return;
        }
        if (100 == status)
        {
            request.provisionalReceived(true);
            sendPendingCancel(request);
            return; // 100 Trying is hop by hop: not given to applications
        }
        final SipServletResponseImpl r = SipServletResponseImpl.received(response, request, tx.peer(), local());
        deliverResponse(request, r);
    }

    private void deliverResponse(final SipServletRequestImpl request, final SipServletResponseImpl response)
    {
        if (request.isRelayed())
        {
            ProxyRelay.onResponse(this, request, response); // the container's own 408 or 503 to a relayed request
            return;
        }
        final int status = response.getStatus();
        if (request.proxyBranch() instanceof ProxyBranchImpl branch)
        {
            if (status < 200)
            {
                request.provisionalReceived(true);
            }
            else if (null == request.finalResponse())
            {
                request.finalResponse(response);
            }
            branch.onResponse(response);
            sendPendingCancel(request);
            return;
        }
        final SipSessionImpl session = dialogOf(request, response, status);
        if (session != request.sessionImpl())
        {
            response.session(session); // JSR 289 §6.2.3.2: resp.getSession() is the derived session
        }
        if (request == session.containerBye())
        {
            session.onResponseReceived(response); // the container's own BYE: its response is not the servlet's
            releaseIfDone(request, status);
            afterSend(session);
            return;
        }
        if (status < 200 && !acceptReliable(session, response))
        {
            request.provisionalReceived(true);
            sendPendingCancel(request);
            return; // RFC 3262 §4: a retransmitted or out-of-order reliable provisional response is not delivered
        }
        final boolean forked = session != request.sessionImpl();
        if (status < 200)
        {
            request.provisionalReceived(true);
        }
        else if (!forked) // a derived dialog's 2xx: the INVITE's final response and ACK stay the first dialog's
        {
            request.finalResponse(response);
            if (status < 300 && "INVITE".equals(request.getMethod()))
            {
                request.last2xx(response);
            }
            else if (status >= 300 && "INVITE".equals(request.getMethod()))
            {
                session.endEarlyForks(null); // RFC 3261 §13.2.2.3
            }
        }
        session.onResponseReceived(response);
        if (forked && status >= 200)
        {
            invoke(session, null, response, () -> endUnwantedDialog(session, response));
        }
        else
        {
            invoke(session, null, response);
        }
        sendPendingCancel(request);
        releaseIfDone(request, status);
    }

    /**
     * The session of a response's dialog. A tagged 1xx or a 2xx to a UAC session's initial INVITE whose To tag is not
     * the session's dialog (a proxy downstream forked it: RFC 3261 §12.1.2, §13.2.2.4) goes to the session derived
     * for that tag (JSR 289 §6.2.3.2), made on its first response; while the session has no confirmed dialog yet, a
     * 2xx confirms the session's own (its early dialog, if it had another tag, is dropped), so an application that
     * linked the session sees the answered call in it. Any other response goes to its request's session.
     */
    private static SipSessionImpl dialogOf(final SipServletRequestImpl request, final SipServletResponseImpl response,
        final int status)
    {
        final SipSessionImpl session = request.sessionImpl();
        if (status <= 100 || status >= 300 || request != session.original() || request.isIncoming()
            || null == session.remoteTag() || !session.isValid() || !"INVITE".equals(request.getMethod()))
        {
            return session;
        }
        if (status >= 200 && SipSession.State.CONFIRMED != session.getState())
        {
            if (session.hasForks())
            {
                session.endEarlyForks(response.toTag()); // that early dialog is confirmed as the session's own
            }
            return session;
        }
        final String tag = response.toTag();
        if (null == tag || tag.equals(session.remoteTag()))
        {
            return session;
        }
        final SipSessionImpl known = session.dialogFor(tag);
        return null != known ? known : session.derive(response);
    }

    /**
     * The safety net for a forked 2xx (RFC 3261 §13.2.2.4: "The UAC core MUST generate an ACK request for each 2xx
     * received from the transaction layer"; a UAC that does not want the dialog sends BYE after the ACK): JSR 289
     * §6.2.3.2 gives the 2xx to the application in its derived session and leaves the ACK to it, as for any 2xx. If
     * the servlet call returned (for an application on virtual threads: its call ended) and the application neither
     * created the ACK ({@code createAck}) nor relayed the 2xx upstream ({@code createResponseToOriginalRequest} on the
     * derived session, where the ACK follows the caller's), the container takes that as the application not wanting
     * the dialog (JSR 289 names no later moment, and the far end retransmits the 2xx meanwhile, RFC 3261
     * §13.3.1.4): it ACKs the 2xx and ends the dialog with a BYE, whose response stays with the container. An
     * application that wants to decide later ACKs first. Logged once per application.
     */
    private void endUnwantedDialog(final SipSessionImpl session, final SipServletResponseImpl ok)
    {
        if (ok.getStatus() >= 300 || !"INVITE".equals(ok.getMethod()) || ok.isCommitted() || session.isRelayed()
            || !session.isValid() || SipSession.State.CONFIRMED != session.getState())
        {
            return;
        }
        logOnce("forked-2xx:" + session.appSession().getApplicationName(), "application "
            + session.appSession().getApplicationName() + " neither acknowledged nor relayed the 2xx of a forked "
            + "dialog (To tag " + session.remoteTag() + "); the container sends its ACK and a BYE (RFC 3261 "
            + "§13.2.2.4)", null);
        try
        {
            ok.createAck().send();
            final SipServletRequestImpl bye = (SipServletRequestImpl)session.createRequest("BYE");
            session.containerBye(bye);
            bye.send();
        }
        catch (final IOException | RuntimeException e)
        {
            logOnce("forked-2xx-bye", "ending a forked dialog failed", e);
        }
    }

    /**
     * RFC 3262 §4 for a received 1xx (UAC): one with Require 100rel and an RSeq is reliable; it is delivered when it is
     * the first of its early dialog or one higher than the last, absorbed when it repeats an RSeq already seen, and
     * discarded when out of order. Any other 1xx is delivered as it is.
     *
     * @return whether the response goes to the application.
     */
    private static boolean acceptReliable(final SipSessionImpl session, final SipServletResponseImpl response)
    {
        if (!response.requires100rel())
        {
            return true;
        }
        final long rseq = ReliableProvisionals.parseRseq(response.getHeader("RSeq"));
        if (rseq < 0)
        {
            logOnce("rseq-missing", "a 1xx with Require: 100rel has no valid RSeq; delivered as unreliable ("
                + response + ")", null);
            return true;
        }
        response.markReliable(rseq);
        return ReliableProvisionals.Verdict.DELIVER == session.reliableProvisionals().received(response,
            response.toTag());
    }

    private void sendPendingCancel(final SipServletRequestImpl invite)
    {
        final SipServletRequestImpl cancel = invite.pendingCancel();
        if (null != cancel && invite.provisionalReceived())
        {
            invite.pendingCancel(null);
            sendCancel(cancel);
        }
    }

    /**
     * Whether a 2xx to an INVITE that already had one is a retransmission of a dialog's 2xx (RFC 3261 §13.2.2.4):
     * of the first dialog, or of a derived one (JSR 289 §6.2.3.2) that already had its 2xx; the ACK goes again when
     * one was sent. False for the first 2xx of another dialog, which is delivered.
     */
    private boolean isRetransmitted2xx(final SipServletRequestImpl invite, final SipMessage response,
        final InetSocketAddress source)
    {
        final String tag = response.toTag();
        if (null == tag || tag.equals(invite.last2xx().toTag()))
        {
            resendAck(invite.ack());
            return true;
        }
        final SipSessionImpl head = sessions.dialog(invite.sessionImpl().callId(), invite.sessionImpl().localTag());
        final SipSessionImpl dialog = null == head ? null : head.dialogFor(tag);
        if (null != dialog && null != dialog.derived2xx())
        {
            resendAck(dialog.derivedAck());
            return true;
        }
        if (null == head && StrayTwoHundreds.isOurInvite2xx(response))
        {
            stray2xx(response, source); // the call is over: nothing takes a new dialog
        }
        return null == head;
    }

    /**
     * A 2xx of our INVITE with no session left for it: ACKed, its dialog ended with BYE ({@link StrayTwoHundreds}).
     *
     * @param source where it came from (a {@link TcpFlow} over a connection).
     */
    private void stray2xx(final SipMessage response, final InetSocketAddress source)
    {
        if (strays.end(response, source))
        {
            counters.stray2xx.incrementAndGet();
            logOnce("stray-2xx", "a 2xx to an INVITE arrived after every session of its call had ended; the container "
                + "ACKs it and ends its dialog with a BYE (RFC 3261 §13.2.2.4); counted in stray2xx", null);
        }
    }

    /** Sends again the ACK of a 2xx that came again, when one was sent (RFC 3261 §13.2.2.4). */
    private void resendAck(final SipServletRequestImpl ack)
    {
        if (null == ack || null == ack.destination())
        {
            return;
        }
        final ByteBuf out = shard.allocate(MessageWriter.estimate(ack));
        // the ACK again as it went: its Via names the transport it was sent on (RFC 3261 §18.1.1)
        MessageWriter.writeRequest(out, ack, via(Math.max(UDP, transportIndex(ack.sentTransport())), ack.branch()));
        shard.sendStateless(out, ack.destination());
    }

    @Override
    public void onStatelessResponse(final SipShard s, final SipMessage response, final InetSocketAddress source)
    {
        if (SipMethod.INVITE != response.cseqMethod() || response.statusCode() < 200 || response.statusCode() >= 300)
        {
            return;
        }
        final SipSessionImpl session = sessions.dialog(response, true);
        if (null == session && StrayTwoHundreds.isOurInvite2xx(response))
        {
            stray2xx(response, source); // after Timer M, with no session of the call left
            return;
        }
        final SipServletRequestImpl invite = null == session ? null : session.original();
        if (null == invite || invite.isIncoming() || null == invite.last2xx())
        {
            return;
        }
        final String tag = response.toTag();
        if (null == tag || tag.equals(invite.last2xx().toTag()))
        {
            resendAck(invite.ack());
        }
        else if (tag.equals(session.remoteTag()) && null != session.derived2xx())
        {
            resendAck(session.derivedAck());
        }
    }

    /** Timer B or F: the request gets a 408 from the container (JSR 289 §11.1.4). */
    @Override
    public void onTimeout(final SipShard s, final Transaction tx, final char timer)
    {
        if (tx.isClient() && tx.attachment() instanceof RoutedOut routed)
        {
            routed.fail(shard, 408, "Request Timeout", newTagOnShard()); // RFC 3261 §16.8
            return;
        }
        if (tx.attachment() instanceof ProxyRelay relay && relay.isOf(tx))
        {
            failRequest(relay.request(), 408, "Request Timeout");
            return;
        }
        if (tx.isClient() && tx.attachment() instanceof SipServletRequestImpl request && request.transaction() == tx
            && null == request.finalResponse() && !"CANCEL".equals(request.getMethod()))
        {
            failRequest(request, 408, "Request Timeout");
        }
    }

    @Override
    public void onTransportError(final SipShard s, final Transaction tx)
    {
        if (tx.isClient() && tx.attachment() instanceof RoutedOut routed)
        {
            routed.fail(shard, 500, "Server Internal Error (transport error towards the next hop)", newTagOnShard());
            return; // RFC 3261 §16.9: a 503 of the branch, which §16.7 step 6 sends on as 500
        }
        if (tx.attachment() instanceof ProxyRelay relay && relay.isOf(tx))
        {
            failRequest(relay.request(), 503, "Service Unavailable (transport error)");
            return;
        }
        if (tx.isClient() && tx.attachment() instanceof SipServletRequestImpl request && request.transaction() == tx
            && null == request.finalResponse() && !"CANCEL".equals(request.getMethod()))
        {
            failRequest(request, 503, "Service Unavailable (transport error)");
        }
    }

    @Override
    public void onTerminated(final SipShard s, final Transaction tx)
    {
        if (tx.attachment() instanceof SipServletRequestImpl request && request.transaction() == tx
            && request.isIncoming() && null == request.finalResponse() && null != request.sessionImpl())
        {
            request.sessionImpl().end(request); // the server transaction ended without a final response
            request.sessionImpl().appSession().checkReady();
        }
        else if (tx.attachment() instanceof SipServletRequestImpl request && request.transaction() == tx
            && SipMethod.INVITE == tx.method() && null != request.sessionImpl())
        {
            if (!request.isIncoming())
            {
                endEarlyDialogs(request.sessionImpl());
            }
            request.sessionImpl().settle(request);
        }
        tx.attachment(null);
    }

    /**
     * RFC 3261 §13.2.2.4: the INVITE client transaction of a UAC session ended (64*T1 after its first 2xx); "all the
     * early dialogs that have not transitioned to established dialogs are terminated": the derived sessions still
     * EARLY end, and so does the session that took over the table's entry from the INVITE's session (which ended
     * first) if it is still EARLY.
     */
    private void endEarlyDialogs(final SipSessionImpl session)
    {
        final SipSessionImpl head = session.isValid() ? session : sessions.dialog(session.callId(),
            session.localTag());
        if (null == head || !head.isValid())
        {
            return;
        }
        boolean ended = head.endEarlyForks(null);
        if (head != session && SipSession.State.EARLY == head.getState())
        {
            head.terminate();
            ended = true;
        }
        if (ended)
        {
            head.appSession().checkReady();
        }
    }

    @Override
    public void onTimer(final SipShard s, final long wheelId, final long payload, final long nowNs)
    {
        final int slot = (int)payload;
        if (slot < 0 || slot >= slotCount || timerWheelIds[slot] != wheelId || null == timerTargets[slot])
        {
            return;
        }
        final ShardHost.TimerTarget target = timerTargets[slot];
        final long handle = ((long)(timerGenerations[slot] & 0x7FFFFFFF) << 32) | slot;
        freeSlot(slot);
        dispatchDepth++;
        try
        {
            target.onTimer(handle);
        }
        catch (final RuntimeException e)
        {
            counters.servletErrors.incrementAndGet();
            logOnce("timer:" + e.getClass().getName(), "a timer listener threw on shard " + shard.index(), e);
        }
        finally
        {
            dispatchDepth--;
        }
    }

    @Override
    public void onStop(final SipShard s)
    {
        for (int i = 0; i < slotCount; i++)
        {
            if (timerTargets[i] instanceof Retransmission r)
            {
                r.release();
            }
        }
    }

    // ================================================================================================================
    // Invoking the application
    // ================================================================================================================

    /**
     * Calls the session's handler servlet with a request or a response, on this thread, with the application's
     * class loader; an exception answers the request with 500 (when still possible) and is counted and logged once
     * per kind. Afterwards, sessions that became ready to invalidate are invalidated.
     */
    private void invoke(final SipSessionImpl session, final SipServletRequestImpl request,
        final SipServletResponseImpl response)
    {
        invoke(session, request, response, null);
    }

    @Override
    public void deliver(final SipSessionImpl session, final SipServletRequestImpl request,
        final SipServletResponseImpl response, final Runnable afterwards)
    {
        invoke(session, request, response, afterwards);
    }

    @Override
    public Proxy proxyFor(final SipServletRequestImpl request)
    {
        return request.isRelayed() ? ProxyImpl.relayed(request, this)
            : new ProxyImpl(request, this, !request.isInitial());
    }

    /**
     * As {@link #invoke(SipSessionImpl, SipServletRequestImpl, SipServletResponseImpl)}, then {@code afterwards}
     * (may be null) on this shard once the servlet returned, before the sessions' readiness is checked.
     */
    private void invoke(final SipSessionImpl session, final SipServletRequestImpl request,
        final SipServletResponseImpl response, final Runnable afterwards)
    {
        final SipApplicationSessionImpl appSession = session.appSession();
        final RunningApplication app = (RunningApplication)appSession.application();
        final String handler = session.handler();
        if (app.virtualThreads())
        {
            // io.sipline.threading=virtual: the application may block; its calls leave the shard for a virtual
            // thread, one at a time per application session; what it sends comes back to the shard as tasks.
            lane(appSession).execute(() ->
            {
                runServlet(app, handler, request, response);
                execute(() ->
                {
                    runAfterwards(afterwards);
                    appSession.checkReady();
                });
            });
            return;
        }
        dispatchDepth++;
        thread = Thread.currentThread();
        callApplication = app;
        callHandler = handler;
        callStartNs = System.nanoTime();
        try
        {
            runServlet(app, handler, request, response);
        }
        finally
        {
            callStartNs = 0;
        }
        try
        {
            runAfterwards(afterwards);
        }
        finally
        {
            dispatchDepth--;
        }
        if (0 == dispatchDepth)
        {
            appSession.checkReady();
        }
    }

    /**
     * Tells the application's {@link SipErrorListener}s that a 2xx got no ACK ({@code noAck}) or a reliable
     * provisional response no PRACK (JSR 289 §6.4.2, §5.7.1), like any other callback of the application: on this
     * shard, or, for an application on virtual threads, on its application session's virtual lane, serialized with
     * its servlet calls. {@code afterwards} (may be null) then runs on this shard, and the sessions' readiness is
     * checked. Nothing is told once the session is invalid. A listener's exception is counted and logged once per
     * kind, with the application's class loader as context class loader during the calls.
     */
    private void tellErrorListeners(final SipSessionImpl session, final SipErrorEvent event, final boolean noAck,
        final Runnable afterwards)
    {
        if (!session.isValid())
        {
            runAfterwards(afterwards);
            return;
        }
        final SipApplicationSessionImpl appSession = session.appSession();
        final RunningApplication app = (RunningApplication)appSession.application();
        final List<SipErrorListener> listeners = app.listeners(SipErrorListener.class);
        if (listeners.isEmpty())
        {
            runAfterwards(afterwards);
            return;
        }
        final Runnable calls = () ->
        {
            final Thread t = Thread.currentThread();
            final ClassLoader previous = t.getContextClassLoader();
            t.setContextClassLoader(app.classLoader());
            try
            {
                for (final SipErrorListener l : listeners)
                {
                    try
                    {
                        if (noAck)
                        {
                            l.noAckReceived(event);
                        }
                        else
                        {
                            l.noPrackReceived(event);
                        }
                    }
                    catch (final RuntimeException e)
                    {
                        counters.servletErrors.incrementAndGet();
                        logOnce("error-listener:" + app.name() + ":" + e.getClass().getName(), "a SipErrorListener of "
                            + app.name() + " threw", e);
                    }
                }
            }
            finally
            {
                t.setContextClassLoader(previous);
            }
        };
        if (app.virtualThreads())
        {
            lane(appSession).execute(() ->
            {
                calls.run();
                execute(() ->
                {
                    runAfterwards(afterwards);
                    appSession.checkReady();
                });
            });
            return;
        }
        calls.run();
        runAfterwards(afterwards);
    }

    /** What the container does once a servlet call returned (a proxy's forwarding); a failure is logged once. */
    private void runAfterwards(final Runnable afterwards)
    {
        if (null == afterwards)
        {
            return;
        }
        try
        {
            afterwards.run();
        }
        catch (final RuntimeException e)
        {
            logOnce("after:" + e.getClass().getName(), "the container's step after a servlet call failed", e);
        }
    }

    private static Executor lane(final SipApplicationSessionImpl appSession)
    {
        final Executor lane = appSession.lane();
        if (null == lane)
        {
            final VirtualLane made = new VirtualLane();
            appSession.lane(made);
            return made;
        }
        return lane;
    }

    /**
     * One servlet call with the application's class loader; an exception answers the request with 500 naming its
     * class (when still possible) and is counted and logged once per kind, never rethrown (but a VM error).
     */
    private void runServlet(final RunningApplication app, final String handler, final SipServletRequestImpl request,
        final SipServletResponseImpl response)
    {
        final SipServlet servlet = app.servlet(handler);
        final Thread t = Thread.currentThread();
        final ClassLoader previous = t.getContextClassLoader();
        t.setContextClassLoader(app.classLoader());
        try
        {
            if (null == servlet)
            {
                throw new IllegalStateException("no servlet named " + handler);
            }
            final long start = System.nanoTime();
            try
            {
                servlet.service(request, response);
            }
            finally
            {
                app.stats().servletCall(shard.index(), System.nanoTime() - start);
            }
        }
        catch (final Throwable e) // a servlet may throw anything; none of it may reach the shard
        {
            final boolean tooManyHops = e instanceof TooManyHopsException; // JSR 289 §10.1: answered 483
            if (!tooManyHops)
            {
                counters.servletErrors.incrementAndGet();
                logOnce("servlet:" + app.name() + ":" + e.getClass().getName(), "servlet " + app.name() + "/"
                    + handler + " threw while handling " + (null != request ? request : response), e);
            }
            if (null != request && request.isIncoming() && !"ACK".equals(request.getMethod())
                && null == request.finalResponse() && null != request.transaction())
            {
                try
                {
                    (tooManyHops ? request.createResponse(483, "Too Many Hops")
                        : request.createResponse(500, "Server Internal Error (" + e.getClass().getName() + ")"))
                        .send();
                }
                catch (final Exception again)
                {
                    logOnce("servlet-500", "the response after a servlet exception could not be sent", again);
                }
            }
            if (e instanceof VirtualMachineError fatal && !(e instanceof StackOverflowError))
            {
                throw fatal;
            }
        }
        finally
        {
            t.setContextClassLoader(previous);
        }
    }

    /** The slow-call watchdog's check (watchdog thread): a call longer than {@code limitNs} is counted and logged. */
    void checkSlow(final long nowNs, final long limitNs)
    {
        final long start = callStartNs;
        if (0 == start || nowNs - start < limitNs || start == reportedCallStartNs)
        {
            return;
        }
        reportedCallStartNs = start;
        counters.slowCalls.incrementAndGet();
        final RunningApplication app = callApplication;
        final String what = null == app ? null : app.name() + "/" + callHandler;
        final Thread t = thread;
        if (null != what && null == LOGGED.putIfAbsent("slow:" + what, Boolean.TRUE) && null != t)
        {
            final Throwable trace = new Throwable("stack of shard " + shard.index() + " during the slow call");
            trace.setStackTrace(t.getStackTrace());
            LOG.log(Level.WARNING, what + " held shard " + shard.index() + " longer than " + limitNs / 1_000_000
                + " ms (logged once per servlet; counted every time). Blocking code should run on virtual threads: "
                + "context parameter " + RunningApplication.THREADING_PARAMETER + "=virtual", trace);
        }
    }

    private InetSocketAddress local()
    {
        InetSocketAddress a = localAddress;
        if (null == a)
        {
            a = shard.stack().localAddresses().getFirst();
            localAddress = a;
        }
        return a;
    }

    private static void logOnce(final String kind, final String message, final Throwable e)
    {
        if (null == LOGGED.putIfAbsent(kind, Boolean.TRUE))
        {
            LOG.log(Level.WARNING, message + " (logged once per kind)", e);
        }
    }

    // ================================================================================================================
    // Retransmissions of a UAS's responses: 2xx to INVITE (RFC 3261 §13.3.1.4), reliable 1xx (RFC 3262 §3)
    // ================================================================================================================

    /**
     * A response a UAS session retransmits itself on the shard's wheel, from T1 on with the interval doubling
     * ({@link #nextIntervalMs}), until it is acknowledged ({@link #stop}), its transaction ends, or 64*T1 passed
     * ({@link #giveUp}). Holds one reference to the sent bytes, released once.
     */
    private abstract class Retransmission implements ShardHost.TimerTarget, ResponseRetransmission
    {
        final ServerTransaction tx;
        final long txId;
        final SipServletRequestImpl request;
        final SipServletResponseImpl response;
        final long t1Ms;
        private ByteBuf bytes;
        long intervalMs;
        long elapsedMs;
        /** When the pending retransmission was due as first scheduled (the shard's clock). */
        private long dueNs;
        private long timer = -1;

        Retransmission(final ServerTransaction tx, final ByteBuf bytes, final SipServletRequestImpl request,
            final SipServletResponseImpl response)
        {
            this.tx = tx;
            this.txId = tx.id();
            this.bytes = bytes;
            this.request = request;
            this.response = response;
            this.t1Ms = Math.max(1, shard.stack().config().t1Ns() / 1_000_000);
        }

        /** Schedules the first retransmission, T1 after the send. */
        final void firstTimer()
        {
            intervalMs = t1Ms;
            dueNs = shard.nowNs() + intervalMs * 1_000_000L;
            timer = schedule(intervalMs, this);
        }

        @Override
        public final void onTimer(final long timerId)
        {
            if (timerId != timer || null == bytes)
            {
                return;
            }
            timer = -1;
            if (elapsedMs + intervalMs < 64 * t1Ms && putOff())
            {
                return;
            }
            elapsedMs += intervalMs;
            if (elapsedMs >= 64 * t1Ms)
            {
                giveUp(true);
                return;
            }
            if (tx.id() != txId || !shard.respond(tx, bytes.retainedDuplicate(), response.getStatus()))
            {
                giveUp(false); // the transaction ended (a final response, a transport failure)
                return;
            }
            intervalMs = nextIntervalMs();
            dueNs = shard.nowNs() + intervalMs * 1_000_000L;
            timer = schedule(intervalMs, this);
        }

        /**
         * As the transaction layer does for its timers A, E and G: while the stack's input lags behind this
         * retransmission's due time ({@link io.sipline.sip.stack.SipShard#inputLagNs}), the ACK or PRACK that ends it
         * may have arrived and still be unread, so the timer is set again for {@code due + lag} and nothing is sent.
         * The give-up at 64*T1 is never put off.
         */
        private boolean putOff()
        {
            final long now = shard.nowNs();
            final long lag = shard.inputLagNs(now);
            if (!TransactionLayer.retransmissionWaits(dueNs, now, lag))
            {
                return false;
            }
            shard.countDeferredRetransmission();
            timer = schedule((dueNs + lag - now + 999_999L) / 1_000_000L, this);
            return true;
        }

        /** The wait before the next retransmission (after {@link #intervalMs} and {@link #elapsedMs}). */
        abstract long nextIntervalMs();

        /** Retransmitting ends unacknowledged: {@code timedOut} after 64*T1, else because the transaction ended. */
        abstract void giveUp(boolean timedOut);

        @Override
        public final void stop()
        {
            if (timer >= 0)
            {
                cancel(timer);
                timer = -1;
            }
            release();
        }

        final void release()
        {
            if (null != bytes)
            {
                bytes.release(); // our retransmission reference, released once
                bytes = null;
            }
        }
    }

    /**
     * A 2xx to INVITE sent by a UAS session, retransmitted with T1 doubling up to T2 until the ACK, given up after
     * 64*T1 (then the application's {@link SipErrorListener#noAckReceived} is told).
     */
    private final class OkRetransmission extends Retransmission implements AckWait
    {
        private final long cseq;

        OkRetransmission(final ServerTransaction tx, final ByteBuf ok, final SipServletRequestImpl request,
            final SipServletResponseImpl response)
        {
            super(tx, ok, request, response);
            this.cseq = request.cseqNumber();
        }

        void start()
        {
            final SipSessionImpl session = response.sessionImpl(); // a forked dialog's UAS session has its own
            final AckWait previous = session.awaitingAck();
            if (null != previous)
            {
                previous.stop();
            }
            session.awaitingAck(this);
            firstTimer();
        }

        @Override
        public long cseq()
        {
            return cseq;
        }

        @Override
        public SipServletRequestImpl request()
        {
            return request;
        }

        /** Ends the retransmissions of {@code session}'s 2xx for good: its ACK came, or a BYE ended the dialog first. */
        @Override
        public void end(final SipSessionImpl session)
        {
            stop();
            session.awaitingAck(null);
        }

        @Override
        long nextIntervalMs()
        {
            return Math.min(2 * intervalMs, Math.max(1, shard.stack().config().t2Ns() / 1_000_000));
        }

        @Override
        void giveUp(final boolean timedOut)
        {
            stop();
            final SipSessionImpl session = response.sessionImpl();
            if (session.awaitingAck() == this)
            {
                session.awaitingAck(null);
            }
            tellErrorListeners(session, new SipErrorEvent(request, response), true, null);
        }
    }

    /**
     * A reliable provisional response sent by a UAS session, retransmitted from T1 with the interval doubling (no T2
     * cap: RFC 3262 §3) until its PRACK arrives ({@link #acknowledgesPending}), a final response is sent, or 64*T1
     * passed; then the application's {@link SipErrorListener#noPrackReceived} is told and, if the INVITE is still
     * unanswered after that, the container rejects it with 500 (§3: "SHOULD reject the original request with a 5xx
     * response").
     */
    private final class ReliableRetransmission extends Retransmission
    {
        ReliableRetransmission(final ServerTransaction tx, final ByteBuf bytes, final SipServletRequestImpl request,
            final SipServletResponseImpl response)
        {
            super(tx, bytes, request, response);
        }

        void start()
        {
            response.sessionImpl().reliableProvisionals().retransmission(this);
            firstTimer();
        }

        @Override
        long nextIntervalMs()
        {
            return Math.min(2 * intervalMs, 64 * t1Ms - elapsedMs); // the last wait ends at 64*T1 exactly
        }

        @Override
        void giveUp(final boolean timedOut)
        {
            final SipSessionImpl session = response.sessionImpl();
            endReliable(session, request, response);
            stop();
            if (!timedOut)
            {
                return;
            }
            // the listener may answer the INVITE itself; what it left unanswered is rejected after it returned
            tellErrorListeners(session, new SipErrorEvent(request, response), false, () ->
            {
                if (session.isValid() && null == request.finalResponse()
                    && request.transaction() instanceof ServerTransaction)
                {
                    sendQuietly(request, 500, "Server Internal Error (no PRACK for the reliable provisional response "
                        + response.getStatus() + ", RFC 3262 §3)");
                }
                session.appSession().checkReady(); // a timer's sends do not check readiness themselves
            });
        }
    }
}
