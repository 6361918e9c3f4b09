package io.sipline.sip.dialog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        a.attachment("s");
        pool.release(a);
        final Dialog again = pool.acquire();
        assertSame(a, again);
        assertEquals(0, again.callId().length());
        assertEquals(DialogState.TERMINATED, again.state());
        assertEquals(3, pool.acquires());
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
        a.attachment("session");
        pool.release(a);
        // the transaction user's object that holds the record still reads it
        assertEquals("x@y", a.callId().toString());
        assertEquals("session", a.attachment());
        assertEquals(0, pool.freeCount());
        assertEquals(1, pool.releases());
        assertNotSame(a, pool.acquire());
        assertThrows(IllegalStateException.class, () -> pool.release(a));
    }
}
