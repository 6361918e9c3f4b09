package io.sipline.test;

import java.lang.management.ManagementFactory;

/**
 * Bytes the current thread allocates while running a piece of code, measured with
 * {@code com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes}.
 * <p>
 * One measurement can be charged for something that is not the code under test: a deoptimisation that sends the
 * loop back to the interpreter for a moment (where escape analysis does not apply), a class initialised late, the
 * counter read itself. Such an event happens once, not on every call; an allocation in the code under test happens
 * on every call. So the meter warms up, measures, and if the figure is above the tolerance warms up and measures
 * again, up to a number of attempts, and reports the smallest figure. A test that fails after all attempts has
 * found code that allocates each time it runs.
 */
public final class AllocationMeter
{
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    static
    {
        if (!THREADS.isThreadAllocatedMemorySupported())
        {
            throw new IllegalStateException("this JVM cannot count allocated bytes per thread");
        }
        THREADS.setThreadAllocatedMemoryEnabled(true);
    }

    private AllocationMeter()
    {
    }

    /**
     * @param warmUp         run before every attempt (JIT compilation, caches)
     * @param measured       the code whose allocation is counted
     * @param attempts       how many times to try at most
     * @param toleranceBytes an attempt at or under this many bytes ends the search
     * @return the fewest bytes any attempt allocated
     */
    public static long leastBytes(
        final Runnable warmUp, final Runnable measured, final int attempts, final long toleranceBytes)
    {
        long least = Long.MAX_VALUE;
        for (int attempt = 0; attempt < attempts && least > toleranceBytes; attempt++)
        {
            warmUp.run();
            final long before = THREADS.getCurrentThreadAllocatedBytes();
            measured.run();
            least = Math.min(least, THREADS.getCurrentThreadAllocatedBytes() - before);
        }
        return least;
    }
}
