package io.sipline.media.ice;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link IceAgent} pairs over a {@link SimulatedNetwork}: role conflicts (RFC 8445 §7.3.1.1, §7.2.5.1), aggressive
 * and regular nomination (§8.1.1), and when a pair, a component or the check list fails (§7.2.5.3.4, §8.1.2).
 */
class IceAgentNominationTest extends IceAgentTestSupport
{
    @Test
    void shouldNominateAggressively() throws IceParseException
    {
        final Side a = new Side(false, true, 1, "192.0.2.1:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        a.agent.aggressiveNomination(true);
        exchange(a, b, 0);
        net.runUntil(() -> completed(a) && completed(b), 5_000);
        assertEquals(1, a.agent.checksSent(), "the first check already nominated");
        assertConnected(a, b, 1);
    }

    @Test
    void shouldResolveARoleConflict() throws IceParseException
    {
        final Side a = new Side(false, true, 1, "192.0.2.1:1000");
        final Side b = new Side(false, true, 1, "192.0.2.2:2000");
        exchange(a, b, 0);
        net.runUntil(() -> completed(a) && completed(b), 10_000);
        assertNotEquals(a.agent.controlling(), b.agent.controlling(), "exactly one stays controlling");
        assertConnected(a, b, 1);
    }

    /**
     * RFC 8445 §7.2.5.1, both agents controlling, A with the larger tie-breaker. At the same moment B receives A's
     * check (B's tie-breaker is smaller: B switches to controlled, §7.3.1.1) and A receives B's (A answers 487). The
     * 487 then reaches B, already controlled: "If the agent included an ICE-CONTROLLING attribute in the request, the
     * agent MUST switch to the controlled role" — B stays controlled (a toggle put it back to controlling, and its
     * retried check claimed ICE-CONTROLLING again) — and "The agent MUST change the tiebreaker value".
     */
    @Test
    void shouldReadA487AgainstTheRoleTheRequestClaimed() throws IceParseException
    {
        final Side a = new Side(false, true, 1, "192.0.2.1:1000");
        final Side b = new Side(false, true, 1, "192.0.2.2:2000");
        a.agent.tieBreaker(2);
        b.agent.tieBreaker(1);
        final int[] controllingRequestsFromB = new int[1];
        final io.sipline.media.stun.StunMessageFlyweight message = new io.sipline.media.stun.StunMessageFlyweight();
        net.recordInto((socket, from, bytes) ->
        {
            if (from.equals(new InetSocketAddress("192.0.2.2", 2000)) && message.wrap(bytes, 0, bytes.length) >= 0
                && io.sipline.media.stun.StunMessageType.BINDING_REQUEST == message.messageType()
                && -1 != message.findAttribute(io.sipline.media.stun.StunAttributeType.ICE_CONTROLLING))
            {
                controllingRequestsFromB[0]++;
            }
        });
        exchange(a, b, 0);
        net.runUntil(() -> completed(a) && completed(b), 5_000);
        assertTrue(a.agent.controlling());
        assertFalse(b.agent.controlling());
        assertEquals(1, controllingRequestsFromB[0], "only B's first check claimed the controlling role");
        assertEquals(2, a.agent.tieBreaker(), "A got no 487");
        assertNotEquals(1, b.agent.tieBreaker(), "B's tie-breaker changed with its 487");
        assertConnected(a, b, 1);
    }

    @Test
    void shouldFailWhenEveryPairFails() throws IceParseException
    {
        final Side a = new Side(false, true, 1, "192.0.2.1:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        a.agent.gather(null, null, null, null, 0);
        net.blockAllFrom(new InetSocketAddress("192.0.2.2", 2000));
        b.agent.gather(null, null, null, null, 0);
        exchange(a, b, 0);
        net.run(39_000);
        assertEquals(IceAgent.STATE_RUNNING, a.agent.state(), "still retransmitting (RFC 8489: 39.5 s)");
        net.runUntil(() -> IceAgent.STATE_FAILED == a.agent.state(), 2_000);
        assertEquals(List.of(IceAgent.STATE_FAILED), a.states);
    }

    /**
     * RFC 8445 §7.2.5.3.4: A's check succeeds, then the route from A to B breaks before A nominates; A's check with
     * USE-CANDIDATE (the repeated check of §8.1.1) times out, so A removes the pair from its valid list, sets it
     * Failed and fails the check list — the agent, as it serves one data stream — instead of waiting for ever with a
     * nomination it may not repeat (§8.1.1: that "requires an ICE restart").
     */
    @Test
    void shouldFailTheCheckListWhenTheControllingAgentsNominationFails() throws IceParseException
    {
        final Side a = new Side(false, true, 1, "192.0.2.1:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        a.agent.rto(50);
        exchange(a, b, 0);
        net.runUntil(() -> 1 == a.agent.validList().size(), 1_000);
        final IceCheckList list = a.agent.checkList();
        final int pair = list.find(0, 0);
        assertEquals(IcePairState.SUCCEEDED, list.state(pair));
        assertEquals(0, list.flags(pair) & IceAgent.FLAG_NOMINATED, "not nominated yet: that comes at the next Ta");
        net.block(new InetSocketAddress("192.0.2.1", 1000), new InetSocketAddress("192.0.2.2", 2000));
        final long sent = a.agent.checksSent();

        net.runUntil(() -> IceAgent.STATE_FAILED == a.agent.state(), 10_000);
        assertEquals(sent + 1, a.agent.checksSent(), "one nominating check (retransmitted until it timed out)");
        assertEquals(0, a.agent.validList().size(), "removed from the valid list");
        assertEquals(IcePairState.FAILED, list.state(pair));
        assertEquals(0, list.flags(pair) & IceAgent.FLAG_NOMINATED);
        assertEquals(List.of(IceAgent.STATE_FAILED), a.states);
        assertEquals(null, a.agent.selectedLocal(1));
        assertFalse(a.agent.send(1, new byte[1], 0, 1));
        assertFalse(a.agent.gatheringComplete(), "not §7.2.5.4: without gathering that rule cannot fail the agent");
        assertEquals(IceAgent.STATE_RUNNING, b.agent.state(), "B never saw the nomination");
    }

    /**
     * RFC 8445 §7.2.5.3.4, controlled side: A (aggressive, so its first checks carry USE-CANDIDATE) reaches B, but
     * nothing from B reaches A. B's check triggered by the nominating request (§7.3.1.4) times out, so B fails the
     * pair and the check list. A, aggressive, fails its pair only (RFC 5245 behaviour: one unreachable pair among
     * several nominated ones must not end the session).
     */
    @Test
    void shouldFailTheCheckListWhenTheControlledAgentsTriggeredCheckOfANominationFails() throws IceParseException
    {
        final Side b = nominationFromAUnanswered(true);
        assertEquals(List.of(IceAgent.STATE_FAILED), b.states);
    }

    /** The same run with A nominating regularly (its first checks carry no USE-CANDIDATE): B fails its pair only. */
    @Test
    void shouldFailOnlyThePairWhenATriggeredCheckWithoutNominationFails() throws IceParseException
    {
        final Side b = nominationFromAUnanswered(false);
        assertEquals(List.of(), b.states);
        assertEquals(IceAgent.STATE_RUNNING, b.agent.state());
    }

    private Side nominationFromAUnanswered(final boolean aggressive) throws IceParseException
    {
        final Side a = new Side(false, true, 1, "192.0.2.1:1000");
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        a.agent.aggressiveNomination(aggressive).rto(50);
        b.agent.rto(50);
        net.blockAllFrom(new InetSocketAddress("192.0.2.2", 2000));
        exchange(a, b, 0);
        net.run(20_000);
        final IceCheckList list = b.agent.checkList();
        assertEquals(1, list.size());
        assertEquals(IcePairState.FAILED, list.state(0));
        assertEquals(0, b.agent.validList().size());
        assertTrue(b.agent.checksAnswered() > 0, "A's checks reached B");
        assertFalse(b.agent.gatheringComplete(), "not §7.2.5.4: without gathering that rule cannot fail B");
        assertEquals(IceAgent.STATE_RUNNING, a.agent.state(), "A's own failed checks fail only their pairs");
        assertEquals(IcePairState.FAILED, a.agent.checkList().state(0));
        return b;
    }

    /**
     * A full ICE peer scripted by the test (controlling, at fixed addresses): it sends the requests the test asks for,
     * records B's checks, and answers one when told.
     */
    private final class ScriptedPeer implements SimulatedNetwork.Node
    {
        private record Check(InetSocketAddress from, InetSocketAddress to, byte[] bytes)
        {
        }

        final String ufrag = "peer";
        final String password = "peerpasswordpeerpassword";
        final List<Check> checks = new ArrayList<>();
        private final io.sipline.media.stun.StunIntegrity integrity = new io.sipline.media.stun.StunIntegrity();
        private final io.sipline.media.stun.StunMessageWriter writer = new io.sipline.media.stun.StunMessageWriter();
        private final io.sipline.media.stun.StunMessageFlyweight message =
            new io.sipline.media.stun.StunMessageFlyweight();
        private final byte[] buf = new byte[1500];
        private int transactions;

        ScriptedPeer(final InetSocketAddress... addresses)
        {
            for (final InetSocketAddress address : addresses)
            {
                net.place(address, this);
            }
        }

        @Override
        public void onDatagram(final InetSocketAddress from, final InetSocketAddress to, final byte[] bytes)
        {
            if (message.wrap(bytes, 0, bytes.length) >= 0
                && io.sipline.media.stun.StunMessageType.BINDING_REQUEST == message.messageType())
            {
                checks.add(new Check(from, to, bytes));
            }
        }

        /** Sends a check (ICE-CONTROLLING, optionally USE-CANDIDATE) from one of its addresses to an agent's. */
        void check(final InetSocketAddress from, final InetSocketAddress to, final IceAgent agent,
            final boolean useCandidate)
        {
            final byte[] username = (agent.localUfrag() + ":" + ufrag).getBytes(StandardCharsets.UTF_8);
            writer.wrap(buf, 0, buf.length)
                .header(io.sipline.media.stun.StunMessageType.BINDING_REQUEST, 0x5EED, ++transactions)
                .addBytes(io.sipline.media.stun.StunAttributeType.USERNAME, username, 0, username.length)
                .addU32(io.sipline.media.stun.StunAttributeType.PRIORITY, 1_845_501_695)
                .addU64(io.sipline.media.stun.StunAttributeType.ICE_CONTROLLING, Long.MAX_VALUE);
            if (useCandidate)
            {
                writer.addEmpty(io.sipline.media.stun.StunAttributeType.USE_CANDIDATE);
            }
            final int length = writer.addMessageIntegrity(integrity,
                io.sipline.media.stun.StunCredential.shortTerm(agent.localPassword()))
                .addFingerprint(integrity).length();
            net.send(from, to, java.util.Arrays.copyOf(buf, length));
        }

        /** Answers the latest check the agent sent to {@code to}: success (errorCode 0) or that error. */
        void answerLatest(final InetSocketAddress to, final int errorCode)
        {
            Check latest = null;
            for (final Check c : checks)
            {
                latest = c.to().equals(to) ? c : latest;
            }
            assertNotNull(latest, "a check to " + to);
            message.wrap(latest.bytes(), 0, latest.bytes().length);
            writer.wrap(buf, 0, buf.length).header(0 == errorCode
                ? io.sipline.media.stun.StunMessageType.BINDING_SUCCESS_RESPONSE
                : io.sipline.media.stun.StunMessageType.BINDING_ERROR_RESPONSE, message);
            if (0 == errorCode)
            {
                writer.addAddress(io.sipline.media.stun.StunAttributeType.XOR_MAPPED_ADDRESS,
                    new io.sipline.media.stun.StunAddress().set(latest.from()));
            }
            else
            {
                writer.addErrorCode(errorCode, "Bad Request");
            }
            final int length = writer.addMessageIntegrity(integrity,
                io.sipline.media.stun.StunCredential.shortTerm(password)).addFingerprint(integrity).length();
            net.send(latest.to(), latest.from(), java.util.Arrays.copyOf(buf, length));
        }
    }

    /**
     * The exemption of §7.2.5.3.4's failure rule: B (controlled, two components) is nominated on RTP twice by the
     * peer. Its triggered check for the first nomination (to P2) is still unanswered when the second one (to P1)
     * succeeds and concludes RTP (§8.1.2 cancels the first); then P2 answers that check with 400. Its pair fails, but
     * B's check list does not: RTP's ICE processing had concluded (only an RFC 5245 peer nominates twice), and RTCP is
     * still being checked.
     */
    @Test
    void shouldNotFailTheCheckListForAFailedSecondNominationOfAConcludedComponent() throws IceParseException
    {
        final InetSocketAddress p1 = new InetSocketAddress("192.0.2.50", 5000);
        final InetSocketAddress p2 = new InetSocketAddress("192.0.2.51", 5000);
        final InetSocketAddress p1Rtcp = new InetSocketAddress("192.0.2.50", 5001);
        final ScriptedPeer peer = new ScriptedPeer(p1, p2, p1Rtcp);
        final Side b = new Side(false, false, 2, "192.0.2.2:2000", "192.0.2.2:2001");
        final InetSocketAddress bRtp = new InetSocketAddress("192.0.2.2", 2000);
        b.agent.applyRemoteDescription("a=ice-ufrag:" + peer.ufrag + "\r\na=ice-pwd:" + peer.password + "\r\n"
            + "a=candidate:1 1 UDP 2130706431 192.0.2.50 5000 typ host\r\n"
            + "a=candidate:2 1 UDP 2130706175 192.0.2.51 5000 typ host\r\n"
            + "a=candidate:1 2 UDP 2130706430 192.0.2.50 5001 typ host\r\n", 0);
        net.run(200);
        final IceCheckList list = b.agent.checkList();
        final int toP2 = list.find(0, 1);

        peer.check(p2, bRtp, b.agent, true); // first nomination: B's triggered check to P2 stays unanswered
        net.run(100);
        assertEquals(IcePairState.IN_PROGRESS, list.state(toP2));
        peer.check(p1, bRtp, b.agent, true); // second nomination, answered
        net.run(100);
        peer.answerLatest(p1, 0);
        net.run(20);
        assertEquals(p1, b.agent.selectedRemote(1), "RTP concluded on P1");
        assertEquals(IceAgent.STATE_RUNNING, b.agent.state(), "RTCP not yet");

        peer.answerLatest(p2, 400);
        net.run(20);
        assertEquals(IcePairState.FAILED, list.state(toP2), "the failed nomination fails its pair");
        assertEquals(-1, b.agent.validList().find(0, 1));
        assertEquals(IceAgent.STATE_RUNNING, b.agent.state(), "but not the check list: RTP had concluded");
        assertEquals(List.of(), b.states);
        assertEquals(p1, b.agent.selectedRemote(1));
    }

    /**
     * A peer that nominates aggressively (RFC 5245) nominates P2, then P1, of higher priority, after B (controlled, one
     * component) has completed on P2. B answers, runs the triggered check for P1 although the component has
     * concluded, and on its success selects P1 (RFC 8445 §7.3.1.5; RFC 5245 §8.1.2: the highest-priority nominated
     * pair), within §8.3.1's three seconds. Before, §8.1.2 stopped every check of a concluded component: B sent no
     * check for P1 and stayed on P2. A later nomination of P2, of lower priority, is checked but does not switch back.
     */
    @Test
    void shouldFollowALaterNominationOfAnAggressivePeerAfterCompleting() throws IceParseException
    {
        final InetSocketAddress p1 = new InetSocketAddress("192.0.2.50", 5000);
        final InetSocketAddress p2 = new InetSocketAddress("192.0.2.51", 5000);
        final ScriptedPeer peer = new ScriptedPeer(p1, p2);
        final Side b = new Side(false, false, 1, "192.0.2.2:2000");
        final InetSocketAddress bRtp = new InetSocketAddress("192.0.2.2", 2000);
        b.agent.applyRemoteDescription("a=ice-ufrag:" + peer.ufrag + "\r\na=ice-pwd:" + peer.password + "\r\n"
            + "a=candidate:1 1 UDP 2130706431 192.0.2.50 5000 typ host\r\n"
            + "a=candidate:2 1 UDP 2130706175 192.0.2.51 5000 typ host\r\n", 0);
        net.run(200);

        peer.check(p2, bRtp, b.agent, true); // first nomination, answered: B completes on P2
        net.run(100);
        peer.answerLatest(p2, 0);
        net.run(20);
        assertTrue(completed(b));
        assertEquals(p2, b.agent.selectedRemote(1));
        final long answered = b.agent.checksAnswered();
        final long checksToP1 = peer.checks.stream().filter(c -> c.to().equals(p1)).count();

        peer.check(p1, bRtp, b.agent, true); // a later nomination of a pair of higher priority
        net.run(100);
        assertEquals(answered + 1, b.agent.checksAnswered(), "answered");
        assertEquals(checksToP1 + 1, peer.checks.stream().filter(c -> c.to().equals(p1)).count(),
            "a triggered check for the nominated pair although the component has concluded");
        assertEquals(p2, b.agent.selectedRemote(1), "not before that check succeeds");
        peer.answerLatest(p1, 0);
        net.run(20);
        assertEquals(p1, b.agent.selectedRemote(1), "the higher-priority nominated pair is selected");
        assertTrue(completed(b));

        peer.check(p2, bRtp, b.agent, true); // P2 again: succeeded already, lower priority
        net.run(100);
        assertEquals(p1, b.agent.selectedRemote(1), "a lower-priority nomination does not switch back");
        assertEquals(List.of(IceAgent.STATE_COMPLETED), b.states);
    }

    /**
     * RFC 8445 §7.2.5.4: once every pair is Failed or Succeeded and a component has no valid pair, the check list
     * fails, even though the other component has one (before, the agent waited until every pair had Failed).
     */
    @Test
    void shouldFailWhenOneComponentHasNoValidPair() throws IceParseException
    {
        final Side a = new Side(false, true, 2, "192.0.2.1:1000", "192.0.2.1:1001");
        final Side b = new Side(false, false, 2, "192.0.2.2:2000", "192.0.2.2:2001");
        a.agent.rto(50);
        b.agent.rto(50);
        a.agent.gather(null, null, null, null, 0);
        b.agent.gather(null, null, null, null, 0);
        net.block(new InetSocketAddress("192.0.2.1", 1001), new InetSocketAddress("192.0.2.2", 2001));
        net.block(new InetSocketAddress("192.0.2.2", 2001), new InetSocketAddress("192.0.2.1", 1001));
        exchange(a, b, 0);
        net.runUntil(() -> IceAgent.STATE_FAILED == a.agent.state(), 10_000);
        assertEquals(List.of(IceAgent.STATE_FAILED), a.states);
        assertEquals(1, a.agent.validList().size(), "RTP has its valid pair");
        assertEquals(1, a.agent.validList().local(0).componentId());
        final IceCheckList list = a.agent.checkList();
        assertEquals(IcePairState.SUCCEEDED, list.state(list.find(0, 0)));
        assertEquals(IcePairState.FAILED, list.state(list.find(1, 1)));
    }

    /**
     * RFC 8445 §8.1.2: once a component is nominated its other pairs leave the check list and the triggered-check
     * queue. B's RTP component is nominated by A's first (aggressive) check while its RTCP component is cut off, so
     * B keeps checking RTCP; its second RTP pair (to A's other host) must get no check, ordinary or triggered by
     * A's checks on it, and B's checks on RTP stop at the one that concluded it.
     */
    @Test
    void shouldStopCheckingAComponentOnceItIsNominated() throws IceParseException
    {
        final Side a = new Side(false, true, 2, "192.0.2.1:1000", "192.0.2.1:1001", "192.0.2.3:1000", "192.0.2.3:1001");
        final Side b = new Side(false, false, 2, "192.0.2.2:2000", "192.0.2.2:2001");
        a.agent.aggressiveNomination(true);
        final InetSocketAddress bRtp = new InetSocketAddress("192.0.2.2", 2000);
        final InetSocketAddress bRtcp = new InetSocketAddress("192.0.2.2", 2001);
        net.blockAllFrom(bRtcp);
        net.block(new InetSocketAddress("192.0.2.1", 1001), bRtcp);
        net.block(new InetSocketAddress("192.0.2.3", 1001), bRtcp);
        final int[] rtpChecksFromB = new int[2];
        final io.sipline.media.stun.StunMessageFlyweight message = new io.sipline.media.stun.StunMessageFlyweight();
        net.recordInto((socket, from, bytes) ->
        {
            if (from.equals(bRtp) && message.wrap(bytes, 0, bytes.length) >= 0
                && io.sipline.media.stun.StunMessageType.BINDING_REQUEST == message.messageType())
            {
                rtpChecksFromB[0 == socket ? 0 : 1]++;
            }
        });
        exchange(a, b, 0);
        net.runUntil(() -> null != b.agent.selectedLocal(1), 1_000);
        final long concludedAt = net.now();
        net.run(3_000);
        assertEquals(IceAgent.STATE_RUNNING, b.agent.state(), "RTCP is still being checked");
        assertTrue(b.agent.checksSent() > 2, "RTCP checks went on: " + b.agent.checksSent());
        assertEquals(1, rtpChecksFromB[0], "one RTP check to A's first host, the one that concluded RTP at "
            + concludedAt + " ms");
        assertEquals(0, rtpChecksFromB[1], "none to A's second host on RTP");
        assertTrue(a.agent.checksAnswered() >= 1);
    }
}
