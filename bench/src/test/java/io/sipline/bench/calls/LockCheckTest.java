package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import jdk.jfr.Recording;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A recording with one contended monitor enter on a thread named like a shard and one on another thread. */
class LockCheckTest
{
    private final Object monitor = new Object();

    @Test
    void shouldCountContendedEntersOnShardThreadsApart(@TempDir final Path dir) throws Exception
    {
        final Path file = dir.resolve("locks.jfr");
        try (Recording r = new Recording())
        {
            r.enable("jdk.JavaMonitorEnter").withThreshold(Duration.ZERO);
            r.start();
            contend("sipline-shard-0");
            contend("some-worker");
            r.stop();
            r.dump(file);
        }
        final LockCheck c = LockCheck.read(file, "sipline/zgc", "at80");
        // At least ours: a thread may also wait for a JDK-internal monitor while it starts, and the JVM's own
        // threads (JFR's among them) may wait for a monitor during the recording too.
        assertTrue(c.shardThreads() >= 1, "shard threads: " + c.shardThreads());
        assertTrue(c.otherThreads() >= 1, "other threads: " + c.otherThreads());
        assertEquals("at80", c.step());
    }

    @Test
    void shouldCountOnlyTheEntersWithinTheStepsWindow(@TempDir final Path dir) throws Exception
    {
        final Path file = dir.resolve("locks.jfr");
        final Instant from;
        final Instant to;
        try (Recording r = new Recording())
        {
            r.enable("jdk.JavaMonitorEnter").withThreshold(Duration.ZERO);
            r.start();
            contend("sipline-shard-0");
            from = Instant.now();
            contend("sipline-shard-1");
            contend("sipline-shard-1");
            to = Instant.now();
            contend("sipline-shard-0");
            r.stop();
            r.dump(file);
        }
        // At least ours: a thread may also wait for a JDK-internal monitor while it starts (once seen: 5 in all).
        final long all = LockCheck.read(file, "sipline/zgc", "at80").shardThreads();
        final long within = LockCheck.read(file, "sipline/zgc", "at80", from, to).shardThreads();
        assertTrue(within >= 2, "the two enters within the window: " + within);
        assertTrue(all >= within + 2, "the two enters outside the window are not counted: " + within + " of " + all);
        assertEquals(0, LockCheck.read(file, "sipline/zgc", "at80", to.plusSeconds(60), to.plusSeconds(61))
            .shardThreads());
    }

    /** A thread named {@code name} waits for the monitor this thread holds, then takes it once released. */
    private void contend(final String name) throws InterruptedException
    {
        final Thread t;
        synchronized (monitor)
        {
            t = new Thread(() ->
            {
                synchronized (monitor)
                {
                    monitor.notifyAll();
                }
            }, name);
            t.start();
            final long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (Thread.State.BLOCKED != t.getState() && System.nanoTime() - deadline < 0)
            {
                Thread.onSpinWait();
            }
            assertTrue(Thread.State.BLOCKED == t.getState(), "the thread waits for the monitor");
        }
        t.join(10_000);
    }
}
