package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * {@link HttpLoadProcess}: the client runs in a process of its own at the nice value asked for, sends until closed,
 * and reports every request it sent as answered, with the cores it used.
 */
class HttpLoadProcessTest
{
    @Test
    @EnabledOnOs(OS.LINUX)
    void sendsFromItsOwnLoweredProcessUntilClosedAndReports() throws Exception
    {
        try (AnsweringHttpServer server = new AnsweringHttpServer())
        {
            final HttpLoadProcess load = HttpLoadProcess.start(server.uri("/calls"), 200, 7);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int nice = -1;
            while (server.served() < 100 && System.nanoTime() - deadline < 0)
            {
                nice = Math.max(nice, niceOf(load.pid()));
                TimeUnit.MILLISECONDS.sleep(20);
            }
            assertEquals(7, nice, "the client process's nice value");
            load.close();
            final String line = load.describe();
            final Matcher m = Pattern.compile("sent (\\d+) .*, 200 (\\d+), other status 0, errors 0.*client process "
                + "(\\d+\\.\\d+) cores, at nice 7$").matcher(line);
            assertTrue(m.find(), line);
            assertTrue(Long.parseLong(m.group(1)) >= 100, line);
            assertEquals(m.group(1), m.group(2), line);
            assertEquals(server.served(), Integer.parseInt(m.group(2)), line);
            assertTrue(Double.parseDouble(m.group(3)) > 0, line);
        }
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
