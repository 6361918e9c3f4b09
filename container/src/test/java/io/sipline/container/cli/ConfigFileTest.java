package io.sipline.container.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sipline run --config FILE}: the file's keys are the flags, the command line wins, a wrong key is one line. */
class ConfigFileTest extends CliCase
{
    @TempDir
    Path dir;

    private Path config(final String... lines) throws IOException
    {
        return Files.write(dir.resolve("sipline.conf"), List.of(lines));
    }

    @Test
    void shouldTakeEveryKeyFromTheFile() throws IOException
    {
        Files.createDirectories(dir.resolve("webapps"));
        final Path file = config(
            "# Sipline",
            "",
            "port = 5070",
            "bind = 127.0.0.1, ::1",
            "  shards=2  ",
            "deploy = webapps",
            "overload-wait = 200");
        assertEquals(Cli.SERVING, run("run", "--config", file.toString()));
        assertEquals("", err.toString());
        assertNotNull(started);
        assertEquals(5070, started.port());
        assertEquals(List.of(InetAddress.ofLiteral("127.0.0.1"), InetAddress.ofLiteral("::1")), started.bind());
        assertEquals(2, started.shards());
        assertEquals(200, started.overloadWaitMillis());
        // a relative PATH is against the file's directory, not the working directory
        assertEquals(List.of(dir.resolve("webapps").toAbsolutePath().normalize()), started.deploy());
    }

    @Test
    void shouldLetTheCommandLineReplaceTheFile() throws IOException
    {
        final Path file = config("port = 5070", "shards = 2", "bind = 127.0.0.1");
        assertEquals(Cli.SERVING, run("run", "--port=5080", "--config=" + file, "--bind", "::1"));
        assertEquals("", err.toString());
        assertEquals(5080, started.port());
        assertEquals(List.of(InetAddress.ofLiteral("::1")), started.bind());
        assertEquals(2, started.shards(), "what the command line does not give comes from the file");
    }

    @Test
    void shouldRepeatAMultiValueKey() throws IOException
    {
        Files.createDirectories(dir.resolve("a"));
        Files.createDirectories(dir.resolve("b"));
        final Path file = config("deploy = a", "deploy = " + dir.resolve("b"));
        assertEquals(Cli.SERVING, run("run", "--config", file.toString()));
        assertEquals(List.of(dir.resolve("a"), dir.resolve("b")), started.deploy());
    }

    @Test
    void shouldRefuseAnUnknownKeyNamingItAndTheFile() throws IOException
    {
        final Path file = config("port = 5070", "", "prot = 5060");
        assertEquals(Cli.USAGE, run("run", "--config", file.toString()));
        assertNull(started);
        final String line = errorLine();
        assertTrue(line.startsWith("sipline: " + file + ":3: unknown key 'prot'"), line);
        assertTrue(line.contains("port"), "lists the keys there are: " + line);
    }

    @Test
    void shouldRefuseTheFlagSpellingAsAKey() throws IOException
    {
        final Path file = config("--port = 5070");
        assertEquals(Cli.USAGE, run("run", "--config", file.toString()));
        assertTrue(errorLine().startsWith("sipline: " + file + ":1: unknown key '--port'"), err.toString());
    }

    @Test
    void shouldRefuseALineWithoutEquals() throws IOException
    {
        final Path file = config("port 5070");
        assertEquals(Cli.USAGE, run("run", "--config", file.toString()));
        assertEquals("sipline: " + file + ":1: expected 'key = value', not 'port 5070'", errorLine());
    }

    @Test
    void shouldRefuseASingleValueKeyGivenTwice() throws IOException
    {
        final Path file = config("port = 5070", "port = 5080");
        assertEquals(Cli.USAGE, run("run", "--config", file.toString()));
        assertEquals("sipline: " + file + ":2: key 'port' is already set on line 1", errorLine());
    }

    @Test
    void shouldNameTheFileLineOfABadValue() throws IOException
    {
        final Path file = config("shards = 1", "port = 70000");
        assertEquals(Cli.USAGE, run("run", "--config", file.toString()));
        final String line = errorLine();
        assertTrue(line.startsWith("sipline: " + file + ":2: "), line);
        assertTrue(line.contains("--port") && line.contains("70000"), line);
    }

    @Test
    void shouldTakeAValueWithAnEqualsSign() throws IOException
    {
        final Path file = config("log-level = warn", "log-level = io.sipline.sip=debug");
        try
        {
            assertEquals(Cli.SERVING, run("run", "--config", file.toString()));
            assertEquals("", err.toString());
            assertTrue(org.apache.logging.log4j.LogManager.getLogger("io.sipline.sip.stack").isDebugEnabled());
            assertTrue(!org.apache.logging.log4j.LogManager.getLogger("io.sipline.container").isInfoEnabled());
        }
        finally
        {
            io.sipline.container.logging.LogSetup.apply(io.sipline.container.logging.LogSettings.DEFAULT);
        }
    }

    @Test
    void shouldRefuseConfigAsAKey() throws IOException
    {
        final Path file = config("config = other.conf");
        assertEquals(Cli.USAGE, run("run", "--config", file.toString()));
        assertTrue(errorLine().contains(":1: unknown key 'config'"), err.toString());
    }

    @Test
    void shouldRefuseAMissingFile()
    {
        final Path missing = dir.resolve("missing.conf");
        assertEquals(Cli.USAGE, run("run", "--config", missing.toString()));
        assertEquals("sipline: --config: " + missing + " does not exist", errorLine());
    }

    @Test
    void shouldListTheKeysWithoutHelpOrConfig()
    {
        final var keys = ConfigFile.keys(Cli.commandLine(new PrintWriter(out), new PrintWriter(err),
            (o, a, b) -> 0).getSubcommands().get("run").getCommandSpec());
        assertTrue(keys.containsAll(List.of("port", "bind", "deploy", "dar", "admin-port", "shards")), keys::toString);
        assertTrue(!keys.contains("help") && !keys.contains("config"), keys::toString);
    }
}
