package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.sipline.test.Sipp;

/** The timed scenario keeps the built-in uac's messages and only adds timing actions. */
class ScenariosTest
{
    private static final Pattern ADDED = Pattern.compile(
        "(?s)\\s*<!-- sipline bench:[^>]*-->\\s*<nop><action><gettimeofday[^\\n]*</nop>|\\n    <action><gettimeofday.*?</action>");

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
    void shouldRefuseAScenarioWithoutTheAnchors()
    {
        assertThrows(IllegalStateException.class, () -> Scenarios.derive("<scenario name=\"other\"></scenario>"));
    }

    private static int count(final String s, final String what)
    {
        return s.split(Pattern.quote(what), -1).length - 1;
    }
}
