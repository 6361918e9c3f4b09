package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.sipline.container.replication.ApplicationSnapshot;
import io.sipline.container.replication.GridWriter;
import io.sipline.container.replication.SessionReplicator;
import io.sipline.container.replication.SnapshotCodec;

/**
 * Failover between two containers sharing a grid (held in memory): a distributable B2BUA's call set up through node
 * 1 is ended by a BYE that reaches node 2 (the front re-routes a dead node's dialogs): node 2 reads the call from the
 * grid while the BYE's retransmission is absorbed, takes it over, relays the BYE to the callee in the callee's dialog
 * and answers the caller 200; the ended call leaves the grid. A BYE of a call the grid does not hold gets 481.
 */
class CallTakeoverDispatchTest
{
    /** A grid in memory: snapshots as the bytes a real one stores, indexed by Call-ID; reads wait for a latch. */
    static final class MemoryGrid implements SessionReplicator
    {
        final Map<String, byte[]> entries = new ConcurrentHashMap<>();
        final Map<String, String> byCallId = new ConcurrentHashMap<>();
        final CountDownLatch readsMayGo = new CountDownLatch(1);
        final AtomicInteger reads = new AtomicInteger();

        @Override
        public CompletionStage<Void> write(final ApplicationSnapshot snapshot)
        {
            entries.put(snapshot.id(), SnapshotCodec.encode(snapshot));
            snapshot.sessions().forEach(d -> byCallId.put(d.callId(), snapshot.id()));
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public Optional<ApplicationSnapshot> read(final String id)
        {
            return Optional.ofNullable(entries.get(id)).map(SnapshotCodec::decode);
        }

        @Override
        public Optional<ApplicationSnapshot> readByCallId(final String callId)
        {
            reads.incrementAndGet();
            try
            {
                readsMayGo.await(10, TimeUnit.SECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            final String id = byCallId.get(callId);
            return null == id ? Optional.empty() : read(id);
        }

        @Override
        public CompletionStage<Void> remove(final String id)
        {
            entries.remove(id);
            byCallId.values().removeIf(id::equals);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void close()
        {
        }

        /** Whether the call of {@code callId} is in the grid with {@code sessions} confirmed dialogs. */
        boolean holds(final String callId, final int sessions)
        {
            final String id = byCallId.get(callId);
            final Optional<ApplicationSnapshot> s = null == id ? Optional.empty() : read(id);
            return s.isPresent() && sessions == s.get().sessions().stream()
                .filter(d -> "CONFIRMED".equals(d.state())).count();
        }
    }

    @Test
    void shouldTakeOverTheCallOfAnotherNodeAndRelayItsBye() throws Exception
    {
        final MemoryGrid grid = new MemoryGrid();
        final PrintWriter err = new PrintWriter(System.err, true);
        try (ContainerServer first = TestApps.server(TestApps.config().node(1));
            ContainerServer second = TestApps.server(TestApps.config().node(2));
            GridWriter toGrid1 = new GridWriter(grid, 1, err);
            GridWriter toGrid2 = new GridWriter(grid, 2, err);
            SipPeer caller = new SipPeer(DispatchSippTest.address(first));
            SipPeer callee = new SipPeer(DispatchSippTest.address(first)))
        {
            first.registry().replication(toGrid1, toGrid1);
            second.registry().replication(toGrid2, toGrid2);
            final Map<String, String> params = Map.of("target", "sip:bob@127.0.0.1:" + callee.port());
            first.registry().onDeployed(TestApps.application("b2bua", new DispatchSippTest.B2bua(), params, true));
            second.registry().onDeployed(TestApps.application("b2bua", new DispatchSippTest.B2bua(), params, true));

            final String callId = "takeover-1";
            caller.send(TestApps.request("INVITE", callId));
            final String out = callee.await(m -> m.startsWith("INVITE "), "the B2BUA's INVITE to the callee");
            callee.send(SipPeer.answer(out, "bob1", callee.port()));
            final String ok = caller.await(SipPeer.response(200, "INVITE"), "the 2xx relayed to the caller");
            final String to = SipPeer.header(ok, "To");
            caller.send(SipPeer.inDialog("ACK", callId, to, 1, "ack-1", ""));
            callee.await(m -> m.startsWith("ACK "), "the ACK relayed to the callee");
            assertTrue(TestApps.await(() -> grid.holds(callId, 2)), "both confirmed legs in the grid");

            // node 1 is dead for the front: the caller's BYE reaches node 2, which never saw the call
            caller.target(DispatchSippTest.address(second));
            final String bye = SipPeer.inDialog("BYE", callId, to, 2, "bye-1", "");
            caller.send(bye);
            assertTrue(TestApps.await(() -> 1 == grid.reads.get()), "node 2 reads the call from the grid");
            caller.send(bye); // RFC 3261 §17.2.2: a retransmission while the read is pending, absorbed
            assertNull(caller.within(m -> m.startsWith("SIP/2.0 "), 200), "no answer before the call is read");
            grid.readsMayGo.countDown();

            final String relayed = callee.await(m -> m.startsWith("BYE "), "the BYE relayed to the callee");
            assertEquals(SipPeer.header(out, "Call-ID"), SipPeer.header(relayed, "Call-ID"), "the callee's dialog");
            assertTrue(SipPeer.header(relayed, "To").endsWith(";tag=bob1"), relayed);
            assertEquals(SipPeer.header(out, "From"), SipPeer.header(relayed, "From"), "node 1's local tag");
            final long inviteCSeq = Long.parseLong(SipPeer.header(out, "CSeq").split(" ")[0]);
            assertEquals((inviteCSeq + 1) + " BYE", SipPeer.header(relayed, "CSeq"), "§12.2.1.1: the next CSeq");
            assertTrue(relayed.startsWith("BYE sip:bob1@127.0.0.1:" + callee.port()), "the callee's Contact");
            assertTrue(SipPeer.header(relayed, "Via").contains(":" + DispatchSippTest.address(second).getPort()),
                "sent by node 2: " + relayed);
            callee.target(DispatchSippTest.address(second)); // its Via: the response goes back to node 2
            callee.send(SipPeer.okTo(relayed));
            final String byeOk = caller.await(SipPeer.response(200, "BYE"), "200 to the caller's BYE from node 2");
            assertEquals(to, SipPeer.header(byeOk, "To"), "the dialog's tags as node 1 wrote them");

            assertEquals(1, second.takenOver());
            assertEquals(1, grid.reads.get(), "the retransmission read nothing more");
            assertTrue(TestApps.await(() -> 0 == second.applicationSessions()), "the call ended on node 2");
            assertTrue(TestApps.await(() -> grid.entries.isEmpty()), "the ended call left the grid");
            assertEquals(0, second.counters().servletErrors.get());
        }
    }

    @Test
    void shouldAnswer481ToARequestOfACallTheGridDoesNotHold() throws Exception
    {
        final MemoryGrid grid = new MemoryGrid();
        grid.readsMayGo.countDown();
        try (ContainerServer server = TestApps.server(TestApps.config().node(2));
            GridWriter toGrid = new GridWriter(grid, 2, new PrintWriter(System.err, true));
            SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().replication(toGrid, toGrid);
            server.registry().onDeployed(TestApps.application("b2bua", new DispatchSippTest.B2bua(),
                Map.of("target", "sip:bob@127.0.0.1:9"), true));
            // a To tag node 1 made (shard 0): a call of another node, unknown to the grid
            caller.send(SipPeer.inDialog("BYE", "takeover-unknown", "<sip:service@127.0.0.1>;tag=s00010000000000abc",
                2, "bye-2", ""));
            caller.await(SipPeer.response(481, "BYE"), "481 once the grid said it has no such call");
            assertEquals(1, grid.reads.get());
            assertEquals(0, server.takenOver());
        }
    }
}
