package io.sipline.sip.stack;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.sipline.sip.transport.ShardCounters;
import io.sipline.sip.transport.UdpBindException;
import io.sipline.sip.transport.UdpTransport;
import io.sipline.sip.transport.UdpTransportConfig;

/**
 * The SIP stack (issue 3 §5): the sharded UDP transport, and per shard one RFC 3261 §17 transaction layer, one §12
 * dialog layer and two hashed timer wheels, all driven by the shard's event loop, under one {@link SipListener} per
 * shard.
 *
 * <pre>{@code
 * SipStack stack = SipStack.start(new SipStackConfig().ports(5060).shards(4), shard -> new MyListener());
 * // MyListener.onRequest(shard, tx, request): shard.respond(tx, buf, 200) ...
 * stack.execute(0, () -> stack.shard(0).sendRequest(invite, next));   // from another thread
 * stack.close();
 * }</pre>
 *
 * <p><b>Threading</b> (DESIGN.md, Threading): N shards, each a single-thread event loop that owns its sockets (one
 * {@code SO_REUSEPORT} channel per address:port), its {@link SipShard} state and its listener. A datagram read by a
 * shard that does not own its call is copied and handed to the owner through a bounded MPSC queue (dropped and
 * counted when full). Every listener callback runs on the owning shard's thread; nothing on a shard blocks or locks.
 * Timers fire before new inbound work: each shard ticks every {@link SipStackConfig#tickNs()} (one fixed-rate task
 * scheduled at start, not one per timer) and also polls its wheels before a datagram when a tick has passed.
 *
 * <p><b>Ownership.</b> Messages given to a listener are borrowed for the call; buffers given to a shard's send
 * methods are owned by the shard from then on (see {@link SipShard}).
 *
 * <p>{@link #start} and {@link #close} may be called from any thread but a shard's own; {@link #execute} from any
 * thread; everything else of a {@link SipShard} on its own loop only.
 */
public final class SipStack implements AutoCloseable
{
    private final SipStackConfig config;
    private final SipShard[] shards;
    private final List<ScheduledFuture<?>> ticks = new ArrayList<>();
    private final long[] threadIds;
    private final AtomicBoolean closed = new AtomicBoolean();
    private UdpTransport transport;

    private SipStack(final SipStackConfig config, final SipListener.Factory listeners)
    {
        this.config = config;
        final int n = config.shards();
        shards = new SipShard[n];
        threadIds = new long[n];
        final long seed = System.nanoTime() ^ ProcessHandle.current().pid() << 32;
        for (int k = 0; k < n; k++)
        {
            shards[k] = new SipShard(this, k, config, shards, listeners, seed);
        }
    }

    /**
     * Starts the shards, binds every address:port of the configuration, and starts each shard's tick.
     *
     * @param listeners makes the listener of each shard (on the calling thread).
     * @throws UdpBindException when an address:port cannot be bound; nothing is left running then.
     */
    public static SipStack start(final SipStackConfig config, final SipListener.Factory listeners)
        throws UdpBindException
    {
        config.validate();
        final SipStack stack = new SipStack(config, listeners);
        final SipShard[] shards = stack.shards;
        stack.transport = UdpTransport.start(
            new UdpTransportConfig(config.addresses(), config.ports(), config.shards(), config.nativeTransport()),
            k -> shards[k].handler());
        final CountDownLatch attached = new CountDownLatch(shards.length);
        for (int k = 0; k < shards.length; k++)
        {
            final SipShard shard = shards[k];
            final EventLoop loop = stack.transport.eventLoop(k);
            final int index = k;
            shard.loop(loop);
            loop.execute(() ->
            {
                shard.attach(stack.transport.shard(index));
                stack.threadIds[index] = Thread.currentThread().threadId();
                attached.countDown();
            });
            stack.ticks.add(loop.scheduleAtFixedRate(shard.tickTask(), config.tickNs(), config.tickNs(),
                TimeUnit.NANOSECONDS));
        }
        try
        {
            attached.await(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        return stack;
    }

    public SipStackConfig config()
    {
        return config;
    }

    /** The bound endpoints, one per address:port (ports resolved when 0 was asked for), in configuration order. */
    public List<InetSocketAddress> localAddresses()
    {
        return transport.localAddresses();
    }

    public int shardCount()
    {
        return shards.length;
    }

    /** Shard k; use it on its own loop only (from a listener callback of shard k, or through {@link #execute}). */
    public SipShard shard(final int k)
    {
        return shards[k];
    }

    /** Runs a task on shard k's loop (any thread; allocates, so not for the per-message path). */
    public void execute(final int k, final Runnable task)
    {
        transport.eventLoop(k).execute(task);
    }

    /** The transport's counters summed over the shards (any thread). */
    public ShardCounters transportTotals()
    {
        return transport.totals();
    }

    /** The underlying transport (counters, endpoints). */
    public UdpTransport transport()
    {
        return transport;
    }

    /** The thread id of each shard's loop (for {@code ThreadMXBean} allocation and CPU counters). */
    public long[] shardThreadIds()
    {
        return threadIds.clone();
    }

    /** Hand-overs between shards, summed (racy, for metrics). */
    public long handoffs()
    {
        long n = 0;
        for (final SipShard s : shards)
        {
            n += s.handoffsOut();
        }
        return n;
    }

    /** Hand-overs dropped on a full queue, summed (racy). */
    public long handoffDrops()
    {
        long n = 0;
        for (final SipShard s : shards)
        {
            n += s.handoffDrops();
        }
        return n;
    }

    /** Malformed messages seen by the shards, summed (racy). */
    public long malformed()
    {
        long n = 0;
        for (final SipShard s : shards)
        {
            n += s.malformed();
        }
        return n;
    }

    /** Listener exceptions caught, summed (racy). */
    public long listenerErrors()
    {
        long n = 0;
        for (final SipShard s : shards)
        {
            n += s.listenerErrors();
        }
        return n;
    }

    /**
     * Stops: cancels the ticks, lets each shard end its transactions and its listener release its buffers (on the
     * shard), closes the transport, then releases anything still queued. Idempotent; any thread but a shard's own.
     */
    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        for (final ScheduledFuture<?> tick : ticks)
        {
            tick.cancel(false);
        }
        final CountDownLatch stopped = new CountDownLatch(shards.length);
        for (int k = 0; k < shards.length; k++)
        {
            final SipShard shard = shards[k];
            try
            {
                transport.eventLoop(k).execute(() ->
                {
                    try
                    {
                        shard.stopOnLoop();
                    }
                    finally
                    {
                        stopped.countDown();
                    }
                });
            }
            catch (final RuntimeException e)
            {
                stopped.countDown();
            }
        }
        try
        {
            stopped.await(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        transport.close(UdpTransport.DEFAULT_CLOSE_MILLIS);
        for (final SipShard shard : shards)
        {
            shard.releaseInbox();
        }
    }
}
