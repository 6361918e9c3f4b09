package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sipline.container.replication.GridWriter;
import io.sipline.container.replication.MemoryGrid;

/**
 * Failover between two containers sharing a grid (held in memory): a distributable B2BUA's call set up through node
 * 1 is ended by a BYE that reaches node 2 (the front re-routes a dead node's dialogs): node 2 reads the call from the
 * grid while the BYE's retransmission is absorbed, takes it over, relays the BYE to the callee in the callee's dialog
 * and answers the caller 200; the ended call leaves the grid. A BYE of a call the grid does not hold gets 481. A node
 * started again with its number takes back a call of its earlier life from the grid, but not a call that ended on it
 * while the grid still holds it (a request crossing the end of the call).
 */
class CallTakeoverDispatchTest
{
    @Test
    void shouldTakeOverTheCallOfAnotherNodeAndRelayItsBye() throws Exception
    {
        final MemoryGrid grid = new MemoryGrid();
        final PrintWriter err = new PrintWriter(System.err, true);
        try (ContainerServer first = TestApps.server(TestApps.config().node(1));
            ContainerServer second = TestApps.server(TestApps.config().node(2));
            GridWriter toGrid1 = new GridWriter(grid.member(1), 1, err);
            GridWriter toGrid2 = new GridWriter(grid.member(2), 2, err);
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
    void shouldTakeBackACallOfItsEarlierLifeWhenStartedAgainButNotOneThatEndedSince() throws Exception
    {
        final MemoryGrid grid = new MemoryGrid();
        grid.readsMayGo.countDown();
        final PrintWriter err = new PrintWriter(System.err, true);
        try (SipPeer caller = new SipPeer(null);
            SipPeer callee = new SipPeer(null))
        {
            final Map<String, String> params = Map.of("target", "sip:bob@127.0.0.1:" + callee.port());
            final String to = callThroughAndDie(grid, params, caller, callee);
            final Map<String, byte[]> held = Map.copyOf(grid.entries);
            final Map<String, String> index = Map.copyOf(grid.byCallId);
            final Map<String, Integer> owners = Map.copyOf(grid.owners);
            // node 1 is started again with the same node number; the front sends the call's requests to it
            try (ContainerServer again = TestApps.server(TestApps.config().node(1));
                GridWriter toGrid = new GridWriter(grid.member(1), 1, err))
            {
                again.registry().replication(toGrid, toGrid);
                again.registry().onDeployed(TestApps.application("b2bua", new DispatchSippTest.B2bua(), params,
                    true));
                caller.target(DispatchSippTest.address(again));
                callee.target(DispatchSippTest.address(again));
                caller.send(SipPeer.inDialog("BYE", "restart-1", to, 2, "bye-r1", ""));
                callee.send(SipPeer.okTo(callee.await(m -> m.startsWith("BYE "), "the BYE relayed to the callee")));
                caller.await(SipPeer.response(200, "BYE"), "200 to the caller's BYE from the node started again");
                assertEquals(1, again.takenOver(), "its own call of its earlier life, taken back from the grid");
                assertTrue(TestApps.await(() -> grid.entries.isEmpty()), "the ended call left the grid");

                // a request crossing the end of that call while the grid's removal is still in flight: 481
                grid.entries.putAll(held);
                grid.byCallId.putAll(index);
                grid.owners.putAll(owners);
                final int reads = grid.reads.get();
                caller.send(SipPeer.inDialog("INFO", "restart-1", to, 3, "info-r1", ""));
                caller.await(SipPeer.response(481, "INFO"), "481: the call ended here");
                assertEquals(reads + 1, grid.reads.get(), "the grid was asked");
                grid.entries.keySet().removeAll(held.keySet()); // the removal completes
                grid.byCallId.keySet().removeAll(index.keySet());
                grid.owners.keySet().removeAll(owners.keySet());

                // a call of this node's present life that ended, still in the grid: 481 too
                caller.send(TestApps.request("INVITE", "restart-2"));
                final String out = callee.await(m -> m.startsWith("INVITE "), "the second call's INVITE");
                callee.send(SipPeer.answer(out, "bob2", callee.port()));
                final String to2 = SipPeer.header(caller.await(SipPeer.response(200, "INVITE"), "its 2xx"), "To");
                caller.send(SipPeer.inDialog("ACK", "restart-2", to2, 1, "ack-r2", ""));
                callee.await(m -> m.startsWith("ACK "), "its ACK relayed");
                assertTrue(TestApps.await(() -> grid.holds("restart-2", 2)), "the second call in the grid");
                final Map<String, byte[]> second = Map.copyOf(grid.entries);
                final Map<String, String> secondIndex = Map.copyOf(grid.byCallId);
                final Map<String, Integer> secondOwners = Map.copyOf(grid.owners);
                caller.send(SipPeer.inDialog("BYE", "restart-2", to2, 2, "bye-r2", ""));
                callee.send(SipPeer.okTo(callee.await(m -> m.startsWith("BYE "), "its BYE relayed")));
                caller.await(SipPeer.response(200, "BYE"), "its BYE's 200");
                assertTrue(TestApps.await(() -> grid.entries.isEmpty()), "the second call left the grid");
                grid.entries.putAll(second);
                grid.byCallId.putAll(secondIndex);
                grid.owners.putAll(secondOwners);
                caller.send(SipPeer.inDialog("INFO", "restart-2", to2, 3, "info-r2", ""));
                caller.await(SipPeer.response(481, "INFO"), "481: a call of this life that ended");
                assertEquals(1, again.takenOver(), "neither ended call was made one again");
            }
        }
    }

    /**
     * Sets up call {@code restart-1} through a distributable B2BUA on node 1, waits until both legs are in the grid,
     * and stops node 1 as if it died (its grid writer first, so nothing more of it reaches the grid).
     *
     * @return the To header of the caller's dialog.
     */
    private static String callThroughAndDie(final MemoryGrid grid, final Map<String, String> params,
        final SipPeer caller, final SipPeer callee) throws Exception
    {
        try (ContainerServer first = TestApps.server(TestApps.config().node(1)))
        {
            caller.target(DispatchSippTest.address(first));
            callee.target(DispatchSippTest.address(first));
            try (GridWriter toGrid = new GridWriter(grid.member(1), 1, new PrintWriter(System.err, true)))
            {
                first.registry().replication(toGrid, toGrid);
                first.registry().onDeployed(TestApps.application("b2bua", new DispatchSippTest.B2bua(), params,
                    true));
                caller.send(TestApps.request("INVITE", "restart-1"));
                final String out = callee.await(m -> m.startsWith("INVITE "), "the B2BUA's INVITE to the callee");
                callee.send(SipPeer.answer(out, "bob1", callee.port()));
                final String to = SipPeer.header(caller.await(SipPeer.response(200, "INVITE"), "the 2xx"), "To");
                caller.send(SipPeer.inDialog("ACK", "restart-1", to, 1, "ack-r1", ""));
                callee.await(m -> m.startsWith("ACK "), "the ACK relayed to the callee");
                assertTrue(TestApps.await(() -> grid.holds("restart-1", 2)), "both confirmed legs in the grid");
                return to;
            }
        }
    }

    @Test
    void shouldAnswer481ToARequestOfACallTheGridDoesNotHold() throws Exception
    {
        final MemoryGrid grid = new MemoryGrid();
        grid.readsMayGo.countDown();
        try (ContainerServer server = TestApps.server(TestApps.config().node(2));
            GridWriter toGrid = new GridWriter(grid.member(2), 2, new PrintWriter(System.err, true));
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
