package io.sipline.bench.calls;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP load of {@code bench calls --http-load} in a process of its own ({@link HttpLoad#main}), started at the
 * CPU priority {@code nice} (0: the harness's own; the default 10 gives a busy core to the server's shards, and to
 * sipp, before the client): on a machine shared with the server, the JDK's HTTP client uses more CPU per request than
 * the server's web half does, and in the harness's JVM at the shards' priority it competed with the calls it is meant
 * to measure. Its own process also keeps its JIT and GC threads apart. What it reports ({@link #describe}) includes the
 * rate it really sent (a starved client sends less, and says so) and the cores it used.
 * <p>
 * Threading: started and closed by the harness's main thread. The process is stopped by its handle.
 */
final class HttpLoadProcess implements AutoCloseable
{
    private static final long STOP_SECONDS = 30;

    private final Process process;
    private final int nice;
    private String line = "";

    private HttpLoadProcess(final Process process, final int nice)
    {
        this.process = process;
        this.nice = nice;
    }

    /** Starts sending {@code rate} GET requests per second to {@code uri} from a process at {@code nice}. */
    static HttpLoadProcess start(final URI uri, final int rate, final int nice) throws IOException
    {
        return new HttpLoadProcess(new ProcessBuilder(command(uri, rate, nice)).redirectError(ProcessBuilder.Redirect
            .INHERIT).start(), nice);
    }

    /** {@code nice -n N java -cp <the harness's class path> HttpLoad URI RATE}. */
    static List<String> command(final URI uri, final int rate, final int nice)
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

    /** Ends the load (closes the process's input) and reads its line; a process that does not end is killed. */
    @Override
    public void close() throws IOException
    {
        try
        {
            process.getOutputStream().close();
            if (process.waitFor(STOP_SECONDS, TimeUnit.SECONDS))
            {
                line = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt(); // the harness is being stopped: the process goes below
        }
        finally
        {
            process.destroyForcibly();
        }
    }

    /** The client's line (see {@link HttpLoad#main}) and its priority; after {@link #close}. */
    String describe()
    {
        return (line.isEmpty() ? "http load: no report from the client process" : line) + ", at nice " + nice;
    }
}
