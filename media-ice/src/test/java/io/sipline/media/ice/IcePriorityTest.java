package io.sipline.media.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * Candidate (RFC 8445 §5.1.2.1) and pair (§6.1.2.3) priorities against hand-computed values and the RFC 8839 §5.1
 * example ({@code 2130706431} host, {@code 1694498815} srflx).
 */
class IcePriorityTest
{
    @Test
    void shouldComputeCandidatePrioritiesForEachTypeAndComponent()
    {
        // 126*2^24 + 65535*2^8 + (256-1) = 2113929216 + 16776960 + 255
        assertEquals(2_130_706_431, IcePriority.candidate(IceCandidateType.HOST, 65535, 1));
        assertEquals(2_130_706_430, IcePriority.candidate(IceCandidateType.HOST, 65535, 2));
        // 110*2^24 + 16776960 + 255
        assertEquals(1_862_270_975, IcePriority.candidate(IceCandidateType.PEER_REFLEXIVE, 65535, 1));
        // 100*2^24 + 16776960 + 255
        assertEquals(1_694_498_815, IcePriority.candidate(IceCandidateType.SERVER_REFLEXIVE, 65535, 1));
        // 0 + 16776960 + 254
        assertEquals(16_777_214, IcePriority.candidate(IceCandidateType.RELAYED, 65535, 2));
        assertEquals(255, IcePriority.candidate(0, 0, 1));
        assertEquals(126, IceCandidateType.HOST.recommendedTypePreference());
        assertEquals(110, IceCandidateType.PEER_REFLEXIVE.recommendedTypePreference());
        assertEquals(100, IceCandidateType.SERVER_REFLEXIVE.recommendedTypePreference());
        assertEquals(0, IceCandidateType.RELAYED.recommendedTypePreference());
    }

    @Test
    void shouldRefuseOutOfRangeInputs()
    {
        assertThrows(IllegalArgumentException.class, () -> IcePriority.candidate(127, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> IcePriority.candidate(0, 65536, 1));
        assertThrows(IllegalArgumentException.class, () -> IcePriority.candidate(0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> IcePriority.candidate(0, 0, 257));
    }

    @Test
    void shouldComputePairPriorityForBothRoles()
    {
        final int host = 2_130_706_431;
        final int srflx = 1_694_498_815;
        // 2^32*1694498815 + 2*2130706431 + 1 = 7277816993535754240 + 4261412862 + 1
        assertEquals(7_277_816_997_797_167_103L, IcePriority.pair(host, srflx));
        // G < D: no +1
        assertEquals(7_277_816_997_797_167_102L, IcePriority.pair(srflx, host));
        assertEquals(7_277_816_997_797_167_103L, IcePriority.pair(true, host, srflx));
        assertEquals(7_277_816_997_797_167_102L, IcePriority.pair(false, host, srflx));
        // equal: 2^32*G + 2*G
        assertEquals(9_151_314_442_783_293_438L, IcePriority.pair(host, host));
        // largest legal priorities stay positive
        assertEquals(((long) Integer.MAX_VALUE << 32) + 2L * Integer.MAX_VALUE,
            IcePriority.pair(Integer.MAX_VALUE, Integer.MAX_VALUE));
    }

    @Test
    void shouldResolveRoleConflictsByTieBreaker()
    {
        // §7.3.1.1: both controlling: larger (or equal) local tie-breaker answers 487, smaller switches.
        assertEquals(IceRoleConflict.REPLY_487, IceRoleConflict.resolve(true, 10, true, 5));
        assertEquals(IceRoleConflict.REPLY_487, IceRoleConflict.resolve(true, 5, true, 5));
        assertEquals(IceRoleConflict.SWITCH_ROLE, IceRoleConflict.resolve(true, 5, true, 10));
        // both controlled: larger (or equal) local switches to controlling, smaller answers 487.
        assertEquals(IceRoleConflict.SWITCH_ROLE, IceRoleConflict.resolve(false, 10, false, 5));
        assertEquals(IceRoleConflict.SWITCH_ROLE, IceRoleConflict.resolve(false, 5, false, 5));
        assertEquals(IceRoleConflict.REPLY_487, IceRoleConflict.resolve(false, 5, false, 10));
        // unsigned comparison: 0xFFFF... is the largest tie-breaker.
        assertEquals(IceRoleConflict.REPLY_487, IceRoleConflict.resolve(true, -1L, true, Long.MAX_VALUE));
        assertEquals(IceRoleConflict.NONE, IceRoleConflict.resolve(true, 1, false, 2));
        assertEquals(IceRoleConflict.NONE, IceRoleConflict.resolve(false, 1, true, 2));
    }
}
