package io.sipline.container.web;

import java.net.InetSocketAddress;

import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.server.handler.StatisticsHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import io.sipline.container.admin.HttpStatus;
import io.sipline.container.os.ThreadNice;

/**
 * The embedded servlet engine of the server ({@code --http-port}): one Jetty {@link Server} with one HTTP/1.1
 * connector, a pool of its own threads ({@code sipline-http-*}, at a lower CPU priority than the shards:
 * {@link ThreadNice}), and one context per deployed application, added and removed while it runs ({@link #add},
 * {@link #remove}). Request counts come from Jetty's {@link StatisticsHandler}, and per application from
 * {@link HttpMetrics} ({@link #metrics}, for {@code /metrics}).
 * <p>
 * Threading: {@link #start} and {@link #close} on the main thread, {@link #add} and {@link #remove} on the deploying
 * thread; the engine serves requests on its own threads, never on a shard. The counters may be read from any thread.
 */
public final class WebServer implements AutoCloseable
{
    /** At most this many requests are served at once; more wait in the connector's queue. */
    private static final int MAX_THREADS = 64;

    private final Server server;
    private final ServerConnector connector;
    private final ContextHandlerCollection contexts = new ContextHandlerCollection(true);
    private final StatisticsHandler statistics = new StatisticsHandler();
    private final HttpMetrics metrics = new HttpMetrics();

    private WebServer(final InetSocketAddress bind)
    {
        final QueuedThreadPool threads = new QueuedThreadPool(MAX_THREADS, 2)
        {
            @Override
            public Thread newThread(final Runnable job)
            {
                return super.newThread(() ->
                {
                    ThreadNice.setForCurrentThread(ThreadNice.HTTP); // a shard with work gets the core first
                    job.run();
                });
            }
        };
        threads.setName("sipline-http");
        server = new Server(threads);
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
    }
}
