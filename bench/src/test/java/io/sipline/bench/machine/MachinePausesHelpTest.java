package io.sipline.bench.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

import io.sipline.test.Launcher;
import picocli.CommandLine;

/** {@code bin/sipline bench pauses --help} is the probe's own parser's help; a bad SECONDS is a usage error. */
class MachinePausesHelpTest
{
    @Test
    void shouldPrintTheProbesHelpThroughTheLauncher() throws IOException, InterruptedException
    {
        assumeTrue(Launcher.available(), "bin/sipline needs bash");
        final Launcher.Run run = Launcher.run("bench", "pauses", "--help");
        assertEquals(0, run.exitCode(), run.output());
        assertTrue(run.output().contains("SECONDS") && run.output().contains("--help"), run.output());
    }

    @Test
    void shouldRefuseSecondsOutOfRange()
    {
        final StringWriter err = new StringWriter();
        final CommandLine cmd = new CommandLine(new MachinePauses.Probe());
        cmd.setErr(new PrintWriter(err, true));
        assertEquals(2, cmd.execute("0"));
        assertTrue(err.toString().contains("SECONDS: 0 is not a number of seconds"), err.toString());
    }
}
