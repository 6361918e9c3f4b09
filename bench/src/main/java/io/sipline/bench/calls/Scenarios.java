package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The caller scenarios, derived at run time from the installed sipp's own built-in {@code uac} ({@code sipp -sd uac})
 * so that no scenario text is copied into the repository, and the messages on the wire stay exactly the built-in
 * ones:
 * <ul>
 * <li>{@link #timed}: the built-in {@code uac} plus timing actions only. Before the INVITE is sent a {@code nop} reads
 * the clock; on the 180 and on the 200 the elapsed microseconds are computed and logged ({@code -trace_logs}) as
 * {@code 180 <us>} and {@code 200 <us>}. sipp's own RTD (response_time_ms in -trace_rtt) is in whole milliseconds,
 * too coarse for sub-millisecond loopback latencies.</li>
 * <li>{@link #timedLate1xx}: the same with the 180 made {@code optional="global"}, so a 180 that arrives after the 200
 * is accepted instead of failing the call. For the Kamailio baseline only: its two worker processes may forward a
 * 180 after the 200 (issue 6 §4).</li>
 * </ul>
 * Stateless; any thread.
 */
public final class Scenarios
{
    private static final String START = "<scenario name=\"Basic Sipstone UAC\">";
    private static final String RINGING = "<recv response=\"180\" optional=\"true\">";
    private static final String ANSWER = "<recv response=\"200\" rtd=\"true\">";

    private Scenarios()
    {
    }

    /** Writes the timed copy of the built-in uac into {@code dir} and returns its path. */
    public static Path timed(final Path dir) throws IOException, InterruptedException
    {
        return write(dir.resolve("uac-timed.xml"), derive(builtIn("uac"), false));
    }

    /** Writes the timed copy that also accepts a late 180 (Kamailio baseline) and returns its path. */
    public static Path timedLate1xx(final Path dir) throws IOException, InterruptedException
    {
        return write(dir.resolve("uac-timed-late1xx.xml"), derive(builtIn("uac"), true));
    }

    /** The built-in scenario as {@code sipp -sd NAME} dumps it. */
    static String builtIn(final String name) throws IOException, InterruptedException
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

    /** Inserts the timing actions (and, if asked, the global 180) at the built-in scenario's anchors. */
    static String derive(final String uac, final boolean late1xx)
    {
        for (final String anchor : new String[] {START, RINGING, ANSWER})
        {
            if (!uac.contains(anchor))
            {
                throw new IllegalStateException("this sipp's built-in uac has no '" + anchor
                    + "': cannot derive the timed scenario (sipp 3.6 expected)");
            }
        }
        final String ringing = late1xx ? RINGING.replace("\"true\"", "\"global\"") : RINGING;
        return uac
            .replace(START, START + "\n  <!-- sipline bench: clock read before the INVITE is sent -->\n"
                + "  <nop><action><gettimeofday assign_to=\"t0s,t0u\"/></action></nop>\n")
            .replace(RINGING, ringing + "\n" + elapsed("t1", "180"))
            .replace(ANSWER, ANSWER + "\n" + elapsed("t2", "200"));
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
