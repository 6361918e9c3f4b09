package io.sipline.container.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.sipline.test.Launcher;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The help of {@code sipline run} is the parser's own: every option it accepts, the GC profiles of
 * {@code jvm-profiles/} and the launcher's environment variables are in it.
 */
class CliHelpTest
{
    private static final Cli.Server NEVER = (options, out, err) ->
    {
        throw new AssertionError("help must not start the server");
    };

    /** Every name of every option of {@code run}, as the parser knows them. */
    static List<String> runOptionNames()
    {
        final PrintWriter none = new PrintWriter(new StringWriter());
        final CommandLine run = Cli.commandLine(none, none, NEVER).getSubcommands().get("run");
        return run.getCommandSpec().options().stream().map(OptionSpec::names).flatMap(Stream::of).toList();
    }

    /** The profile names: {@code jvm-profiles/NAME.args}. */
    static List<String> profileNames() throws IOException
    {
        try (Stream<Path> files = Files.list(Launcher.root().resolve("jvm-profiles")))
        {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".args"))
                .map(n -> n.substring(0, n.length() - ".args".length())).sorted().toList();
        }
    }

    @Test
    void shouldPrintEveryOptionOfRunInItsHelp() throws IOException
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        assertEquals(0, Cli.execute(new String[] {"run", "--help"}, new PrintWriter(out, true),
            new PrintWriter(err, true), NEVER));
        assertEquals("", err.toString());
        final String help = out.toString();
        final List<String> names = runOptionNames();
        assertTrue(names.containsAll(List.of("--bind", "--port", "--profile", "--tls-cert", "--tls-key", "--tls-port",
            "--users", "--warmup", "--overload-wait")), names.toString());
        for (final String name : names)
        {
            assertTrue(help.contains(name), name + " missing from the help:\n" + help);
        }
        final List<String> profiles = profileNames();
        assertFalse(profiles.isEmpty());
        for (final String profile : profiles)
        {
            assertTrue(help.contains(profile), "profile " + profile + " missing from the help of --profile:\n" + help);
        }
        assertTrue(help.contains("SIPLINE_JAVA_OPTS") && help.contains("SIPLINE_LOG_DIR"), help);
    }

    @Test
    void shouldListTheSubcommandsAtTheTop()
    {
        final StringWriter out = new StringWriter();
        assertEquals(0, Cli.execute(new String[] {"--help"}, new PrintWriter(out, true),
            new PrintWriter(new StringWriter(), true), NEVER));
        assertTrue(out.toString().contains("run"), out.toString());
        assertFalse(out.toString().contains("--port"), out.toString());
    }
}
