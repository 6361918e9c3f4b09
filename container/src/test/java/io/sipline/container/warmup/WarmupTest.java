package io.sipline.container.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The warm-up places its calls through a container of its own: its B2BUA relays the 180, the 200, the ACK and the BYE
 * between the stack-level UAC and UAS, and every call completes.
 */
class WarmupTest
{
    @Test
    void shouldCompleteEveryCallThroughItsOwnB2bua() throws Exception
    {
        final Warmup.Result r = Warmup.run(200, 2);
        assertEquals(200, r.calls());
        assertEquals(200, r.completed(), "calls completed: " + r);
        assertEquals(0, r.failed(), "calls failed: " + r);
        assertTrue(r.millis() > 0, r.toString());
    }
}
