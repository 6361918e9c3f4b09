package io.sipline.bench.media;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The report of {@code bin/sipline bench media}: every step's row, then per relay the most calls held and its
 * packets per CPU-second there, the two relays' packets per CPU-second compared at the largest step both held, and
 * compared at every step both ran, held or not.
 *
 * <p>Stateless.
 */
final class MediaReport
{
    private MediaReport()
    {
    }

    /**
     * @param command the command line of the run.
     * @param rows    every step's row, in the order run.
     * @return the report as Markdown.
     */
    static String markdown(final String command, final List<MediaRow> rows)
    {
        final StringBuilder sb = new StringBuilder("# bench media\n\n`" + command + "`: each call an SDES-SRTP leg "
            + "(AES_CM_128_HMAC_SHA1_80) and a plain RTP leg, 50 packets/s of 160-octet PCMU each way, on loopback. "
            + "Held: loss under 0.1 % and added jitter p99 at most 5 ms. CPU is the relay process's (user + "
            + "system, /proc). Packets relayed count those that reached the other phone within the window.\n\n");
        sb.append(MediaRow.HEADER);
        for (final MediaRow r : rows)
        {
            sb.append(r.markdown()).append('\n');
        }
        sb.append('\n');
        final Map<String, MediaRow> best = bestHeld(rows);
        for (final Map.Entry<String, MediaRow> e : best.entrySet())
        {
            final MediaRow r = e.getValue();
            sb.append(null == r ? String.format("- %s: held no step.%n", e.getKey())
                : String.format("- %s: most calls held %,d; %,.0f packets per CPU-second there.%n", e.getKey(),
                    r.load().calls(), r.packetsPerCpuSecond()));
        }
        final double[] ratio = ratioAtLargestCommonStep(rows, "Sipline", "rtpengine");
        if (null != ratio)
        {
            sb.append(String.format("- At %,d calls, both held: Sipline relays %.2f times the packets per "
                + "CPU-second of rtpengine's userspace path (target: at least 1).%n", (int)ratio[0], ratio[1]));
        }
        final List<double[]> each = ratioAtEachStep(rows, "Sipline", "rtpengine");
        if (!each.isEmpty())
        {
            sb.append("- Packets per CPU-second, Sipline / rtpengine, at each step both ran (held or not):");
            for (int i = 0; i < each.size(); i++)
            {
                sb.append(String.format("%s%,d calls %.2f", 0 == i ? " " : "; ", (int)each.get(i)[0],
                    each.get(i)[1]));
            }
            sb.append(".\n");
        }
        return sb.toString();
    }

    /** @return per relay, in order of first appearance, its held row with the most calls; null when none held. */
    static Map<String, MediaRow> bestHeld(final List<MediaRow> rows)
    {
        final Map<String, MediaRow> best = new LinkedHashMap<>();
        for (final MediaRow r : rows)
        {
            final MediaRow b = best.get(r.system());
            if (!best.containsKey(r.system()) || (r.held() && (null == b || r.load().calls() > b.load().calls())))
            {
                best.put(r.system(), r.held() ? r : b);
            }
        }
        return best;
    }

    /**
     * @return per call count that both relays ran, in the order run, {calls, packets per CPU-second of {@code a} /
     *         that of {@code b}}, whether they held it or not; steps where either relayed nothing are left out.
     */
    static List<double[]> ratioAtEachStep(final List<MediaRow> rows, final String a, final String b)
    {
        final List<double[]> out = new java.util.ArrayList<>();
        for (final MediaRow ra : rows)
        {
            if (!ra.system().equals(a) || ra.load().received() <= 0)
            {
                continue;
            }
            for (final MediaRow rb : rows)
            {
                if (rb.system().equals(b) && rb.load().calls() == ra.load().calls() && rb.load().received() > 0)
                {
                    out.add(new double[] {ra.load().calls(), ra.packetsPerCpuSecond() / rb.packetsPerCpuSecond()});
                    break;
                }
            }
        }
        return out;
    }

    /**
     * @return {calls, packets per CPU-second of {@code a} / that of {@code b}} at the largest call count both
     *         held; null when they held none in common.
     */
    static double[] ratioAtLargestCommonStep(final List<MediaRow> rows, final String a, final String b)
    {
        double[] found = null;
        for (final MediaRow ra : rows)
        {
            if (!ra.system().equals(a) || !ra.held())
            {
                continue;
            }
            for (final MediaRow rb : rows)
            {
                if (rb.system().equals(b) && rb.held() && rb.load().calls() == ra.load().calls()
                    && (null == found || ra.load().calls() > found[0]))
                {
                    found = new double[] {ra.load().calls(), ra.packetsPerCpuSecond() / rb.packetsPerCpuSecond()};
                }
            }
        }
        return found;
    }
}
