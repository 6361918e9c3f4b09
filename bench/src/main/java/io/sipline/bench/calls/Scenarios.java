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

    /**
     * sipp options of the caller for the Kamailio baseline: a message the scenario does not expect is logged and the
     * call goes on ({@code Continuing call on unexpected message}) instead of being aborted, so a 180 that one of
     * Kamailio's two workers forwards after the other forwarded the 200 (issue 6 §4) does not fail the call. It
     * arrives while the caller pauses after its ACK, where no optional {@code recv} can take it (sipp only looks for
     * optional receives up to the next send or pause, and a {@code optional="global"} 180 makes it jump back to that
     * step and wait for the 200 again). Other unexpected messages still end in a failed call by
     * {@code -recv_timeout}; the harness counts every continued one.
     */
    public static final java.util.List<String> KAMAILIO_UAC_OPTIONS = java.util.List.of("-default_behaviors",
        "all,-abortunexp");

    private Scenarios()
    {
    }

    /** Writes the timed copy of the built-in uac into {@code dir} and returns its path. */
    public static Path timed(final Path dir) throws IOException, InterruptedException
    {
        return write(dir.resolve("uac-timed.xml"), derive(builtIn("uac")));
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
