package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;

/**
 * The rule of {@link AdmissionLimit} with a clock the test moves: buckets of 100 ms, a margin of 25%. A call is
 * admitted with {@code admit(now)} and completed with {@code onCompleted(now)}; a wait is given as
 * {@code onWait(wait, now)}.
 */
class AdmissionLimitTest
{
    private static final long MS = 1_000_000L;
    private static final long BUCKET = 100 * MS;
    private static final long START = 1_700_000_000_000_000_000L;

    private long now = START;

    /** Offers {@code offered} new INVITEs spread over one bucket; returns how many were admitted. */
    private int offer(final AdmissionLimit limit, final int offered)
    {
        int admitted = 0;
        for (int i = 0; i < offered; i++)
        {
            if (limit.admit(now + i * (BUCKET / offered)))
            {
                admitted++;
            }
        }
        return admitted;
    }

    private void complete(final AdmissionLimit limit, final int calls)
    {
        for (int i = 0; i < calls; i++)
        {
            limit.onCompleted(now + BUCKET - MS);
        }
    }

    /** A limit with a 10 ms pressure mark that has seen {@code completed} calls completed in one bucket. */
    private AdmissionLimit learned(final int completed)
    {
        final AdmissionLimit limit = new AdmissionLimit(BUCKET, 10 * MS, 25);
        limit.admit(now);
        complete(limit, completed);
        now += BUCKET;
        return limit;
    }

    /**
     * One bucket: a request that waited {@code waitMs} at its start, {@code offered} new INVITEs over it,
     * {@code completed} calls completed at its end (at most those admitted in it); returns how many were admitted.
     */
    private int bucket(final AdmissionLimit limit, final long waitMs, final int offered, final int completed)
    {
        limit.onWait(waitMs * MS, now);
        final int admitted = offer(limit, offered);
        complete(limit, Math.min(admitted, completed));
        now += BUCKET;
        return admitted;
    }

    @Test
    void shouldAdmitEveryCallWhileNoWaitShowsPressure()
    {
        final AdmissionLimit limit = new AdmissionLimit(BUCKET, 10 * MS, 25);
        for (int bucket = 0; bucket < 5; bucket++)
        {
            limit.onWait(9 * MS, now);
            assertEquals(5_000, offer(limit, 5_000), "bucket " + bucket + ": nothing completed, but no pressure");
            now += BUCKET;
        }
        assertEquals(0L, limit.refused());
    }

    @Test
    void shouldAdmitTheMostCompletedInABucketPlusTheMarginUnderPressure()
    {
        final AdmissionLimit limit = new AdmissionLimit(BUCKET, 0, 25);
        limit.admit(now);
        complete(limit, 200);
        now += BUCKET;
        assertEquals(250, offer(limit, 400), "200 completed in the bucket before, plus 25%");
        assertEquals(150L, limit.refused());
        assertEquals(250, limit.limit());
    }

    @Test
    void shouldLetTheAdmittedRateGrowByTheMarginWhileTheCompletionsFollowIt()
    {
        final AdmissionLimit limit = new AdmissionLimit(BUCKET, 0, 25);
        limit.admit(now);
        complete(limit, 100);
        now += BUCKET;
        // The shard completes up to 300 calls a bucket; 1,000 are offered per bucket from now on
        int admitted = 0;
        int buckets = 0;
        while (admitted < 300)
        {
            admitted = offer(limit, 1_000);
            assertTrue(admitted <= 375, "never more than 125% of what the shard completes: " + admitted);
            complete(limit, Math.min(admitted, 300));
            now += BUCKET;
            buckets++;
        }
        assertEquals(5, buckets, "100 -> 125 -> 156 -> 195 -> 243 -> 303: the completions follow each step");
        for (int i = 0; i < 20; i++)
        {
            assertEquals(375, offer(limit, 1_000), "held at the completions plus 25%");
            complete(limit, 300);
            now += BUCKET;
        }
    }

    @Test
    void shouldLowerTheLimitWhenTheCompletionsFallForAWholeWindow()
    {
        final AdmissionLimit limit = new AdmissionLimit(BUCKET, 0, 25);
        limit.admit(now);
        complete(limit, 400);
        now += BUCKET;
        for (int bucket = 1; bucket <= AdmissionLimit.WINDOW; bucket++)
        {
            assertEquals(500, offer(limit, 1_000), "bucket " + bucket + ": 400 completed within the window");
            complete(limit, 100); // the far end fell behind
            now += BUCKET;
        }
        assertEquals(125, offer(limit, 1_000), "the 400 left the window: the most is now 100");
    }

    @Test
    void shouldKeepWhatItLearnedAcrossASilence()
    {
        final AdmissionLimit limit = new AdmissionLimit(BUCKET, 0, 25);
        limit.admit(now);
        complete(limit, 400);
        now += BUCKET * (AdmissionLimit.WINDOW + 5); // no request at all: nothing shows the shard completes less
        assertEquals(500, offer(limit, 1_000));
    }

    @Test
    void shouldFallToTheFloorWhenAdmittedCallsNoLongerComplete()
    {
        final AdmissionLimit limit = new AdmissionLimit(BUCKET, 0, 25);
        limit.admit(now);
        complete(limit, 400);
        now += BUCKET;
        for (int bucket = 1; bucket <= AdmissionLimit.WINDOW; bucket++)
        {
            offer(limit, 1_000); // the far end answers none of them
            now += BUCKET;
        }
        assertEquals(AdmissionLimit.FLOOR, offer(limit, 1_000));
    }

    @Test
    void shouldNotLimitAShardThatHasNotCompletedTheFloorInABucketYet()
    {
        final AdmissionLimit limit = new AdmissionLimit(BUCKET, 0, 25);
        assertEquals(1_000, offer(limit, 1_000), "a fresh shard has shown nothing to hold to");
        complete(limit, AdmissionLimit.FLOOR - 1);
        now += BUCKET;
        assertEquals(1_000, offer(limit, 1_000), "fewer than the floor completed");
        complete(limit, 80);
        now += BUCKET;
        assertEquals(100, offer(limit, 1_000), "80 completed in the bucket before, plus 25%");
        assertEquals(900L, limit.refused());
    }

    @Test
    void shouldAdmitOnlyWhatTheLastBucketCompletedWhileTheQueueStands()
    {
        final AdmissionLimit limit = learned(300);
        // From here every bucket has waits past the mark and the shard completes 200 calls a bucket
        assertEquals(375, bucket(limit, 20, 1_000, 200), "the first pressed bucket: the most completed plus 25%");
        assertEquals(375, bucket(limit, 20, 1_000, 200), "one pressed bucket behind it: not yet a standing queue");
        for (int i = 0; i < 2 * AdmissionLimit.WINDOW; i += 2)
        {
            assertEquals(200, bucket(limit, 20, 1_000, 200), "bucket " + i + " of the standing queue: 375 or 250 "
                + "admitted, 200 completed: what completed");
            assertEquals(250, bucket(limit, 20, 1_000, 200), "bucket " + (i + 1) + ": all 200 completed: plus 25%");
        }
    }

    @Test
    void shouldGrowByTheMarginInAStandingQueueWhileEveryCallLetInCompletes()
    {
        // A 4x surge: the refusals alone keep the waits past the mark, and the shard can carry 300 calls a bucket
        final AdmissionLimit limit = learned(100);
        final int[] expected = {125, 156, 195, 243, 303};
        for (int i = 0; i < expected.length; i++)
        {
            assertEquals(expected[i], bucket(limit, 20, 1_000, 300), "bucket " + i + ", standing from the third on");
        }
        assertEquals(375, bucket(limit, 20, 1_000, 300), "300 of 303 completed: still following, plus 25%");
        assertEquals(300, bucket(limit, 20, 1_000, 300), "300 of 375: past what the shard carries, held there");
    }

    @Test
    void shouldGrowBackByTheMarginPerBucketOnceTheQueueNoLongerStands()
    {
        final AdmissionLimit limit = learned(400);
        assertEquals(500, bucket(limit, 20, 1_000, 160), "the first pressed bucket");
        assertEquals(500, bucket(limit, 20, 1_000, 160), "not yet standing");
        assertEquals(160, bucket(limit, 20, 1_000, 160), "a standing queue, 160 of 500 completed: what completed");
        assertEquals(200, bucket(limit, 20, 1_000, 160), "every call let in completed: 160 plus 25%");
        assertEquals(100, bucket(limit, 5, 100, 100), "the waits are back under the mark");
        assertEquals(200, bucket(limit, 20, 1_000, 200), "pressed again after a bucket without: from 160 by 25%, not "
            + "the most");
        assertEquals(250, bucket(limit, 20, 1_000, 250), "one pressed bucket behind it: by 25% again");
    }

    @Test
    void shouldHoldTheLimitForTheRestOfThePressedBucketAndTheNextOnly()
    {
        final AdmissionLimit limit = new AdmissionLimit(BUCKET, 10 * MS, 25);
        limit.admit(now);
        complete(limit, 80);
        now += BUCKET;
        for (int i = 0; i < 150; i++)
        {
            assertTrue(limit.admit(now + i * MS / 4), "no pressure yet: past the limit of 100, but admitted");
        }
        limit.onWait(11 * MS, now + BUCKET / 2);
        assertFalse(limit.admit(now + BUCKET / 2 + MS), "a wait past 10 ms: this bucket is past its limit");
        now += BUCKET;
        assertEquals(100, offer(limit, 200), "the bucket after the pressure: 80 completed plus 25%");
        now += BUCKET;
        assertEquals(200, offer(limit, 200), "two buckets after: no limit");
    }

    @Test
    void shouldBeOffWithOverloadControlOrByItsProperty()
    {
        assertNull(AdmissionLimit.configured(0, BUCKET), "overload control off");
        final String before = System.getProperty(AdmissionLimit.MARGIN_PROP_NAME);
        try
        {
            System.setProperty(AdmissionLimit.MARGIN_PROP_NAME, "off");
            assertNull(AdmissionLimit.configured(30 * MS, BUCKET));
            System.setProperty(AdmissionLimit.MARGIN_PROP_NAME, "50");
            assertNotNull(AdmissionLimit.configured(30 * MS, BUCKET));
            System.setProperty(AdmissionLimit.MARGIN_PROP_NAME, "lots");
            assertThrows(IllegalArgumentException.class, () -> AdmissionLimit.configured(30 * MS, BUCKET));
        }
        finally
        {
            if (null == before)
            {
                System.clearProperty(AdmissionLimit.MARGIN_PROP_NAME);
            }
            else
            {
                System.setProperty(AdmissionLimit.MARGIN_PROP_NAME, before);
            }
        }
    }

    @Test
    void shouldRejectBadSettings()
    {
        assertThrows(IllegalArgumentException.class, () -> new AdmissionLimit(0, 0, 25));
        assertThrows(IllegalArgumentException.class, () -> new AdmissionLimit(BUCKET, -1, 25));
        assertThrows(IllegalArgumentException.class, () -> new AdmissionLimit(BUCKET, 0, -1));
    }

    @Test
    void shouldAllocateNothingPerRequest()
    {
        final AdmissionLimit limit = new AdmissionLimit(BUCKET, 10 * MS, 25);
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().threadId();
        run(limit, 100_000); // warm up
        final long before = threads.getThreadAllocatedBytes(thread);
        run(limit, 1_000_000);
        final long bytes = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(bytes < 1_000, "bytes allocated over 1,000,000 requests: " + bytes);
    }

    private void run(final AdmissionLimit limit, final int requests)
    {
        for (int i = 0; i < requests; i++)
        {
            now += 10_000;
            limit.onWait(i % 2 * 20 * MS, now);
            if (limit.admit(now) && 0 == i % 3)
            {
                limit.onCompleted(now);
            }
        }
    }
}
