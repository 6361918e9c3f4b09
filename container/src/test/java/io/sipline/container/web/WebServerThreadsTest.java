package io.sipline.container.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import io.sipline.container.os.ThreadNice;

/**
 * {@link WebServer}'s threads: every thread the engine starts to accept, read, serve and time out a connection is one
 * of its own ({@code sipline-http-*}) and runs at {@link ThreadNice#HTTP}, the scheduler's included, as the kernel
 * says ({@code /proc/self/task/<tid>/stat}, field 19).
 */
class WebServerThreadsTest
{
    private static final String PREFIX = "sipline-http";
    /** A thread's {@code comm} holds the first 15 bytes of its name. */
    private static final String SCHEDULER_COMM = "sipline-http-scheduler".substring(0, 15);

    @Test
    @EnabledOnOs(OS.LINUX)
    void everyThreadOfTheEngineIsItsOwnAndLowered() throws Exception
    {
        final Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        try (WebServer web = WebServer.start(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0));
            Socket client = new Socket(InetAddress.ofLiteral("127.0.0.1"), web.address().getPort()))
        {
            // a kept-alive connection: accepted, read, answered, and its idle timeout left on the scheduler
            final OutputStream out = client.getOutputStream();
            out.write("GET /nothing HTTP/1.1\r\nHost: test\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertTrue(statusLine(client.getInputStream()).startsWith("HTTP/1.1 404"));

            final TreeMap<String, Integer> engine = awaitLowered();
            final List<String> started = new ArrayList<>();
            for (final Thread t : Thread.getAllStackTraces().keySet())
            {
                if (!before.contains(t) && t.isAlive())
                {
                    started.add(t.getName());
                }
            }
            assertTrue(started.stream().allMatch(n -> n.startsWith(PREFIX)), "threads the engine started: " + started);
            assertTrue(engine.containsKey(SCHEDULER_COMM), "no scheduler thread among " + engine);
            assertTrue(engine.values().stream().allMatch(nice -> ThreadNice.HTTP == nice),
                "the engine's threads and their nice values: " + engine);
        }
    }

    @Test
    void thePoolIsBoundedByTheCoresNotByBursts()
    {
        assertEquals(6, WebServer.maxThreads(1));
        assertEquals(8, WebServer.maxThreads(2));
        assertEquals(36, WebServer.maxThreads(16));
        assertEquals(6, WebServer.maxThreads(0), "a machine reporting no core still gets one's worth");
    }

    /**
     * The engine's threads ({@code comm} and tid) and their nice values, once the scheduler's thread (started with
     * the first timeout) runs and every one has lowered itself (a pool thread does so as it starts), or the deadline.
     */
    private static TreeMap<String, Integer> awaitLowered() throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true)
        {
            final TreeMap<String, Integer> engine = new TreeMap<>();
            for (final var task : tasks().entrySet())
            {
                if (task.getValue().startsWith(PREFIX))
                {
                    engine.put(task.getValue() + " " + task.getKey(), niceOf(task.getKey()));
                }
            }
            final boolean scheduler = engine.keySet().stream().anyMatch(k -> k.startsWith(SCHEDULER_COMM + " "));
            if (scheduler && engine.values().stream().allMatch(nice -> ThreadNice.HTTP == nice)
                || System.nanoTime() - deadline > 0)
            {
                final TreeMap<String, Integer> byName = new TreeMap<>();
                engine.forEach((k, v) -> byName.put(k.startsWith(SCHEDULER_COMM + " ") ? SCHEDULER_COMM : k, v));
                return byName;
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /** The first line of an HTTP response. */
    private static String statusLine(final InputStream in) throws IOException
    {
        final StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && '\n' != c; c = in.read())
        {
            line.append((char)c);
        }
        return line.toString().strip();
    }

    /** Every thread of this process by its kernel id: its {@code comm}. */
    private static TreeMap<Integer, String> tasks() throws IOException
    {
        final TreeMap<Integer, String> tasks = new TreeMap<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(Path.of("/proc/self/task")))
        {
            for (final Path task : dir)
            {
                try
                {
                    tasks.put(Integer.parseInt(task.getFileName().toString()),
                        Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).strip());
                }
                catch (final IOException e)
                {
                    // the thread ended between the listing and the read
                }
            }
        }
        return tasks;
    }

    /** Field 19 of {@code /proc/self/task/<tid>/stat}, counted after the command name; 0 for a thread gone since. */
    private static int niceOf(final int tid)
    {
        try
        {
            final String stat = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"), StandardCharsets.UTF_8);
            return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[19 - 3]);
        }
        catch (final IOException e)
        {
            return ThreadNice.HTTP; // ended between the listing and the read: nothing to say about it
        }
    }
}
