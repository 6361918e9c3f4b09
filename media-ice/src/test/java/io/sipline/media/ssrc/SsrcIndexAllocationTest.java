package io.sipline.media.ssrc;

import java.util.Random;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Steady-state allocation of the index, measured per thread with {@link AllocationMeter}. The
 * Vector API allocates vector boxes until C2 has compiled the scan with its intrinsics, so every measurement comes
 * after a warm-up, and is repeated (more warm-up in between, up to {@value #ATTEMPTS} times) before it counts as a
 * failure: a JIT that has not finished compiling on a busy two-core machine is not a bug of the index, code that
 * still allocates once compiled is. The interpreter and C1 box every vector, so a test that passes has measured
 * the C2-compiled code.
 */
class SsrcIndexAllocationTest
{
    private static final int LOOKUPS = 100_000;
    private static final int WARMUP_LOOKUPS = 400_000;
    private static final int ATTEMPTS = 30;
    /** getThreadAllocatedBytes itself may be charged a few bytes. */
    private static final long TOLERANCE_BYTES = 256;
    private static final int[] SIZES = {1, 3, 5, 10, 20, 30, 50, 100, 200, 1000};

    private static final Object STREAM = new Object();
    private static final int VARIANTS = SsrcIndex.Strategy.values().length + 1;

    @Test
    void shouldNotAllocateOnLookup()
    {
        for (int variant = 0; variant < VARIANTS; variant++)
        {
            for (final int n : SIZES)
            {
                final SsrcIndex<Object> index = newIndex(variant, n);
                final String strategy = index.toString();
                index.template(STREAM);
                final int[] queries = queries(index, n);
                final int[] hits = new int[1];
                final long bytes = AllocationMeter.leastBytes(
                    () -> lookups(index, queries, WARMUP_LOOKUPS),
                    () -> hits[0] = lookups(index, queries, LOOKUPS),
                    ATTEMPTS, TOLERANCE_BYTES);
                assertEquals(LOOKUPS / 2, hits[0]);
                assertTrue(bytes <= TOLERANCE_BYTES, strategy + " N=" + n + " allocated " + bytes + " B");
            }
        }
    }

    @Test
    void shouldNotAllocateOnRemoveAndAddWithinCapacity()
    {
        for (int variant = 0; variant < VARIANTS; variant++)
        {
            for (final int n : SIZES)
            {
                // Capacity for all n entries; each entry is removed and added back.
                final SsrcIndex<Object> index = newIndex(variant, n);
                final String strategy = index.toString();
                queries(index, n);
                final int[] scratch = new int[n];
                // Enough removes and adds for C2 to compile them whatever n is: at n = 1, fifty rounds were a
                // hundred calls, which the interpreter runs (and there every vector is a boxed object).
                final long bytes = AllocationMeter.leastBytes(
                    () -> churn(index, scratch, 50 + 40_000 / n),
                    () -> churn(index, scratch, 20),
                    ATTEMPTS, TOLERANCE_BYTES);
                assertTrue(bytes <= TOLERANCE_BYTES, strategy + " N=" + n + " allocated " + bytes + " B");
                assertEquals(n, index.size());
            }
        }
    }

    /** Every strategy, then AUTO as on a machine without SIMD. */
    private static SsrcIndex<Object> newIndex(final int variant, final int capacity)
    {
        final SsrcIndex.Strategy[] strategies = SsrcIndex.Strategy.values();
        return variant < strategies.length ?
            new SsrcIndex<>(capacity, strategies[variant]) : new SsrcIndex<>(capacity, SsrcIndex.Strategy.AUTO, false);
    }

    /** Fills the index with n random SSRCs and returns queries: members at even positions, non-members at odd. */
    private static int[] queries(final SsrcIndex<Object> index, final int n)
    {
        final Random random = new Random(n);
        while (index.size() < n)
        {
            index.add(random.nextInt(), STREAM);
        }
        final int[] queries = new int[1024];
        for (int i = 0; i < queries.length; i += 2)
        {
            queries[i] = index.ssrcAt(random.nextInt(n));
            int miss = random.nextInt();
            while (index.contains(miss))
            {
                miss = random.nextInt();
            }
            queries[i + 1] = miss;
        }
        return queries;
    }

    private static int lookups(final SsrcIndex<Object> index, final int[] queries, final int count)
    {
        int hits = 0;
        for (int i = 0; i < count; i++)
        {
            final int ssrc = queries[i & (queries.length - 1)];
            if (STREAM == index.get(ssrc))
            {
                hits++;
            }
            if (STREAM != index.getOrTemplate(ssrc))
            {
                hits = Integer.MIN_VALUE;
            }
        }
        return hits;
    }

    /**
     * Removes each entry in turn (the last one moves into its hole) and adds it back at once: remove and add within
     * capacity, at a steady size. (Emptying and refilling the whole index made the layout flip between array and
     * table every round; C2 then kept deoptimising the scan, and the interpreter boxes every vector, so the test
     * measured the JIT's give-up rather than the index. Layout switches are covered by SsrcIndexTest.)
     */
    private static void churn(final SsrcIndex<Object> index, final int[] members, final int rounds)
    {
        final int n = members.length;
        for (int round = 0; round < rounds; round++)
        {
            for (int i = 0; i < n; i++)
            {
                final int ssrc = index.ssrcAt(0);
                index.remove(ssrc);
                index.add(ssrc, STREAM);
            }
        }
    }
}
