package io.sipline.bench.overload;

import java.util.List;
import java.util.Locale;

/**
 * The report of {@code bench overload}: a summary line per run with its verdicts, then each run second by second
 * (markdown), and the same figures as JSON. Stateless.
 */
final class OverloadReport
{
    private OverloadReport()
    {
    }

    /** The markdown report; {@code cpus}: how the servers and the callers shared the CPUs, null when not confined. */
    static String markdown(final String command, final String app, final String profile, final int siplineMax,
        final int kamailioMax, final String cpus, final List<Surge> surges)
    {
        final StringBuilder md = new StringBuilder(8192);
        md.append("# bench overload\n\n`").append(command).append("`\n\nApplication `").append(app)
            .append("`, profile `").append(profile).append("`; maximum sustained (twice, no failure, no ")
            .append("retransmission): Sipline ").append(siplineMax).append(" calls/s, Kamailio ")
            .append(0 == kamailioMax ? "not measured" : kamailioMax + " calls/s").append(". Machine: ")
            // confined, this JVM sees only the callers' CPUs: the confinement's own line says what each had
            .append(null == cpus ? Runtime.getRuntime().availableProcessors() + " cores, " : "").append("JDK ")
            .append(Runtime.version()).append(null == cpus ? "; the callers share the server's cores" : "; " + cpus)
            .append(".\n\nSeconds are counted from the start of the surge. Goodput: calls whose BYE was answered. ")
            .append("Recovery: seconds from the end of the surge until every second refuses nothing, retransmits ")
            .append("nothing and completes at least 90% of what it is offered. Least goodput / steady rate before ")
            .append("the surge: the same one-second measure over the steady calls alone (its first second aside), ")
            .append("how far a second falls short by itself where nothing was refused.\n\n")
            .append("| run | offered in the surge, calls/s | goodput in the surge, calls/s | least goodput / max | ")
            .append("least goodput / steady rate before the surge | ")
            .append("held >= 90% | 503s | 503s without Retry-After | server's overload refusals | ")
            .append("retransmissions | failed calls | kernel drops: server and far end / callers | ")
            .append("established calls: BYEs in surge / after / answered of established | recovery, s |\n")
            .append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (final Surge s : surges)
        {
            final Surge.Population p = s.population();
            md.append("| ").append(s.label()).append(" | ").append(f0(s.offeredInSurge())).append(" | ")
                .append(f0(s.goodputInSurge())).append(" | ").append(pct(s.minGoodputShare())).append(" | ")
                .append(pct(s.steadyShareBefore())).append(" | ").append(s.goodputHeld() ? "yes" : "no").append(" | ")
                .append(s.refused()).append(" | ")
                .append(s.missingRetryAfter()).append(" | ").append(s.serverRefused() < 0 ? "-" : s.serverRefused())
                .append(" | ").append(s.retransmissions()).append(" | ").append(s.failed()).append(" | ")
                .append(s.drops()).append(" / ").append(s.callerDrops()).append(" | ")
                .append(null == p ? "-" : population(p))
                .append(" | ").append(s.recoverySeconds() < 0 ? "not within the run" : s.recoverySeconds())
                .append(" |\n");
        }
        storms(md, surges);
        for (final Surge s : surges)
        {
            md.append("\n### ").append(s.label()).append("\n\n| second | offered | goodput | 503s | ")
                .append("retransmissions | failed | population BYEs sent / answered |\n")
                .append("|---|---|---|---|---|---|---|\n");
            for (final Surge.Second x : s.seconds())
            {
                md.append("| ").append(x.second()).append(x.second() >= 0 && x.second() < s.surgeSeconds() ? " (surge)"
                    : "").append(" | ").append(x.offered()).append(" | ").append(x.completed()).append(" | ")
                    .append(x.refused()).append(" | ").append(x.retransmissions()).append(" | ").append(x.failed())
                    .append(" | ").append(x.byesSent()).append(" / ").append(x.byesAnswered()).append(" |\n");
            }
        }
        return md.toString();
    }

    /** The registration storms' own table, when there are any. */
    private static void storms(final StringBuilder md, final List<Surge> surges)
    {
        final List<Surge> storms = surges.stream().filter(s -> null != s.storm()).toList();
        if (storms.isEmpty())
        {
            return;
        }
        md.append("\nRegistration storms: REGISTERs from distinct users in the surge's seconds, beside the steady ")
            .append("calls. Steady calls held: every second of the storm completed at least 90% of the steady ")
            .append("calls offered.\n\n| run | REGISTERs/s offered | sent | answered 200 | refused 503 | failed | ")
            .append("retransmitted | least steady calls completed / offered | steady calls held |\n")
            .append("|---|---|---|---|---|---|---|---|---|\n");
        for (final Surge s : storms)
        {
            final Surge.Storm t = s.storm();
            md.append("| ").append(s.label()).append(" | ").append(t.rate()).append(" | ").append(t.sent())
                .append(" | ").append(t.registered()).append(" | ").append(t.refused()).append(" | ")
                .append(t.failed()).append(" | ").append(t.retransmissions()).append(" | ")
                .append(pct(t.leastSteadyShare())).append(" | ").append(t.callsHeld() ? "yes" : "no").append(" |\n");
        }
    }

    static String json(final String app, final String profile, final int siplineMax, final int kamailioMax,
        final List<Surge> surges)
    {
        final StringBuilder j = new StringBuilder(8192);
        j.append("{\n  \"app\": \"").append(app).append("\",\n  \"profile\": \"").append(profile)
            .append("\",\n  \"siplineMax\": ").append(siplineMax).append(",\n  \"kamailioMax\": ").append(kamailioMax)
            .append(",\n  \"runs\": [");
        for (int i = 0; i < surges.size(); i++)
        {
            final Surge s = surges.get(i);
            final Surge.Population p = s.population();
            j.append(i > 0 ? "," : "").append("\n    {\"label\": \"").append(s.label()).append("\", \"max\": ")
                .append(s.max()).append(", \"multiplier\": ").append(s.multiplier()).append(", \"surgeSeconds\": ")
                .append(s.surgeSeconds()).append(", \"offeredInSurge\": ").append(f1(s.offeredInSurge()))
                .append(", \"goodputInSurge\": ").append(f1(s.goodputInSurge())).append(", \"minGoodputShare\": ")
                .append(String.format(Locale.ROOT, "%.3f", s.minGoodputShare())).append(", \"steadyRate\": ")
                .append(s.steadyRate()).append(", \"steadyShareBefore\": ")
                .append(String.format(Locale.ROOT, "%.3f", s.steadyShareBefore())).append(", \"goodputHeld\": ")
                .append(s.goodputHeld()).append(", \"refused\": ").append(s.refused())
                .append(", \"missingRetryAfter\": ").append(s.missingRetryAfter()).append(", \"serverRefused\": ")
                .append(s.serverRefused()).append(", \"retransmissions\": ").append(s.retransmissions())
                .append(", \"failed\": ").append(s.failed()).append(", \"drops\": ").append(s.drops())
                .append(", \"callerDrops\": ").append(s.callerDrops())
                .append(", \"recoverySeconds\": ").append(s.recoverySeconds());
            final Surge.Storm t = s.storm();
            if (null != t)
            {
                j.append(", \"storm\": {\"rate\": ").append(t.rate()).append(", \"sent\": ").append(t.sent())
                    .append(", \"registered\": ").append(t.registered()).append(", \"refused\": ").append(t.refused())
                    .append(", \"failed\": ").append(t.failed()).append(", \"retransmissions\": ")
                    .append(t.retransmissions()).append(", \"leastSteadyShare\": ")
                    .append(String.format(Locale.ROOT, "%.3f", t.leastSteadyShare())).append('}');
            }
            if (null != p)
            {
                j.append(", \"population\": {\"calls\": ").append(p.calls()).append(", \"established\": ")
                    .append(p.established()).append(", \"byesInSurge\": ").append(p.byesInSurge())
                    .append(", \"byesAfter\": ").append(p.byesAfter()).append(", \"byesAnswered\": ")
                    .append(p.byesAnswered()).append(", \"failed\": ").append(p.failed()).append('}');
            }
            j.append(", \"perSecondColumns\": [\"second\", \"offered\", \"completed\", \"refused\", ")
                .append("\"retransmissions\", \"failed\", \"populationByesSent\", \"populationByesAnswered\"], ")
                .append("\"perSecond\": [");
            for (int k = 0; k < s.seconds().size(); k++)
            {
                final Surge.Second x = s.seconds().get(k);
                j.append(k > 0 ? ", " : "").append('[').append(x.second()).append(", ").append(x.offered())
                    .append(", ").append(x.completed()).append(", ").append(x.refused()).append(", ")
                    .append(x.retransmissions()).append(", ").append(x.failed()).append(", ").append(x.byesSent())
                    .append(", ").append(x.byesAnswered()).append(']');
            }
            j.append("]}");
        }
        return j.append("\n  ]\n}\n").toString();
    }

    /** BYEs of the held calls; a call refused at its set-up (before the surge) was never established. */
    private static String population(final Surge.Population p)
    {
        final long notSetUp = p.calls() - p.established();
        return p.byesInSurge() + " / " + p.byesAfter() + " / " + p.byesAnswered() + " of " + p.established()
            + (p.establishedAnswered() ? " (all)" : " (NOT all)")
            + (notSetUp > 0 ? "; " + notSetUp + " of " + p.calls() + " not set up" : "");
    }

    private static String f0(final double v)
    {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    private static String f1(final double v)
    {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String pct(final double v)
    {
        return String.format(Locale.ROOT, "%.0f%%", 100 * v);
    }
}
