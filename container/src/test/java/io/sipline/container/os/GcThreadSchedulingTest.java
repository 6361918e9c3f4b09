package io.sipline.container.os;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link GcThreadScheduling} on a thread of the test's own (named like no JVM thread), so that the real ZGC threads of
 * the test JVM are never touched: the policy goes on, stays on across cycles, and comes off for good after a cycle
 * an allocation stall started. The kernel is asked back ({@code sched_getscheduler} and {@code /proc}), not the
 * class. Where the class cannot call libc (not Linux), the tests that need it are skipped.
 */
class GcThreadSchedulingTest
{
    /** Each test's probe has a name of its own: a thread joined by the last test may still be in /proc a moment. */
    private static final AtomicInteger PROBES = new AtomicInteger();

    private final String name = "gcsched-p" + PROBES.incrementAndGet();

    private final CountDownLatch done = new CountDownLatch(1);
    private Thread probe;

    @BeforeEach
    void startProbe() throws InterruptedException
    {
        final CountDownLatch started = new CountDownLatch(1);
        probe = Thread.ofPlatform().name(name).start(() ->
        {
            started.countDown();
            try
            {
                done.await();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        });
        started.await();
    }

    @AfterEach
    void stopProbe() throws InterruptedException
    {
        done.countDown();
        probe.join();
    }

    @Test
    void shouldReadTheModeOrRefuseItWithTheChoices()
    {
        assertEquals(GcThreadScheduling.Mode.NORMAL, GcThreadScheduling.parse(null));
        assertEquals(GcThreadScheduling.Mode.NORMAL, GcThreadScheduling.parse(" "));
        assertEquals(GcThreadScheduling.Mode.NORMAL, GcThreadScheduling.parse("Normal"));
        assertEquals(GcThreadScheduling.Mode.IDLE, GcThreadScheduling.parse(" IDLE "));

        final IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> GcThreadScheduling.parse("low"));
        assertEquals("-Dsipline.gc.threads=low: expected idle (ZGC's concurrent threads under SCHED_IDLE) or normal "
            + "(as the JVM made them)", e.getMessage());
    }

    @Test
    void shouldFindTheThreadsByTheirKernelName()
    {
        assumeTrue(GcThreadScheduling.available());

        final List<GcThreadScheduling.Task> tasks = GcThreadScheduling.tasks(name::equals);

        assertEquals(1, tasks.size(), tasks.toString());
        assertEquals(name, tasks.getFirst().name());
        assertEquals(GcThreadScheduling.SCHED_OTHER, GcThreadScheduling.policy(tasks.getFirst().tid()));
    }

    @Test
    void shouldPutTheThreadsUnderSchedIdleOnceAndKeepThemThereAcrossCycles() throws IOException
    {
        assumeTrue(GcThreadScheduling.available());
        final StringWriter err = new StringWriter();
        final GcThreadScheduling scheduling = new GcThreadScheduling(name::equals, new PrintWriter(err, true));
        final int tid = GcThreadScheduling.tasks(name::equals).getFirst().tid();

        final GcThreadScheduling.Result first = scheduling.apply();
        final GcThreadScheduling.Result again = scheduling.apply();
        scheduling.onCycle("Allocation Rate");
        scheduling.onCycle("Proactive");

        assertEquals(List.of(name), first.changed());
        assertEquals(List.of(), first.failed());
        assertEquals(List.of(), again.changed(), "a thread already under SCHED_IDLE is left alone");
        assertEquals(GcThreadScheduling.SCHED_IDLE, GcThreadScheduling.policy(tid));
        assertEquals("", err.toString());
        assertEquals("5", ProcTaskPolicy.of(Path.of("/proc/self/task/" + tid)), "/proc/self/task/<tid>/stat field 41");
    }

    @Test
    void shouldPickUpAThreadThatLostThePolicyAtTheNextCycle()
    {
        assumeTrue(GcThreadScheduling.available());
        assumeTrue(canLeaveSchedIdle());
        final GcThreadScheduling scheduling =
            new GcThreadScheduling(name::equals, new PrintWriter(new StringWriter(), true));
        final int tid = GcThreadScheduling.tasks(name::equals).getFirst().tid();
        scheduling.apply();
        assertEquals(0, GcThreadScheduling.setPolicy(tid, GcThreadScheduling.SCHED_OTHER));

        scheduling.onCycle("High Usage");

        assertEquals(GcThreadScheduling.SCHED_IDLE, GcThreadScheduling.policy(tid));
    }

    @Test
    void shouldGoBackToTheNormalPolicyForGoodAfterAnAllocationStall()
    {
        assumeTrue(GcThreadScheduling.available());
        final StringWriter err = new StringWriter();
        final GcThreadScheduling scheduling = new GcThreadScheduling(name::equals, new PrintWriter(err, true));
        final int tid = GcThreadScheduling.tasks(name::equals).getFirst().tid();
        scheduling.apply();

        scheduling.onCycle(GcThreadScheduling.ALLOCATION_STALL);
        scheduling.onCycle("Allocation Rate");
        scheduling.onCycle(GcThreadScheduling.ALLOCATION_STALL);

        final String said = err.toString();
        assertEquals(1, said.lines().count(), said);
        if (canLeaveSchedIdle())
        {
            assertEquals(GcThreadScheduling.SCHED_OTHER, GcThreadScheduling.policy(tid),
                "back under SCHED_OTHER and not put under SCHED_IDLE again by the next cycle");
            assertEquals("sipline: an allocation stall started a GC cycle: the GC threads go back to the normal "
                + "scheduling policy ([" + name + "])\n", said);
        }
        else
        {
            // unprivileged, RLIMIT_NICE below 20: the kernel refuses to leave SCHED_IDLE, and the message says how
            assertEquals(GcThreadScheduling.SCHED_IDLE, GcThreadScheduling.policy(tid));
            assertTrue(said.contains("the kernel refused it for [" + name + " (errno 1, EPERM)]: it needs "
                + "CAP_SYS_NICE or an RLIMIT_NICE of 20 (ulimit -e 20)"), said);
        }
    }

    @Test
    void shouldSayWhatWentWrongAfterACycleInsteadOfThrowingIntoTheNotificationThread()
    {
        assumeTrue(GcThreadScheduling.available());
        final StringWriter err = new StringWriter();
        final GcThreadScheduling scheduling = new GcThreadScheduling(n ->
        {
            throw new IllegalStateException("cannot read a thread name");
        }, new PrintWriter(err, true));

        scheduling.onCycle("Allocation Rate");

        assertEquals("sipline: GC thread scheduling after a cycle (Allocation Rate): java.lang.IllegalStateException: "
            + "cannot read a thread name\n", err.toString());
    }

    /** Whether this process may leave SCHED_IDLE (root or CAP_SYS_NICE, or RLIMIT_NICE 20): tried on a thread. */
    private static boolean canLeaveSchedIdle()
    {
        final int[] result = new int[1];
        final String check = "gcsched-c" + PROBES.incrementAndGet();
        final Thread t = Thread.ofPlatform().name(check).start(() ->
        {
            final int tid = GcThreadScheduling.tasks(check::equals).getFirst().tid();
            GcThreadScheduling.setPolicy(tid, GcThreadScheduling.SCHED_IDLE);
            result[0] = GcThreadScheduling.setPolicy(tid, GcThreadScheduling.SCHED_OTHER);
        });
        try
        {
            t.join();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        return 0 == result[0];
    }
}
