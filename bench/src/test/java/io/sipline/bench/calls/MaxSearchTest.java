package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

import org.junit.jupiter.api.Test;

/**
 * The --find-max search driven by a fake step runner (no sipp, no server): which rates it runs, on which server
 * (fresh or kept), and which rate it reports as the maximum.
 */
class MaxSearchTest
{
    /** One step of the fake runner: what it was asked and whether it "held". */
    record Run(String label, int rate, boolean fresh, boolean held)
    {
    }

    /**
     * A fake system: a rate holds when {@code capacity} says so, except the runs listed in {@code script}, keyed by
     * {@code rate} and then by how many times that rate ran before (0 for the first run).
     */
    static final class FakeSystem implements MaxSearch.Runner<Run>
    {
        final List<Run> runs = new ArrayList<>();
        private final IntPredicate capacity;
        private final Map<Integer, Map<Integer, Boolean>> script = new HashMap<>();
        private final Map<Integer, Integer> count = new HashMap<>();

        FakeSystem(final IntPredicate capacity)
        {
            this.capacity = capacity;
        }

        FakeSystem scripted(final int rate, final int occurrence, final boolean held)
        {
            script.computeIfAbsent(rate, r -> new HashMap<>()).put(occurrence, held);
            return this;
        }

        @Override
        public Run run(final String label, final int rate, final boolean fresh)
        {
            final int n = count.merge(rate, 1, Integer::sum) - 1;
            final boolean held = script.getOrDefault(rate, Map.of()).getOrDefault(n, capacity.test(rate));
            final Run r = new Run(label, rate, fresh, held);
            runs.add(r);
            return r;
        }

        List<String> labels()
        {
            return runs.stream().map(Run::label).toList();
        }
    }

    private static MaxSearch.Result<Run> search(final FakeSystem system, final int start, final int maxSteps)
        throws Exception
    {
        final MaxSearch.Result<Run> result = new MaxSearch<Run>(start, maxSteps, Run::held).find(system);
        assertEquals(system.runs, result.steps(), "the result lists every step run, in order");
        return result;
    }

    @Test
    void shouldConfirmTheBestRateOnAFreshServerAndMeasureAt80OnIt() throws Exception
    {
        final FakeSystem system = new FakeSystem(rate -> rate <= 6500);
        final MaxSearch.Result<Run> result = search(system, 400, 14);

        assertEquals(List.of("r400", "r800", "r1600", "r3200", "r6400", "r12800", "r9600", "r8000", "r7200", "r6800",
            "r6600", "confirm-r6400", "at80"), system.labels());
        assertEquals(6400, result.max());
        assertEquals(6400, result.heldOnce());
        assertEquals(List.of(system.runs.get(4), system.runs.get(11)), result.confirming(),
            "the search step and the fresh-server step confirm it");
        assertEquals(system.runs.get(11), result.best());
        assertTrue(system.runs.get(11).fresh(), "the confirmation starts on a fresh server");
        assertEquals(new Run("at80", 5120, false, true), result.at80(), "80% of the confirmed maximum, same server");
    }

    @Test
    void shouldKeepTheServerAfterASustainedStepAndRestartItAfterAFailedOne() throws Exception
    {
        final FakeSystem system = new FakeSystem(rate -> rate <= 6500);
        search(system, 400, 14);

        final List<Boolean> fresh = system.runs.stream().map(Run::fresh).toList();
        assertEquals(List.of(true, false, false, false, false, false, true, true, true, true, true, true, false),
            fresh);
    }

    /** Today's run: 6,400/s held once, then not on a fresh server; 10% lower held twice. */
    @Test
    void shouldStepDownTenPercentWhenTheBestRateDoesNotHoldAgain() throws Exception
    {
        final FakeSystem system = new FakeSystem(rate -> rate <= 6000).scripted(6400, 0, true);
        final MaxSearch.Result<Run> result = search(system, 400, 14);

        assertEquals(List.of("r400", "r800", "r1600", "r3200", "r6400", "r12800", "r9600", "r8000", "r7200", "r6800",
            "r6600", "confirm-r6400", "down-r5760", "confirm-r5760", "at80"), system.labels());
        assertEquals(5760, result.max());
        assertEquals(6400, result.heldOnce(), "the once-held rate is kept for the report");
        assertEquals(List.of("down-r5760", "confirm-r5760"), result.confirming().stream().map(Run::label).toList());
        assertTrue(result.confirming().stream().allMatch(Run::fresh), "each confirming step on a fresh server");
        assertEquals(4608, result.at80().rate());
    }

    @Test
    void shouldNotCountARateThatFailedOnceEvenIfItHeldTwice() throws Exception
    {
        // 5,760 holds, fails, would hold again: it is left; 5,184 holds twice.
        final FakeSystem system = new FakeSystem(rate -> rate <= 5760)
            .scripted(6400, 0, true).scripted(5760, 1, false);
        final MaxSearch.Result<Run> result = search(system, 6400, 14);

        assertEquals(List.of("r6400", "r12800", "r9600", "r8000", "r7200", "r6800", "r6600", "confirm-r6400",
            "down-r5760", "confirm-r5760", "down-r5184", "confirm-r5184", "at80"), system.labels());
        assertEquals(5184, result.max());
    }

    @Test
    void shouldReportNoMaximumWhenNoRateHoldsTwiceWithinTheBound() throws Exception
    {
        // Only the search's first runs hold: the confirmation phase runs out of its 4 steps.
        final FakeSystem system = new FakeSystem(rate -> false)
            .scripted(100, 0, true).scripted(200, 0, true).scripted(400, 0, true);
        final MaxSearch.Result<Run> result = search(system, 100, 4);

        assertEquals(List.of("r100", "r200", "r400", "r800", "confirm-r400", "down-r360", "down-r324", "down-r291"),
            system.labels(), "4 search steps, then 4 confirmation steps");
        assertEquals(0, result.max());
        assertEquals(400, result.heldOnce());
        assertTrue(result.confirming().isEmpty());
        assertNull(result.best());
        assertNull(result.at80(), "no 80% step without a confirmed maximum");
    }

    @Test
    void shouldStopWithoutConfirmationWhenNothingHolds() throws Exception
    {
        final FakeSystem system = new FakeSystem(rate -> false);
        final MaxSearch.Result<Run> result = search(system, 100, 14);

        assertEquals(List.of("r100", "r50", "r25", "r12", "r6"), system.labels());
        assertEquals(0, result.max());
        assertEquals(0, result.heldOnce());
        assertNull(result.at80());
    }

    @Test
    void shouldStepDownByTenPercentAndAtLeastOne()
    {
        assertEquals(5760, MaxSearch.stepDown(6400));
        assertEquals(8, MaxSearch.stepDown(9));
        assertEquals(0, MaxSearch.stepDown(1));
    }

    @Test
    void shouldRefuseANonPositiveStartOrBound()
    {
        assertThrows(IllegalArgumentException.class, () -> new MaxSearch<Run>(0, 14, Run::held));
        assertThrows(IllegalArgumentException.class, () -> new MaxSearch<Run>(100, 0, Run::held));
    }
}
