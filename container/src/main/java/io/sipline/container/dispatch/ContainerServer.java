package io.sipline.container.dispatch;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.LongSupplier;

import javax.servlet.sip.ar.SipApplicationRouter;

import io.sipline.container.security.UserRealm;
import io.sipline.sip.stack.SipStack;
import io.sipline.sip.stack.SipStackConfig;
import io.sipline.sip.transport.RealtimeClock;
import io.sipline.sip.transport.UdpBindException;

/**
 * The SIP servlet container on a running {@link SipStack}: one {@link ContainerShardImpl} per shard, the
 * {@link ApplicationRegistry} (the {@code DeploymentListener} to give deployed applications to), and the watchdog
 * that reports servlet calls holding a shard longer than {@value #SLOW_CALL_MILLIS} ms.
 *
 * <pre>{@code
 * ContainerServer server = ContainerServer.start(new SipStackConfig().ports(0), router);
 * server.registry().onDeployed(new ApplicationDeployer().deploy(path));
 * ...
 * server.close();
 * }</pre>
 * <p>
 * Threading: start and close from any thread but a shard's; the registry from the deploying thread.
 */
public final class ContainerServer implements AutoCloseable
{
    /** A servlet call longer than this is logged once (with the shard's stack) and counted. */
    public static final long SLOW_CALL_MILLIS = 50;

    private final SipStack stack;
    private final ApplicationRegistry registry;
    private final ContainerShardImpl[] runtimes;
    private final ContainerShardImpl.Counters counters;
    private final Thread watchdog;
    private volatile boolean closed;

    private ContainerServer(final SipStack stack, final ApplicationRegistry registry,
        final ContainerShardImpl[] runtimes, final ContainerShardImpl.Counters counters)
    {
        this.stack = stack;
        this.registry = registry;
        this.runtimes = runtimes;
        this.counters = counters;
        this.watchdog = Thread.ofPlatform().daemon().name("sipline-slow-call-watchdog").unstarted(this::watch);
    }

    /**
     * Starts the stack with the container on every shard.
     *
     * @param router the application router, initialised ({@code init()} called) by the caller.
     * @throws UdpBindException when an address cannot be bound.
     */
    public static ContainerServer start(final SipStackConfig config, final SipApplicationRouter router)
        throws UdpBindException
    {
        return start(config, router, UserRealm.empty());
    }

    /**
     * Starts the stack with the container on every shard.
     *
     * @param router the application router, initialised ({@code init()} called) by the caller.
     * @param users  the users digest authentication checks against (the {@code --users} file).
     * @throws UdpBindException when an address cannot be bound.
     */
    public static ContainerServer start(final SipStackConfig config, final SipApplicationRouter router,
        final UserRealm users) throws UdpBindException
    {
        return start(config, router, users, RealtimeClock::nanos);
    }

    /**
     * Starts the stack with the container on every shard, the overload check ({@link SipStackConfig#overloadWaitNs()})
     * reading {@code wallClock} (nanoseconds since the epoch, the time base of a message's arrival time): tests give
     * one that makes a wait certain, the warm-up one that is late at times.
     */
    public static ContainerServer start(final SipStackConfig config, final SipApplicationRouter router,
        final UserRealm users, final LongSupplier wallClock) throws UdpBindException
    {
        final ApplicationRegistry registry = new ApplicationRegistry(router, users);
        final ContainerShardImpl.Counters counters = new ContainerShardImpl.Counters();
        final ContainerShardImpl[] runtimes = new ContainerShardImpl[config.shards()];
        final SipStack stack = SipStack.start(config, shard ->
        {
            final ContainerShardImpl runtime = new ContainerShardImpl(registry, shard, counters,
                config.overloadWaitNs(), config.overloadIntervalNs(), wallClock);
            runtimes[shard.index()] = runtime;
            return runtime;
        });
        final long[] threads = stack.shardThreadIds();
        final InetSocketAddress local = stack.localAddresses().getFirst();
        for (int k = 0; k < runtimes.length; k++)
        {
            runtimes[k].started(threads[k], local);
        }
        registry.shards(runtimes);
        registry.outboundInterfaces(OutboundInterfaces.of(stack));
        final ContainerServer server = new ContainerServer(stack, registry, runtimes, counters);
        server.watchdog.start();
        return server;
    }

    public ApplicationRegistry registry()
    {
        return registry;
    }

    public SipStack stack()
    {
        return stack;
    }

    public List<InetSocketAddress> localAddresses()
    {
        return stack.localAddresses();
    }

    public ContainerShardImpl.Counters counters()
    {
        return counters;
    }

    /** Live application sessions over every shard (racy; tests and metrics). */
    public int applicationSessions()
    {
        int n = 0;
        for (final ContainerShardImpl r : runtimes)
        {
            n += r.sessions().applicationCount();
        }
        return n;
    }

    /** Application sessions the shards took over from other nodes of the cluster (a metric; read from any thread). */
    public long takenOver()
    {
        long n = 0;
        for (final ContainerShardImpl r : runtimes)
        {
            n += r.takenOver();
        }
        return n;
    }

    private void watch()
    {
        final long limit = SLOW_CALL_MILLIS * 1_000_000L;
        while (!closed)
        {
            final long now = System.nanoTime();
            for (final ContainerShardImpl r : runtimes)
            {
                r.checkSlow(now, limit);
            }
            try
            {
                Thread.sleep(10); // the watchdog's poll period (not a wait for behaviour)
            }
            catch (final InterruptedException e)
            {
                return;
            }
        }
    }

    /** Stops the applications, then the stack. */
    @Override
    public void close()
    {
        closed = true;
        watchdog.interrupt();
        for (final RunningApplicationImpl app : registry.applications().values())
        {
            registry.onUndeployed(app.deployed());
        }
        stack.close();
    }
}
