package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** {@link ThreadTimes}: threads grouped by name, and the cores and run-queue waits of each group over a window. */
class ThreadTimesTest
{
    @Test
    void groupsThreadsByTheirKernelName()
    {
        assertEquals("shards", ThreadTimes.group("sipline-shard-1"));
        assertEquals("web", ThreadTimes.group("sipline-http-12"));
        assertEquals("web", ThreadTimes.group("sipline-http-sc"));
        assertEquals("JIT", ThreadTimes.group("C2 CompilerThre"));
        assertEquals("GC", ThreadTimes.group("ZWorkerYoung#0"));
        assertEquals("GC", ThreadTimes.group("VM Thread"));
        assertEquals("other", ThreadTimes.group("sipline-admin"));
    }

    @Test
    void writesCoresAndWaitsPerSecondOfTheWindow()
    {
        final ThreadTimes before = times(new long[] {1_000_000_000L, 10_000_000L, 1000});
        final ThreadTimes after = times(new long[] {1_500_000_000L, 30_000_000L, 2000});
        final String line = after.since(before, 2.0);
        assertTrue(line.startsWith("server threads over the step: shards 0.250 cores, waited 10.0 ms/s (20 us per run);"
            + " web 0.000 cores"), line);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void readsTheThreadsOfARunningProcess() throws Exception
    {
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread shard = new Thread(() ->
        {
            long spin = 0;
            while (!stop.get())
            {
                spin++;
            }
            assertTrue(spin > 0);
        }, "sipline-shard-9");
        final ThreadTimes before = ThreadTimes.of(ProcessHandle.current());
        shard.start();
        try
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String line;
            do
            {
                line = ThreadTimes.of(ProcessHandle.current()).since(before, 1.0);
            }
            while (line.startsWith("server threads over the step: shards 0.000") && System.nanoTime() - deadline < 0);
            assertTrue(!line.startsWith("server threads over the step: shards 0.000"), line);
        }
        finally
        {
            stop.set(true);
            shard.join(10_000);
        }
    }

    private static ThreadTimes times(final long[] shards)
    {
        final Map<String, long[]> groups = new LinkedHashMap<>();
        ThreadTimes.GROUPS.forEach(g -> groups.put(g, new long[3]));
        groups.put("shards", shards);
        return new ThreadTimes(groups);
    }
}
