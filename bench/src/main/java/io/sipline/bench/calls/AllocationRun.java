package io.sipline.bench.calls;

import java.io.IOException;
import java.util.List;

/**
 * Bytes allocated per call: a server started under the {@value #PROFILE} profile (no collection: the heap in use
 * grows by exactly what is allocated) with TLABs off ({@link #JVM_OPTIONS}, so every byte counts at once, not a
 * buffer's worth at a time) is warmed up, then offered a fixed number of calls; the growth of its heap ({@code jcmd
 * GC.heap_info}) over those calls, divided by the calls that succeeded, is the figure. The warm-up lasts a
 * transaction's longest life (64*T1 = 32 s, RFC 3261 §17.1.1.2 Timer B) and 5 s more, so that as many calls are in
 * their transactions when the run starts as during it: pooled transactions and buffers are then at the rate's size,
 * and the run measures each call's garbage rather than the pools' growth.
 * <p>
 * Used by every command of the harness that reports allocated bytes per call ({@code bench calls}, {@code bench
 * cluster}); the caller starts and stops the server. Stateless; the harness's main thread.
 */
public final class AllocationRun
{
    /** The JVM profile the server runs under for the measurement. */
    public static final String PROFILE = "epsilon";
    /** JVM options after the profile's. */
    public static final List<String> JVM_OPTIONS = List.of("-XX:-UseTLAB");
    /** Seconds of warm-up: 64*T1 (T1 = 500 ms) and 5 s. */
    static final int WARMUP_SECONDS_FOR_POOLS = 37;

    /** The measured step and the bytes the server allocated over it. */
    public record Result(Step step, long bytes)
    {
        /** Bytes per successful call, or NaN when none succeeded. */
        public double perCall()
        {
            return 0 == step.successful() ? Double.NaN : bytes / (double)step.successful();
        }
    }

    private AllocationRun()
    {
    }

    /**
     * Warms {@code server} up, then runs {@code calls} calls at {@code rate} through it with {@code driver} and
     * returns that step with the heap's growth over it.
     *
     * @param name unique within the run: names sipp's directories and files.
     */
    public static Result measure(final ServerProcess server, final LoadDriver driver, final String name,
        final int rate, final int calls) throws IOException, InterruptedException
    {
        final int warmupCalls = Math.max(rate * WARMUP_SECONDS_FOR_POOLS, calls / 5);
        CallsBench.print(name, driver.run(server, name + "-warmup", "warmup", rate, warmupCalls, 0));
        server.settle();
        final long before = server.heapUsed();
        final Step step = CallsBench.print(name, driver.run(server, name + "-run", "alloc", rate, calls, 0));
        final long after = server.heapUsed();
        return new Result(step, after - before);
    }
}
