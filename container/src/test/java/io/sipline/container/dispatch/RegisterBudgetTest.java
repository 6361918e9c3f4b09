package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The rule of {@link RegisterBudget} with a clock the test moves: buckets of 100 ms, a budget of 50 REGISTERs a bucket
 * under pressure (a wait above 10 ms in the bucket or the one before).
 */
class RegisterBudgetTest
{
    private static final long MS = 1_000_000L;
    private static final long BUCKET = 100 * MS;
    private static final long START = 1_700_000_000_000_000_000L;

    private long now = START;

    /** Offers {@code offered} REGISTERs spread over the bucket that starts now; returns how many were let in. */
    private int offer(final RegisterBudget budget, final int offered, final long waitNs)
    {
        int admitted = 0;
        for (int i = 0; i < offered; i++)
        {
            final long at = now + i * (BUCKET / offered);
            budget.onWait(waitNs, at);
            if (budget.admit(at))
            {
                admitted++;
            }
        }
        now += BUCKET;
        return admitted;
    }

    @Test
    void shouldLetEveryRegisterInWhileNoWaitShowsPressure()
    {
        final RegisterBudget budget = new RegisterBudget(BUCKET, 10 * MS, 50);
        assertEquals(2_000, offer(budget, 2_000, 5 * MS), "a storm on a shard with cores to spare is served");
        assertEquals(0, budget.refused());
    }

    @Test
    void shouldHoldAStormToItsBudgetUnderPressure()
    {
        final RegisterBudget budget = new RegisterBudget(BUCKET, 10 * MS, 50);
        offer(budget, 10, 20 * MS); // the first bucket starts with the first request
        for (int bucket = 0; bucket < 10; bucket++)
        {
            assertEquals(50, offer(budget, 2_000, 20 * MS), "bucket " + bucket);
        }
        assertEquals(10 * 1_950, budget.refused());
    }

    @Test
    void shouldHoldTheBudgetForTheRestOfThePressedBucketAndTheNextOnly()
    {
        final RegisterBudget budget = new RegisterBudget(BUCKET, 10 * MS, 50);
        assertEquals(100, offer(budget, 100, 0));
        budget.onWait(20 * MS, now); // pressure at the start of this bucket
        assertEquals(50, offer(budget, 100, 0), "the pressed bucket");
        assertEquals(50, offer(budget, 100, 0), "the next");
        assertEquals(100, offer(budget, 100, 0), "no pressure since");
    }

    @Test
    void shouldAlwaysHoldWithPressureZero()
    {
        final RegisterBudget budget = new RegisterBudget(BUCKET, 0, 50);
        offer(budget, 10, 0);
        assertEquals(50, offer(budget, 100, 0));
        assertEquals(50, offer(budget, 100, 0));
    }

    @Test
    void shouldBeConfiguredPerSecondOrOff()
    {
        assertNull(RegisterBudget.configured(0, BUCKET), "overload control off");
        final String before = System.getProperty(RegisterBudget.RATE_PROP_NAME);
        try
        {
            System.clearProperty(RegisterBudget.RATE_PROP_NAME);
            assertEquals(RegisterBudget.RATE_DEFAULT / 10, RegisterBudget.configured(30 * MS, BUCKET).perBucket());
            System.setProperty(RegisterBudget.RATE_PROP_NAME, "250");
            assertEquals(25, RegisterBudget.configured(30 * MS, BUCKET).perBucket());
            System.setProperty(RegisterBudget.RATE_PROP_NAME, "off");
            assertNull(RegisterBudget.configured(30 * MS, BUCKET));
            System.setProperty(RegisterBudget.RATE_PROP_NAME, "many");
            assertThrows(IllegalArgumentException.class, () -> RegisterBudget.configured(30 * MS, BUCKET));
            System.setProperty(RegisterBudget.RATE_PROP_NAME, "-1");
            assertThrows(IllegalArgumentException.class, () -> RegisterBudget.configured(30 * MS, BUCKET));
            System.setProperty(RegisterBudget.RATE_PROP_NAME, "0");
            assertNotNull(RegisterBudget.configured(30 * MS, BUCKET), "0: no REGISTER under pressure");
        }
        finally
        {
            if (null == before)
            {
                System.clearProperty(RegisterBudget.RATE_PROP_NAME);
            }
            else
            {
                System.setProperty(RegisterBudget.RATE_PROP_NAME, before);
            }
        }
    }

    @Test
    void shouldRejectBadSettings()
    {
        assertThrows(IllegalArgumentException.class, () -> new RegisterBudget(0, 0, 50));
        assertThrows(IllegalArgumentException.class, () -> new RegisterBudget(BUCKET, -1, 50));
        assertThrows(IllegalArgumentException.class, () -> new RegisterBudget(BUCKET, 0, -1));
    }
}
