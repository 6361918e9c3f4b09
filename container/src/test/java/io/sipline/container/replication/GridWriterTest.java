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
 * that fails is said once and counted. A takeover claims a call only from the node whose tag the request carries, a
 * node that left the grid, or itself; and when a node leaves, its calls are adopted once each, split between the
 * survivors.
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
        public long bytesWritten()
        {
            return 1_000L * seen.stream().filter(s -> s.startsWith("write ")).count();
        }

        @Override
        public long bytesSent()
        {
            return -1;
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
            assertEquals(100_000, writer.bytesWritten(), "the grid's own count, as it gives it");
            assertEquals(-1, writer.bytesSent());
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

    @Test
    void shouldClaimACallOnlyFromItsTagsNodeADepartedNodeOrItself() throws Exception
    {
        final MemoryGrid memory = new MemoryGrid();
        memory.readsMayGo.countDown();
        final SessionReplicator one = memory.member(1);
        memory.member(3);
        try (GridWriter two = new GridWriter(memory.member(2), 2, new PrintWriter(new StringWriter(), true)))
        {
            one.write(call("a", "call-a", 1));
            one.write(call("b", "call-b", 3)); // node 3, alive, serves call b now
            one.write(call("c", "call-c", 4)); // node 4 is not in the grid

            final Takeover a = takeOver(two, "call-a", 1);
            assertTrue(a.taken(), "from the node whose tag the request carries (the front found it dead)");
            assertEquals("a", a.snapshot().id());
            assertEquals(2, a.owner());
            assertEquals(2, memory.owners.get("a"));
            assertEquals(new Takeover(null, 3), takeOver(two, "call-b", 1), "node 3 serves it: elsewhere");
            assertEquals(3, memory.owners.get("b"), "not claimed");
            assertTrue(takeOver(two, "call-c", 1).taken(), "from a node that left the grid");
            assertTrue(takeOver(two, "call-a", 1).taken(), "already this node's");
            assertEquals(Takeover.NONE, takeOver(two, "call-x", 1), "no such call");
        }
    }

    @Test
    void shouldAdoptTheCallsItDecidesForWhenANodeLeaves() throws Exception
    {
        final MemoryGrid memory = new MemoryGrid();
        final SessionReplicator one = memory.member(1);
        final List<String> adopted2 = new CopyOnWriteArrayList<>();
        final List<String> adopted3 = new CopyOnWriteArrayList<>();
        final StringWriter said = new StringWriter();
        try (GridWriter two = new GridWriter(memory.member(2), 2, new PrintWriter(said, true));
            GridWriter three = new GridWriter(memory.member(3), 3, new PrintWriter(new StringWriter(), true)))
        {
            two.adoptOrphans(batch -> batch.forEach(s -> adopted2.add(s.id())));
            three.adoptOrphans(batch -> batch.forEach(s -> adopted3.add(s.id())));
            final int calls = 40;
            for (int i = 0; i < calls; i++)
            {
                one.write(call("app-" + i, "call-" + i, 1));
            }
            one.write(call("other", "call-other", 3));
            memory.leave(1);
            assertTrue(await(() -> calls == adopted2.size() + adopted3.size()), adopted2 + " / " + adopted3);
            assertTrue(adopted2.stream().noneMatch(adopted3::contains), "each call adopted once");
            assertTrue(!adopted2.isEmpty() && !adopted3.isEmpty(), "split between the survivors");
            adopted2.forEach(id -> assertEquals(2, memory.owners.get(id)));
            adopted3.forEach(id -> assertEquals(3, memory.owners.get(id)));
            assertEquals(3, memory.owners.get("other"), "a survivor's call stays with it");
            assertEquals(adopted2.size(), two.adopted());
            assertTrue(await(() -> said.toString().contains("node 1 left the grid; node 2 took over "
                + adopted2.size() + " of its calls")), said.toString());
        }
    }

    @Test
    void shouldClaimADepartedNodesCallsInBatchesWithoutHoldingTheRequestsTakeovers() throws Exception
    {
        final MemoryGrid memory = new MemoryGrid();
        memory.readsMayGo.countDown();
        memory.adoptionMayGo = new java.util.concurrent.CountDownLatch(1);
        final SessionReplicator one = memory.member(1);
        final List<List<String>> batches = new CopyOnWriteArrayList<>();
        try (GridWriter two = new GridWriter(memory.member(2), 2, new PrintWriter(new StringWriter(), true)))
        {
            two.adoptOrphans(batch -> batches.add(batch.stream().map(ApplicationSnapshot::id).toList()));
            final int calls = 3 * GridWriter.ADOPT_BATCH + 5;
            for (int i = 0; i < calls; i++)
            {
                one.write(call("app-" + i, "call-" + i, 1));
            }
            memory.leave(1); // node 2 alone decides for every call; its adoption is held before its claims
            assertTrue(await(() -> 1 == memory.listings.get()), "node 2 listed the calls to adopt");

            // a request of one of them is served meanwhile: the adoption holds no reader
            final Takeover byRequest = takeOver(two, "call-7", 1);
            assertTrue(byRequest.taken(), "claimed on demand while the adoption waits");
            assertEquals(1, memory.claimed.get());
            assertTrue(batches.isEmpty(), "the adoption has not handed anything over yet");

            memory.adoptionMayGo.countDown();
            assertTrue(await(() -> calls == batches.stream().mapToInt(List::size).sum()), batches.toString());
            assertEquals(List.of(GridWriter.ADOPT_BATCH, GridWriter.ADOPT_BATCH, GridWriter.ADOPT_BATCH, 5),
                memory.claimBatches, "claimed a batch at a time");
            assertTrue(batches.stream().allMatch(b -> b.size() <= GridWriter.ADOPT_BATCH), "handed over by batch");
            assertEquals(calls, memory.claimed.get(), "each call claimed once (the requested one by the request)");
            assertEquals(calls, batches.stream().flatMap(List::stream).distinct().count());
            for (int i = 0; i < calls; i++)
            {
                assertEquals(2, memory.owners.get("app-" + i));
            }
        }
    }

    private static Takeover takeOver(final GridWriter writer, final String callId, final int tagNode)
        throws Exception
    {
        final CompletableFuture<Takeover> answer = new CompletableFuture<>();
        writer.takeOver(callId, tagNode, answer::complete);
        return answer.get(10, java.util.concurrent.TimeUnit.SECONDS);
    }

    private static ApplicationSnapshot call(final String id, final String callId, final int node)
    {
        final ApplicationSnapshot.DialogSnapshot d = new ApplicationSnapshot.DialogSnapshot("s1", "CONFIRMED", false,
            "main", callId, "s0001a1b2c3d4e5f60", "abc", "sip:a@192.0.2.1", "sip:b@192.0.2.2", "sip:b@192.0.2.2",
            List.of(), 1, 1, null, Map.of());
        return new ApplicationSnapshot(id, "b2bua", node, 1, 1L, 0L, Map.of(), List.of(d), List.of());
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
