package io.sipline.bench.calls;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * HTTP load beside the SIP calls of a step ({@code bench calls --http-load RPS}): GET requests to one URI of the
 * server's web half at a steady rate, paced by a clock (one request every 1/RPS s, not one after the other), over
 * HTTP/1.1 with the JDK's client, so that a slow server does not slow the offered rate down. At most
 * {@link #MAX_IN_FLIGHT} requests wait for an answer; a tick that finds that many is counted as skipped, so the load
 * stays bounded. {@link #close} stops it and waits (bounded) for the answers in flight. The harness runs it in a
 * process of its own ({@link #main}, started by {@link HttpLoadProcess}) when {@code h2load} is not installed or
 * {@code --http-client jdk} asks for it: it needs several times the CPU per request of {@link H2load}.
 * <p>
 * Threading: started and closed by one thread (the process's main thread); requests are sent by one scheduler thread
 * and answered on the client's threads; the counters are adders.
 */
final class HttpLoad implements AutoCloseable
{
    /** Requests waiting for an answer at most. */
    static final int MAX_IN_FLIGHT = 256;

    private final URI uri;
    private final int rate;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();
    private final ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor(
        r -> Thread.ofPlatform().daemon().name("bench-http-load").unstarted(r));
    private final AtomicInteger inFlight = new AtomicInteger();
    private final LongAdder sent = new LongAdder();
    private final LongAdder ok = new LongAdder();
    private final LongAdder otherStatus = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder skipped = new LongAdder();
    private final LongAdder latencyNanos = new LongAdder();
    private final LongAccumulator maxLatencyNanos = new LongAccumulator(Math::max, 0);
    private final long startNanos = System.nanoTime();
    private long elapsedNanos;

    private HttpLoad(final URI uri, final int rate)
    {
        this.uri = uri;
        this.rate = rate;
    }

    /** Starts sending {@code rate} GET requests per second to {@code uri}. */
    static HttpLoad start(final URI uri, final int rate)
    {
        final HttpLoad load = new HttpLoad(uri, rate);
        load.clock.scheduleAtFixedRate(load::tick, 0, 1_000_000_000L / rate, TimeUnit.NANOSECONDS);
        return load;
    }

    private void tick()
    {
        if (inFlight.get() >= MAX_IN_FLIGHT)
        {
            skipped.increment();
            return;
        }
        inFlight.incrementAndGet();
        sent.increment();
        final long t0 = System.nanoTime();
        client.sendAsync(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
            HttpResponse.BodyHandlers.discarding()).whenComplete((response, failure) ->
            {
                inFlight.decrementAndGet();
                if (null != failure)
                {
                    errors.increment();
                    return;
                }
                final long latency = System.nanoTime() - t0;
                latencyNanos.add(latency);
                maxLatencyNanos.accumulate(latency);
                (response.statusCode() / 100 == 2 ? ok : otherStatus).increment();
            });
    }

    /** Stops sending and waits at most 10 s for the answers in flight (less when interrupted). */
    @Override
    public void close()
    {
        clock.shutdownNow();
        elapsedNanos = System.nanoTime() - startNanos;
        try
        {
            clock.awaitTermination(5, TimeUnit.SECONDS);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (inFlight.get() > 0 && System.nanoTime() - deadline < 0)
            {
                TimeUnit.MILLISECONDS.sleep(10);
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        client.close();
    }

    /**
     * The load as a process of its own: {@code URI RATE}; sends until its standard input ends (the harness closes it),
     * then writes its {@link #summary} (with its own CPU time) as one line on standard output and exits.
     */
    public static void main(final String[] args) throws Exception
    {
        final HttpLoad load = start(URI.create(args[0]), Integer.parseInt(args[1]));
        System.in.transferTo(java.io.OutputStream.nullOutputStream()); // blocks until the harness closes it
        load.close();
        final double cpu = ProcessHandle.current().info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0);
        System.out.println(load.summary(cpu / Math.max(1e-9, load.elapsedNanos / 1e9)).describe());
        System.out.flush();
    }

    /** What was sent and answered, after {@link #close}; {@code cores}: what the process used, as measured by it. */
    HttpLoadSummary summary(final double cores)
    {
        final long answered = ok.sum() + otherStatus.sum();
        return new HttpLoadSummary("jdk", uri, rate, elapsedNanos / 1e9, sent.sum(), ok.sum(), otherStatus.sum(),
            errors.sum(), skipped.sum(), 0 == answered ? 0.0 : latencyNanos.sum() / 1e6 / answered,
            maxLatencyNanos.get() / 1e6, cores);
    }
}
