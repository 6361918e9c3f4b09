package io.sipline.container.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import io.sipline.test.Launcher;

/**
 * {@code bin/sipline run --help} prints the Java parser's help ({@link Cli}), not a text of the launcher's own; the
 * launcher's own help lists commands and no option. Runs the launcher with this test's class path: nothing is built.
 */
class LauncherHelpTest
{
    @Test
    void shouldPrintTheParsersHelpForRun() throws IOException, InterruptedException
    {
        assumeTrue(Launcher.available(), "bin/sipline needs bash");
        final Launcher.Run run = Launcher.run("run", "--help");
        assertEquals(0, run.exitCode(), run.output());
        for (final String name : CliHelpTest.runOptionNames())
        {
            assertTrue(run.output().contains(name), name + " missing from bin/sipline run --help:\n" + run.output());
        }
        for (final String profile : CliHelpTest.profileNames())
        {
            assertTrue(run.output().contains(profile), profile + " missing:\n" + run.output());
        }
    }

    @Test
    void shouldListCommandsWithoutOptions() throws IOException, InterruptedException
    {
        assumeTrue(Launcher.available(), "bin/sipline needs bash");
        for (final String[] args : new String[][] {{"--help"}, {"bench", "--help"}})
        {
            final Launcher.Run run = Launcher.run(args);
            assertEquals(0, run.exitCode(), run.output());
            assertTrue(run.output().contains("Usage: bin/sipline"), run.output());
            for (final String name : CliHelpTest.runOptionNames())
            {
                if (!"--help".equals(name) && !"-h".equals(name))
                {
                    assertFalse(run.output().contains(name), String.join(" ", args) + " describes " + name + ":\n"
                        + run.output());
                }
            }
        }
    }
}
