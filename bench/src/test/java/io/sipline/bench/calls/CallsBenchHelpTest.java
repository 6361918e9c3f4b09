package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.sipline.test.Launcher;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code bin/sipline bench calls --help} prints the harness's own parser's help: every option of {@link CallsBench}.
 * Runs the launcher with this test's class path: nothing is built.
 */
class CallsBenchHelpTest
{
    @Test
    void shouldPrintEveryOptionOfTheHarness() throws IOException, InterruptedException
    {
        assumeTrue(Launcher.available(), "bin/sipline needs bash");
        final List<String> names = new CommandLine(new CallsBench()).getCommandSpec().options().stream()
            .map(OptionSpec::names).flatMap(Stream::of).toList();
        assertTrue(names.containsAll(List.of("--find-max", "--baseline", "--far-end-timewait", "--help")),
            names::toString);
        final Launcher.Run run = Launcher.run("bench", "calls", "--help");
        assertEquals(0, run.exitCode(), run.output());
        for (final String name : names)
        {
            assertTrue(run.output().contains(name), name + " missing from bin/sipline bench calls --help:\n"
                + run.output());
        }
    }
}
