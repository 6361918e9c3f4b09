package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * {@link HttpLoadProcess}: each client runs in a process of its own at the nice value asked for, sends until closed
 * (the JDK's) or for its time (h2load), and reports what it sent as answered, with the cores it used, in one format.
 */
class HttpLoadProcessTest
{
    private static final Pattern SUMMARY = Pattern.compile("sent (\\d+) .*, 2xx (\\d+), other status 0, errors 0, "
        + "not sent (\\d+), mean \\d+\\.\\d+ ms, max \\d+\\.\\d+ ms, client process (\\d+\\.\\d+) cores, at nice 7$");

    @Test
    @EnabledOnOs(OS.LINUX)
    void jdkClientSendsFromItsOwnLoweredProcessUntilClosedAndReports() throws Exception
    {
        try (AnsweringHttpServer server = new AnsweringHttpServer())
        {
            final HttpLoadProcess load = HttpLoadProcess.start(HttpLoadProcess.Client.JDK, server.uri("/calls"), 200,
                0, 7);
            assertEquals(7, niceWhileServing(load, server, 100), "the client process's nice value");
            load.close();
            final String line = load.describe();
            final Matcher m = SUMMARY.matcher(line);
            assertTrue(m.find() && line.contains("(jdk)"), line);
            assertTrue(Long.parseLong(m.group(1)) >= 100, line);
            assertEquals(m.group(1), m.group(2), line);
            assertEquals(server.served(), Integer.parseInt(m.group(2)), line);
            assertTrue(Double.parseDouble(m.group(4)) > 0, line);
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void h2loadSendsFromItsOwnLoweredProcessForItsTimeAndReports() throws Exception
    {
        assumeTrue(H2load.binary().isPresent(), "h2load is not installed (apt-get install nghttp2-client)");
        try (AnsweringHttpServer server = new AnsweringHttpServer())
        {
            final HttpLoadProcess load = HttpLoadProcess.start(HttpLoadProcess.Client.H2LOAD, server.uri("/calls"),
                200, 1500, 7);
            assertEquals(7, niceWhileServing(load, server, 100), "the nice value of h2load under its shell");
            load.close();
            final String line = load.describe();
            final Matcher m = SUMMARY.matcher(line);
            assertTrue(m.find() && line.contains("(h2load): offered 200/s"), line);
            final long sent = Long.parseLong(m.group(1));
            final long ok = Long.parseLong(m.group(2));
            // one request on each connection as it opens, then 1.5 s at its share of the rate
            assertTrue(sent >= 240 && sent <= 300 + H2load.clients(200), "about 300 in 1.5 s: " + line);
            // the requests in flight when its time is over are sent and not counted as answered
            assertTrue(ok <= sent && ok >= sent - H2load.clients(200) && server.served() >= ok, line + ", served "
                + server.served());
            assertEquals(Math.max(0, 300 - sent), Long.parseLong(m.group(3)), line);
        }
    }

    /** The highest nice value of the client's process and its children seen until {@code requests} were served. */
    private static int niceWhileServing(final HttpLoadProcess load, final AnsweringHttpServer server,
        final int requests) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int nice = -1;
        while (server.served() < requests && System.nanoTime() - deadline < 0)
        {
            final ProcessHandle process = ProcessHandle.of(load.pid()).orElse(null);
            if (null != process)
            {
                nice = Math.max(nice, Stream.concat(Stream.of(process), process.descendants())
                    .mapToInt(p -> niceOf(p.pid())).max().orElse(-1));
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        return nice;
    }

    /** Field 19 of {@code /proc/PID/stat}; -1 once the process is gone. */
    private static int niceOf(final long pid)
    {
        try
        {
            final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[19 - 3]);
        }
        catch (final java.io.IOException e)
        {
            return -1;
        }
    }
}
