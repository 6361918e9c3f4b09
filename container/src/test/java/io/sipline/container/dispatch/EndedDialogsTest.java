package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link EndedDialogs}: a stray 2xx's dialog is remembered while its UAS may retransmit the 2xx (64*T1 after the last
 * one, RFC 3261 §13.3.1.4), at most {@link EndedDialogs#REMEMBERED} at once, and nothing stays on a quiet shard.
 */
class EndedDialogsTest
{
    private static final long SECOND = 1_000_000_000L;
    private static final long MEMORY = 32 * SECOND; // 64*T1, T1 = 500 ms
    private static final long START = 1_000 * SECOND;

    @Test
    void aRetransmissionWithinTheMemoryIsNotANewDialog()
    {
        final EndedDialogs ended = new EndedDialogs(MEMORY);
        assertTrue(ended.remember("call-1\ntag-1", START));
        ended.trim(START + 20 * SECOND);
        assertFalse(ended.remember("call-1\ntag-1", START + 20 * SECOND), "retransmitted within 64*T1");
        ended.trim(START + 50 * SECOND);
        assertEquals(1, ended.size(), "remembered for 64*T1 after its last 2xx, not its first");
        assertFalse(ended.remember("call-1\ntag-1", START + 51 * SECOND));
    }

    @Test
    void aBurstOfStraysIsForgottenOnceTheirRetransmissionsAreOver()
    {
        final EndedDialogs ended = new EndedDialogs(MEMORY);
        for (int i = 0; i < 1_000; i++)
        {
            assertTrue(ended.remember("call-" + i + "\ntag", START + i * 1_000_000L));
        }
        assertEquals(EndedDialogs.REMEMBERED, ended.size(), "bounded: the least recently seen go first");
        assertTrue(ended.remember("call-0\ntag", START + SECOND), "the first ones were let go by the bound");
        ended.trim(START + 2 * SECOND);
        assertEquals(EndedDialogs.REMEMBERED, ended.size(), "all within 64*T1");
        ended.trim(START + MEMORY + SECOND);
        assertEquals(1, ended.size(), "only the one seen again a second later is left");
        ended.trim(START + MEMORY + 2 * SECOND);
        assertEquals(0, ended.size(), "a quiet shard remembers none");
        assertTrue(ended.remember("call-999\ntag", START + MEMORY + 3 * SECOND), "forgotten: a new dialog again");
    }
}
