package io.sipline.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;

import io.sipline.container.replication.ApplicationSnapshot;
import io.sipline.container.replication.ApplicationSnapshot.DialogSnapshot;
import io.sipline.container.replication.ApplicationSnapshot.TimerSnapshot;
import io.sipline.container.replication.ReplicationProvider;
import io.sipline.container.replication.SnapshotCodec;

/**
 * Grid members on loopback: a snapshot written on one is read on another, and with a member killed (SIGKILL, in a
 * child JVM) every snapshot is still there, from the backup owner; the survivors are told the member left, each of
 * its sessions is listed by exactly one of them, and a claim of a session is won by one survivor only.
 */
class InfinispanReplicatorTest
{
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final long JOIN_MS = 60_000;

    @Test
    void shouldBeFoundByTheContainerThroughServiceLoader()
    {
        final Optional<ReplicationProvider> provider = ReplicationProvider.find(getClass().getClassLoader());
        assertTrue(provider.isPresent());
        assertTrue(provider.get().name().startsWith("Infinispan "), provider.get().name());
        assertEquals(1, ServiceLoader.load(ReplicationProvider.class).stream().count());
    }

    @Test
    void shouldReadOnOneMemberWhatAnotherWroteAndKeepItWhenAMemberIsKilled() throws Exception
    {
        final int[] ports = {freePort(), freePort(), freePort()};
        final String cluster = "sipline-test-" + ProcessHandle.current().pid() + "-" + ports[0];
        Process third = null;
        try (InfinispanReplicator a = InfinispanReplicator.start(cluster, at(ports[0]), List.of(at(ports[1]),
                at(ports[2])), 1);
            InfinispanReplicator b = InfinispanReplicator.start(cluster, at(ports[1]), List.of(at(ports[0]),
                at(ports[2])), 2))
        {
            third = member(cluster, 3, ports[2], ports[0], ports[1]);
            assertTrue(await(() -> a.members().size() == 3 && b.members().size() == 3, JOIN_MS),
                "three members: " + a.members() + " / " + b.members());

            final int calls = 60;
            final long sent0 = a.bytesSent();
            long payload = 0;
            for (int i = 0; i < calls; i++)
            {
                payload += payload(call("app-" + i, i));
                a.write(call("app-" + i, i)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            assertEquals(payload, a.bytesWritten());
            assertEquals(0, b.bytesWritten(), "counted by the member that wrote");
            assertTrue(a.bytesSent() - sent0 > payload / 2, "the transport counted what it sent (the writer owns "
                + "some entries, so not every byte leaves it): " + (a.bytesSent() - sent0) + " for " + payload);
            final ApplicationSnapshot read = b.read("app-7").orElseThrow();
            assertEquals("b2bua", read.application());
            assertEquals(7, read.version());
            assertEquals(2, read.sessions().size());
            assertEquals("s0001ffeeddccbbaa9", read.sessions().get(1).localTag());
            assertArrayEquals(new byte[] {7}, read.attributes().get("legs"));
            assertEquals(1, read.timers().size());
            assertEquals("app-7", b.readByCallId("app-7@192.0.2.1").orElseThrow().id(),
                "found by the caller's Call-ID");
            assertEquals("app-7", a.readByCallId("s0001deadbeef00123-7@192.0.2.10").orElseThrow().id(),
                "found by the callee leg's Call-ID");

            final int orphans = 30; // sessions the third node owns: it wrote them last
            for (int i = 0; i < orphans; i++)
            {
                a.write(call("orphan-" + i, i, 3)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            assertEquals(3, b.owner("orphan-4"), "the writer owns what it wrote");
            assertEquals(1, b.owner("app-4"));
            assertEquals(-1, b.owner("never-written"));
            final List<Integer> leftA = new java.util.concurrent.CopyOnWriteArrayList<>();
            final List<Integer> leftB = new java.util.concurrent.CopyOnWriteArrayList<>();
            a.onMemberLeft(leftA::add);
            b.onMemberLeft(leftB::add);
            assertTrue(a.member(3) && b.member(1) && !a.member(4));

            final String thirdName = "sipline-node-3";
            final long ownedByThird = countPrimary(a, calls, thirdName);
            assertTrue(ownedByThird > 0, "some sessions have the third member as their primary owner");

            third.destroyForcibly();
            assertTrue(third.waitFor(10, TimeUnit.SECONDS));
            assertTrue(await(() -> a.members().size() == 2 && b.members().size() == 2, JOIN_MS),
                "the killed member left the view: " + a.members());
            for (int i = 0; i < calls; i++)
            {
                final ApplicationSnapshot s = b.read("app-" + i).orElseThrow(
                    () -> new AssertionError("a session lost with one member"));
                assertEquals(i, s.version());
                assertEquals("app-" + i, a.read("app-" + i).orElseThrow().id());
            }
            assertEquals(0, countPrimary(a, calls, thirdName), "the survivors own everything now");
            assertTrue(await(() -> leftA.contains(3) && leftB.contains(3), JOIN_MS), "both survivors told: "
                + leftA + " / " + leftB);
            assertTrue(!a.member(3) && a.member(2), "the view without the third node");
            final List<String> byA = a.ownedBy(3);
            final List<String> byB = b.ownedBy(3);
            assertEquals(orphans, byA.size() + byB.size(), "each of its sessions has one survivor deciding for it: "
                + byA + " / " + byB);
            assertTrue(byA.stream().noneMatch(byB::contains), "no session has two");
            for (final String id : byA)
            {
                assertTrue(a.claim(id, 3, 1), "the survivor deciding for " + id + " claims it");
                assertTrue(!b.claim(id, 3, 2), "the other survivor's claim of the same session fails");
                assertEquals(1, b.owner(id));
                assertTrue(a.claim(id, 3, 1), "a claim repeated by its winner holds");
            }
            assertTrue(a.ownedBy(3).isEmpty(), "claimed sessions are no longer the dead node's");
            claimTheOtherShareAsOneBatch(a, b, byA, byB);

            assertEquals("app-3", a.readByCallId("app-3@192.0.2.1").orElseThrow().id(), "the index survived too");
            b.remove("app-3").toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertTrue(a.read("app-3").isEmpty(), "removed on one member, gone on the other");
            assertTrue(a.readByCallId("app-3@192.0.2.1").isEmpty(), "its Call-IDs leave the index with it");
            assertTrue(a.readByCallId("s0001deadbeef00123-3@192.0.2.10").isEmpty());
            assertTrue(a.read("never-written").isEmpty());
        }
        finally
        {
            if (null != third)
            {
                third.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * The second survivor's share claimed as one batch ({@code claimAll}) with the first survivor's share mixed in, one
     * of its own claimed by the first survivor before (a request of it got there first): it gets all of its share but
     * that one, and reads the whole batch in one call.
     */
    private static void claimTheOtherShareAsOneBatch(final InfinispanReplicator a, final InfinispanReplicator b,
        final List<String> byA, final List<String> byB)
    {
        if (byB.isEmpty())
        {
            return;
        }
        final List<String> batch = new java.util.ArrayList<>(byB);
        assertTrue(a.claim(batch.getFirst(), 3, 1), "the first survivor got a request of it first");
        batch.addAll(byA);
        assertEquals(byB.subList(1, byB.size()), b.claimAll(batch, 3, 2), "all of its share but the one claimed "
            + "before, and none of the first survivor's");
        assertEquals(batch.size(), b.readAll(batch).size(), "every session read in one call");
        assertTrue(b.ownedBy(3).isEmpty());
    }

    private static long countPrimary(final InfinispanReplicator member, final int calls, final String name)
    {
        long n = 0;
        for (int i = 0; i < calls; i++)
        {
            if (member.primaryOwner("app-" + i).equals(name))
            {
                n++;
            }
        }
        return n;
    }

    /** The session's entry, its owner record and one index entry per dialog: keys and values, in bytes. */
    private static long payload(final ApplicationSnapshot s)
    {
        return s.id().length() + SnapshotCodec.encode(s).length + "owner:".length() + s.id().length() + Integer.BYTES
            + s.sessions().stream().mapToLong(d -> "call:".length() + d.callId().length() + s.id().length()).sum();
    }

    private static ApplicationSnapshot call(final String id, final int version)
    {
        return call(id, version, 1);
    }

    private static ApplicationSnapshot call(final String id, final int version, final int node)
    {
        final DialogSnapshot caller = new DialogSnapshot("s1", "CONFIRMED", false, "main", id + "@192.0.2.1",
            "s0001a1b2c3d4e5f60", "1928301774", "sip:service@192.0.2.10", "sip:alice@example.com",
            "sip:alice@192.0.2.1:5060", List.of("<sip:192.0.2.100;lr>"), 1, 2, "s2", Map.of());
        final DialogSnapshot callee = new DialogSnapshot("s2", "CONFIRMED", true, "main",
            "s0001deadbeef00123-" + version + "@192.0.2.10",
            "s0001ffeeddccbbaa9", "as83kd", "sip:alice@example.com", "sip:bob@example.org", "sip:bob@192.0.2.2",
            List.of(), 2, -1, "s1", Map.of());
        return new ApplicationSnapshot(id, "b2bua", node, version, 1_700_000_000_000L, 0,
            Map.of("legs", new byte[] {(byte)version}), List.of(caller, callee),
            List.of(new TimerSnapshot("t1", 1_700_000_060_000L, 0, false, null)));
    }

    /** A member in a child JVM (the test's own class path), returned once it printed that it joined. */
    private static Process member(final String cluster, final int node, final int port, final int... peers)
        throws IOException, InterruptedException
    {
        final List<String> cmd = new java.util.ArrayList<>(List.of(
            ProcessHandle.current().info().command().orElseThrow(), "-Xmx256m",
            "-Djava.net.preferIPv4Stack=true", "-cp", System.getProperty("java.class.path"),
            GridMemberMain.class.getName(), cluster, Integer.toString(node), Integer.toString(port)));
        for (final int p : peers)
        {
            cmd.add(Integer.toString(p));
        }
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final StringBuilder seen = new StringBuilder();
        final Thread reader = Thread.ofPlatform().daemon().start(() ->
        {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8)))
            {
                for (String line = in.readLine(); null != line; line = in.readLine())
                {
                    synchronized (seen)
                    {
                        seen.append(line).append('\n');
                    }
                }
            }
            catch (final IOException e)
            {
                // the process was killed
            }
        });
        final boolean joined = await(() ->
        {
            synchronized (seen)
            {
                return seen.indexOf("joined") >= 0 || !p.isAlive();
            }
        }, JOIN_MS);
        synchronized (seen)
        {
            assertTrue(joined && p.isAlive(), "the child member did not join:\n" + seen);
        }
        assertTrue(reader.isAlive() || !p.isAlive());
        return p;
    }

    private static InetSocketAddress at(final int port)
    {
        return new InetSocketAddress(LOOPBACK, port);
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK))
        {
            return s.getLocalPort();
        }
    }

    private static boolean await(final BooleanSupplier condition, final long timeoutMs) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (System.nanoTime() < deadline)
        {
            if (condition.getAsBoolean())
            {
                return true;
            }
            Thread.sleep(50);
        }
        return condition.getAsBoolean();
    }
}
