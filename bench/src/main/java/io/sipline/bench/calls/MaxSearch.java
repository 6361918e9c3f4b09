package io.sipline.bench.calls;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The rate search of {@code bench calls --find-max}, apart from sipp and the servers so that it can be tested with a
 * fake step runner. Three phases, each step run through a {@link Runner} that is told whether the step must start on
 * a fresh server:
 * <ol>
 * <li><b>Search</b>, at most {@code maxSteps} steps: doubling from {@code startRate} while steps are sustained,
 * then bisecting between the highest sustained and the lowest failed rate until they are within 5% (or 1 call/s).
 * A sustained step leaves its server running for the next one; after a failed step the next starts on a fresh
 * server.</li>
 * <li><b>Confirmation</b>, at most {@code maxSteps} more steps: a rate counts as the maximum only when it was sustained
 * twice and never failed. The highest rate sustained in the search is run again on a fresh server; if that fails, the
 * rate is stepped down by 10% and run on a fresh server each time until one rate has been sustained twice (a rate of
 * the search that was sustained there counts once). No rate held twice within the bound: no maximum (0).</li>
 * <li><b>At 80%</b>: one step at 80% of the confirmed maximum (on the running server when the last step was
 * sustained, else a fresh one), for the latency figures. Not run without a confirmed maximum.</li>
 * </ol>
 * The steps' own judgement is the predicate given (for the harness {@link Step#sustained()}). Not thread-safe; the
 * harness's main thread.
 *
 * @param <S> the step outcome
 */
public final class MaxSearch<S>
{
    /** Runs one step. */
    @FunctionalInterface
    public interface Runner<S>
    {
        /**
         * Runs {@code rate} calls/s for one step and returns its outcome.
         *
         * @param label {@code r<rate>} (search), {@code down-r<rate>} (first run of a rate 10% lower),
         *              {@code confirm-r<rate>} (a run that can confirm a rate already sustained once), {@code at80};
         *              the same label may come twice
         * @param fresh the step must run on a newly started (and warmed up) server; when false the runner keeps the
         *              server of the previous step (it always starts one when it has none)
         */
        S run(String label, int rate, boolean fresh) throws IOException, InterruptedException;
    }

    /**
     * What the search found.
     *
     * @param max        the confirmed maximum (sustained twice, never failed), 0 when none
     * @param heldOnce   the highest rate sustained in the search phase (0 when none), which may be above {@code max}
     * @param confirming the steps that sustained {@code max}, in the order they ran (two when {@code max > 0})
     * @param at80       the step at 80% of {@code max}, or null
     * @param steps      every step run, in order
     */
    public record Result<S>(int max, int heldOnce, List<S> confirming, S at80, List<S> steps)
    {
        public Result
        {
            confirming = List.copyOf(confirming);
            steps = List.copyOf(steps);
        }

        /** The last step that sustained the maximum (the one whose figures stand for "at max"), or null. */
        public S best()
        {
            return confirming.isEmpty() ? null : confirming.getLast();
        }
    }

    /** How many sustained runs make a rate the maximum. */
    static final int CONFIRMATIONS = 2;

    private final int startRate;
    private final int maxSteps;
    private final Predicate<S> sustained;

    /**
     * @param startRate first rate of the search (positive)
     * @param maxSteps  bound on the steps of the search phase, and separately on those of the confirmation phase
     * @param sustained whether a step held its rate
     */
    public MaxSearch(final int startRate, final int maxSteps, final Predicate<S> sustained)
    {
        if (startRate <= 0 || maxSteps <= 0)
        {
            throw new IllegalArgumentException("start rate and max steps must be positive: " + startRate + ", "
                + maxSteps);
        }
        this.startRate = startRate;
        this.maxSteps = maxSteps;
        this.sustained = sustained;
    }

    /** Runs the three phases through {@code runner}. */
    public Result<S> find(final Runner<S> runner) throws IOException, InterruptedException
    {
        final List<S> steps = new ArrayList<>();
        final Map<Integer, List<S>> held = new HashMap<>();
        boolean fresh = true;

        // 1. search: double, then bisect to 5%
        int good = 0;
        int bad = 0;
        int next = startRate;
        for (int n = 0; n < maxSteps; n++)
        {
            final S step = runner.run("r" + next, next, fresh);
            steps.add(step);
            fresh = !sustained.test(step);
            if (fresh)
            {
                bad = next;
            }
            else
            {
                good = next;
                held.computeIfAbsent(next, r -> new ArrayList<>()).add(step);
            }
            if (0 == bad)
            {
                next = good * 2;
                continue;
            }
            if (bad - good <= Math.max(1, good / 20) || (0 == good && bad <= 10))
            {
                break;
            }
            next = (good + bad) / 2;
        }

        // 2. confirmation: the best rate again on a fresh server, else 10% lower until one rate held twice
        int max = 0;
        List<S> confirming = List.of();
        int rate = good;
        for (int n = 0; rate > 0 && n < maxSteps; n++)
        {
            final List<S> runs = held.computeIfAbsent(rate, r -> new ArrayList<>());
            final S step = runner.run((runs.isEmpty() ? "down-r" : "confirm-r") + rate, rate, true);
            steps.add(step);
            if (sustained.test(step))
            {
                runs.add(step);
                if (runs.size() >= CONFIRMATIONS)
                {
                    max = rate;
                    confirming = runs;
                    fresh = false;
                    break;
                }
            }
            else
            {
                held.remove(rate);
                fresh = true;
                rate = stepDown(rate);
            }
        }

        // 3. the latency step at 80% of the confirmed maximum
        S at80 = null;
        if (max > 0)
        {
            final int r = Math.max(1, max * 4 / 5);
            at80 = runner.run("at80", r, fresh);
            steps.add(at80);
        }
        return new Result<>(max, good, confirming, at80, steps);
    }

    /** 10% lower, rounded down, and at least 1 lower; 0 below 1 call/s. */
    static int stepDown(final int rate)
    {
        return Math.max(0, Math.min(rate - 1, rate * 9 / 10));
    }
}
