package io.sipline.container.warmup;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The windows in which the warm-up's overload clock runs late. */
class LateWindowsTest
{
    @Test
    void shouldBeLateInAWindowAtTheStartOfEveryPeriodAfterTheFirst()
    {
        final LateWindows w = new LateWindows(250, 300, 1_000, 80);
        assertFalse(w.late(0));
        assertFalse(w.late(249));
        assertTrue(w.late(250));
        assertTrue(w.late(549));
        assertFalse(w.late(550));
        assertFalse(w.late(1_249));
        assertTrue(w.late(1_250));
        assertTrue(w.late(5_500));
        assertFalse(w.late(5_550));
    }

    @Test
    void shouldRefuseWindowsThatCannotBe()
    {
        assertThrows(IllegalArgumentException.class, () -> new LateWindows(0, 0, 1_000, 80));
        assertThrows(IllegalArgumentException.class, () -> new LateWindows(0, 300, 200, 80));
        assertThrows(IllegalArgumentException.class, () -> new LateWindows(0, 300, 1_000, 0));
        assertThrows(IllegalArgumentException.class, () -> new LateWindows(-1, 300, 1_000, 80));
    }
}
