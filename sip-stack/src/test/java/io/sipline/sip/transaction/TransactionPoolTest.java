package io.sipline.sip.transaction;

import static io.sipline.sip.transaction.TransactionHarness.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class TransactionPoolTest
{
    private static final int NIS = TransactionLayer.KIND_NON_INVITE_SERVER;

    @Test
    void shouldLetABurstsObjectsGoOnceQuietDownToTheFloor()
    {
        final TransactionHarness h = new TransactionHarness();
        final TransactionPool pool = h.layer.pool;
        burst(h, "z9hG4bKburst", 3_000);
        expireInOrder(h, 3_000); // Timer J of each: every object free, the first made at the free list's tail
        assertEquals(3_000, pool.freeObjects(NIS));
        assertEquals(0, pool.trimmed(), "the burst's acquires are recent use");

        quietSeconds(h, pool.window() + 1);

        assertEquals(TransactionPool.MIN_KEPT, pool.freeObjects(NIS), "down to the floor");
        assertEquals(3_000 - TransactionPool.MIN_KEPT, pool.trimmed());
        assertEquals(TransactionPool.MIN_KEPT + 3 * h.config.initialPoolSize(), h.layer.transactionObjects());
        assertEquals(1, pool.chunks(), "the emptied chunks are dropped");
        assertTrue(pool.limit() < TransactionPool.CHUNK, "the registry's top given back: " + pool.limit());
        quietSeconds(h, pool.window() + 1);
        assertEquals(3_000 - TransactionPool.MIN_KEPT, pool.trimmed(), "the floor stays");

        // a second burst fills the holes from the lowest, and every transaction is still found by its timers
        final long misses = pool.misses();
        burst(h, "z9hG4bKagain", 3_000);
        assertEquals(misses + 3_000 - TransactionPool.MIN_KEPT, pool.misses());
        assertEquals(0, pool.holes());
        expireAll(h);
        assertEquals(0, h.layer.activeTransactions());
        assertEquals(3_000, pool.freeObjects(NIS));
        h.assertNoLeaks();
    }

    @Test
    void shouldMoveTheKeptObjectsOfABurstThatEndedTopFirstDownSoThatItsChunksGo()
    {
        final TransactionHarness h = new TransactionHarness();
        final TransactionPool pool = h.layer.pool;
        final List<ServerTransaction> txs = new ArrayList<>();
        for (int i = 0; i < 3_000; i++)
        {
            h.receive(request("OPTIONS", "z9hG4bKtop" + i));
            txs.add(h.lastServer);
        }
        // answered last first, a millisecond apart: Timer J ends the highest indices first, and those stay kept
        for (int i = txs.size() - 1; i >= 0; i--)
        {
            h.respond(txs.get(i), 200);
            h.advanceMs(1);
        }
        expireInOrder(h, 3_000);
        final int top = pool.limit();

        quietSeconds(h, pool.window() + 1);

        assertEquals(TransactionPool.MIN_KEPT, pool.freeObjects(NIS), "down to the floor");
        assertEquals(1, pool.chunks(), "the kept objects moved down: the burst's chunks are dropped");
        assertTrue(pool.limit() < TransactionPool.CHUNK, "the registry's top given back: " + pool.limit() + ", was "
            + top);
        assertEquals(0, pool.holes(), "the objects kept fill the lowest indices");

        // the moved objects serve again, and their timers find them at their new indices
        burst(h, "z9hG4bKmoved", 100);
        assertEquals(100, h.layer.activeTransactions());
        expireAll(h);
        assertEquals(0, h.layer.activeTransactions());
        h.assertNoLeaks();
    }

    @Test
    void shouldShrinkTheServerTableABurstGrewOnceItStayedMostlyEmptyForTheWindow()
    {
        final TransactionHarness h = new TransactionHarness();
        final TransactionPool pool = h.layer.pool;
        final TransactionTable table = h.layer.table(false);
        burst(h, "z9hG4bKflood", 3_000);
        assertEquals(8_192, table.capacity(), "3,000 transactions at most half load");
        expireAll(h);
        assertEquals(0, table.size());

        quietSeconds(h, pool.window() - 2);
        assertEquals(8_192, table.capacity(), "a table empty for less than the pool's window keeps its slots");
        quietSeconds(h, 4);
        assertEquals(1, table.shrinks());
        assertEquals(16, table.capacity(), "back to its initial capacity");
        assertFalse(table.migrating(), "8,192 old slots: moved by the trim that shrank it");
        assertEquals(0, h.layer.table(true).shrinks(), "the client table never grew");

        // the next burst finds its transactions again (a retransmission is absorbed, RFC 3261 §17.2.2)
        burst(h, "z9hG4bKagain", 100);
        final int events = h.events.size();
        h.receive(request("OPTIONS", "z9hG4bKagain42"));
        assertEquals(events, h.events.size(), "the retransmission matched its transaction");
        assertEquals(100, h.layer.activeTransactions());
        expireAll(h);
        h.assertNoLeaks();
    }

    @Test
    void shouldLetNothingGoUnderASteadyLoad()
    {
        // 40 new transactions a second, each living 32 s (Timer J): the pool grows to the load once, then neither
        // makes nor lets go of an object
        final TransactionHarness h = new TransactionHarness();
        final TransactionPool pool = h.layer.pool;
        long missesAfterWarmup = -1;
        for (int second = 0; second < 120; second++)
        {
            for (int i = 0; i < 40; i++)
            {
                h.receive(request("OPTIONS", "z9hG4bKsteady" + second + "x" + i));
                h.respond(h.lastServer, 200);
                h.advanceMs(25);
            }
            if (second == 40)
            {
                missesAfterWarmup = pool.misses();
            }
        }
        assertTrue(h.layer.activeTransactions() > 1_000, "the load's transactions: " + h.layer.activeTransactions());
        assertEquals(missesAfterWarmup, pool.misses(), "no object made after the first 32 s");
        assertEquals(0, pool.trimmed(), "none let go");
        assertEquals(0, h.layer.table(false).shrinks(), "a table under a steady load keeps its slots");
        expireAll(h);
        h.assertNoLeaks();
    }

    @Test
    void shouldIgnoreAStaleTimerOfALetGoOrReusedIndex()
    {
        final TransactionHarness h = new TransactionHarness();
        final TransactionPool pool = h.layer.pool;
        burst(h, "z9hG4bKstale", 2_000);
        final ServerTransaction last = h.lastServer;
        final int index = last.index;
        expireInOrder(h, 2_000);
        quietSeconds(h, pool.window() + 1);
        assertNull(pool.registered(index), "the last one made and freed is let go");
        final int events = h.events.size();

        // a timer carrying the let-go index fires: nothing happens
        h.wheel.schedule(h.now, ((long)index << 8) | Transaction.TIMER_J);
        assertEquals(1, h.advanceMs(1));
        assertEquals(events, h.events.size());
        assertEquals(0, h.layer.activeTransactions());

        // the index taken again by a new transaction: a stale timer with its index leaves it alone
        final List<ServerTransaction> live = new ArrayList<>();
        for (int i = 0; pool.registered(index) == null; i++)
        {
            h.receive(request("INVITE", "z9hG4bKrefill" + i));
            live.add(h.lastServer);
        }
        final ServerTransaction reused = (ServerTransaction)pool.registered(index);
        assertSame(live.getLast(), reused);
        final long id = reused.id();
        final TransactionState state = reused.state();
        final int eventsBefore = h.events.size();
        h.wheel.schedule(h.now, ((long)index << 8) | Transaction.TIMER_H);
        h.wheel.schedule(h.now, ((long)index << 8) | Transaction.TIMER_TRANSPORT_ERROR);
        assertEquals(2, h.advanceMs(1));
        assertEquals(id, reused.id(), "still the same use");
        assertEquals(state, reused.state());
        assertEquals(live.size(), h.layer.activeTransactions());
        assertEquals(eventsBefore, h.events.size(), "no timeout, transport error or termination");
        for (final ServerTransaction tx : live)
        {
            h.respond(tx, 486);
        }
        expireAll(h); // Timer H of each (no ACK)
        assertEquals(0, h.layer.activeTransactions());
        h.assertNoLeaks();
    }

    @Test
    void shouldFailAPeersTransactionsAcrossTheRegistrysHoles()
    {
        // RFC 3261 §18.4: a UDP peer unreachable; its INVITE server transactions (Proceeding: no timeout of their own,
        // §17.2.1) were made among others that ended and were let go
        final TransactionHarness h = new TransactionHarness();
        final TransactionPool pool = h.layer.pool;
        final InetSocketAddress gone = new InetSocketAddress("192.0.2.20", 5060);
        final InetSocketAddress other = new InetSocketAddress("192.0.2.21", 5060);
        final List<ServerTransaction> goneTx = new ArrayList<>();
        final List<ServerTransaction> otherTx = new ArrayList<>();
        for (int i = 0; i < 600; i++)
        {
            // rport (RFC 3581 §4): responses go back to the source, the peer the scan compares
            h.layer.onIncoming(TransactionHarness.parse(request("INVITE", "z9hG4bKgone" + i + ";rport")), gone, false);
            goneTx.add(h.lastServer);
            h.layer.onIncoming(TransactionHarness.parse(request("INVITE", "z9hG4bKother" + i + ";rport")), other,
                false);
            otherTx.add(h.lastServer);
            for (int k = 0; k < 3; k++)
            {
                // over a connection: Timer J is 0, so each ends at the next poll
                h.receive(request("OPTIONS", "z9hG4bKtcp" + i + "x" + k), true);
                h.respond(h.lastServer, 200);
            }
        }
        h.advanceMs(1);
        quietSeconds(h, pool.window() + 1);
        assertTrue(pool.holes() > 1_000, "holes among the live ones: " + pool.holes());
        assertEquals(1_200, h.layer.activeTransactions());

        assertEquals(600, h.layer.failDatagramPeer(gone));
        h.advanceMs(0);
        assertEquals(600, h.events.stream().filter("transport-error"::equals).count());
        for (final ServerTransaction tx : goneTx)
        {
            assertEquals(0, tx.id(), "ended");
        }
        for (final ServerTransaction tx : otherTx)
        {
            assertNotEquals(0, tx.id(), "another peer's goes on");
        }
        assertEquals(600, h.layer.terminateAll(), "the others, found across the holes");
        assertEquals(0, h.layer.activeTransactions());
        h.assertNoLeaks();
    }

    /**
     * {@code n} OPTIONS server transactions a millisecond apart, each answered 200 (Timer J: 32 s over UDP), so that
     * they end in the order they began.
     */
    private static void burst(final TransactionHarness h, final String branch, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            h.receive(request("OPTIONS", branch + i));
            h.respond(h.lastServer, 200);
            h.advanceMs(1);
        }
    }

    /** 32 s on, then polls until the timers are done (each poll fires at most the layer's poll limit). */
    private static void expireAll(final TransactionHarness h)
    {
        h.advanceMs(32_000);
        for (int polls = 0; polls < 100 && h.advanceMs(0) > 0; polls++)
        {
            // each poll fires the next batch of due timers
        }
    }

    /**
     * The Timer J of a {@link #burst} of {@code n}, each in a poll of its own: the wheel fires a poll's due timers
     * spoke by spoke, so that one poll over the whole burst would end them out of order.
     */
    private static void expireInOrder(final TransactionHarness h, final int n)
    {
        h.advanceMs(32_000 - n - 1);
        for (int i = 0; i < n + 2; i++)
        {
            h.advanceMs(1);
        }
        assertEquals(0, h.layer.activeTransactions());
    }

    private static void quietSeconds(final TransactionHarness h, final int seconds)
    {
        for (int i = 0; i < seconds; i++)
        {
            h.advanceMs(1_000);
        }
    }
}
