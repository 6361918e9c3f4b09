package io.sipline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.sipline.container.e2e.Examples;
import io.sipline.container.e2e.SippRun;
import io.sipline.test.Launcher;
import io.sipline.test.Sipp;

/**
 * {@code bin/sipline cluster-demo} as a user runs it (operations.md, "Cluster"): Kamailio in front of two nodes on
 * 127.0.0.2 and 127.0.0.3 running the distributable b2bua example in one grid. The command says it is ready and
 * names every process; calls made as its printed instructions say (a sipp caller to the front, a sipp callee where the
 * application forwards) all succeed; a SIGTERM to the command stops every process it started.
 * <p>
 * Threading: one test thread; the launcher runs with the test's JDK and class path ({@link Launcher}).
 */
class ClusterDemoE2eTest
{
    private static final long READY_MS = 240_000;
    private static final int CALLS = 20;
    private static final Pattern PID = Pattern.compile("\\(pid (\\d+)\\)");

    @TempDir
    static Path work;

    @Test
    void shouldStartAClusterThatServesCallsThroughItsFrontAndStopEveryProcessItStarted() throws Exception
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        assertTrue(Files.isExecutable(Path.of("/usr/sbin/kamailio")), "kamailio is needed (apt-get install kamailio)");
        final int calleePort = Sipp.freeUdpPort();
        final int frontPort = Sipp.freeUdpPort();
        final Path war = Examples.configured("b2bua", Map.of("target", "sip:service@127.0.0.1:" + calleePort),
            work.resolve("apps"));
        final Path output = work.resolve("demo.txt");
        final ProcessBuilder builder = new ProcessBuilder(Launcher.root().resolve("bin/sipline").toString(),
            "cluster-demo", "--nodes", "2", "--front", "127.0.0.1:" + frontPort, "--node-port",
            Integer.toString(Sipp.freeUdpPort()), "--grid-port", Integer.toString(freeTcpPort()), "--deploy",
            war.toString(), "--warmup", "500", "--dir", work.resolve("demo").toString())
            .directory(Launcher.root().toFile()).redirectErrorStream(true).redirectOutput(output.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("SIPLINE_CLASSPATH", System.getProperty("java.class.path"));
        final Process demo = builder.start();
        final List<Long> started = new ArrayList<>();
        final List<Long> survivors = new ArrayList<>();
        boolean ended = false;
        try
        {
            assertTrue(Sipp.await(() -> read(output).contains("cluster-demo: ready") || !demo.isAlive(), READY_MS)
                && demo.isAlive(), "the demo was not ready:\n" + read(output));
            final Matcher pids = PID.matcher(read(output));
            while (pids.find())
            {
                started.add(Long.parseLong(pids.group(1)));
            }
            assertEquals(3, started.size(), "Kamailio and two nodes named with their ids:\n" + read(output));
            final Process callee = SippRun.callee("demo-uas", calleePort, CALLS, List.of("-sn", "uas"));
            try
            {
                final SippRun caller = SippRun.call("demo-uac", frontPort, CALLS, 10, 3_000,
                    List.of("-sn", "uac", "-s", "service"));
                assertEquals(CALLS, caller.successful(), caller + "\n" + Sipp.report("demo-uac"));
                assertEquals(0, caller.failed(), caller + "\n" + Sipp.report("demo-uac"));
                assertTrue(callee.waitFor(30, TimeUnit.SECONDS), Sipp.report("demo-uas"));
                assertEquals(CALLS, Sipp.successAndFailed("demo-uas")[0], Sipp.report("demo-uas"));
            }
            finally
            {
                Sipp.stop(callee);
            }
        }
        finally
        {
            demo.destroy(); // SIGTERM: the command stops what it started
            ended = demo.waitFor(60, TimeUnit.SECONDS);
            for (final long pid : started)
            {
                ProcessHandle.of(pid).filter(ProcessHandle::isAlive).ifPresent(p -> survivors.add(p.pid()));
            }
            demo.destroyForcibly();
            survivors.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        }
        assertTrue(ended, "the demo did not stop on SIGTERM:\n" + read(output));
        assertTrue(survivors.isEmpty(), "processes " + survivors + " outlived the demo:\n" + read(output));
        assertTrue(read(output).contains("cluster-demo: stopped"), read(output));
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        }
        catch (final IOException e)
        {
            return "(unreadable: " + e + ")";
        }
    }

    private static int freeTcpPort() throws IOException
    {
        try (ServerSocket s = new ServerSocket())
        {
            s.bind(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0));
            return s.getLocalPort();
        }
    }
}
