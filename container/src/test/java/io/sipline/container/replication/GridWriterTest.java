package io.sipline.container.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntConsumer;

import org.junit.jupiter.api.Test;

/**
 * The writer between the shards and the grid: what shards queue reaches the grid on another thread, in order (a
 * session's removal never overtakes its last snapshot), the queuing thread never waits on a slow grid, and a grid
 * that fails is said once and counted.
 */
class GridWriterTest
{
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final List<String> threads = new CopyOnWriteArrayList<>();
    private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
    private volatile boolean failing;

    private final SessionReplicator grid = new SessionReplicator()
    {
        @Override
        public CompletionStage<Void> write(final ApplicationSnapshot snapshot)
        {
            threads.add(Thread.currentThread().getName());
            if (failing)
            {
                return CompletableFuture.failedFuture(new IllegalStateException("no owner"));
            }
            gate.join();
            seen.add("write " + snapshot.id() + " v" + snapshot.version());
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public Optional<ApplicationSnapshot> read(final String id)
        {
            return Optional.empty();
        }

        @Override
        public Optional<ApplicationSnapshot> readByCallId(final String callId)
        {
            return Optional.empty();
        }

        @Override
        public CompletionStage<Void> remove(final String id)
        {
            seen.add("remove " + id);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public int owner(final String id)
        {
            return -1;
        }

        @Override
        public boolean claim(final String id, final int from, final int to)
        {
            return false;
        }

        @Override
        public List<String> ownedBy(final int node)
        {
            return List.of();
        }

        @Override
        public boolean member(final int node)
        {
            return false;
        }

        @Override
        public void onMemberLeft(final IntConsumer left)
        {
        }

        @Override
        public void close()
        {
        }
    };

    private static ApplicationSnapshot snapshot(final String id, final long version)
    {
        return new ApplicationSnapshot(id, "b2bua", 2, version, 1L, 0L, Map.of(), List.of(), List.of());
    }

    @Test
    void shouldWriteInOrderOnItsOwnThreadWithoutMakingTheCallerWait() throws Exception
    {
        gate = new CompletableFuture<>(); // the grid hangs until released
        final StringWriter err = new StringWriter();
        try (GridWriter writer = new GridWriter(grid, 2, new PrintWriter(err, true)))
        {
            assertEquals(2, writer.node());
            final long start = System.nanoTime();
            for (int i = 1; i <= 100; i++)
            {
                writer.write(snapshot("app-1", i));
            }
            writer.remove("app-1");
            assertTrue(System.nanoTime() - start < 1_000_000_000L, "queuing does not wait for the grid");
            gate.complete(null);
            assertTrue(await(() -> 1 == writer.removed()), "drained: " + seen.size());
            assertEquals(100, writer.written());
            assertEquals(101, seen.size());
            for (int i = 1; i <= 100; i++)
            {
                assertEquals("write app-1 v" + i, seen.get(i - 1));
            }
            assertEquals("remove app-1", seen.get(100));
            assertTrue(threads.stream().allMatch("sipline-grid-writer"::equals), threads.toString());
            assertNotEquals("sipline-grid-writer", Thread.currentThread().getName());
            assertEquals(0, writer.dropped());
            assertEquals(0, writer.failed());
            assertEquals("", err.toString());
        }
    }

    @Test
    void shouldSayOnceWhenTheGridFailsAndGoOn() throws Exception
    {
        failing = true;
        final StringWriter err = new StringWriter();
        try (GridWriter writer = new GridWriter(grid, 1, new PrintWriter(err, true)))
        {
            writer.write(snapshot("app-a", 1));
            writer.write(snapshot("app-b", 1));
            assertTrue(await(() -> 2 == writer.failed()));
            assertEquals(1, err.toString().lines().count(), err.toString());
            assertTrue(err.toString().contains("session app-a not written: java.lang.IllegalStateException: no owner"),
                err.toString());
            failing = false;
            writer.write(snapshot("app-a", 2));
            assertTrue(await(() -> 1 == writer.written()));
        }
    }

    @Test
    void shouldDrainWhatIsQueuedWhenClosed()
    {
        final GridWriter writer = new GridWriter(grid, 1, new PrintWriter(new StringWriter(), true));
        for (int i = 1; i <= 50; i++)
        {
            writer.write(snapshot("app-" + i, 1));
        }
        writer.close();
        assertEquals(50, writer.written());
        assertEquals(50, seen.size());
    }

    private static boolean await(final java.util.function.BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline)
        {
            if (condition.getAsBoolean())
            {
                return true;
            }
            Thread.sleep(5);
        }
        return condition.getAsBoolean();
    }
}
