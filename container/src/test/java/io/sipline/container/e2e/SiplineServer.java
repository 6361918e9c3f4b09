package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.sipline.test.Sipp;

/**
 * The real server as a child JVM for the end-to-end tests: the {@code java} of the JVM running the tests (JDK 25),
 * the test runtime class path, {@code io.sipline.container.Main run --bind 127.0.0.1 --port <free> ...}. Its output
 * (stdout and stderr merged) is kept line by line and copied to {@code target/e2e/NAME/server.log}.
 * {@link #start} returns once it printed {@code sipline: ready}; {@link #stop} sends SIGTERM through its process
 * handle and returns the exit code.
 * <p>
 * Threading: used by one test thread; one daemon thread per server reads its output.
 */
public final class SiplineServer implements AutoCloseable
{
    /** The bound on starting (deploying the examples included) and on stopping. */
    static final long START_MS = 60_000;
    static final long STOP_MS = 30_000;

    private final String name;
    private final Process process;
    private final int port;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private SiplineServer(final String name, final Process process, final int port)
    {
        this.name = name;
        this.process = process;
        this.port = port;
    }

    /**
     * Starts a server on a free loopback port with two shards and waits for "sipline: ready".
     *
     * @param extra arguments after {@code run --bind 127.0.0.1 --port N --shards 2} (e.g. {@code --deploy} paths).
     */
    public static SiplineServer start(final String name, final List<String> extra)
        throws IOException, InterruptedException
    {
        return start(name, Sipp.freeUdpPort(), extra);
    }

    /**
     * As {@link #start(String, List)} on the UDP port {@code port} (a node that comes back on the port it had).
     */
    public static SiplineServer start(final String name, final int port, final List<String> extra)
        throws IOException, InterruptedException
    {
        final Path dir = Files.createDirectories(Path.of("target", "e2e", name)).toAbsolutePath();
        final List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        // the module bin/sipline adds too: the media relay's SSRC index takes the Vector API path it takes in service
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
            "-XX:+UseZGC", "-Xmx512m",
            "-cp", System.getProperty("java.class.path"), "io.sipline.container.Main", "run",
            "--bind", "127.0.0.1", "--port", Integer.toString(port), "--shards", "2"));
        cmd.addAll(extra);
        final Process process = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        final SiplineServer server = new SiplineServer(name, process, port);
        final PrintWriter log = new PrintWriter(Files.newBufferedWriter(dir.resolve("server.log")), true);
        log.println("$ " + String.join(" ", cmd));
        Thread.ofPlatform().daemon().name("e2e-server-output-" + name).start(() ->
        {
            try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
            {
                for (String line = in.readLine(); null != line; line = in.readLine())
                {
                    server.lines.add(line);
                    log.println(line);
                }
            }
            catch (final IOException e)
            {
                log.println("(output closed: " + e + ")");
            }
            finally
            {
                log.close();
            }
        });
        if (!server.awaitLine(l -> l.equals("sipline: ready"), START_MS))
        {
            final String output = server.output();
            server.kill();
            fail("the server did not print 'sipline: ready' within " + START_MS + " ms (alive: "
                + process.isAlive() + "):\n" + output);
        }
        return server;
    }

    public int port()
    {
        return port;
    }

    /** Everything the server printed so far. */
    public String output()
    {
        return String.join("\n", lines);
    }

    /** Waits (polling, bounded) until a line matching {@code condition} was printed. */
    public boolean awaitLine(final Predicate<String> condition, final long timeoutMs)
        throws InterruptedException
    {
        return Sipp.await(() -> lines.stream().anyMatch(condition) || !process.isAlive(), timeoutMs)
            && lines.stream().anyMatch(condition);
    }

    /** Sends SIGTERM through the process handle and waits for the exit; returns the exit code. */
    public int stop() throws InterruptedException
    {
        process.toHandle().destroy();
        if (!process.waitFor(STOP_MS, TimeUnit.MILLISECONDS))
        {
            kill();
            fail("the server did not stop within " + STOP_MS + " ms of SIGTERM:\n" + output());
        }
        return process.exitValue();
    }

    /** Stops the server and checks it ended with exit code 0 after printing that it stopped. */
    public void stopCleanly() throws InterruptedException
    {
        final int code = stop();
        assertTrue(0 == code, "exit code " + code + " after SIGTERM:\n" + output());
    }

    /** For {@code @AfterAll}: stops a server started by {@code @BeforeAll} cleanly (exit 0), and kills it if not. */
    static void stopCleanly(final SiplineServer server) throws InterruptedException
    {
        if (null != server)
        {
            try
            {
                server.stopCleanly();
            }
            finally
            {
                server.close();
            }
        }
    }

    private void kill() throws InterruptedException
    {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    /**
     * Kills the server with SIGKILL ({@link Process#destroyForcibly}, which sends SIGKILL on Linux) and waits until
     * the JVM is gone: no shutdown hook runs, nothing is flushed, its sockets close with the process.
     *
     * @return {@link System#nanoTime()} when the signal was sent.
     */
    public long killAbruptly() throws InterruptedException
    {
        final long sent = System.nanoTime();
        process.destroyForcibly();
        assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the server survived SIGKILL: " + this);
        assertTrue(137 == process.exitValue(), "exit code " + process.exitValue() + " after SIGKILL, not 137");
        return sent;
    }

    /** Kills the server if a test left it running (a failed test); a clean test has stopped it already. */
    @Override
    public void close()
    {
        if (process.isAlive())
        {
            try
            {
                kill();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString()
    {
        return "sipline " + name + " on 127.0.0.1:" + port;
    }
}
