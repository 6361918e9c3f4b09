package io.sipline.container.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The warm-up places its calls through a container of its own: its B2BUA relays the 180, the 200, the ACK and the BYE
 * between the stack-level UAC and UAS, and every call completes; with overload control on, the calls of its late
 * windows are refused {@code 503} and the others complete.
 */
class WarmupTest
{
    @Test
    void shouldCompleteEveryCallThroughItsOwnB2bua() throws Exception
    {
        final Warmup.Result r = Warmup.run(200, 2, 0);
        assertEquals(200, r.calls());
        assertEquals(200, r.completed(), "calls completed: " + r);
        assertEquals(0, r.refused(), "calls refused: " + r);
        assertEquals(0, r.failed(), "calls failed: " + r);
        assertTrue(r.millis() > 0, r.toString());
    }

    @Test
    void shouldRefuseTheCallsOfItsLateWindowsWithOverloadControlOn() throws Exception
    {
        // two rounds of 1,000 calls, about half a second each: 100 to 400 ms into each is late by 300 ms (target 30 ms)
        final Warmup.Result r = Warmup.run(2_000, 1, TimeUnit.MILLISECONDS.toNanos(30),
            () -> new LateWindows(TimeUnit.MILLISECONDS.toNanos(100), TimeUnit.MILLISECONDS.toNanos(300),
                TimeUnit.SECONDS.toNanos(60), TimeUnit.MILLISECONDS.toNanos(300)), 0, () -> "");
        assertEquals(0, r.failed(), "calls failed: " + r);
        assertTrue(r.refused() > 0, "calls refused: " + r);
        assertTrue(r.completed() > 0, "calls completed: " + r);
        assertEquals(2_000, r.completed() + r.refused(), r.toString());
    }

    @Test
    void shouldRefuseEnoughCallsForC2ToCompileTheRefusalWithOverloadControlOn() throws Exception
    {
        // 200 calls through the late windows, then always-late rounds
        final Warmup.Result r = Warmup.run(200, 1, TimeUnit.MILLISECONDS.toNanos(30));
        assertEquals(0, r.failed(), "calls failed: " + r);
        assertTrue(r.refused() >= Warmup.MIN_REFUSALS, "calls refused: " + r);
        assertTrue(r.completed() > 0, "calls completed: " + r);
    }

    @Test
    void shouldRefuseFurtherRoundsWhileTheRefusalsCodeIsUnsettled() throws Exception
    {
        // C2 compiles a refusal method again in every round: the round of the minimum, then every further one
        final int[] id = {0};
        final Warmup.Result unsettled = Warmup.run(20, 1, TimeUnit.MILLISECONDS.toNanos(30), WarmupTest::neverLate,
            100, () -> ++id[0] + " 4 0 io.sipline.sip.transaction.StatelessShedding.send(J)V [0x0, 0x0 - 0x0]");
        assertEquals(1 + Warmup.FURTHER_ROUNDS, unsettled.refusalRounds(), unsettled.toString());
        assertTrue(unsettled.refused() >= 100L * (1 + Warmup.FURTHER_ROUNDS), "calls refused: " + unsettled);
        assertEquals(0, unsettled.failed(), "calls failed: " + unsettled);
        assertEquals("StatelessShedding.send", Warmup.describe(unsettled.unsettled()));

        // the same code before and after each round: the minimum's round alone
        final Warmup.Result settled = Warmup.run(20, 1, TimeUnit.MILLISECONDS.toNanos(30), WarmupTest::neverLate, 100,
            () -> "7 4 0 io.sipline.sip.transaction.StatelessShedding.send(J)V [0x0, 0x0 - 0x0]");
        assertEquals(1, settled.refusalRounds(), settled.toString());
        assertTrue(settled.refused() >= 100, "calls refused: " + settled);
        assertEquals(Set.of(), settled.unsettled());
    }

    /** An overload clock whose first late window opens after the test is over. */
    private static java.util.function.LongSupplier neverLate()
    {
        return new LateWindows(TimeUnit.SECONDS.toNanos(600), 1, TimeUnit.SECONDS.toNanos(600), 1);
    }
}
