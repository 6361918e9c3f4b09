package io.sipline.container.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** {@link ThreadNice}: the nice value is the calling thread's alone (Linux: /proc/self/task/TID/stat, field 19). */
class ThreadNiceTest
{
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldLowerTheCallingThreadOnly() throws Exception
    {
        final AtomicReference<String> seen = new AtomicReference<>();
        final Thread t = new Thread(() ->
        {
            final boolean set = ThreadNice.setForCurrentThread(ThreadNice.HTTP);
            seen.set(set + " " + niceOf(tid()));
        });
        t.start();
        t.join(10_000);
        assertEquals("true " + ThreadNice.HTTP, seen.get());
        assertEquals(0, niceOf(tid()), "the test's own thread is left alone");
    }

    /** The kernel's id of the calling thread, from the /proc/thread-self link. */
    private static long tid()
    {
        try
        {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
        }
        catch (final java.io.IOException e)
        {
            throw new IllegalStateException(e);
        }
    }

    private static int niceOf(final long tid)
    {
        try
        {
            final String stat = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"));
            final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            assertTrue(fields.length > 17, stat);
            return Integer.parseInt(fields[16]); // field 19 of proc(5), counted from the state (field 3)
        }
        catch (final java.io.IOException e)
        {
            throw new IllegalStateException(e);
        }
    }
}
