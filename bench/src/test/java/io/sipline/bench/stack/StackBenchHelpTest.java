package io.sipline.bench.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.sipline.test.Launcher;

/**
 * {@code bin/sipline bench stack --help} prints what {@link StackBench}'s own parser accepts and exits 0; an unknown
 * option is refused with the same text and exit code 2. Runs the launcher with this test's class path: nothing is
 * built, no load is started.
 */
class StackBenchHelpTest
{
    private static final List<String> OPTIONS =
        List.of("--ports", "--shards", "--start", "--max", "--step-seconds", "--mode", "--help");

    @Test
    void shouldPrintEveryOptionOfTheParser() throws IOException, InterruptedException
    {
        assumeTrue(Launcher.available(), "bin/sipline needs bash");
        final Launcher.Run run = Launcher.run("bench", "stack", "--help");
        assertEquals(0, run.exitCode(), run.output());
        for (final String name : OPTIONS)
        {
            assertTrue(run.output().contains(name), name + " missing from bin/sipline bench stack --help:\n"
                + run.output());
        }
    }

    @Test
    void shouldRefuseAnUnknownOptionWithTheHelp() throws IOException, InterruptedException
    {
        assumeTrue(Launcher.available(), "bin/sipline needs bash");
        final Launcher.Run run = Launcher.run("bench", "stack", "--no-such-option");
        assertEquals(2, run.exitCode(), run.output());
        assertTrue(run.output().contains("unknown option '--no-such-option'"), run.output());
        assertTrue(run.output().contains(StackBench.USAGE), run.output());
    }
}
