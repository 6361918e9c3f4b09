package io.sipline.media.ice;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link IceAgent} pairs over a {@link SimulatedNetwork}: connectivity of full and lite agents, pacing, reflexive and
 * relayed candidates, trickle, consent, restart and the SDP description. Roles, nomination and failure are in
 * {@link IceAgentNominationTest}.
 */
class IceAgentTest extends IceAgentTestSupport
{
    @Test
    void shouldConnectTwoFullAgentsWithTwoComponents() throws IceParseException
    {
        final Side a = new Side(false, true, 2, "192.0.2.1:1000", "192.0.2.1:1001");
        final Side b = new Side(false, false, 2, "192.0.2.2:2000", "192.0.2.2:2001");
        a.agent.gather(null, null, null, null, 0);
        b.agent.gather(null, null, null, null, 0);
        assertTrue(a.gathered && b.gathered);
        exchange(a, b, 0);
        net.runUntil(() -> completed(a) && completed(b), 5_000);
        assertEquals(new InetSocketAddress("192.0.2.2", 2000), a.agent.selectedRemote(1));
        assertEquals(new InetSocketAddress("192.0.2.2", 2001), a.agent.selectedRemote(2));
        assertEquals(new InetSocketAddress("192.0.2.1", 1000), b.agent.selectedRemote(1));
        assertEquals(new InetSocketAddress("192.0.2.1", 1001), b.agent.selectedRemote(2));
        assertTrue(a.agent.controlling());
        assertFalse(b.agent.controlling());
        assertConnected(a, b, 2);
    }

    @Test
    void shouldPaceChecksByTa() throws IceParseException
    {
        // Distinct addresses, so distinct foundations: no pair waits frozen behind another of its foundation.
        final Side a = new Side(false, true, 1, "192.0.2.1:1000", "192.0.2.3:1000", "192.0.2.5:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000", "192.0.2.4:2000");
        a.agent.localCredentials("aaaa", "aaaaaaaaaaaaaaaaaaaaaa");
        // Block everything so that no check succeeds: only pacing is seen.
        net.blockAllFrom(new InetSocketAddress("192.0.2.2", 2000));
        net.blockAllFrom(new InetSocketAddress("192.0.2.4", 2000));
        exchange(a, b, 0);
        assertEquals(6, a.agent.checkList().size(), "3 x 2 pairs");
        net.run(1);
        final long first = a.agent.checksSent();
        assertEquals(1, first, "one check at once");
        net.run(49);
        assertEquals(1, a.agent.checksSent(), "none before Ta");
        net.run(1);
        assertEquals(2, a.agent.checksSent(), "the second after Ta = 50 ms");
        net.run(250);
        assertEquals(6, a.agent.checksSent(), "one per Ta until every pair has been tried");
    }

    /**
     * RFC 8445 §14.2: "the combination of all transactions from all agents ... MUST NOT be sent more often than once
     * every 5 ms". Three calls on one media thread (one {@link IceContext}), each caller with three pairs to check
     * and nothing answering: their first checks leave 5 ms apart, not together, and each caller still keeps its own
     * Ta. A fourth caller on another thread (its own context) is not held back.
     */
    @Test
    void shouldPaceTheChecksOfAllAgentsOfAThreadFiveMillisecondsApart() throws IceParseException
    {
        final IceContext thread = new IceContext();
        final List<Side> callers = new ArrayList<>();
        for (int i = 0; i < 3; i++)
        {
            // Distinct addresses, so distinct foundations: no pair waits frozen behind another of its foundation.
            final Side caller = new Side(thread, false, true, 1, "10." + i + ".0.1:1000", "10." + i + ".0.2:1000",
                "10." + i + ".0.3:1000");
            final Side callee = new Side(false, false, 1, "198.51.100." + (10 + i) + ":2000");
            net.blockAllFrom(new InetSocketAddress("198.51.100." + (10 + i), 2000));
            exchange(caller, callee, 0);
            callers.add(caller);
        }
        final Side other = new Side(false, true, 1, "10.9.0.1:1000", "10.9.0.2:1000", "10.9.0.3:1000");
        final Side otherCallee = new Side(false, false, 1, "198.51.100.20:2000");
        net.blockAllFrom(new InetSocketAddress("198.51.100.20", 2000));
        exchange(other, otherCallee, 0);

        final long[] sent = new long[3];
        final StringBuilder times = new StringBuilder();
        for (int ms = 1; ms <= 120; ms++)
        {
            net.run(1);
            for (int i = 0; i < 3; i++)
            {
                final long now = callers.get(i).agent.checksSent();
                if (now != sent[i])
                {
                    times.append(net.now()).append(':').append(i).append(' ');
                    sent[i] = now;
                }
            }
        }
        assertEquals("1:0 6:1 11:2 51:0 56:1 61:2 101:0 106:1 111:2 ", times.toString(),
            "first checks 5 ms apart, then each caller every Ta = 50 ms");
        assertEquals(3, other.agent.checksSent(), "the other thread's caller at 1, 51 and 101 ms, unaffected");
    }

    /**
     * RFC 8445 §14.2 with RFC 7675: consent checks are transactions too. Forty connected calls on one media thread
     * send theirs every 4-6 s each, at random; for 30 s no two of them leave within 5 ms of each other (at about 8
     * per second, unpaced ones would collide some 20 times).
     */
    @Test
    void shouldPaceTheConsentChecksOfAThread() throws IceParseException
    {
        final IceContext thread = new IceContext();
        final List<Side> callers = new ArrayList<>();
        final List<Side> callees = new ArrayList<>();
        for (int i = 0; i < 40; i++)
        {
            final Side caller = new Side(thread, false, true, 1, "10.1." + i + ".1:1000");
            final Side callee = new Side(false, false, 1, "198.51.100." + (i + 1) + ":2000");
            exchange(caller, callee, 0);
            callers.add(caller);
            callees.add(callee);
        }
        net.runUntil(() -> callers.stream().allMatch(IceAgentTest::completed)
            && callees.stream().allMatch(IceAgentTest::completed), 5_000);
        final long[] sent = new long[callers.size()];
        for (int i = 0; i < sent.length; i++)
        {
            sent[i] = callers.get(i).agent.checksSent();
        }
        long last = Long.MIN_VALUE / 2;
        long shortest = Long.MAX_VALUE;
        int checks = 0;
        for (int ms = 0; ms < 30_000; ms++)
        {
            net.run(1);
            for (int i = 0; i < sent.length; i++)
            {
                final long now = callers.get(i).agent.checksSent();
                if (now != sent[i])
                {
                    checks += (int) (now - sent[i]);
                    shortest = Math.min(shortest, net.now() - last);
                    last = net.now();
                    sent[i] = now;
                }
            }
        }
        assertTrue(checks >= 40 * 5, "every call kept its consent: " + checks);
        assertTrue(shortest >= 5, "two consent checks of the thread " + shortest + " ms apart");
        assertTrue(callers.stream().allMatch(IceAgentTest::completed));
    }

    /**
     * RFC 8445 §14.1/§14.2: gathering requests are transactions too, paced with the thread's checks: three hosts
     * behind NATs get their server-reflexive candidates from requests sent 0, 5 and 10 ms after gathering starts
     * (answers 10 ms later), not all at once.
     */
    @Test
    void shouldPaceGatheringRequestsFiveMillisecondsApart()
    {
        final InetSocketAddress stun = new InetSocketAddress("198.51.100.100", 3478);
        net.stunServer(stun);
        for (int i = 0; i < 3; i++)
        {
            net.nat(new InetSocketAddress("10.0.0." + (i + 1), 1000), new InetSocketAddress("203.0.113.1", 61000 + i));
        }
        final Side a = new Side(false, true, 1, "10.0.0.1:1000", "10.0.0.2:1000", "10.0.0.3:1000");
        a.agent.gather(stun, null, null, null, 0);
        assertEquals(3, a.trickled.size(), "the hosts");
        final StringBuilder times = new StringBuilder();
        for (int ms = 1; ms <= 40; ms++)
        {
            final int before = a.trickled.size();
            net.run(1);
            if (a.trickled.size() != before)
            {
                times.append(net.now()).append(':').append(a.trickled.get(a.trickled.size() - 1).port()).append(' ');
            }
        }
        assertEquals("10:61000 15:61001 20:61002 ", times.toString());
        assertTrue(a.gathered);
    }

    /**
     * RFC 8445 §14.2 / RFC 8839 §5.5: a Ta other than 50 ms is proposed as {@code a=ice-pacing}, and both agents use
     * the larger of the two proposals (50 ms for a side that proposes none).
     */
    @Test
    void shouldProposeTaAndUseTheLargerOfBoth() throws IceParseException
    {
        final Side a = new Side(false, true, 1, "10.0.0.1:1000", "10.0.0.2:1000", "10.0.0.3:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        a.agent.ta(20);
        b.agent.ta(100);
        assertTrue(a.agent.localDescription().contains("a=ice-pacing:20\r\n"), a.agent.localDescription());
        assertTrue(b.agent.localDescription().contains("a=ice-pacing:100\r\n"));
        assertFalse(new Side(false, false, 1, "192.0.2.9:2000").agent.localDescription().contains("ice-pacing"),
            "50 ms, the default, is not written");
        net.blockAllFrom(new InetSocketAddress("192.0.2.2", 2000));
        exchange(a, b, 0);
        net.run(1);
        assertEquals(1, a.agent.checksSent());
        net.run(99);
        assertEquals(1, a.agent.checksSent(), "not at 20 ms: B asked for 100");
        net.run(1);
        assertEquals(2, a.agent.checksSent(), "at 100 ms");

        final Side c = new Side(false, true, 1, "10.0.1.1:1000", "10.0.1.2:1000");
        final Side d = new Side(false, false, 1, "192.0.2.3:2000");
        c.agent.ta(20);
        net.blockAllFrom(new InetSocketAddress("192.0.2.3", 2000));
        exchange(c, d, net.now());
        final long start = net.now();
        net.runUntil(() -> 2 == c.agent.checksSent(), 200);
        assertEquals(51, net.now() - start, "D proposed nothing: 50 ms, not C's 20");
    }

    @Test
    void shouldConnectOverIpv6() throws IceParseException
    {
        final Side a = new Side(false, true, 2, "2001:db8::1:1000", "2001:db8::1:1001");
        final Side b = new Side(false, false, 2, "2001:db8::2:2000", "2001:db8::2:2001");
        assertTrue(a.agent.localDescription().contains(" 2001:db8:0:0:0:0:0:1 1000 typ host")
            || a.agent.localDescription().contains(" 2001:db8::1 1000 typ host"), a.agent.localDescription());
        exchange(a, b, 0);
        net.runUntil(() -> completed(a) && completed(b), 5_000);
        assertEquals(new InetSocketAddress("2001:db8::2", 2001), a.agent.selectedRemote(2));
        assertConnected(a, b, 2);
    }

    @Test
    void shouldConnectWithRtcpMuxOnOneComponent() throws IceParseException
    {
        final Side a = new Side(false, true, 1, "192.0.2.1:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        exchange(a, b, 0);
        net.runUntil(() -> completed(a) && completed(b), 5_000);
        assertConnected(a, b, 1);
    }

    @Test
    void shouldConnectAFullAgentToALiteOne() throws IceParseException
    {
        final Side a = new Side(false, false, 2, "192.0.2.1:1000", "192.0.2.1:1001");
        final Side lite = new Side(true, false, 2, "192.0.2.2:2000", "192.0.2.2:2001");
        lite.agent.gather(null, null, null, null, 0);
        assertTrue(lite.agent.localDescription().contains("a=ice-lite\r\n"));
        exchange(a, lite, 0);
        assertTrue(a.agent.controlling(), "§6.1.1: the full agent controls a lite peer");
        net.runUntil(() -> completed(a) && completed(lite), 5_000);
        assertEquals(0, lite.agent.checksSent(), "a lite agent never checks");
        assertConnected(a, lite, 2);
    }

    /**
     * RFC 8445 §11: a lite agent (no consent checks of its own) sends a Binding Indication with only FINGERPRINT on a
     * selected pair that carried nothing for Tr = 15 s, and none while it sends data; the full peer ignores it.
     */
    @Test
    void shouldKeepALiteAgentsPairAliveWithBindingIndications() throws IceParseException
    {
        final Side a = new Side(false, false, 1, "192.0.2.1:1000");
        final Side lite = new Side(true, false, 1, "192.0.2.2:2000");
        exchange(a, lite, 0);
        net.runUntil(() -> completed(a) && completed(lite), 5_000);
        final int[] indications = new int[1];
        final io.sipline.media.stun.StunMessageFlyweight message = new io.sipline.media.stun.StunMessageFlyweight();
        net.recordInto((socket, from, bytes) ->
        {
            if (from.equals(new InetSocketAddress("192.0.2.2", 2000)) && message.wrap(bytes, 0, bytes.length) >= 0
                && io.sipline.media.stun.StunMessageType.BINDING_INDICATION == message.messageType())
            {
                assertEquals(1, message.attributeCount(), "FINGERPRINT only");
                assertEquals(io.sipline.media.stun.StunResult.VERIFIED,
                    message.verifyFingerprint(new io.sipline.media.stun.StunIntegrity()));
                indications[0]++;
            }
        });
        net.run(31_000, 10);
        assertEquals(2, indications[0], "at 15 s and 30 s of silence");
        for (int i = 0; i < 8; i++)
        {
            sendData(lite, 1, "rtp" + i);
            net.run(5_000, 10);
        }
        assertEquals(2, indications[0], "none while data flows every 5 s");
        assertEquals(8, a.data.size(), "the indications are not data: " + a.data);
        assertTrue(completed(a));
    }

    @Test
    void shouldUseServerReflexiveAndPeerReflexiveCandidatesThroughANat() throws IceParseException
    {
        final InetSocketAddress stun = new InetSocketAddress("198.51.100.100", 3478);
        net.stunServer(stun);
        final InetSocketAddress inside = new InetSocketAddress("10.0.0.1", 1000);
        final InetSocketAddress outside = new InetSocketAddress("203.0.113.1", 61000);
        net.nat(inside, outside);
        final Side a = new Side(false, true, 1, "10.0.0.1:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        a.agent.gather(stun, null, null, null, 0);
        assertFalse(a.gathered);
        net.runUntil(() -> a.gathered, 1_000);
        assertEquals(2, a.trickled.size(), "host, then server-reflexive");
        assertEquals(IceCandidateType.SERVER_REFLEXIVE, a.trickled.get(1).type());
        assertTrue(a.agent.localDescription().contains(" 203.0.113.1 61000 typ srflx raddr 10.0.0.1 rport 1000"),
            a.agent.localDescription());
        b.agent.gather(null, null, null, null, 0);
        exchange(a, b, net.now());
        net.runUntil(() -> completed(a) && completed(b), 5_000);
        assertEquals(outside, b.agent.selectedRemote(1));
        assertConnected(a, b, 1);
    }

    /**
     * RFC 8445 §7.2.5.3.2: behind the NAT, A's checks leave from its host base (the (srflx, B) pair is pruned from
     * the check list, §6.1.2.4) and B answers with A's public address, which is A's server-reflexive candidate: the
     * valid pair is (srflx, B host), in the valid list, generated by (host, B host), ranked with the srflx priority
     * (§6.1.2.3), nominated together with its generating pair (§7.2.5.3.4), and selected; data still leaves the host
     * socket (the NAT rewrites it).
     */
    @Test
    void shouldMakeTheServerReflexiveCandidateTheValidPairsLocalOne() throws IceParseException
    {
        final InetSocketAddress stun = new InetSocketAddress("198.51.100.100", 3478);
        net.stunServer(stun);
        net.nat(new InetSocketAddress("10.0.0.1", 1000), new InetSocketAddress("203.0.113.1", 61000));
        final Side a = new Side(false, true, 1, "10.0.0.1:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        a.agent.gather(stun, null, null, null, 0);
        net.runUntil(() -> a.gathered, 1_000);
        b.agent.gather(null, null, null, null, 0);
        exchange(a, b, net.now());
        net.runUntil(() -> completed(a) && completed(b), 5_000);

        final IceCandidate host = a.agent.localCandidate(0);
        final IceCandidate srflx = a.agent.localCandidate(1);
        assertEquals(IceCandidateType.SERVER_REFLEXIVE, srflx.type());
        assertEquals(2, a.agent.localCandidateCount(),
            "the mapped address is a known candidate: no peer-reflexive one");
        final IceCheckList list = a.agent.checkList();
        for (int p = 0; p < list.size(); p++)
        {
            assertEquals(0, list.localIndex(p), "the check list pairs only the host base");
        }
        final IceValidList valid = a.agent.validList();
        final int entry = valid.find(1, 0);
        assertTrue(entry >= 0, "valid pair (srflx, B host)");
        assertEquals(-1, valid.find(0, 0), "(host, B host) is checked but is not the valid pair");
        assertEquals(0, valid.generatingLocal(entry));
        final int generating = list.find(0, 0);
        assertEquals(IcePairState.SUCCEEDED, list.state(generating));
        final IceCandidate remote = a.agent.remoteCandidate(0);
        final long expected = IcePriority.pair(true, srflx.priority(), remote.priority());
        assertEquals(expected, valid.priority(entry, true));
        assertNotEquals(list.priority(generating), expected, "the host pair ranks with the host priority");

        assertTrue(valid.nominated(entry), "the valid pair is nominated");
        assertNotEquals(0, list.flags(generating) & IceAgent.FLAG_NOMINATED, "and so is its generating pair");
        assertSame(srflx, a.agent.selectedLocal(1));
        assertEquals(expected, a.agent.selectedPriority(1));
        assertEquals(new InetSocketAddress("192.0.2.2", 2000), a.agent.selectedRemote(1));

        // B, not behind a NAT: its valid pair is its checked pair (host, A's srflx), nominated by A's check.
        final IceValidList validB = b.agent.validList();
        final int entryB = validB.findGenerated(0, 1);
        assertTrue(entryB >= 0, validB.size() + " valid pairs");
        assertEquals(0, validB.localIndex(entryB));
        assertEquals(IceCandidateType.SERVER_REFLEXIVE, validB.remote(entryB).type());
        assertTrue(validB.nominated(entryB));
        assertNotEquals(0, b.agent.checkList().flags(b.agent.checkList().find(0, 1)) & IceAgent.FLAG_NOMINATED);
        assertSame(b.agent.localCandidate(0), b.agent.selectedLocal(1));
        assertEquals(new InetSocketAddress("203.0.113.1", 61000), b.agent.selectedRemote(1));
        assertSame(host, a.agent.localCandidate(0));
        assertConnected(a, b, 1);
    }

    @Test
    void shouldRelayWhenTheHostsCannotReachEachOther() throws IceParseException
    {
        final InetSocketAddress turnAddress = new InetSocketAddress("198.51.100.200", 3478);
        final SimulatedTurnServer turn = new SimulatedTurnServer(net, turnAddress, "user", "pass");
        final Side a = new Side(false, true, 2, "192.0.2.1:1000", "192.0.2.1:1001");
        final Side b = new Side(false, false, 2, "192.0.2.2:2000", "192.0.2.2:2001");
        for (final Side s : List.of(a, b))
        {
            s.agent.gather(null, turnAddress, "user", "pass", net.now());
        }
        net.runUntil(() -> a.gathered && b.gathered, 2_000);
        assertEquals(4, turn.allocations());
        for (final String host : List.of("192.0.2.1:1000", "192.0.2.1:1001", "192.0.2.2:2000", "192.0.2.2:2001"))
        {
            for (final String other : List.of("192.0.2.1:1000", "192.0.2.1:1001", "192.0.2.2:2000", "192.0.2.2:2001"))
            {
                final String[] h = host.split(":");
                final String[] o = other.split(":");
                net.block(new InetSocketAddress(h[0], Integer.parseInt(h[1])),
                    new InetSocketAddress(o[0], Integer.parseInt(o[1])));
            }
        }
        exchange(a, b, net.now());
        net.runUntil(() -> completed(a) && completed(b), 10_000);
        for (int c = 1; c <= 2; c++)
        {
            assertTrue(IceCandidateType.RELAYED == a.agent.selectedLocal(c).type()
                || IceCandidateType.RELAYED == b.agent.selectedLocal(c).type());
        }
        assertConnected(a, b, 2);
        a.agent.close(net.now());
        net.runUntil(() -> a.agent.turnClient(1).state() == io.sipline.media.turn.TurnClient.STATE_CLOSED, 1_000);
    }

    /**
     * RFC 8445 §8.3.1: three seconds after completion the candidates of no selected pair are freed, and the TURN
     * allocation the selected pair does not use is deleted (RFC 8656 §7: Refresh with LIFETIME 0). A, behind a NAT
     * with a STUN and a TURN server, selects (srflx, B host): its relayed candidate goes, its allocation is deleted
     * and its TURN client dropped; its host (its socket) and srflx (the selected pair's local) stay, and data and
     * consent go on. Before, the allocation was refreshed until close and all three candidates were kept.
     */
    @Test
    void shouldFreeTheCandidatesOfNoSelectedPairThreeSecondsAfterCompletion() throws IceParseException
    {
        final InetSocketAddress stun = new InetSocketAddress("198.51.100.100", 3478);
        final InetSocketAddress turnAddress = new InetSocketAddress("198.51.100.200", 3478);
        net.stunServer(stun);
        final SimulatedTurnServer turn = new SimulatedTurnServer(net, turnAddress, "user", "pass");
        net.nat(new InetSocketAddress("10.0.0.1", 1000), new InetSocketAddress("203.0.113.1", 61000));
        final Side a = new Side(false, true, 1, "10.0.0.1:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        a.agent.gather(stun, turnAddress, "user", "pass", 0);
        net.runUntil(() -> a.gathered, 1_000);
        b.agent.gather(null, null, null, null, 0);
        exchange(a, b, net.now());
        net.runUntil(() -> completed(a) && completed(b), 5_000);
        final long completedAt = net.now();
        assertEquals(3, a.agent.localCandidateCount(), "host, srflx, relayed");
        assertEquals(3, b.agent.remoteCandidateCount());
        assertEquals(1, turn.liveAllocations());
        final IceCandidate srflx = a.agent.selectedLocal(1);
        assertEquals(IceCandidateType.SERVER_REFLEXIVE, srflx.type());

        net.run(completedAt + IceAgent.FREE_DELAY_MS - 100 - net.now());
        assertEquals(3, a.agent.localCandidateCount(), "kept for the RFC's three seconds");
        assertEquals(1, turn.liveAllocations());

        net.run(200);
        assertEquals(2, a.agent.localCandidateCount(), "host and srflx");
        assertEquals(IceCandidateType.HOST, a.agent.localCandidate(0).type());
        assertSame(srflx, a.agent.localCandidate(1));
        assertSame(srflx, a.agent.selectedLocal(1));
        assertEquals(0, turn.liveAllocations(), "the unused allocation is deleted");
        assertNull(a.agent.turnClient(1), "and its client dropped");
        assertEquals(0, a.agent.checkList().size());
        assertFalse(a.agent.localDescription().contains("typ relay"), a.agent.localDescription());
        assertEquals(1, b.agent.remoteCandidateCount(), "B keeps A's srflx, the selected remote");
        assertEquals(new InetSocketAddress("203.0.113.1", 61000), b.agent.selectedRemote(1));

        net.run(40_000); // consent, RFC 7675: lost after 30 s without an answer
        assertTrue(completed(a) && completed(b));
        assertEquals(0, a.consentLost + b.consentLost);
        assertConnected(a, b, 1);
    }

    @Test
    void shouldLearnAPeerReflexiveRemoteCandidate() throws IceParseException
    {
        // a is behind a NAT and does not know it (no STUN server): b learns a's public address from a's checks.
        net.nat(new InetSocketAddress("10.0.0.1", 1000), new InetSocketAddress("203.0.113.1", 61000));
        final Side a = new Side(false, true, 1, "10.0.0.1:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        exchange(a, b, 0);
        net.runUntil(() -> completed(a) && completed(b), 5_000);
        assertEquals(2, b.agent.remoteCandidateCount(), "the signalled host and the learnt peer-reflexive one");
        assertEquals(IceCandidateType.PEER_REFLEXIVE, b.agent.remoteCandidate(1).type());
        assertEquals(new InetSocketAddress("203.0.113.1", 61000), b.agent.selectedRemote(1));
        // §7.2.5.3.1: a's own valid pair names the mapped address, learnt as a peer-reflexive local candidate whose
        // base is a's host; the pair ranks with that candidate's priority (§6.1.2.3).
        final IceCandidate local = a.agent.selectedLocal(1);
        assertEquals(IceCandidateType.PEER_REFLEXIVE, local.type());
        assertEquals(61000, local.port());
        assertEquals(1000, local.basePort());
        assertEquals(IcePriority.pair(true, local.priority(), a.agent.remoteCandidate(0).priority()),
            a.agent.selectedPriority(1));
        assertFalse(a.agent.localDescription().contains("prflx"), "a peer-reflexive local candidate is not signalled");
        assertConnected(a, b, 1);
    }

    @Test
    void shouldTrickleCandidatesAfterTheStart() throws IceParseException
    {
        final Side a = new Side(false, true, 1, "192.0.2.1:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        // b's description without candidates first; its candidate arrives later.
        final String bDescription = b.agent.localDescription();
        final String bSession = bDescription.lines().filter(l -> !l.startsWith("a=candidate"))
            .reduce("", (x, y) -> x + y + "\r\n");
        a.agent.applyRemoteDescription(bSession, 0);
        b.agent.applyRemoteDescription(a.agent.localDescription(), 0);
        net.run(500);
        assertTrue(a.agent.remoteCandidateCount() <= 1, "at most b's peer-reflexive one from its checks");
        final String candidate = bDescription.lines().filter(l -> l.startsWith("a=candidate")).findFirst()
            .orElseThrow();
        a.agent.addRemoteCandidate(candidate);
        a.agent.remoteEndOfCandidates();
        net.runUntil(() -> completed(a) && completed(b), 5_000);
        assertConnected(a, b, 1);
    }

    @Test
    void shouldKeepConsentAndLoseItAfterThirtySecondsOfSilence() throws IceParseException
    {
        final Side a = new Side(false, true, 1, "192.0.2.1:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        exchange(a, b, 0);
        net.runUntil(() -> completed(a) && completed(b), 5_000);
        final long sentAtCompletion = a.agent.checksSent();
        net.run(60_000);
        final long consentChecks = a.agent.checksSent() - sentAtCompletion;
        assertTrue(consentChecks >= 10 && consentChecks <= 15, "every 4-6 s over 60 s: " + consentChecks);
        assertTrue(completed(a));
        net.blockAllFrom(new InetSocketAddress("192.0.2.2", 2000));
        final long silentSince = net.now();
        net.run(24_000);
        assertTrue(completed(a), "consent still fresh under 30 s");
        net.runUntil(() -> a.consentLost > 0, 10_000);
        assertTrue(net.now() - silentSince >= 24_000 && net.now() - silentSince <= 31_000);
        assertEquals(IceAgent.STATE_FAILED, a.agent.state());
        assertFalse(a.agent.send(1, new byte[1], 0, 1), "no sending without consent");
    }

    @Test
    void shouldRestartAndKeepDataFlowing() throws IceParseException
    {
        final Side a = new Side(false, true, 1, "192.0.2.1:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        exchange(a, b, 0);
        net.runUntil(() -> completed(a) && completed(b), 5_000);
        final String oldUfragA = a.agent.localUfrag();
        final String oldUfragB = b.agent.localUfrag();
        assertEquals(1, a.agent.validList().size());
        a.agent.restart();
        assertEquals(0, a.agent.validList().size(), "§9: the valid list goes with the check list");
        assertNotEquals(oldUfragA, a.agent.localUfrag());
        sendData(a, 1, "during");
        b.agent.applyRemoteDescription(a.agent.localDescription(), net.now());
        assertNotEquals(oldUfragB, b.agent.localUfrag(), "the answerer changes its credentials too");
        a.agent.applyRemoteDescription(b.agent.localDescription(), net.now());
        net.runUntil(() -> completed(a) && completed(b) && b.data.contains("1:during"), 5_000);
        assertConnected(a, b, 1);
    }

    @Test
    void shouldWriteAndReadItsDescription() throws IceParseException
    {
        final Side a = new Side(false, true, 2, "192.0.2.1:1000", "192.0.2.1:1001");
        a.agent.localCredentials("ufrag1", "passwordpasswordpassword");
        String sdp = a.agent.localDescription();
        assertTrue(sdp.contains("a=ice-ufrag:ufrag1\r\n"), sdp);
        assertTrue(sdp.contains("a=ice-pwd:passwordpasswordpassword\r\n"));
        assertTrue(sdp.contains("a=ice-options:trickle ice2\r\n"), "RFC 8445 §10: ice2");
        assertTrue(sdp.contains(" 1 UDP 2130706431 192.0.2.1 1000 typ host"), sdp);
        assertTrue(sdp.contains(" 2 UDP 2130706430 192.0.2.1 1001 typ host"), sdp);
        assertFalse(sdp.contains("end-of-candidates"));
        a.agent.gather(null, null, null, null, 0);
        sdp = a.agent.localDescription();
        assertTrue(sdp.endsWith("a=end-of-candidates\r\n"));
        final Side b = new Side(false, false, 2, "192.0.2.2:2000", "192.0.2.2:2001");
        b.agent.applyRemoteDescription(sdp, 0);
        assertEquals(2, b.agent.remoteCandidateCount());
        assertEquals(2, b.agent.checkList().size());
        assertThrows(IceParseException.class, () -> b.agent.applyRemoteDescription("a=ice-ufrag:abcd\r\n", 0));
        assertThrows(IceParseException.class,
            () -> b.agent.applyRemoteDescription("a=ice-ufrag:abcd\r\na=ice-pwd:short\r\n", 0));
        assertThrows(IceParseException.class, () -> b.agent.addRemoteCandidate("a=candidate:1 1 UDP x"));
    }
}
