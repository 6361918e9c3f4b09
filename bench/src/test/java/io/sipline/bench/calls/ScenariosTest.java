package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.sipline.test.Sipp;

/**
 * The timed scenario keeps the built-in uac's messages and only adds timing actions; the proxy's scenarios change only
 * what following a route set needs.
 */
class ScenariosTest
{
    private static final Pattern ADDED = Pattern.compile(
        "(?s)\\s*<!-- sipline bench:[^>]*-->\\s*<nop><action><gettimeofday[^\\n]*</nop>"
            + "|\\n    <action><gettimeofday.*?</action>");

    @Test
    void shouldOnlyAddTimingToTheInstalledBuiltInUac() throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed");
        final String uac = Scenarios.builtIn("uac");
        final String timed = Scenarios.derive(uac);
        assertEquals(3, count(timed, "<gettimeofday"));
        assertEquals(1, count(timed, "<log message=\"180 "));
        assertEquals(1, count(timed, "<log message=\"200 "));
        assertEquals(uac.replaceAll("\\s+", " "), ADDED.matcher(timed).replaceAll("").replaceAll("\\s+", " "));

    }

    @Test
    void shouldSendTheAckAndByeAlongTheRouteSetOfThe200() throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed");
        final String timed = Scenarios.derive(Scenarios.builtIn("uac"));
        final String routed = Scenarios.followRoutes(timed);
        assertEquals(1, count(routed, "<recv response=\"200\" rtd=\"true\" rrs=\"true\">"));
        assertEquals(1, count(routed, "ACK [next_url] SIP/2.0"));
        assertEquals(1, count(routed, "BYE [next_url] SIP/2.0"));
        assertEquals(2, count(routed, "[routes]"));
        assertTrue(Pattern.compile("(ACK|BYE) \\[next_url] SIP/2\\.0\\n\\s*Via: [^\\n]*\\n\\s*\\[routes]\\n")
            .matcher(routed).results().count() == 2, "each [routes] line right after the request's Via:\n" + routed);
        // Nothing else changes: undo the three edits and the timed uac comes back.
        assertEquals(timed, routed.replace("rtd=\"true\" rrs=\"true\">", "rtd=\"true\">")
            .replaceAll("(ACK|BYE) \\[next_url] SIP/2\\.0", "$1 sip:[service]@[remote_ip]:[remote_port] SIP/2.0")
            .replaceAll("\\n[ \\t]*\\[routes]", ""));
    }

    @Test
    void shouldCopyRecordRouteIntoThe180AndThe200Only() throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed");
        final String uas = Scenarios.builtIn("uas");
        final String copying = Scenarios.copyRecordRoute(uas);
        assertEquals(2, count(copying, "[last_Record-Route:]"));
        final int ack = copying.indexOf("<recv request=\"ACK\"");
        assertEquals(2, count(copying.substring(0, ack), "[last_Via:]\n      [last_Record-Route:]"),
            "after the Via of the 180 and the 200:\n" + copying);
        assertEquals(0, count(copying.substring(ack), "[last_Record-Route:]"), "not in the 200 to the BYE");
        assertEquals(uas, copying.replaceAll("\\n[ \\t]*\\[last_Record-Route:]", ""));
    }

    @Test
    void shouldRefuseAScenarioItCannotRoute()
    {
        assertThrows(IllegalStateException.class, () -> Scenarios.followRoutes("<scenario name=\"other\"></scenario>"));
        assertThrows(IllegalStateException.class,
            () -> Scenarios.copyRecordRoute("<scenario><recv request=\"ACK\"/></scenario>"));
    }

    @Test
    void shouldRefuseAScenarioWithoutTheAnchors()
    {
        assertThrows(IllegalStateException.class, () -> Scenarios.derive("<scenario name=\"other\"></scenario>"));
    }

    private static int count(final String s, final String what)
    {
        return s.split(Pattern.quote(what), -1).length - 1;
    }

    @Test
    void shouldChangeOnlyHowLongTheFarEndKeepsAnEndedCall(
        @org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed");
        final String uas = Scenarios.builtIn("uas");
        assertEquals(1, count(uas, "<timewait milliseconds=\"4000\"/>"), "sipp 3.6's uas keeps a call 4 s");
        final String shorter = Scenarios.timewait(uas, 1000);
        assertEquals(uas.replace("<timewait milliseconds=\"4000\"/>", "<timewait milliseconds=\"1000\"/>"), shorter);
        assertEquals(shorter, Scenarios.timewait(shorter, 1000), "a second change finds the first");
        final IllegalStateException none = assertThrows(IllegalStateException.class,
            () -> Scenarios.timewait(uas.replace("<timewait milliseconds=\"4000\"/>", ""), 1000));
        assertTrue(none.getMessage().contains("does not end its calls with one <timewait>"), none.getMessage());

        assertEquals(null, Scenarios.b2bua(dir, null).uas(), "unchanged: sipp's built-in uas by name");
        final Scenarios.Flow b2bua = Scenarios.b2bua(dir, 1000);
        assertEquals("uas-timewait1000.xml", b2bua.uas().getFileName().toString());
        assertEquals(shorter,
            java.nio.file.Files.readString(b2bua.uas(), java.nio.charset.StandardCharsets.ISO_8859_1));
        final Scenarios.Flow proxy = Scenarios.proxied(dir, 1000);
        final String routed = java.nio.file.Files.readString(proxy.uas(), java.nio.charset.StandardCharsets.ISO_8859_1);
        assertEquals(1, count(routed, "<timewait milliseconds=\"1000\"/>"));
        assertEquals(2, count(routed, "[last_Record-Route:]"), "still copies Record-Route into its 180 and 200");
    }
}
