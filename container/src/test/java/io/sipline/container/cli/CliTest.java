package io.sipline.container.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The command line: what it accepts, what it refuses, and how it says so (one line, exit code 2). */
class CliTest
{
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private RunOptions started;

    private int run(final String... args)
    {
        return Cli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true), (options, o, e) ->
        {
            started = options;
            return Cli.SERVING;
        });
    }

    private String errorLine()
    {
        final String text = err.toString();
        assertEquals(1, text.lines().count(), "exactly one error line, got:\n" + text);
        return text.strip();
    }

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
    void shouldRefuseDeployUntilTheContainerExists()
    {
        assertEquals(2, run("run", "--deploy", "examples/b2bua.war"));
        assertEquals("sipline: --deploy is not supported yet: deploying SIP servlet applications arrives with the "
            + "container (issue 4)", errorLine());
        assertNull(started);
    }

    @Test
    void shouldRefuseDar()
    {
        assertEquals(2, run("run", "--dar", "dar.properties"));
        assertTrue(errorLine().startsWith("sipline: --dar is not supported yet: "), err.toString());
        assertTrue(err.toString().contains("(issue 4)"));
        assertNull(started);
    }

    @Test
    void shouldRefuseAdminPortUntilLiveMetrics()
    {
        assertEquals(2, run("run", "--admin-port", "8080"));
        assertTrue(errorLine().startsWith("sipline: --admin-port is not supported yet: "), err.toString());
        assertTrue(err.toString().contains("arrives with live metrics (issue 6)"), err.toString());
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
