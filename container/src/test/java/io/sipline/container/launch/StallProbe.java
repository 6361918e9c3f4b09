package io.sipline.container.launch;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import io.sipline.container.os.GcThreadScheduling;

/**
 * The main that {@link GcThreadStallTest} runs in a child JVM with ZGC, a small heap and
 * {@code -Dsipline.gc.threads=idle}: it puts the GC threads under {@code SCHED_IDLE} as the server does, then keeps
 * as many threads as there are cores allocating into a live set near the heap's size, so that ZGC cannot keep up and
 * stalls the allocators. It ends when the scheduling has gone back to normal (the line the test waits for) or after
 * {@value #LIMIT_SECONDS} s, whichever is first; the allocating threads are daemons.
 */
final class StallProbe
{
    static final long LIMIT_SECONDS = 60;
    /** Printed once the scheduling went back to normal. */
    static final String BACK = "StallProbe back to normal";
    /** Printed when the limit passed without it. */
    static final String NOT_BACK = "StallProbe still idle";

    private StallProbe()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        final GcThreadScheduling scheduling =
            GcThreadScheduling.start(null, out, new PrintWriter(System.out, true, StandardCharsets.UTF_8));
        if (null == scheduling)
        {
            out.println(NOT_BACK + ": no scheduling");
            return;
        }
        final int threads = Runtime.getRuntime().availableProcessors();
        for (int t = 0; t < threads; t++)
        {
            final int seed = t;
            Thread.ofPlatform().daemon().name("alloc-" + t).start(() -> churn(seed));
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        while (System.nanoTime() < deadline)
        {
            if (scheduling.isRestored())
            {
                out.println(BACK);
                return;
            }
            Thread.sleep(50); // the probe's own poll, not a wait for behaviour under test
        }
        out.println(NOT_BACK);
    }

    /** Keeps replacing 1 KiB arrays in a table of 12 MiB per thread: a large live set and fast allocation. */
    private static void churn(final int seed)
    {
        final byte[][] live = new byte[12 * 1024][];
        int i = seed;
        while (true)
        {
            i = i * 1_103_515_245 + 12_345;
            final byte[] a = new byte[1024];
            a[0] = (byte)i;
            live[(i >>> 8) % live.length] = a;
        }
    }
}
