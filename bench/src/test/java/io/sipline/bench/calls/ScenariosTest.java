package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.sipline.test.Sipp;

/** The timed scenarios keep the built-in uac's messages and only add timing actions (and, for Kamailio, a global 180). */
class ScenariosTest
{
    private static final Pattern ADDED = Pattern.compile(
        "(?s)\\s*<!-- sipline bench:[^>]*-->\\s*<nop><action><gettimeofday[^\\n]*</nop>|\\n    <action><gettimeofday.*?</action>");

    @Test
    void shouldOnlyAddTimingToTheInstalledBuiltInUac() throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed");
        final String uac = Scenarios.builtIn("uac");
        final String timed = Scenarios.derive(uac, false);
        assertEquals(3, count(timed, "<gettimeofday"));
        assertEquals(1, count(timed, "<log message=\"180 "));
        assertEquals(1, count(timed, "<log message=\"200 "));
        assertEquals(uac.replaceAll("\\s+", " "), ADDED.matcher(timed).replaceAll("").replaceAll("\\s+", " "));

        final String late = Scenarios.derive(uac, true);
        assertTrue(late.contains("<recv response=\"180\" optional=\"global\">"));
        assertFalse(late.contains("<recv response=\"180\" optional=\"true\">"));
        assertEquals(timed, late.replace("optional=\"global\"", "optional=\"true\""));
    }

    @Test
    void shouldRefuseAScenarioWithoutTheAnchors()
    {
        assertThrows(IllegalStateException.class, () -> Scenarios.derive("<scenario name=\"other\"></scenario>", false));
    }

    private static int count(final String s, final String what)
    {
        return s.split(Pattern.quote(what), -1).length - 1;
    }
}
