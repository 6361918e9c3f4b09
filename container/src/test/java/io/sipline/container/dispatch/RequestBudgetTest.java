package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The rule of {@link RequestBudget} with a clock the test moves: buckets of 100 ms, a budget of 50 requests a bucket
 * under pressure (a wait above 10 ms in the bucket or the one before); its two settings, REGISTER and the others.
 */
class RequestBudgetTest
{
    private static final long MS = 1_000_000L;
    private static final long BUCKET = 100 * MS;
    private static final long START = 1_700_000_000_000_000_000L;

    private long now = START;

    /** Offers {@code offered} REGISTERs spread over the bucket that starts now; returns how many were let in. */
    private int offer(final RequestBudget budget, final int offered, final long waitNs)
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
        final RequestBudget budget = new RequestBudget(BUCKET, 10 * MS, 50);
        assertEquals(2_000, offer(budget, 2_000, 5 * MS), "a storm on a shard with cores to spare is served");
        assertEquals(0, budget.refused());
    }

    @Test
    void shouldHoldAStormToItsBudgetUnderPressure()
    {
        final RequestBudget budget = new RequestBudget(BUCKET, 10 * MS, 50);
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
        final RequestBudget budget = new RequestBudget(BUCKET, 10 * MS, 50);
        assertEquals(100, offer(budget, 100, 0));
        budget.onWait(20 * MS, now); // pressure at the start of this bucket
        assertEquals(50, offer(budget, 100, 0), "the pressed bucket");
        assertEquals(50, offer(budget, 100, 0), "the next");
        assertEquals(100, offer(budget, 100, 0), "no pressure since");
    }

    @Test
    void shouldAlwaysHoldWithPressureZero()
    {
        final RequestBudget budget = new RequestBudget(BUCKET, 0, 50);
        offer(budget, 10, 0);
        assertEquals(50, offer(budget, 100, 0));
        assertEquals(50, offer(budget, 100, 0));
    }

    @Test
    void shouldBeConfiguredPerSecondOrOffForRegistersAndTheOthersApart()
    {
        for (final String property : new String[] {RequestBudget.REGISTER_RATE_PROP_NAME,
            RequestBudget.OTHER_RATE_PROP_NAME})
        {
            assertNull(RequestBudget.configured(property, 0, BUCKET), "overload control off");
            final String before = System.getProperty(property);
            try
            {
                System.clearProperty(property);
                assertEquals((RequestBudget.REGISTER_RATE_PROP_NAME.equals(property) ? 4000 : 1000) / 10,
                    configured(property).perBucket(), "the default, per bucket of 100 ms");
                System.setProperty(property, "250");
                assertEquals(25, configured(property).perBucket());
                System.setProperty(property, "off");
                assertNull(configured(property));
                System.setProperty(property, "0");
                assertNotNull(configured(property), "0: none under pressure");
                for (final String bad : new String[] {"many", "-1"})
                {
                    System.setProperty(property, bad);
                    final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> configured(property));
                    assertTrue(e.getMessage().startsWith(property + "=" + bad), e.getMessage());
                }
            }
            finally
            {
                if (null == before)
                {
                    System.clearProperty(property);
                }
                else
                {
                    System.setProperty(property, before);
                }
            }
        }
    }

    private static RequestBudget configured(final String property)
    {
        return RequestBudget.configured(property, 30 * MS, BUCKET);
    }

    @Test
    void shouldRejectBadSettings()
    {
        assertThrows(IllegalArgumentException.class, () -> new RequestBudget(0, 0, 50));
        assertThrows(IllegalArgumentException.class, () -> new RequestBudget(BUCKET, -1, 50));
        assertThrows(IllegalArgumentException.class, () -> new RequestBudget(BUCKET, 0, -1));
    }
}
