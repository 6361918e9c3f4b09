package io.sipline.container.admin;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.sipline.sip.stack.SipStack;

/**
 * The admin port: an HTTP/1.1 server (the JDK's {@code com.sun.net.httpserver}) answering
 * <ul>
 *   <li>{@code GET /health}: {@code 200 ok} when every shard's event loop runs and every deployed application is
 *       started, else {@code 503} with a one-line reason;</li>
 *   <li>{@code GET /metrics}: the {@link SipMetrics} in the Prometheus text exposition format 0.0.4
 *       ({@code text/plain; version=0.0.4}), read from the shards' counters at that moment;</li>
 *   <li>any other path {@code 404}; any other method on these paths {@code 405} with {@code Allow: GET}.</li>
 * </ul>
 * Requests are served one at a time on one platform daemon thread of its own ({@code sipline-admin}), never on a
 * shard; a failing scrape answers 500 and the server goes on.
 *
 * <p>Start from any thread; {@link #close()} from any thread, once (later calls do nothing).
 */
public final class AdminServer implements AutoCloseable
{
    private static final Logger LOG = System.getLogger("io.sipline.container.admin");
    private static final String TEXT = "text/plain; charset=utf-8";
    /** Seconds {@link #close()} lets a request in progress finish. */
    private static final int STOP_DELAY_SECONDS = 1;

    private final HttpServer http;
    private final ExecutorService executor;
    private final SipStack stack;
    private final ContainerStatus container;
    private final SipMetrics metrics;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private boolean closed;

    private AdminServer(final HttpServer http, final ExecutorService executor, final SipStack stack,
        final ContainerStatus container)
    {
        this.http = http;
        this.executor = executor;
        this.stack = stack;
        this.container = container;
        this.metrics = new SipMetrics(stack, container);
    }

    /**
     * Binds and starts the admin server.
     *
     * @param bind      address and port; port 0 binds a free one ({@link #port()} says which).
     * @param stack     the running SIP stack.
     * @param container the container's applications, or {@link ContainerStatus#NONE}.
     * @throws IOException when the address cannot be bound.
     */
    public static AdminServer start(final InetSocketAddress bind, final SipStack stack,
        final ContainerStatus container) throws IOException
    {
        final HttpServer http = HttpServer.create(bind, 16);
        final ExecutorService executor = Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().daemon().name("sipline-admin").unstarted(r));
        final AdminServer server = new AdminServer(http, executor, stack, container);
        http.setExecutor(executor);
        http.createContext("/", server::handle);
        http.start();
        return server;
    }

    /** The bound port. */
    public int port()
    {
        return http.getAddress().getPort();
    }

    /** The bound address. */
    public InetSocketAddress address()
    {
        return http.getAddress();
    }

    /** The metrics this server exposes. */
    public SipMetrics metrics()
    {
        return metrics;
    }

    /**
     * The health verdict: null when healthy, else the first reason it is not, on one line.
     */
    public String unhealthyReason()
    {
        for (int k = 0; k < stack.shardCount(); k++)
        {
            if (!stack.shard(k).isRunning())
            {
                return "shard " + k + " is not running";
            }
        }
        for (final ContainerStatus.Application a : container.applications())
        {
            if (!a.started())
            {
                return "application " + a.name() + " is not started";
            }
        }
        return null;
    }

    private void handle(final HttpExchange exchange) throws IOException
    {
        try (exchange)
        {
            final String path = exchange.getRequestURI().getPath();
            final boolean known = "/health".equals(path) || "/metrics".equals(path);
            if (!known)
            {
                reply(exchange, 404, TEXT, "not found: " + path);
            }
            else if (!"GET".equals(exchange.getRequestMethod()))
            {
                exchange.getResponseHeaders().set("Allow", "GET");
                reply(exchange, 405, TEXT, "method not allowed: " + exchange.getRequestMethod());
            }
            else if ("/health".equals(path))
            {
                final String reason = unhealthyReason();
                reply(exchange, null == reason ? 200 : 503, TEXT, null == reason ? "ok" : reason);
            }
            else
            {
                scrape(exchange);
            }
        }
        catch (final RuntimeException e)
        {
            // Never let a bad scrape take the admin thread down: answer 500 when the headers are not out yet.
            LOG.log(Level.WARNING, "admin request failed", e);
            if (-1 == exchange.getResponseCode())
            {
                reply(exchange, 500, TEXT, e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }

    private void scrape(final HttpExchange exchange) throws IOException
    {
        final ByteArrayOutputStream body = new ByteArrayOutputStream(16_384);
        writer.write(body, metrics.registry().scrape());
        exchange.getResponseHeaders().set("Content-Type", PrometheusTextFormatWriter.CONTENT_TYPE);
        exchange.sendResponseHeaders(200, body.size());
        try (OutputStream out = exchange.getResponseBody())
        {
            body.writeTo(out);
        }
    }

    private static void reply(final HttpExchange exchange, final int status, final String type, final String line)
        throws IOException
    {
        final byte[] body = (line.replace('\n', ' ') + "\n").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        if ("HEAD".equals(exchange.getRequestMethod()))
        {
            exchange.sendResponseHeaders(status, -1); // RFC 9110 §9.3.2: no content in an answer to HEAD
            return;
        }
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody())
        {
            out.write(body);
        }
    }

    /** Stops accepting, lets a request in progress finish (up to a second), and ends the admin thread. */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        http.stop(STOP_DELAY_SECONDS);
        executor.shutdownNow();
    }
}
