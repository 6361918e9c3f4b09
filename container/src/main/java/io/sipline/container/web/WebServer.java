package io.sipline.container.web;

import java.net.InetSocketAddress;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.server.handler.StatisticsHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

import io.sipline.container.admin.HttpStatus;
import io.sipline.container.os.ThreadNice;

/**
 * The embedded servlet engine of the server ({@code --http-port}): one Jetty {@link Server} with one HTTP/1.1
 * connector, and one context per deployed application, added and removed while it runs ({@link #add},
 * {@link #remove}). Every thread the engine has is one of its own, named {@code sipline-http-*} and at a lower CPU
 * priority than the shards ({@link ThreadNice}): the pool that runs the acceptor, the selector and the requests
 * (bounded by the cores: {@link #maxThreads}), and the scheduler's one thread (connection idle timeouts, session
 * expiry), which Jetty would otherwise start at the shards' priority. Request counts come from Jetty's
 * {@link StatisticsHandler}, and per application from {@link HttpMetrics} ({@link #metrics}, for {@code /metrics}).
 * <p>
 * Threading: {@link #start} and {@link #close} on the main thread, {@link #add} and {@link #remove} on the deploying
 * thread; the engine serves requests on its own threads, never on a shard. The counters may be read from any thread.
 */
public final class WebServer implements AutoCloseable
{
    /** Pool threads beside those of the requests: the acceptor, the selector and a spare. */
    private static final int ENGINE_THREADS = 4;
    /** Request threads per core. */
    private static final int THREADS_PER_CORE = 2;

    private final ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, job ->
    {
        final Thread thread = new Thread(niced(job), "sipline-http-scheduler");
        thread.setDaemon(true);
        return thread;
    });
    private final Server server;
    private final ServerConnector connector;
    private final ContextHandlerCollection contexts = new ContextHandlerCollection(true);
    private final StatisticsHandler statistics = new StatisticsHandler();
    private final HttpMetrics metrics = new HttpMetrics();

    private WebServer(final InetSocketAddress bind)
    {
        final int max = maxThreads(Runtime.getRuntime().availableProcessors());
        final QueuedThreadPool threads = new QueuedThreadPool(max, 2)
        {
            @Override
            public Thread newThread(final Runnable job)
            {
                return super.newThread(niced(job));
            }
        };
        threads.setName("sipline-http");
        timers.setRemoveOnCancelPolicy(true); // idle timeouts are cancelled far more often than they fire
        server = new Server(threads, new ScheduledExecutorScheduler(timers), null);
        connector = new ServerConnector(server);
        connector.setHost(bind.getAddress().getHostAddress());
        connector.setPort(bind.getPort());
        server.addConnector(connector);
        metrics.setHandler(contexts);
        statistics.setHandler(metrics);
        server.setHandler(statistics);
        server.setStopAtShutdown(false); // Main's shutdown hook stops the halves in order
    }

    /**
     * The pool's bound on a machine of {@code cores}: requests beyond it wait in the pool's queue. Kept near the cores
     * because the kernel weighs each runnable thread on its own (CFS: a nice-10 thread weighs about a tenth of a
     * shard), so the engine's share of a busy machine grows with its runnable threads: a pool that grows to dozens
     * under a burst outweighs the shards, where a few threads per core serve short requests as fast. Each runnable
     * thread is also one that a safepoint (a GC pause) waits for, the shards stopped meanwhile.
     */
    static int maxThreads(final int cores)
    {
        return ENGINE_THREADS + THREADS_PER_CORE * Math.max(1, cores);
    }

    /** {@code job}, run by a thread that first lowers its own priority: a shard with work gets the core first. */
    private static Runnable niced(final Runnable job)
    {
        return () ->
        {
            ThreadNice.setForCurrentThread(ThreadNice.HTTP);
            job.run();
        };
    }

    /**
     * Starts the engine with no application.
     *
     * @param bind the address and port to listen on (port 0: any free port).
     * @throws Exception what the engine threw, e.g. a port in use.
     */
    public static WebServer start(final InetSocketAddress bind) throws Exception
    {
        final WebServer web = new WebServer(bind);
        try
        {
            web.server.start();
        }
        catch (final Exception | Error e)
        {
            web.close();
            throw e;
        }
        return web;
    }

    /** The address the connector listens on (the port it got when asked for port 0). */
    public InetSocketAddress address()
    {
        return new InetSocketAddress(connector.getHost(), connector.getLocalPort());
    }

    Server server()
    {
        return server;
    }

    /** Serves a started context at {@code contextPath}, counted under {@code application} (deploying thread). */
    void add(final org.eclipse.jetty.server.Handler context, final String contextPath, final String application)
    {
        metrics.serve(contextPath, application);
        contexts.addHandler(context);
    }

    /** Stops serving a context; requests already in it finish (deploying thread). */
    void remove(final org.eclipse.jetty.server.Handler context, final String contextPath)
    {
        contexts.removeHandler(context);
        metrics.stopServing(contextPath);
    }

    /** The requests per application, for {@code /metrics} (any thread). */
    public HttpStatus metrics()
    {
        return metrics;
    }

    /** HTTP requests served since start (any thread). */
    public long requests()
    {
        return statistics.getRequestTotal();
    }

    /** HTTP responses with a 5xx status since start (any thread). */
    public long serverErrors()
    {
        return statistics.getResponses5xx();
    }

    /** HTTP requests being served now (any thread). */
    public long activeRequests()
    {
        return statistics.getRequestsActive();
    }

    /** Stops the engine and every context in it. */
    @Override
    public void close()
    {
        try
        {
            server.stop();
        }
        catch (final Exception e)
        {
            System.getLogger("io.sipline.container.web").log(System.Logger.Level.WARNING, "stopping the web engine", e);
        }
        timers.shutdownNow(); // Jetty stops a scheduler it was given, but not that scheduler's executor
    }
}
