package io.sipline.container.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.ToIntFunction;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sipline.container.os.GcThreadScheduling;

/** The command line: what it accepts, what it refuses, and how it says so (one line, exit code 2). */
class CliTest extends CliCase
{
    @Test
    void shouldStartWithDefaults()
    {
        assertEquals(Cli.SERVING, run("run"));
        assertNotNull(started);
        assertEquals(List.of(InetAddress.getLoopbackAddress()), started.bind());
        assertEquals(5060, started.port());
        assertEquals(0, started.udpPorts().size());
        assertEquals(Math.min(Runtime.getRuntime().availableProcessors(), Cli.MAX_SHARDS), started.shards());
        assertEquals("zgc", started.profile());
        assertArrayEquals(new int[] {5060}, started.allUdpPorts());
        assertEquals("", err.toString());
    }

    @Test
    void shouldAcceptEveryFlagItCanHonour()
    {
        assertEquals(Cli.SERVING, run("run", "--bind", "127.0.0.1,::1", "--bind", "[::]", "--port", "5080",
            "--udp-ports", "5062,5070-5072", "--shards", "3", "--profile", "epsilon"));
        assertEquals(List.of(InetAddress.ofLiteral("127.0.0.1"), InetAddress.ofLiteral("::1"),
            InetAddress.ofLiteral("::")), started.bind());
        assertEquals(5080, started.port());
        assertArrayEquals(new int[] {5080, 5062, 5070, 5071, 5072}, started.allUdpPorts());
        assertEquals(3, started.shards());
        assertEquals("epsilon", started.profile());
    }

    @Test
    void shouldAcceptWarsDirectoriesAndADarFile(@TempDir final Path dir) throws IOException
    {
        final Path war = Files.writeString(dir.resolve("b2bua.war"), "PK");
        final Path folder = Files.createDirectory(dir.resolve("apps"));
        final Path dar = Files.writeString(dir.resolve("dar.properties"),
            "INVITE: (\"b2bua\", \"DAR:From\", \"ORIGINATING\", \"\", \"NO_ROUTE\", \"0\")\n");
        assertEquals(Cli.SERVING, run("run", "--deploy", war.toString(), "--deploy", folder.toString(),
            "--dar", dar.toString()));
        assertEquals(List.of(war, folder), started.deploy());
        assertEquals(dar, started.dar());
        assertNull(started.adminPort());
        assertEquals("", err.toString());
    }

    @Test
    void shouldAcceptTheDarFileOfTheExamples()
    {
        final Path dar = Path.of(System.getProperty("sipline.root", "../"), "examples/dar/examples.properties")
            .toAbsolutePath().normalize();
        assertEquals(Cli.SERVING, run("run", "--dar", dar.toString()));
        assertEquals(dar, started.dar());
        assertEquals("", err.toString());
    }

    @Test
    void shouldStartWithoutApplicationsOrRouter()
    {
        assertEquals(Cli.SERVING, run("run"));
        assertEquals(List.of(), started.deploy());
        assertNull(started.dar());
    }

    @Test
    void shouldRefuseADeployPathThatDoesNotExist(@TempDir final Path dir)
    {
        final String missing = dir.resolve("missing.war").toString();
        assertEquals(2, run("run", "--deploy", missing));
        assertEquals("sipline: --deploy: " + missing + " does not exist", errorLine());
        assertNull(started);
    }

    @Test
    void shouldRefuseADeployFileThatIsNotAWar(@TempDir final Path dir) throws IOException
    {
        final Path jar = Files.writeString(dir.resolve("app.jar"), "PK");
        assertEquals(2, run("run", "--deploy", jar.toString()));
        assertEquals("sipline: --deploy: " + jar + " is neither a .war file nor a directory", errorLine());
        assertNull(started);
    }

    @Test
    void shouldRefuseTheSameDeployPathTwice(@TempDir final Path dir) throws IOException
    {
        final Path war = Files.writeString(dir.resolve("a.war"), "PK");
        assertEquals(2, run("run", "--deploy", war.toString(), "--deploy", war.toString()));
        assertEquals("sipline: --deploy: " + war + " is listed twice", errorLine());
        assertNull(started);
    }

    @Test
    void shouldRefuseAMissingDarFile(@TempDir final Path dir)
    {
        final String missing = dir.resolve("none.properties").toString();
        assertEquals(2, run("run", "--dar", missing));
        assertEquals("sipline: --dar: " + missing + ": does not exist", errorLine());
        assertNull(started);
    }

    @Test
    void shouldRefuseADarDirectory(@TempDir final Path dir)
    {
        assertEquals(2, run("run", "--dar", dir.toString()));
        assertTrue(errorLine().endsWith("is a directory, not a file"), err.toString());
        assertNull(started);
    }

    @Test
    void shouldRefuseAMalformedDarLineWithItsNumber(@TempDir final Path dir) throws IOException
    {
        final Path dar = Files.writeString(dir.resolve("bad.properties"),
            "# routes\nINVITE: (\"b2bua\", \"DAR:From\", \"ORIGINATING\", \"\", \"NO_ROUTE\", \"0\")\n"
                + "REGISTER: (\"registrar\", \"DAR:To\")\n");
        assertEquals(2, run("run", "--dar", dar.toString()));
        final String line = errorLine();
        assertTrue(line.startsWith("sipline: --dar: " + dar + ":3: "), line);
        assertNull(started);
    }

    @Test
    void shouldTakeAnAdminPort()
    {
        assertEquals(Cli.SERVING, run("run", "--admin-port", "8080"));
        assertEquals(8080, started.adminPort());
        assertEquals(2, run("run", "--admin-port", "70000"));
    }

    @Test
    void shouldTakeAnHttpPortOnTheFirstBindAddressOrItsOwn()
    {
        assertEquals(Cli.SERVING, run("run"));
        assertNull(started.http(), "the web half is off unless asked for");
        assertEquals(Cli.SERVING, run("run", "--bind", "127.0.0.2", "--http-port", "8080"));
        assertEquals(new java.net.InetSocketAddress(java.net.InetAddress.ofLiteral("127.0.0.2"), 8080), started.http());
        assertEquals(Cli.SERVING, run("run", "--http-port", "8080", "--http-bind", "0.0.0.0"));
        assertEquals(new java.net.InetSocketAddress(java.net.InetAddress.ofLiteral("0.0.0.0"), 8080), started.http());
        assertEquals(2, run("run", "--http-bind", "0.0.0.0"));
        assertTrue(err.toString().contains("sipline: --http-bind needs --http-port"), err.toString());
    }

    @Test
    void shouldTakeTheGcThreadsModeOrLeaveItToTheProfile()
    {
        assertEquals(Cli.SERVING, run("run"));
        assertNull(started.gcThreads(), "the profile's -Dsipline.gc.threads decides");
        assertEquals(Cli.SERVING, run("run", "--gc-threads", "normal"));
        assertEquals(GcThreadScheduling.Mode.NORMAL, started.gcThreads());
        assertEquals(Cli.SERVING, run("run", "--gc-threads", "IDLE"));
        assertEquals(GcThreadScheduling.Mode.IDLE, started.gcThreads());
    }

    @Test
    void shouldRejectAnUnknownGcThreadsMode()
    {
        assertEquals(2, run("run", "--gc-threads", "realtime"));
        assertEquals("sipline: --gc-threads: expected idle or normal, not 'realtime'", errorLine());
        assertNull(started);
    }

    @Test
    void shouldTakeAWarmupCallCountAndNoneByDefault()
    {
        assertNumericOption("--warmup", 10_000, RunOptions::warmupCalls);
    }

    /** A numeric option of {@code run}: 0 when not given, {@code value} when given. */
    private void assertNumericOption(final String option, final int value, final ToIntFunction<RunOptions> read)
    {
        assertEquals(Cli.SERVING, run("run"));
        assertEquals(0, read.applyAsInt(started));
        assertEquals(Cli.SERVING, run("run", option, Integer.toString(value)));
        assertEquals(value, read.applyAsInt(started));
    }

    @Test
    void shouldRejectAWarmupThatIsNotACallCount()
    {
        assertEquals(2, run("run", "--warmup", "-5"));
        assertTrue(errorLine().contains("-5 is not a number of calls (0-" + Cli.MAX_WARMUP_CALLS + ")"),
            err.toString());
        assertNull(started);
        err.getBuffer().setLength(0);
        assertEquals(2, run("run", "--warmup", "lots"));
        assertTrue(errorLine().contains("'lots' is not a number of calls"), err.toString());
        assertNull(started);
    }

    @Test
    void shouldTakeAnOverloadWaitInMillisecondsOffByDefaultAndAtZero()
    {
        assertEquals(Cli.SERVING, run("run"));
        assertEquals(30, started.overloadWaitMillis(), "overload control is on by default, at 30 ms");
        assertEquals(Cli.SERVING, run("run", "--overload-wait", "0"));
        assertEquals(0, started.overloadWaitMillis(), "0 turns it off");
        assertEquals(Cli.SERVING, run("run", "--overload-wait", "100"));
        assertEquals(100, started.overloadWaitMillis());
        started = null;
        assertEquals(2, run("run", "--overload-wait", "10001"));
        assertTrue(errorLine().contains("10001 is not a number of milliseconds (0-" + Cli.MAX_OVERLOAD_WAIT_MILLIS
            + ")"), err.toString());
        assertNull(started);
        err.getBuffer().setLength(0);
        assertEquals(2, run("run", "--overload-wait", "soon"));
        assertTrue(errorLine().contains("'soon' is not a number of milliseconds"), err.toString());
        assertNull(started);
    }

    @Test
    void shouldRejectAPortOutOfRange()
    {
        assertEquals(2, run("run", "--port", "70000"));
        final String line = errorLine();
        assertTrue(line.startsWith("sipline: ") && line.contains("--port") && line.contains("70000"), line);
        assertNull(started);
    }

    @Test
    void shouldRejectPortZeroAndNonNumbers()
    {
        assertEquals(2, run("run", "--port", "0"));
        assertTrue(errorLine().contains("--port"));
        err.getBuffer().setLength(0);
        assertEquals(2, run("run", "--port", "sip"));
        assertTrue(errorLine().contains("'sip' is not a port number"), err.toString());
    }

    @Test
    void shouldRejectZeroShards()
    {
        assertEquals(2, run("run", "--shards", "0"));
        final String line = errorLine();
        assertTrue(line.contains("--shards") && line.contains("0 is not a number of shards"), line);
    }

    @Test
    void shouldRejectAnUnknownFlag()
    {
        assertEquals(2, run("run", "--tcp-port", "5060"));
        final String line = errorLine();
        assertTrue(line.startsWith("sipline: ") && line.contains("--tcp-port"), line);
    }

    @Test
    void shouldRejectABadUdpPortList()
    {
        assertEquals(2, run("run", "--udp-ports", "5079-5070"));
        final String line = errorLine();
        assertTrue(line.contains("--udp-ports") && line.contains("not ascending"), line);
    }

    @Test
    void shouldRejectAUdpPortThatIsTheMainPort()
    {
        assertEquals(2, run("run", "--port", "5062", "--udp-ports", "5060-5065"));
        assertEquals("sipline: --udp-ports: 5062 is already the --port", errorLine());
    }

    @Test
    void shouldRejectABadAddress()
    {
        assertEquals(2, run("run", "--bind", "sip.example.com"));
        final String line = errorLine();
        assertTrue(line.contains("--bind") && line.contains("'sip.example.com' is not an IP address"), line);
        err.getBuffer().setLength(0);
        assertEquals(2, run("run", "--bind", "127.0.0.1,127.0.0.1"));
        assertEquals("sipline: --bind: 127.0.0.1 is listed twice", errorLine());
    }

    @Test
    void shouldPrintHelp()
    {
        assertEquals(0, run("run", "--help"));
        final String usage = out.toString();
        for (final String flag : new String[] {"--bind", "--port", "--udp-ports", "--shards", "--profile", "--deploy",
            "--dar", "--admin-port"})
        {
            assertTrue(usage.contains(flag), flag + " missing from:\n" + usage);
        }
        assertNull(started);
    }

    @Test
    void shouldAskForACommand()
    {
        assertEquals(2, run());
        assertTrue(err.toString().contains("run"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, run("serve"));
        assertTrue(errorLine().contains("serve"));
    }
}
