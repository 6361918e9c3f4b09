package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * sipp (Debian package sip-tester), the real SIP peer, sends 500 OPTIONS at 200 per second to a two-shard transport
 * and expects a 200 for each: sipp exits with 0 only when every call succeeded. Skipped only when sipp is absent
 * (CI installs it).
 */
class SippOptionsTest
{
    private static final File SIPP = new File("/usr/bin/sipp");
    private static final int CALLS = 500;

    @Test
    void shouldAnswerEveryOptionsFromSipp() throws Exception
    {
        Assumptions.assumeTrue(SIPP.canExecute(), "sipp is not installed (apt-get install sip-tester)");
        final Path scenario = Path.of(SippOptionsTest.class.getResource("/sipp/options.xml").toURI());
        final Path workDir = Files.createDirectories(Path.of("target", "sipp"));
        final Path log = workDir.resolve("sipp-options.log");

        try (UdpTransport transport = UdpTransport.start(
            new UdpTransportConfig(List.of(InetAddress.ofLiteral("127.0.0.1")), new int[] {0}, 2, true),
            StatelessResponder.factory()))
        {
            final InetSocketAddress server = transport.localAddresses().get(0);
            final ProcessBuilder pb = new ProcessBuilder(
                SIPP.getPath(), "127.0.0.1:" + server.getPort(),
                "-sf", scenario.toString(),
                "-m", Integer.toString(CALLS), "-r", "200",
                "-i", "127.0.0.1", "-p", Integer.toString(freeUdpPort()),
                "-timeout", "30s", "-timeout_error",
                "-nostdin", "-trace_err", "-error_file", workDir.resolve("sipp-errors.log").toString())
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
            final Process sipp = pb.start();
            try
            {
                final boolean ended = sipp.waitFor(60, TimeUnit.SECONDS);
                assertTrue(ended, "sipp did not end within 60 s; see " + log.toAbsolutePath());
                assertEquals(0, sipp.exitValue(), "sipp reported failed calls; see " + log.toAbsolutePath() + "\n"
                    + tail(log));
            }
            finally
            {
                sipp.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            final ShardCounters totals = UdpTransportTest.awaitTotals(transport, t -> t.responsesSent() >= CALLS);
            assertTrue(totals.requestsIn() >= CALLS, totals.toString());
            assertEquals(0, totals.parseErrorsTotal(), totals.toString());
            assertEquals(0, totals.errors(), totals.toString());
        }
    }

    /** A UDP port free right now on 127.0.0.1 (sipp binds it a moment later). */
    private static int freeUdpPort() throws IOException
    {
        try (java.net.DatagramSocket probe = new java.net.DatagramSocket(
            new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0)))
        {
            return probe.getLocalPort();
        }
    }

    private static String tail(final Path log)
    {
        try
        {
            final List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        }
        catch (final IOException e)
        {
            return "(no log: " + e + ")";
        }
    }
}
