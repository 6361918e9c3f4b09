package io.sipline.bench.overload;

import java.util.List;

/**
 * What one overload run measured and how it is judged. The clock is the surge's: second 0 starts when the surge's
 * caller starts, seconds before it are negative; the surge holds seconds {@code 0} to {@code surgeSeconds - 1}.
 * Immutable.
 *
 * @param label        what ran, e.g. {@code sipline, --overload-wait 100, 2x}
 * @param max          the maximum sustained calls/s the offered rates are multiples of
 * @param multiplier   the surge offers {@code multiplier * max} calls/s in all (the steady callers included)
 * @param steadyRate   calls/s of the steady caller, before, during and after the surge
 * @param surgeSeconds how long the surge lasts
 * @param seconds      every second of the run, in order
 * @param population   the calls established before the surge and ended during and after it
 * @param missingRetryAfter 503s without a Retry-After (sipp failed those calls: {@code FailedRegexpHdrNotFound})
 * @param serverRefused the server's own count of calls refused for overload ({@code overloaded}), -1: not known
 * @param drops        datagrams the kernel dropped on the server's and the far end's sockets over the run
 * @param callerDrops  datagrams the kernel dropped on the callers' sockets from the start of the surge (sipp, short
 *                     of CPU, not reading its responses in time)
 * @param storm        the registration storm that took the surge's place, null for a surge of INVITEs; its
 *                     registrations are not in {@code seconds}
 */
public record Surge(String label, int max, int multiplier, int steadyRate, int surgeSeconds, List<Second> seconds,
    Population population, long missingRetryAfter, long serverRefused, long drops, long callerDrops, Storm storm)
{
    /** The share of {@code max} the goodput must keep through the surge. */
    public static final double GOODPUT_SHARE = 0.9;

    /**
     * One second of the run, every caller added up.
     *
     * @param offered         new INVITEs sent
     * @param completed       calls whose BYE was answered 200 (goodput)
     * @param refused         503s received for an INVITE
     * @param retransmissions retransmissions counted by the callers and the far end
     * @param failed          calls sipp failed (a receive timeout after 8 s, a 503 without Retry-After, ...)
     * @param byesSent        BYEs sent by the established calls' caller
     * @param byesAnswered    200s to those BYEs
     */
    public record Second(int second, long offered, long completed, long refused, long retransmissions, long failed,
        long byesSent, long byesAnswered)
    {
    }

    /**
     * The established calls held across the surge.
     *
     * @param calls          calls the population's caller placed
     * @param established    calls that reached their BYE
     * @param byesInSurge    BYEs sent during the surge
     * @param byesAfter      BYEs sent after it
     * @param byesAnswered   BYEs answered 200
     * @param failed         calls sipp failed
     */
    public record Population(long calls, long established, long byesInSurge, long byesAfter, long byesAnswered,
        long failed)
    {
        /** Every call was established and every BYE answered. */
        public boolean allAnswered()
        {
            return calls > 0 && established == calls && byesAnswered == established && 0 == failed;
        }

        /** Every call that was established had its BYE answered (some may have been refused at set-up). */
        public boolean establishedAnswered()
        {
            return established > 0 && byesAnswered == established;
        }
    }

    /**
     * A registration storm in the surge's seconds, beside the steady calls: REGISTERs from distinct users.
     *
     * @param rate             REGISTERs/s offered
     * @param sent             REGISTERs sent (first transmissions)
     * @param registered       answered 200
     * @param refused          answered 503 (with Retry-After)
     * @param failed           registrations sipp failed (no answer in time, a 503 without Retry-After)
     * @param retransmissions  retransmissions of the storm's REGISTERs
     * @param leastSteadyShare the least share, over the storm's seconds, of the steady caller's calls/s completed in
     *                         the second (its calls are not held, so a call completes in the second it is placed)
     */
    public record Storm(int rate, long sent, long registered, long refused, long failed, long retransmissions,
        double leastSteadyShare)
    {
        /** The calls did not starve: every second of the storm completed at least 90% of the steady calls. */
        public boolean callsHeld()
        {
            return leastSteadyShare >= GOODPUT_SHARE;
        }
    }

    public Surge
    {
        seconds = List.copyOf(seconds);
    }

    /** A surge of INVITEs (no registration storm). */
    public Surge(final String label, final int max, final int multiplier, final int steadyRate,
        final int surgeSeconds, final List<Second> seconds, final Population population, final long missingRetryAfter,
        final long serverRefused, final long drops, final long callerDrops)
    {
        this(label, max, multiplier, steadyRate, surgeSeconds, seconds, population, missingRetryAfter, serverRefused,
            drops, callerDrops, null);
    }

    /** The surge's seconds (full ones: the run's last, partial second is never one of them). */
    public List<Second> surge()
    {
        return seconds.stream().filter(s -> s.second() >= 0 && s.second() < surgeSeconds).toList();
    }

    /** The least goodput of a surge second, as a share of {@code max}; 0 when no surge second was measured. */
    public double minGoodputShare()
    {
        return surge().stream().mapToDouble(s -> s.completed() / (double)max).min().orElse(0);
    }

    /**
     * The least goodput of a second before the surge, as a share of the steady rate, the first second (the callers
     * starting) aside; 0 when there is no such second. Where the server refused nothing in those seconds, this is how
     * far one second of the measure falls short by itself (sipp's one-second counts, calls ending on either side of a
     * second's edge): read {@link #minGoodputShare} beside it.
     */
    public double steadyShareBefore()
    {
        final List<Second> before = seconds.stream().filter(s -> s.second() < 0).toList();
        return before.stream().skip(1).mapToDouble(s -> s.completed() / (double)steadyRate).min().orElse(0);
    }

    /**
     * Goodput stayed at or above {@link #GOODPUT_SHARE} of the maximum in every second of the surge; in a
     * registration storm, of the steady calls offered ({@link Storm#callsHeld}).
     */
    public boolean goodputHeld()
    {
        return surge().size() == surgeSeconds
            && (null == storm ? minGoodputShare() >= GOODPUT_SHARE : storm.callsHeld());
    }

    /** Calls/s offered on average over the surge (what sipp really sent). */
    public double offeredInSurge()
    {
        return surge().stream().mapToLong(Second::offered).average().orElse(0);
    }

    /** Calls/s completed on average over the surge. */
    public double goodputInSurge()
    {
        return surge().stream().mapToLong(Second::completed).average().orElse(0);
    }

    public long refused()
    {
        return seconds.stream().mapToLong(Second::refused).sum();
    }

    public long retransmissions()
    {
        return seconds.stream().mapToLong(Second::retransmissions).sum();
    }

    public long failed()
    {
        return seconds.stream().mapToLong(Second::failed).sum();
    }

    /**
     * Seconds from the end of the surge until the server is back to normal: the first second after the surge from
     * which every full second (the last, partial one aside) refuses nothing, retransmits nothing and completes at
     * least {@link #GOODPUT_SHARE} of the calls offered in it. -1 when no such second came.
     */
    public int recoverySeconds()
    {
        final List<Second> after = seconds.stream().filter(s -> s.second() >= surgeSeconds).toList();
        int first = -1;
        for (int i = 0; i < after.size() - 1; i++)
        {
            final Second s = after.get(i);
            final boolean normal = 0 == s.refused() && 0 == s.retransmissions()
                && s.completed() >= GOODPUT_SHARE * s.offered();
            if (normal)
            {
                first = first < 0 ? s.second() : first;
            }
            else
            {
                first = -1;
            }
        }
        return first < 0 ? -1 : first - surgeSeconds;
    }
}
