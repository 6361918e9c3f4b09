package io.sipline.sip.dialog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The per-shard free list: reuse, counters, bounds, double release. */
class DialogPoolTest
{
    @Test
    void shouldReuseReleasedRecordsAndCountMisses()
    {
        final DialogPool pool = new DialogPool(2, 1);
        final Dialog a = pool.acquire();
        assertEquals(0, pool.misses(), "prefilled");
        final Dialog b = pool.acquire();
        assertEquals(1, pool.misses());
        assertNotSame(a, b);
        assertTrue(b.handle() > a.handle());

        a.callId.set("x@y");
        pool.release(a);
        final Dialog again = pool.acquire();
        assertSame(a, again);
        assertEquals(0, again.callId().length());
        assertEquals(DialogState.TERMINATED, again.state());
        assertEquals(3, pool.acquires());
    }

    @Test
    void shouldDropOutsizedArraysAtRecyclingAndKeepOrdinaryOnes()
    {
        // A message with a header of kilobytes (a fuzzer's, an attacker's) must not leave every pooled record it
        // passed through holding arrays of that size for the life of the shard.
        final DialogPool pool = new DialogPool(1, 1);
        final Dialog d = pool.acquire();
        final String huge = "x".repeat(20_000);
        d.remoteTarget.set(huge);
        d.localAddress.set(huge);
        d.routes.set(huge);
        for (int i = 0; i < 500; i++)
        {
            final byte[] route = ("<sip:p" + i + ".example.com;lr>").getBytes(StandardCharsets.US_ASCII);
            d.addRoute(route, 0, route.length, 1, route.length - 1);
        }
        d.callId.set("a84b4c76e66710@pc33.atlanta.example.com");
        final byte[] callIdArray = d.callId.bytes();
        pool.release(d);

        final Dialog again = pool.acquire();
        assertSame(d, again);
        assertEquals(48, again.remoteTarget.bytes().length, "back to the initial size");
        assertEquals(64, again.localAddress.bytes().length);
        assertEquals(128, again.routes.bytes().length);
        assertEquals(16, again.routeIndex.length);
        assertTrue(callIdArray == again.callId.bytes(), "an ordinary value's array is kept: no allocation per call");
        final byte[] target = ("<sip:" + "y".repeat(300) + "@example.com>").getBytes(StandardCharsets.US_ASCII);
        again.remoteTarget.set(target, 0, target.length);
        final byte[] withinBound = again.remoteTarget.bytes();
        assertTrue(withinBound.length > 48 && withinBound.length <= ByteSlot.KEPT_FACTOR * 48);
        pool.release(again);
        assertTrue(withinBound == pool.acquire().remoteTarget.bytes(), "grown, but within the bound: kept");
    }

    @Test
    void shouldEvictWhenFullAndRefuseDoubleRelease()
    {
        final DialogPool pool = new DialogPool(1, 0);
        final Dialog a = pool.acquire();
        final Dialog b = pool.acquire();
        pool.release(a);
        pool.release(b);
        assertEquals(1, pool.freeCount());
        assertEquals(1, pool.evictions());
        assertEquals(2, pool.releases());
        assertThrows(IllegalStateException.class, () -> pool.release(a));
    }

    @Test
    void shouldLeaveReleasedRecordsOfUnpooledPoolReadable()
    {
        final DialogPool pool = DialogPool.unpooled();
        assertFalse(pool.recycles());
        final Dialog a = pool.acquire();
        final Dialog b = pool.acquire();
        assertNotSame(a, b);
        assertEquals(0, pool.misses(), "nothing to miss: every record is new");

        a.callId.set("x@y");
        pool.release(a);
        // the transaction user that holds the record still reads it
        assertEquals("x@y", a.callId().toString());
        assertEquals(0, pool.freeCount());
        assertEquals(1, pool.releases());
        assertNotSame(a, pool.acquire());
        assertThrows(IllegalStateException.class, () -> pool.release(a));
    }

    @Test
    void shouldLetGoOfTheRecordsABurstLeftOnceTenSecondsNoLongerNeedThem()
    {
        final DialogPool pool = new DialogPool(4096, 0);
        final long second = DialogPool.TRIM_PERIOD_NS;
        final Dialog[] burst = new Dialog[3000];
        for (int i = 0; i < burst.length; i++)
        {
            burst[i] = pool.acquire();
        }
        for (final Dialog d : burst)
        {
            pool.release(d);
        }
        long now = 5 * second;
        for (int s = 0; s < DialogPool.TRIM_WINDOW; s++, now += second)
        {
            pool.trim(now);
            pool.trim(now + second / 2); // within the period: nothing
            // a steady trickle beside: 100 records a second, each released again
            final Dialog[] trickle = new Dialog[100];
            for (int i = 0; i < trickle.length; i++)
            {
                trickle[i] = pool.acquire();
            }
            for (final Dialog d : trickle)
            {
                pool.release(d);
            }
            assertEquals(3000, pool.freeCount(), "the burst's acquires are within the window: " + s);
        }
        pool.trim(now);
        assertEquals(DialogPool.TRIM_WINDOW * 100, pool.freeCount(), "what the last ten seconds acquired");
        assertEquals(2000, pool.trimmed());
        for (int s = 1; s <= DialogPool.TRIM_WINDOW; s++)
        {
            pool.trim(now + s * second);
        }
        assertEquals(DialogPool.MIN_KEPT, pool.freeCount(), "an idle shard keeps the least");
        final long misses = pool.misses();
        for (int i = 0; i < DialogPool.MIN_KEPT; i++)
        {
            pool.acquire();
        }
        assertEquals(misses, pool.misses(), "the records kept are reused");
    }
}
