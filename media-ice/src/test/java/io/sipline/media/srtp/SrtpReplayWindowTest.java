package io.sipline.media.srtp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RFC 3711 §3.3.2 replay list edge cases, and a differential check against a set-based model.
 */
class SrtpReplayWindowTest
{
    @Test
    void shouldAcceptAnyFirstIndex()
    {
        final SrtpReplayWindow window = new SrtpReplayWindow(128);
        assertEquals(0, window.check(0));
        assertEquals(0, window.check(0xFFFF_FFFF_FFFFL));
        window.update(5);
        assertEquals(5, window.highest());
        assertEquals(SrtpResult.REPLAY_DUPLICATE, window.check(5));
    }

    @Test
    void shouldAcceptInsideTheWindowAndRejectAtItsEdge()
    {
        final SrtpReplayWindow window = new SrtpReplayWindow(128);
        window.update(1000);
        assertEquals(0, window.check(1000 - 127), "size - 1 behind is still inside");
        assertEquals(SrtpResult.REPLAY_OLD, window.check(1000 - 128), "size behind is too old");
        window.update(1000 - 127);
        assertEquals(SrtpResult.REPLAY_DUPLICATE, window.check(1000 - 127));
        assertEquals(0, window.check(1001));
    }

    @Test
    void shouldRememberLateIndicesAcrossShiftsOfEveryWordBoundary()
    {
        for (final int step : new int[] {1, 63, 64, 65, 100, 127})
        {
            final SrtpReplayWindow window = new SrtpReplayWindow(128);
            window.update(10_000);
            window.update(9_990);
            window.update(10_000 + step);
            assertEquals(SrtpResult.REPLAY_DUPLICATE, window.check(10_000), "step " + step);
            final int expectOld = 9_990 <= 10_000 + step - 128 ? SrtpResult.REPLAY_OLD : SrtpResult.REPLAY_DUPLICATE;
            assertEquals(expectOld, window.check(9_990), "step " + step);
            assertEquals(0, window.check(9_991 + (step > 117 ? 20 : 0)), "step " + step);
        }
    }

    @Test
    void shouldForgetEverythingOnAJumpBeyondTheWindow()
    {
        final SrtpReplayWindow window = new SrtpReplayWindow(64);
        for (int i = 0; i < 64; i++)
        {
            window.update(i);
        }
        window.update(1_000_000);
        assertEquals(SrtpResult.REPLAY_OLD, window.check(63));
        assertEquals(0, window.check(1_000_000 - 63));
        assertEquals(SrtpResult.REPLAY_DUPLICATE, window.check(1_000_000));
    }

    @Test
    void shouldResetToAReferenceIndexWithoutMarkingIt()
    {
        final SrtpReplayWindow window = new SrtpReplayWindow(128);
        window.update(7);
        window.reset(0x3_0000);
        assertEquals(0, window.check(0x3_0000), "the reference itself was never received");
        assertEquals(SrtpResult.REPLAY_OLD, window.check(7));
    }

    @Test
    void shouldRejectSizesThatAreNotWholeWords()
    {
        assertThrows(IllegalArgumentException.class, () -> new SrtpReplayWindow(32));
        assertThrows(IllegalArgumentException.class, () -> new SrtpReplayWindow(100));
        assertThrows(IllegalArgumentException.class, () -> new SrtpReplayWindow(65_536));
    }

    @ParameterizedTest
    @ValueSource(ints = {64, 128, 192, 1024})
    void shouldAgreeWithASetBasedModel(final int size)
    {
        final SrtpReplayWindow window = new SrtpReplayWindow(size);
        final Set<Long> seen = new HashSet<>();
        final Random random = new Random(size);
        long highest = -1;
        long next = 100;
        for (int i = 0; i < 200_000; i++)
        {
            final int kind = random.nextInt(10);
            final long index = kind < 6 ? next++
                : kind < 9 ? Math.max(0, next - random.nextInt(2 * size))
                : next + random.nextInt(3 * size);
            final int expected = highest >= 0 && index <= highest - size ? SrtpResult.REPLAY_OLD
                : seen.contains(index) ? SrtpResult.REPLAY_DUPLICATE : 0;
            assertEquals(expected, window.check(index), "index " + index + " highest " + highest);
            if (0 == expected && random.nextInt(4) != 0)
            {
                window.update(index);
                seen.add(index);
                highest = Math.max(highest, index);
                next = Math.max(next, index + 1);
            }
        }
    }
}
