package io.sipline.container.dispatch;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import javax.servlet.sip.Proxy;

import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.SipServletResponseImpl;
import io.sipline.container.api.ContainerShard;
import io.sipline.container.api.IdText;
import io.sipline.container.api.SessionTable;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.dialog.DialogPool;
import io.sipline.sip.dialog.DialogRecords;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.stack.SipListener;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.Transaction;

/**
 * The container on one shard (JSR 289 §15 dispatch): the {@link SipListener} the stack calls for every event of the
 * calls this shard owns, and the {@link ContainerShard} its sessions and messages use to send and to schedule. It
 * wires the stages of a message's path, created once with the shard and holding each other:
 *
 * <pre>
 *   requests in   {@link InboundRequests}  → {@link ApplicationComposition} (router, §15.4) → {@link ServletInvoker}
 *                                             {@link ProxyDispatch} (a dialog we record-routed as a proxy)
 *   responses in  {@link InboundResponses} → the request's or a derived session (§6.2.3.2) → {@link ServletInvoker}
 *   requests out  {@link OutboundRequests} (next hop, Via/Contact/Record-Route per transport)
 *   responses out {@link UasResponses}     (2xx and reliable 1xx retransmissions)
 *   ids, timers   {@link ContainerIds}, {@link TimerSlots}; own addresses {@link ShardAddresses}
 * </pre>
 *
 * With no application deployed the shard answers as the server does without a container: OPTIONS 200, other requests
 * 404 No Application Deployed.
 * <p>
 * Threading: every method on this shard's event loop, except {@link #execute}, {@link #onShardThread}, the id
 * generators (see {@link ContainerShard}) and {@link #checkSlow} (the watchdog's thread).
 */
public final class ContainerShardImpl implements SipListener, ContainerShard
{
    private final StackShard shard;
    private final SessionTable sessions = new SessionTable();
    /** Kept free for reuse: about the sessions of a second of calls at the rates a shard carries. */
    private final DialogRecords dialogRecords = new DialogRecords(new DialogPool(4096, 0));
    private final StrayTwoHundreds strays;
    private final ContainerIds ids;
    private final ShardAddresses addresses;
    private final ServletInvoker invoker;
    private final TimerSlots timers;
    private final UasResponses uas;
    private final OutboundRequests outbound;
    private final InboundResponses responses;
    private final ProxyDispatch proxies;
    private final InboundRequests requests;

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
        /**
         * New requests refused with a stateless 503 ({@link ShardAdmission}): by the waits, the admission limit or
         * the REGISTER budget.
         */
        public final AtomicLong overloaded = new AtomicLong();
    }

    ContainerShardImpl(final ApplicationRegistry registry, final StackShard shard, final Counters counters,
        final long overloadWaitNs, final long overloadIntervalNs, final LongSupplier wallClock)
    {
        this.shard = shard;
        final NextHop nextHop = new NextHop();
        this.ids = new ContainerIds(shard);
        this.addresses = new ShardAddresses(shard);
        this.invoker = new ServletInvoker(this, shard, counters);
        this.timers = new TimerSlots(shard, invoker, counters);
        this.uas = new UasResponses(shard, addresses, invoker, timers);
        this.outbound = new OutboundRequests(shard, addresses, ids, invoker, nextHop, registry);
        final DirectAnswers answers = new DirectAnswers(shard, ids, counters);
        final ApplicationComposition composition = new ApplicationComposition(registry, shard, addresses, ids,
            sessions, nextHop, counters, outbound, answers);
        strays = new StrayTwoHundreds(shard, addresses, ids, nextHop);
        this.responses = new InboundResponses(this, addresses, ids, invoker, outbound, uas, strays, counters);
        outbound.wire(composition, responses);
        this.proxies = new ProxyDispatch(this, addresses, invoker, outbound);
        this.requests = new InboundRequests(this, registry, addresses, ids, invoker, answers, composition, proxies,
            uas, admission(shard, counters, overloadWaitNs, overloadIntervalNs, wallClock));
    }

    /**
     * The shard's overload control, handed to its transaction layer so that a new request it refuses is answered
     * before a transaction exists ({@code StatelessShedding}); null when overload control is off.
     */
    private static ShardAdmission admission(final StackShard shard, final Counters counters, final long overloadWaitNs,
        final long overloadIntervalNs, final LongSupplier wallClock)
    {
        if (0 == overloadWaitNs)
        {
            return null;
        }
        final ShardAdmission admission = new ShardAdmission(new OverloadControl(overloadWaitNs, overloadIntervalNs),
            AdmissionLimit.configured(overloadWaitNs, overloadIntervalNs),
            RequestBudget.configured(RequestBudget.REGISTER_RATE_PROP_NAME, overloadWaitNs, overloadIntervalNs),
            RequestBudget.configured(RequestBudget.OTHER_RATE_PROP_NAME, overloadWaitNs, overloadIntervalNs),
            wallClock, counters);
        shard.transactions().shedding().admission(admission);
        return admission;
    }

    /** Publishes the shard's thread and the local address (after the stack started). */
    void started(final long shardThreadId, final InetSocketAddress local)
    {
        addresses.started(local);
        ids.started(shardThreadId, addresses.host());
    }

    /** Restores calls this node claimed when their owner left the grid (on the shard's event loop). */
    void adopt(final java.util.List<io.sipline.container.replication.ApplicationSnapshot> snapshots)
    {
        requests.adopt(snapshots);
    }

    /** Application sessions this shard took over from other nodes (a metric; any thread, may lag). */
    long takenOver()
    {
        return requests.takenOver();
    }

    StackShard shard()
    {
        return shard;
    }

    /** The slow-call watchdog's check (watchdog thread): a call longer than {@code limitNs} is counted and logged. */
    void checkSlow(final long nowNs, final long limitNs)
    {
        invoker.checkSlow(nowNs, limitNs);
    }

    // ================================================================================================================
    // ContainerShard
    // ================================================================================================================

    @Override
    public int index()
    {
        return shard.index();
    }

    @Override
    public boolean onShardThread()
    {
        return ids.onShardThread();
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
                invoker.enter();
                try
                {
                    task.run();
                }
                catch (final RuntimeException e)
                {
                    ShardLog.logOnce("task", "an application task failed on shard " + shard.index(), e);
                }
                finally
                {
                    invoker.exit();
                }
            });
        }
    }

    @Override
    public String newTag()
    {
        return ids.newTag();
    }

    @Override
    public String newCallId()
    {
        return ids.newCallId();
    }

    @Override
    public IdText newTagText()
    {
        return ids.newTagText();
    }

    @Override
    public IdText newCallIdText()
    {
        return ids.newCallIdText();
    }

    @Override
    public String newBranch()
    {
        return ids.newBranch();
    }

    @Override
    public long currentTimeMillis()
    {
        return System.currentTimeMillis();
    }

    @Override
    public long schedule(final long delayMillis, final ContainerShard.TimerTarget target)
    {
        return timers.schedule(delayMillis, target);
    }

    @Override
    public void cancel(final long timerId)
    {
        timers.cancel(timerId);
    }

    @Override
    public DialogRecords dialogRecords()
    {
        return onShardThread() ? dialogRecords : new DialogRecords(DialogPool.unpooled());
    }

    @Override
    public SessionTable sessions()
    {
        return sessions;
    }

    @Override
    public String localHost()
    {
        return addresses.host();
    }

    @Override
    public int localPort()
    {
        return addresses.port();
    }

    @Override
    public String contact()
    {
        return addresses.contact();
    }

    @Override
    public void send(final SipServletRequestImpl request)
    {
        outbound.send(request);
    }

    @Override
    public void send(final SipServletResponseImpl response)
    {
        uas.send(response);
    }

    @Override
    public void release(final SipServletRequestImpl request)
    {
        uas.release(request);
    }

    @Override
    public void deliver(final SipSessionImpl session, final SipServletRequestImpl request,
        final SipServletResponseImpl response, final Runnable afterwards)
    {
        invoker.invoke(session, request, response, afterwards);
    }

    @Override
    public Proxy proxyFor(final SipServletRequestImpl request)
    {
        return proxies.proxyFor(request);
    }

    // ================================================================================================================
    // SipListener
    // ================================================================================================================

    @Override
    public void onRequest(final StackShard s, final ServerTransaction tx, final SipMessage request)
    {
        requests.onRequest(tx, request);
    }

    @Override
    public void onAck(final StackShard s, final ServerTransaction tx, final SipMessage ack)
    {
        requests.onAck(tx, ack);
    }

    @Override
    public void onStatelessRequest(final StackShard s, final SipMessage request, final InetSocketAddress source)
    {
        requests.onStatelessRequest(request, source);
    }

    @Override
    public void onResponse(final StackShard s, final ClientTransaction tx, final SipMessage response)
    {
        responses.onResponse(tx, response);
    }

    @Override
    public void onStatelessResponse(final StackShard s, final SipMessage response, final InetSocketAddress source)
    {
        responses.onStatelessResponse(response, source);
    }

    @Override
    public void onTimeout(final StackShard s, final Transaction tx, final char timer)
    {
        responses.onTimeout(tx);
    }

    @Override
    public void onTransportError(final StackShard s, final Transaction tx)
    {
        responses.onTransportError(tx);
    }

    @Override
    public void onTerminated(final StackShard s, final Transaction tx)
    {
        responses.onTerminated(tx);
    }

    @Override
    public void onTimer(final StackShard s, final long wheelId, final long payload, final long nowNs)
    {
        timers.onTimer(wheelId, payload);
    }

    @Override
    public void onTick(final StackShard s, final long nowNs)
    {
        dialogRecords.pool().trim(nowNs); // once a second: free records a burst left behind
        timers.trim(nowNs); // once a second: shrink the timer slots a burst grew
        uas.trim(nowNs); // once a second: free 2xx retransmissions a burst left behind
        sessions.trim(nowNs); // once a second: shrink a dialog index a burst grew
        strays.trim(nowNs); // once a second: forget the stray 2xx dialogs no longer retransmitted
    }

    @Override
    public void onStop(final StackShard s)
    {
        timers.releaseRetransmissions();
    }
}
