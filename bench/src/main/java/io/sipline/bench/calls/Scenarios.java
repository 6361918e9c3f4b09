package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The caller and far-end scenarios, derived at run time from the installed sipp's own built-in {@code uac} and
 * {@code uas} ({@code sipp -sd NAME}) so that no scenario text is copied into the repository, and the messages on the
 * wire stay exactly the built-in ones:
 * <ul>
 * <li>{@link #timed}: the built-in {@code uac} plus timing actions only. Before the INVITE is sent a {@code nop} reads
 * the clock; on the 180 and on the 200 the elapsed microseconds are computed and logged ({@code -trace_logs}) as
 * {@code 180 <us>} and {@code 200 <us>}. sipp's own RTD (response_time_ms in -trace_rtt) is in whole milliseconds,
 * too coarse for sub-millisecond loopback latencies.</li>
 * <li>{@link #proxied}: for {@code --app proxy}, the timed uac that also follows the route set a record-routing proxy
 * builds (RFC 3261 §12.1.2, §12.2.1.1): {@code rrs="true"} on the 200 keeps its Record-Route, and the ACK and the BYE
 * go to the 200's Contact ({@code [next_url]}) with the Route header built from it ({@code [routes]}); sipp still
 * sends them to the proxy's address, its remote end. The far end is the built-in {@code uas} that copies the
 * INVITE's Record-Route into its 180 and 200 ({@code [last_Record-Route:]}, RFC 3261 §12.1.1).</li>
 * </ul>
 * For the Kamailio baseline the same scenario runs with sipp's {@code -default_behaviors all,-abortunexp} (see
 * {@link #KAMAILIO_UAC_OPTIONS}) so that a 180 forwarded after the 200 does not fail the call.
 * Stateless; any thread.
 */
public final class Scenarios
{
    private static final String START = "<scenario name=\"Basic Sipstone UAC\">";
    private static final String RINGING = "<recv response=\"180\" optional=\"true\">";
    private static final String ANSWER = "<recv response=\"200\" rtd=\"true\">";
    /** The in-dialog requests of the built-in uac, each with the Via line after it. */
    private static final Pattern IN_DIALOG = Pattern.compile(
        "(ACK|BYE) sip:\\[service]@\\[remote_ip]:\\[remote_port] SIP/2\\.0(\\r?\\n)([ \\t]*)(Via: [^\\r\\n]*)");
    /** The Via line of a response of the built-in uas. */
    private static final Pattern LAST_VIA = Pattern.compile("(\\r?\\n)([ \\t]*)\\[last_Via:]");
    private static final String FIRST_ACK = "<recv request=\"ACK\"";
    /**
     * Why a run may shorten the far end's timewait ({@link #timewait}), said once for the option's help and the report:
     * measured with {@code /proc/PID/schedstat} of sipp alone, sampled every 50 ms.
     */
    public static final String TIMEWAIT_WHY = "sipp handles the calls it keeps every 4.1 s in one go (35-50 ms at "
        + "8,640 calls/s, answering nothing meanwhile), which every system would otherwise see as a p99 spike "
        + "every 4 s";
    /** The built-in uas's last step: it keeps each ended call for 4 s, to answer a retransmitted BYE again. */
    private static final Pattern TIMEWAIT = Pattern.compile("<timewait milliseconds=\"\\d+\"/>");

    /**
     * sipp options of the caller for the Kamailio baseline: a message the scenario does not expect is logged and the
     * call goes on ({@code Continuing call on unexpected message}) instead of being aborted, so a 180 that one of
     * Kamailio's two workers forwards after the other forwarded the 200 does not fail the call. It
     * arrives while the caller pauses after its ACK, where no optional {@code recv} can take it (sipp only looks for
     * optional receives up to the next send or pause, and a {@code optional="global"} 180 makes it jump back to that
     * step and wait for the 200 again). Other unexpected messages still end in a failed call by
     * {@code -recv_timeout}; the harness counts every continued one.
     */
    public static final List<String> KAMAILIO_UAC_OPTIONS = List.of("-default_behaviors",
        "all,-abortunexp");

    private Scenarios()
    {
    }

    /**
     * The scenario files of one kind of call: the caller's, and the far end's ({@code null}: sipp's built-in
     * {@code uas}, run with {@code -sn uas}). Immutable.
     */
    public record Flow(Path uac, Path uas)
    {
        /** sipp's arguments that pick the far end's scenario. */
        public List<String> uasArgs()
        {
            return null == uas ? List.of("-sn", "uas") : List.of("-sf", uas.toString());
        }

        /** The caller's scenario file name and the far end's, for the report. */
        public String describe()
        {
            return uac.getFileName() + (null == uas ? "" : ", far end " + uas.getFileName());
        }
    }

    /** Writes the timed copy of the built-in uac into {@code dir} and returns its path. */
    public static Path timed(final Path dir) throws IOException, InterruptedException
    {
        return write(dir.resolve("uac-timed.xml"), derive(builtIn("uac")));
    }

    /**
     * The B2BUA's calls: the timed built-in uac against the built-in uas, or with {@code farEndTimewaitMs} not null
     * against the built-in uas keeping its ended calls that long ({@code uas-timewait<ms>.xml}, see
     * {@link #timewait}).
     */
    public static Flow b2bua(final Path dir, final Integer farEndTimewaitMs) throws IOException, InterruptedException
    {
        return new Flow(timed(dir), null == farEndTimewaitMs ? null : write(dir.resolve("uas-timewait"
            + farEndTimewaitMs + ".xml"), timewait(builtIn("uas"), farEndTimewaitMs)));
    }

    /**
     * The proxy's calls: the timed uac following the route set ({@code uac-timed-routed.xml}) against the uas that
     * copies Record-Route ({@code uas-record-route.xml}; with {@code farEndTimewaitMs} not null, also keeping its
     * ended calls that long), both written into {@code dir}.
     */
    public static Flow proxied(final Path dir, final Integer farEndTimewaitMs) throws IOException, InterruptedException
    {
        final String uas = copyRecordRoute(builtIn("uas"));
        return new Flow(write(dir.resolve("uac-timed-routed.xml"), followRoutes(derive(builtIn("uac")))),
            null == farEndTimewaitMs ? write(dir.resolve("uas-record-route.xml"), uas)
                : write(dir.resolve("uas-record-route-timewait" + farEndTimewaitMs + ".xml"),
                    timewait(uas, farEndTimewaitMs)));
    }

    /**
     * The uas scenario {@code uas} with its closing {@code <timewait>} (4,000 ms in the built-in one) set to
     * {@code ms}; nothing on the wire changes. Why a run may want it: sipp keeps each ended call in its timer wheel
     * for the timewait, and every 4.1 s its far end spends 35-50 ms in one go on them at 8,640 calls/s (15-25 ms at
     * 4,320/s), during which no message is answered: sipp alone (caller straight to far end, no server) then shows
     * a p99 INVITE→180 of 12-33 ms in the seconds with such a spell and about 5 ms in the others; with 1,000 ms, no
     * such second. The cost: a BYE retransmitted later than {@code ms} after the far end's 200 finds no call (only
     * after a lost 200, which a sustained step does not have).
     */
    static String timewait(final String uas, final int ms)
    {
        return replaceExactly(uas, TIMEWAIT, "<timewait milliseconds=\"" + ms + "\"/>", 1,
            "this sipp's uas does not end its calls with one <timewait>: cannot set how long it keeps them");
    }

    /** The built-in scenario as {@code sipp -sd NAME} dumps it. */
    public static String builtIn(final String name) throws IOException, InterruptedException
    {
        final Process sipp = new ProcessBuilder("/usr/bin/sipp", "-sd", name).redirectErrorStream(true).start();
        try
        {
            final byte[] out = sipp.getInputStream().readAllBytes();
            // sipp 3.6 ends -sd with exit code 99 (its "normal exit without calls processed"): judged by the text.
            final String text = new String(out, StandardCharsets.ISO_8859_1);
            if (!sipp.waitFor(10, TimeUnit.SECONDS) || !text.contains("</scenario>"))
            {
                throw new IOException("sipp -sd " + name + " failed: " + new String(out, StandardCharsets.UTF_8));
            }
            return text;
        }
        finally
        {
            sipp.destroyForcibly();
        }
    }

    /** Inserts the timing actions at the built-in scenario's anchors. */
    static String derive(final String uac)
    {
        for (final String anchor : new String[] {START, RINGING, ANSWER})
        {
            if (!uac.contains(anchor))
            {
                throw new IllegalStateException("this sipp's built-in uac has no '" + anchor
                    + "': cannot derive the timed scenario (sipp 3.6 expected)");
            }
        }
        return uac
            .replace(START, START + "\n  <!-- sipline bench: clock read before the INVITE is sent -->\n"
                + "  <nop><action><gettimeofday assign_to=\"t0s,t0u\"/></action></nop>\n")
            .replace(RINGING, RINGING + "\n" + elapsed("t1", "180"))
            .replace(ANSWER, ANSWER + "\n" + elapsed("t2", "200"));
    }

    /**
     * The (timed) built-in uac made to follow the route set: {@code rrs="true"} on the 200, and its ACK and BYE sent
     * to {@code [next_url]} with a {@code [routes]} line after their Via.
     */
    static String followRoutes(final String uac)
    {
        if (!uac.contains(ANSWER))
        {
            throw new IllegalStateException("this sipp's built-in uac has no '" + ANSWER + "' (sipp 3.6 expected)");
        }
        final String routed = replaceExactly(uac, IN_DIALOG, "$1 [next_url] SIP/2.0$2$3$4$2$3[routes]", 2,
            "this sipp's built-in uac does not send one ACK and one BYE to sip:[service]@[remote_ip]:[remote_port]: "
            + "cannot make it follow the route set");
        return routed.replace(ANSWER, "<recv response=\"200\" rtd=\"true\" rrs=\"true\">");
    }

    /** The built-in uas with {@code [last_Record-Route:]} after {@code [last_Via:]} in its 180 and its 200. */
    static String copyRecordRoute(final String uas)
    {
        final int ack = uas.indexOf(FIRST_ACK);
        if (ack < 0)
        {
            throw new IllegalStateException("this sipp's built-in uas has no '" + FIRST_ACK + "' (sipp 3.6 expected)");
        }
        return replaceExactly(uas.substring(0, ack), LAST_VIA, "$1$2[last_Via:]$1$2[last_Record-Route:]", 2,
            "this sipp's built-in uas does not answer the INVITE with a 180 and a 200 before the ACK: cannot make it "
            + "copy Record-Route") + uas.substring(ack);
    }

    /**
     * {@code text} with every match of {@code pattern} replaced by {@code replacement} (with {@code $n} group
     * references); fails with {@code otherwise} unless there are exactly {@code expected} matches.
     */
    private static String replaceExactly(final String text, final Pattern pattern, final String replacement,
        final int expected, final String otherwise)
    {
        final long found = pattern.matcher(text).results().count();
        if (expected != found)
        {
            throw new IllegalStateException(otherwise + " (" + found + " places found, " + expected + " expected)");
        }
        return pattern.matcher(text).replaceAll(replacement);
    }

    private static String elapsed(final String v, final String label)
    {
        return "    <action><gettimeofday assign_to=\"" + v + "s," + v + "u\"/>"
            + "<subtract assign_to=\"" + v + "s\" variable=\"t0s\"/>"
            + "<subtract assign_to=\"" + v + "u\" variable=\"t0u\"/>"
            + "<multiply assign_to=\"" + v + "s\" value=\"1000000\"/>"
            + "<add assign_to=\"" + v + "s\" variable=\"" + v + "u\"/>"
            + "<log message=\"" + label + " [$" + v + "s]\"/></action>";
    }

    private static Path write(final Path file, final String text) throws IOException
    {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.ISO_8859_1);
        return file;
    }
}
