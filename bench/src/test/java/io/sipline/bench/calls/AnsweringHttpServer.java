package io.sipline.bench.calls;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;

/** A test HTTP server on loopback, port 0, that answers every request 200 with no body and counts them. */
final class AnsweringHttpServer implements AutoCloseable
{
    private final AtomicInteger served = new AtomicInteger();
    private final HttpServer server;

    AnsweringHttpServer() throws IOException
    {
        server = HttpServer.create(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0), 64);
        server.createContext("/", exchange ->
        {
            served.incrementAndGet();
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.start();
    }

    /** The base URI with {@code path}. */
    URI uri(final String path)
    {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    /** Requests answered so far. */
    int served()
    {
        return served.get();
    }

    @Override
    public void close()
    {
        server.stop(0);
    }
}
