package io.sipline.container.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import io.sipline.sip.capture.HepConfig;
import org.junit.jupiter.api.Test;

/** The HEP capture flags: what they become in {@link RunOptions#hep()}, and what is refused, on one line. */
class CliHepTest
{
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private RunOptions started;

    private int run(final String... args)
    {
        started = null;
        err.getBuffer().setLength(0);
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
        assertNull(started);
        return text.strip();
    }

    @Test
    void shouldHaveNoCaptureByDefault()
    {
        assertEquals(Cli.SERVING, run("run"));
        assertNull(started.hep());
    }

    @Test
    void shouldTakeTheCollectorIdAndPassword()
    {
        assertEquals(Cli.SERVING, run("run", "--hep", "127.0.0.1:9060", "--hep-id", "4294967295",
            "--hep-password", "myHep"));
        final HepConfig hep = started.hep();
        assertEquals(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 9060), hep.collector());
        assertEquals(-1, hep.captureId(), "4294967295 as an unsigned int");
        assertEquals("myHep", hep.password());
        assertEquals(Cli.SERVING, run("run", "--hep", "[::1]:9061"));
        assertEquals(new InetSocketAddress(InetAddress.ofLiteral("::1"), 9061), started.hep().collector());
        assertEquals(HepFlags.DEFAULT_ID, started.hep().captureId());
        assertNull(started.hep().password());
    }

    @Test
    void shouldRefuseWhatCannotBeACollector()
    {
        assertEquals(2, run("run", "--hep", "127.0.0.1"));
        assertTrue(errorLine().contains("--hep: '127.0.0.1' has no port"), err.toString());
        assertEquals(2, run("run", "--hep", "::1:9060"));
        assertTrue(errorLine().contains("in brackets"), err.toString());
        assertEquals(2, run("run", "--hep", "127.0.0.1:0"));
        assertTrue(errorLine().contains("--hep: port 0 is out of range"), err.toString());
        assertEquals(2, run("run", "--hep", "127.0.0.1:sip"));
        assertTrue(errorLine().contains("'sip' is not a port number"), err.toString());
        assertEquals(2, run("run", "--hep", "homer.invalid:9060"));
        assertTrue(errorLine().contains("'homer.invalid' does not resolve"), err.toString());
    }

    @Test
    void shouldRefuseAnIdOutOfRangeAndFlagsWithoutTheCollector()
    {
        assertEquals(2, run("run", "--hep", "127.0.0.1:9060", "--hep-id", "4294967296"));
        assertTrue(errorLine().contains("--hep-id: 4294967296 is out of range"), err.toString());
        assertEquals(2, run("run", "--hep", "127.0.0.1:9060", "--hep-id", "-1"));
        assertTrue(errorLine().contains("--hep-id"), err.toString());
        assertEquals(2, run("run", "--hep-id", "7"));
        assertTrue(errorLine().contains("need --hep ADDR:PORT"), err.toString());
        assertEquals(2, run("run", "--hep", "127.0.0.1:9060", "--hep-password", ""));
        assertTrue(errorLine().contains("--hep-password is empty"), err.toString());
    }
}
