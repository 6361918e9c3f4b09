package io.sipline.media.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Foundations (RFC 8445 §5.1.1.3) and check-list formation (§6.1.2): pairing by component and family, pair
 * priorities, srflx replaced by its base and pruned, ordering, the pair limit, and initial states. The setup is
 * PJNATH's: 2 components with host, srflx and relay each, against 2 remote host candidates. Also the valid list
 * (§7.2.5.3.2), which holds the pairs checks produce apart from the check list.
 */
class IceCheckListTest
{
    private static final int LOCAL_IP = 0x0A00_0101;      // 10.0.1.1
    private static final int MAPPED_IP = 0xC000_0203;     // 192.0.2.3
    private static final int RELAY_IP = 0xC633_6409;      // 198.51.100.9
    private static final long STUN_SERVER = 0xC000_0201L; // 192.0.2.1
    private static final long TURN_SERVER = 0xC633_6401L; // 198.51.100.1
    private static final int REMOTE_IP = 0x0A00_0202;     // 10.0.2.2

    private final IceFoundations foundations = new IceFoundations(16);

    @Test
    void shouldShareFoundationsByTypeBaseAndServer()
    {
        final IceCandidate host1 = host(1, 8998);
        final IceCandidate host2 = host(2, 8999);
        final IceCandidate srflx1 = srflx(1, 8998, STUN_SERVER);
        final IceCandidate srflx2 = srflx(2, 8999, STUN_SERVER);
        final IceCandidate srflxOther = srflx(1, 8998, 0xC000_0209L);
        final IceCandidate relay1 = relay(1, 50000);
        final IceCandidate relay2 = relay(2, 50002);
        final IceCandidate otherHost = new IceCandidate().set(IceCandidateType.HOST, 1, 1, null).ipv4(0x0A00_0102, 1);

        // Same type, base IP (ports differ) and server: same foundation, the very same string.
        assertSame(host1.foundation(), host2.foundation());
        assertSame(srflx1.foundation(), srflx2.foundation());
        assertSame(relay1.foundation(), relay2.foundation());
        // Different type, server or base: different foundations.
        assertNotEquals(host1.foundation(), srflx1.foundation());
        assertNotEquals(srflx1.foundation(), srflxOther.foundation());
        assertNotEquals(srflx1.foundation(), relay1.foundation());
        assertNotEquals(host1.foundation(), foundations.foundationOf(otherHost, IceCandidate.FAMILY_NONE, 0, 0));
        assertEquals(5, foundations.count());
        assertEquals("1", host1.foundation());
        foundations.clear();
        assertEquals(0, foundations.count());
    }

    @Test
    void shouldFormPruneOrderAndUnfreezePjnathSetup()
    {
        final IceCandidate[] locals = {
            host(1, 8998), srflx(1, 8998, STUN_SERVER), relay(1, 50000),
            host(2, 8999), srflx(2, 8999, STUN_SERVER), relay(2, 50002)};
        final IceCandidate[] remotes = {remoteHost(1, 7000), remoteHost(2, 7001), remoteV6(1)};
        final IceCheckList list = new IceCheckList(IceLimits.DEFAULT);

        // 6 locals x 2 same-family remotes = 6 same-component pairs; the 2 srflx pairs become host pairs and are
        // pruned (§6.1.2.4); the IPv6 remote pairs with nothing.
        assertEquals(4, list.form(true, locals, locals.length, remotes, remotes.length, true));

        final int host1 = IcePriority.candidate(IceCandidateType.HOST, 65535, 1);
        final int host2 = IcePriority.candidate(IceCandidateType.HOST, 65535, 2);
        final int relay1 = IcePriority.candidate(IceCandidateType.RELAYED, 65535, 1);
        final int relay2 = IcePriority.candidate(IceCandidateType.RELAYED, 65535, 2);
        final int remote1 = remotes[0].priority();
        final int remote2 = remotes[1].priority();

        assertPair(list, 0, 0, 0, IcePriority.pair(host1, remote1));
        assertPair(list, 1, 3, 1, IcePriority.pair(host2, remote2));
        assertPair(list, 2, 2, 0, IcePriority.pair(relay1, remote1));
        assertPair(list, 3, 5, 1, IcePriority.pair(relay2, remote2));
        // 2^32*2130706431 + 2*2130706431 (remote host has the same priority as ours).
        assertEquals(9_151_314_442_783_293_438L, list.priority(0));
        for (int i = 1; i < list.size(); i++)
        {
            assertTrue(list.priority(i - 1) > list.priority(i));
        }

        // §6.1.2.6: host/host pairs of both components share a foundation; component 1 is unfrozen. Same for relay.
        assertTrue(list.sameFoundation(0, 1));
        assertEquals(IcePairState.WAITING, list.state(0));
        assertEquals(IcePairState.FROZEN, list.state(1));
        assertEquals(IcePairState.WAITING, list.state(2));
        assertEquals(IcePairState.FROZEN, list.state(3));

        // Not the first check list: everything frozen.
        list.form(true, locals, locals.length, remotes, remotes.length, false);
        for (int i = 0; i < list.size(); i++)
        {
            assertEquals(IcePairState.FROZEN, list.state(i));
        }
    }

    @Test
    void shouldUseTheControlledRoleForPairPriority()
    {
        final IceCandidate[] locals = {relay(1, 50000)};
        final IceCandidate[] remotes = {remoteHost(1, 7000)};
        final IceCheckList list = new IceCheckList(IceLimits.DEFAULT);
        list.form(false, locals, 1, remotes, 1, true);
        // controlled: G = remote (2130706431), D = local relay (16777215): 2^32*D + 2*G + 1
        assertEquals((16_777_215L << 32) + 2L * 2_130_706_431 + 1, list.priority(0));
        list.recomputePriorities(true);
        assertEquals((16_777_215L << 32) + 2L * 2_130_706_431, list.priority(0));
    }

    /**
     * RFC 8445 §7.2.5.3.2: the (srflx, remote) pair that §6.1.2.4 pruned from the check list is the valid pair a
     * check of (host, remote) produces when the response maps to the srflx address; it lives in the valid list, keeps
     * its generating pair, is ranked with its own candidates' priority (§6.1.2.3), and is added once.
     */
    @Test
    void shouldHoldAValidPairThatThePrunedCheckListCannot()
    {
        final IceCandidate[] locals = {host(1, 8998), srflx(1, 8998, STUN_SERVER)};
        final IceCandidate[] remotes = {remoteHost(1, 7000)};
        final IceCheckList list = new IceCheckList(IceLimits.PJNATH_TUNED);
        assertEquals(1, list.form(true, locals, 2, remotes, 1, true));
        assertEquals(-1, list.find(1, 0), "the srflx pair is pruned: its base is the host");
        final IceValidList valid = new IceValidList(IceLimits.PJNATH_TUNED);
        valid.reset(locals, remotes);
        assertEquals(16, valid.capacity());

        final int entry = valid.add(1, 0, 0);
        assertEquals(0, entry);
        assertEquals(entry, valid.add(1, 0, 0), "a valid pair is added once");
        assertEquals(1, valid.size());
        assertSame(locals[1], valid.local(entry));
        assertSame(remotes[0], valid.remote(entry));
        assertEquals(0, valid.generatingLocal(entry));
        assertEquals(entry, valid.findGenerated(0, 0));
        assertEquals(-1, valid.findGenerated(1, 0));
        assertEquals(entry, valid.find(1, 0));
        assertEquals(-1, valid.find(0, 0));
        final long srflxPriority = IcePriority.pair(true, locals[1].priority(), remotes[0].priority());
        assertEquals(srflxPriority, valid.priority(entry, true));
        assertTrue(srflxPriority < list.priority(0), "ranked below the host pair that generated it");
        assertEquals(IcePriority.pair(false, locals[1].priority(), remotes[0].priority()),
            valid.priority(entry, false));

        assertFalse(valid.nominated(entry));
        valid.nominate(entry);
        assertTrue(valid.nominated(entry));
        assertEquals(1, valid.localIndex(entry), "the flag leaves the indices alone");
        assertEquals(0, valid.remoteIndex(entry));
        assertEquals(0, valid.generatingLocal(entry));

        valid.reset(locals, remotes);
        assertEquals(0, valid.size());
        assertEquals(-1, valid.find(1, 0));
    }

    /**
     * RFC 8445 §7.2.5.3.4: a failed nomination removes "the candidate pair" from the valid list — the valid pair its
     * check-list pair generated (here the pruned (srflx, R) pair generated by (host, R)) and that check-list pair if
     * it is itself a valid pair — and leaves the other entries in their order.
     */
    @Test
    void shouldRemoveTheValidPairOfAFailedNomination()
    {
        final IceCandidate[] locals = {host(1, 8998), srflx(1, 8998, STUN_SERVER), host(1, 8999)};
        final IceCandidate[] remotes = {remoteHost(1, 7000), remoteHost(1, 7001)};
        final IceValidList valid = new IceValidList(IceLimits.PJNATH_TUNED);
        valid.reset(locals, remotes);
        assertEquals(0, valid.add(1, 0, 0), "(srflx, R0) generated by (host, R0)");
        assertEquals(1, valid.add(2, 0, 2), "(host 8999, R0) generated by itself");
        assertEquals(2, valid.add(0, 1, 0), "(host, R1) generated by itself");
        assertEquals(3, valid.add(0, 0, 2), "(host, R0) generated by (host 8999, R0): a peer-reflexive-like hit");
        valid.nominate(1);

        assertEquals(2, valid.removePair(0, 0), "what (host, R0) generated, and (host, R0) itself");
        assertEquals(2, valid.size());
        assertEquals(-1, valid.find(1, 0));
        assertEquals(-1, valid.find(0, 0));
        assertEquals(-1, valid.findGenerated(0, 0));
        assertEquals(0, valid.find(2, 0), "the others move down in order");
        assertEquals(1, valid.find(0, 1));
        assertTrue(valid.nominated(0), "with their flags");
        assertFalse(valid.nominated(1));
        assertEquals(2, valid.generatingLocal(0));
        assertEquals(0, valid.generatingLocal(1));

        assertEquals(0, valid.removePair(1, 1), "nothing to remove");
        assertEquals(2, valid.size());
        assertEquals(2, valid.add(1, 0, 0), "the freed room is used again");
    }

    @Test
    void shouldFillTheValidListUpToItsCapacity()
    {
        final IceCandidate[] locals = {host(1, 8998)};
        final IceCandidate[] remotes = new IceCandidate[255];
        for (int r = 0; r < remotes.length; r++)
        {
            remotes[r] = remoteHost(1, 7000 + r);
        }
        final IceValidList valid = new IceValidList(new IceLimits(1, 255, 2, 1));
        valid.reset(locals, remotes);
        assertEquals(0, valid.add(0, 0, 0));
        assertEquals(1, valid.add(0, 254, 0));
        assertEquals(-1, valid.add(0, 7, 0), "full");
        assertEquals(254, valid.remoteIndex(1), "indices up to 255 are kept whole");
        assertEquals(1, valid.findGenerated(0, 254));
    }

    @Test
    void shouldKeepTheSrflxPairWhenItsBaseIsNotALocalCandidate()
    {
        final IceCandidate[] locals = {srflx(1, 8998, STUN_SERVER)};
        final IceCandidate[] remotes = {remoteHost(1, 7000)};
        final IceCheckList list = new IceCheckList(IceLimits.DEFAULT);
        assertEquals(1, list.form(true, locals, 1, remotes, 1, true));
        assertEquals(0, list.localIndex(0));
    }

    @Test
    void shouldKeepOnlyTheHighestPrioritiesWithinTheLimit()
    {
        final IceCandidate[] locals = {host(1, 8998), relay(1, 50000), host(2, 8999), relay(2, 50002)};
        final IceCandidate[] remotes = {remoteHost(1, 7000), remoteHost(2, 7001), remoteRelay(1), remoteRelay(2)};
        final IceCheckList full = new IceCheckList(IceLimits.DEFAULT);
        assertEquals(8, full.form(true, locals, 4, remotes, 4, true));
        final IceCheckList limited = new IceCheckList(new IceLimits(16, 16, 3, 2));
        assertEquals(3, limited.form(true, locals, 4, remotes, 4, true));
        for (int i = 0; i < 3; i++)
        {
            assertEquals(full.priority(i), limited.priority(i));
            assertEquals(full.localIndex(i), limited.localIndex(i));
            assertEquals(full.remoteIndex(i), limited.remoteIndex(i));
        }
    }

    @Test
    void shouldPairLinkLocalOnlyWithLinkLocalAndSkipFqdnAndPrflx() throws IceParseException
    {
        final IceCandidate linkLocal = IceSdp.parseCandidate("candidate:1 1 UDP 2122187007 fe80::1 5000 typ host");
        final IceCandidate global = IceSdp.parseCandidate("candidate:2 1 UDP 2122187006 2001:db8::1 5002 typ host");
        final IceCandidate prflx = IceSdp.parseCandidate("candidate:3 1 UDP 1862270975 2001:db8::9 5004 typ prflx");
        final IceCandidate remoteLinkLocal =
            IceSdp.parseCandidate("candidate:a 1 UDP 2122187007 fe80::2 6000 typ host");
        final IceCandidate remoteGlobal =
            IceSdp.parseCandidate("candidate:b 1 UDP 2122187006 2001:db8::2 6002 typ host");
        final IceCandidate mdns = IceSdp.parseCandidate("candidate:c 1 UDP 2122187006 x.local 6004 typ host");
        final IceCheckList list = new IceCheckList(IceLimits.DEFAULT);
        assertEquals(2, list.form(true, new IceCandidate[] {linkLocal, global, prflx}, 3,
            new IceCandidate[] {remoteLinkLocal, remoteGlobal, mdns}, 3, true));
        assertSame(linkLocal, list.local(0));
        assertSame(remoteLinkLocal, list.remote(0));
        assertSame(global, list.local(1));
        assertSame(remoteGlobal, list.remote(1));
    }

    @Test
    void shouldValidateLimits()
    {
        assertEquals(100, IceLimits.DEFAULT.maxPairs());
        assertEquals(16, IceLimits.DEFAULT.maxLocalCandidates());
        assertEquals(32, IceLimits.PJNATH.maxPairs());
        assertEquals(16, IceLimits.PJNATH_TUNED.maxPairs());
        assertThrows(IllegalArgumentException.class, () -> new IceLimits(0, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new IceLimits(256, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new IceLimits(1, 1, 0, 1));
        assertThrows(IllegalStateException.class, () ->
        {
            final IceFoundations one = new IceFoundations(1);
            one.foundationOf(host(1, 1), IceCandidate.FAMILY_NONE, 0, 0);
            one.foundationOf(relay(1, 2), IceCandidate.FAMILY_IPV4, 0, TURN_SERVER);
        });
    }

    private static void assertPair(final IceCheckList list, final int pair, final int local, final int remote,
        final long priority)
    {
        assertEquals(local, list.localIndex(pair), "local of pair " + pair);
        assertEquals(remote, list.remoteIndex(pair), "remote of pair " + pair);
        assertEquals(priority, list.priority(pair), "priority of pair " + pair);
    }

    private IceCandidate host(final int component, final int port)
    {
        final IceCandidate candidate = new IceCandidate()
            .set(IceCandidateType.HOST, component, IcePriority.candidate(IceCandidateType.HOST, 65535, component), null)
            .ipv4(LOCAL_IP, port);
        return candidate.set(IceCandidateType.HOST, component, candidate.priority(),
            foundations.foundationOf(candidate, IceCandidate.FAMILY_NONE, 0, 0));
    }

    private IceCandidate srflx(final int component, final int basePort, final long server)
    {
        final IceCandidate candidate = new IceCandidate()
            .set(IceCandidateType.SERVER_REFLEXIVE, component,
                IcePriority.candidate(IceCandidateType.SERVER_REFLEXIVE, 65535, component), null)
            .ipv4(MAPPED_IP, 40000 + basePort)
            .base(IceCandidate.FAMILY_IPV4, 0, LOCAL_IP, basePort)
            .related(IceCandidate.FAMILY_IPV4, 0, LOCAL_IP, basePort);
        return candidate.set(candidate.type(), component, candidate.priority(),
            foundations.foundationOf(candidate, IceCandidate.FAMILY_IPV4, 0, server));
    }

    private IceCandidate relay(final int component, final int port)
    {
        final IceCandidate candidate = new IceCandidate()
            .set(IceCandidateType.RELAYED, component, IcePriority.candidate(IceCandidateType.RELAYED, 65535, component),
                null)
            .ipv4(RELAY_IP, port)
            .related(IceCandidate.FAMILY_IPV4, 0, MAPPED_IP, 40000);
        return candidate.set(candidate.type(), component, candidate.priority(),
            foundations.foundationOf(candidate, IceCandidate.FAMILY_IPV4, 0, TURN_SERVER));
    }

    private static IceCandidate remoteHost(final int component, final int port)
    {
        return new IceCandidate().set(IceCandidateType.HOST, component,
            IcePriority.candidate(IceCandidateType.HOST, 65535, 1), "R1").ipv4(REMOTE_IP, port);
    }

    private static IceCandidate remoteRelay(final int component)
    {
        return new IceCandidate().set(IceCandidateType.RELAYED, component,
            IcePriority.candidate(IceCandidateType.RELAYED, 65535, component), "R2")
            .ipv4(0xCB00_7101, 9000 + component);
    }

    private static IceCandidate remoteV6(final int component)
    {
        return new IceCandidate().set(IceCandidateType.HOST, component,
            IcePriority.candidate(IceCandidateType.HOST, 65534, component), "R3")
            .address(IceCandidate.FAMILY_IPV6, 0x2001_0db8_0000_0000L, 2, 7002);
    }
}
