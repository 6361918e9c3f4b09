package io.sipline.bench.calls;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP load of {@code bench calls --http-load} in a process of its own, started at the CPU priority {@code nice}
 * (0: the harness's own; the default 10 gives a busy core to the server's shards, and to sipp, before the client), so
 * that its threads are apart from the harness's and the server's. The client is {@link Client#H2LOAD} ({@link H2load},
 * native, for the step's length) or {@link Client#JDK} ({@link HttpLoad#main}, until its input is closed); either way
 * the harness reads one {@link HttpLoadSummary} line from it, which includes the rate it really sent (a starved client
 * sends less, and says so) and the cores it used.
 * <p>
 * Threading: started and closed by the harness's main thread. The process, and h2load under its shell, are stopped by
 * their handles.
 */
final class HttpLoadProcess implements AutoCloseable
{
    /** The HTTP clients the harness can run. */
    enum Client
    {
        /** {@code h2load} from {@code nghttp2-client}. */
        H2LOAD,
        /** The JDK's {@code java.net.http} client in a JVM of its own. */
        JDK;

        /** The option's value: {@code h2load}, {@code jdk}. */
        String label()
        {
            return name().toLowerCase(Locale.ROOT);
        }

        /** h2load when it is installed, else the JDK's client. */
        static Client preferred()
        {
            return H2load.binary().isPresent() ? H2LOAD : JDK;
        }
    }

    /** How long a client may take to end (after its input is closed, or after its time is over). */
    private static final long STOP_SECONDS = 30;

    private final Process process;
    private final Client client;
    private final URI uri;
    private final int rate;
    private final long millis;
    private final int nice;
    private final long startNanos = System.nanoTime();
    private String line = "";

    private HttpLoadProcess(final Process process, final Client client, final URI uri, final int rate,
        final long millis, final int nice)
    {
        this.process = process;
        this.client = client;
        this.uri = uri;
        this.rate = rate;
        this.millis = millis;
        this.nice = nice;
    }

    /**
     * Starts sending {@code rate} GET requests per second to {@code uri} from a process at {@code nice}: h2load for
     * {@code millis} ms (the step's length), the JDK's client until {@link #close}.
     */
    static HttpLoadProcess start(final Client client, final URI uri, final int rate, final long millis,
        final int nice) throws IOException
    {
        final List<String> command = switch (client)
        {
            case H2LOAD -> H2load.command(H2load.binary().orElseThrow(() -> new IOException(
                "h2load is not installed (apt-get install nghttp2-client)")), uri, rate, millis, nice);
            case JDK -> jdkCommand(uri, rate, nice);
        };
        return new HttpLoadProcess(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start(),
            client, uri, rate, millis, nice);
    }

    /** {@code nice -n N java -cp <the harness's class path> HttpLoad URI RATE}. */
    static List<String> jdkCommand(final URI uri, final int rate, final int nice)
    {
        return List.of("nice", "-n", Integer.toString(nice),
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
            System.getProperty("java.class.path"), HttpLoad.class.getName(), uri.toString(), Integer.toString(rate));
    }

    /** The client process's id. */
    long pid()
    {
        return process.pid();
    }

    /**
     * Ends the load and reads its summary: closes the JDK client's input, or waits for h2load's time to be over
     * (bounded: a client still running {@link #STOP_SECONDS} after that is stopped, and reports nothing).
     */
    @Override
    public void close() throws IOException
    {
        try
        {
            process.getOutputStream().close();
            final long waitNanos = TimeUnit.SECONDS.toNanos(STOP_SECONDS) + (Client.H2LOAD == client
                ? Math.max(0, TimeUnit.MILLISECONDS.toNanos(millis) - (System.nanoTime() - startNanos)) : 0);
            if (process.waitFor(waitNanos, TimeUnit.NANOSECONDS))
            {
                final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                line = switch (client)
                {
                    case H2LOAD -> H2load.summary(output, uri, rate, millis / 1e3)
                        .map(HttpLoadSummary::describe).orElse("");
                    case JDK -> output.strip();
                };
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt(); // the harness is being stopped: the process goes below
        }
        finally
        {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    /** The client's {@link HttpLoadSummary} line and its priority; after {@link #close}. */
    String describe()
    {
        return (line.isEmpty() ? "http load " + uri + " (" + client.label() + "): no report from the client process"
            : line) + ", at nice " + nice;
    }
}
