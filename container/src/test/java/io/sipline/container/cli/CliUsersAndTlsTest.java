package io.sipline.container.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code --users} and {@code --tls-*} flags: what they become in {@link RunOptions}, and what is refused. */
class CliUsersAndTlsTest extends CliCase
{
    @Test
    void shouldHaveNeitherUsersNorTlsByDefault()
    {
        assertEquals(Cli.SERVING, run("run"));
        assertNull(started.users());
        assertNull(started.tls());
    }

    @Test
    void shouldAcceptAUsersFile(@TempDir final Path dir) throws IOException
    {
        final Path users = Files.writeString(dir.resolve("users"), "# users\nalice:plain:pw:caller\n");
        assertEquals(Cli.SERVING, run("run", "--users", users.toString()));
        assertEquals(users, started.users());
    }

    @Test
    void shouldRefuseAMalformedUsersLineWithItsNumber(@TempDir final Path dir) throws IOException
    {
        final Path users = Files.writeString(dir.resolve("users"), "alice:plain:pw\nbob:cleartext:pw\n");
        assertEquals(2, run("run", "--users", users.toString()));
        assertTrue(errorLine().startsWith("sipline: --users: " + users + ":2: "), err.toString());
    }

    @Test
    void shouldRefuseAMissingUsersFile(@TempDir final Path dir)
    {
        assertEquals(2, run("run", "--users", dir.resolve("nope").toString()));
        assertTrue(errorLine().startsWith("sipline: --users: "), err.toString());
        assertTrue(err.toString().contains("does not exist"), err.toString());
    }

    @Test
    void shouldTurnTlsOnWithCertificateAndKeyOnTheDefaultPort(@TempDir final Path dir) throws IOException
    {
        final Path cert = Files.writeString(dir.resolve("cert.pem"), "-----BEGIN CERTIFICATE-----\n");
        final Path key = Files.writeString(dir.resolve("key.pem"), "-----BEGIN PRIVATE KEY-----\n");
        assertEquals(Cli.SERVING, run("run", "--tls-cert", cert.toString(), "--tls-key", key.toString()));
        assertEquals(new RunOptions.Tls(5061, cert, key), started.tls());
    }

    @Test
    void shouldTakeTheTlsPort(@TempDir final Path dir) throws IOException
    {
        final Path cert = Files.writeString(dir.resolve("cert.pem"), "x");
        final Path key = Files.writeString(dir.resolve("key.pem"), "x");
        assertEquals(Cli.SERVING, run("run", "--tls-port", "5071", "--tls-cert", cert.toString(), "--tls-key",
            key.toString()));
        assertEquals(5071, started.tls().port());
    }

    @Test
    void shouldRefuseHalfATlsConfiguration(@TempDir final Path dir) throws IOException
    {
        final Path cert = Files.writeString(dir.resolve("cert.pem"), "x");
        assertEquals(2, run("run", "--tls-cert", cert.toString()));
        assertEquals("sipline: --tls-cert needs --tls-key", errorLine());
        err.getBuffer().setLength(0);
        assertEquals(2, run("run", "--tls-key", cert.toString()));
        assertEquals("sipline: --tls-key needs --tls-cert", errorLine());
        err.getBuffer().setLength(0);
        assertEquals(2, run("run", "--tls-port", "5061"));
        assertEquals("sipline: --tls-port needs --tls-cert and --tls-key", errorLine());
    }

    @Test
    void shouldRefuseAMissingKeyFileNamingTheFlag(@TempDir final Path dir) throws IOException
    {
        final Path cert = Files.writeString(dir.resolve("cert.pem"), "x");
        final Path key = dir.resolve("absent.pem");
        assertEquals(2, run("run", "--tls-cert", cert.toString(), "--tls-key", key.toString()));
        assertEquals("sipline: --tls-key: " + key + " does not exist", errorLine());
    }

    @Test
    void shouldRefuseATlsPortThatIsAUdpPortOrOutOfRange(@TempDir final Path dir) throws IOException
    {
        final Path cert = Files.writeString(dir.resolve("cert.pem"), "x");
        assertEquals(2, run("run", "--port", "5080", "--tls-port", "5080", "--tls-cert", cert.toString(),
            "--tls-key", cert.toString()));
        assertEquals("sipline: --tls-port: 5080 is already a UDP/TCP port", errorLine());
        err.getBuffer().setLength(0);
        assertEquals(2, run("run", "--tls-port", "70000"));
        assertTrue(errorLine().contains("--tls-port"), err.toString());
    }

    @Test
    void shouldListTheNewFlagsInTheHelp()
    {
        assertEquals(0, run("run", "--help"));
        for (final String flag : new String[] {"--users", "--tls-port", "--tls-cert", "--tls-key"})
        {
            assertTrue(out.toString().contains(flag), flag + " missing from:\n" + out);
        }
    }
}
