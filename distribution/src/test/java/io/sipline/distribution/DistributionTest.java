package io.sipline.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sipline-VERSION.tar.gz} as an operator installs it: unpacked with {@code tar} into a temporary directory
 * outside the source tree and started with its own {@code bin/sipline} and {@code conf/sipline.conf}, with this
 * JVM's Java 25 as {@code JAVA_HOME} and nothing else of the build. The server warms up as its conf says, answers
 * OPTIONS over UDP and {@code GET /health}, deploys a WAR dropped into its {@code webapps/} folder, and stops with 0
 * on SIGTERM sent to its process id.
 */
class DistributionTest
{
    private static final long START_MS = 120_000;
    private static final long STOP_MS = 30_000;

    @TempDir
    static Path install;

    private static Path home;

    @BeforeAll
    static void unpack() throws IOException, InterruptedException
    {
        final Path archive = Path.of(System.getProperty("sipline.dist.archive"));
        assertTrue(Files.isRegularFile(archive), "no archive " + archive + " (./mvnw package builds it)");
        final Process tar = new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", install.toString())
            .redirectErrorStream(true).start();
        assertTrue(tar.waitFor(60, TimeUnit.SECONDS), "tar did not finish");
        assertEquals(0, tar.exitValue(), new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        home = install.resolve(System.getProperty("sipline.dist.name"));
    }

    @Test
    void shouldHoldWhatAServerNeeds() throws IOException
    {
        assertTrue(Files.getPosixFilePermissions(home.resolve("bin/sipline"))
            .contains(PosixFilePermission.OWNER_EXECUTE), "bin/sipline is executable");
        try (Stream<Path> lib = Files.list(home.resolve("lib")))
        {
            final List<String> jars = lib.map(p -> p.getFileName().toString()).toList();
            assertTrue(jars.stream().anyMatch(j -> j.startsWith("sipline-container-")), jars::toString);
            assertTrue(jars.stream().anyMatch(j -> j.startsWith("sipline-sip-stack-")), jars::toString);
            assertTrue(jars.stream().anyMatch(j -> j.startsWith("netty-")), jars::toString);
            assertTrue(jars.stream().noneMatch(j -> j.endsWith(".war") || j.contains("junit")), jars::toString);
        }
        for (final String file : List.of("jvm-profiles/zgc.args", "jvm-profiles/parallel.args", "conf/sipline.conf",
            "examples/b2bua.war", "examples/registrar.war", "examples/uac.war", "examples/proxy.war",
            "examples/click-to-call.war", "examples/webrtc-gateway.war", "examples/examples.properties",
            "examples/webrtc-gateway.properties", "docs/operations.md"))
        {
            assertTrue(Files.isRegularFile(home.resolve(file)), file + " missing");
        }
        assertTrue(Files.isDirectory(home.resolve("webapps")));
        final List<String> unit = Files.readAllLines(home.resolve("systemd/sipline.service"));
        for (final String line : List.of("User=sipline", "Restart=on-failure", "LimitNOFILE=1048576",
            "ExecStart=/opt/sipline/bin/sipline run --config /opt/sipline/conf/sipline.conf"))
        {
            assertTrue(unit.contains(line), line + " missing from the systemd unit");
        }
        assertFalse(Files.exists(home.resolve("pom.xml")), "no source tree in the distribution");
    }

    @Test
    void shouldServeFromTheUnpackedArchive() throws IOException, InterruptedException
    {
        final Loopback.Started started = Loopback.startReady(p -> Server.start(home, install, List.of("run",
            "--port", Integer.toString(p.sip()), "--admin-port", Integer.toString(p.admin()), "--shards", "1")),
            l -> l.equals("sipline: ready"), START_MS);
        final Loopback.Server server = started.server();
        final int port = started.ports().sip();
        final int admin = started.ports().admin();
        try
        {
            assertTrue(started.ready(), "no 'sipline: ready':\n" + server.output());
            assertTrue(server.output().contains("sipline: profile zgc"), "the conf's profile:\n" + server.output());
            // the conf's warm-up: an installed server compiles its call path before it binds its ports
            assertTrue(server.output().lines().anyMatch(l -> l.startsWith("sipline: warmed up in ")),
                "the conf's warm-up:\n" + server.output());
            // bin/sipline starts the JVM with jdk.incubator.vector: the relay's SSRC index scans with SIMD
            assertTrue(server.output().lines().anyMatch(l -> l.startsWith("sipline: media on udp ")
                && l.contains("; SSRC index: vector, ")), "the media relay's line:\n" + server.output());
            assertTrue(server.output().contains("127.0.0.1:" + port), server.output());
            final String options = Loopback.exchange(port, "OPTIONS", "");
            assertTrue(options.startsWith("SIP/2.0 200 "), options);

            final HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + admin + "/health")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode(), health.body());

            // conf/sipline.conf deploys ../webapps, a watched folder: a WAR dropped there is deployed
            Files.copy(home.resolve("examples/registrar.war"), home.resolve("webapps/registrar.war"));
            assertTrue(server.await(l -> l.startsWith("sipline: deployed registrar"), START_MS), server.output());
            final String register = Loopback.exchange(port, "REGISTER", "Contact: <sip:alice@127.0.0.1:5999>\r\n"
                + "Expires: 60\r\n");
            assertTrue(register.startsWith("SIP/2.0 200 "), register);

            assertEquals(0, server.stop(), "exit code after SIGTERM:\n" + server.output());
            assertTrue(server.output().contains("sipline: stopped"), server.output());
            try (Stream<Path> logs = Files.list(install.resolve("logs")))
            {
                assertTrue(logs.anyMatch(p -> p.getFileName().toString().startsWith("gc-zgc-")), "the GC log");
            }
        }
        finally
        {
            server.kill();
        }
    }

    /**
     * {@code --log-format json}: every line of the server is a JSON object, its status lines and the records of the
     * JDK's {@code System.Logger} alike (routed to Log4j by the archive's libraries); a malformed request makes one
     * line of the refusal log, which runs every second here.
     */
    @Test
    void shouldLogJsonLinesWithTheRefusals() throws IOException, InterruptedException
    {
        final Loopback.Started started = Loopback.startReady(p -> Server.start(home, install, List.of("run",
            "--port", Integer.toString(p.sip()), "--admin-port", Integer.toString(p.admin()), "--shards", "1",
            "--log-format", "json"), "-Dsipline.log.refusals.seconds=1"),
            l -> l.contains("\"message\":\"ready\""), START_MS);
        final Loopback.Server server = started.server();
        final int port = started.ports().sip();
        try
        {
            assertTrue(started.ready(), server.output());
            final String bad = "INVITE sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKx\r\n"
                + "From: <sip:a@127.0.0.1>;tag=1\r\nTo: <sip:bob@127.0.0.1>\r\nCSeq: 1 INVITE\r\n"
                + "Content-Length: 0\r\n\r\n"; // no Call-ID
            try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
            {
                final byte[] bytes = bad.getBytes(StandardCharsets.US_ASCII);
                socket.send(new DatagramPacket(bytes, bytes.length, InetAddress.getLoopbackAddress(), port));
            }
            assertTrue(server.await(l -> l.contains("\"log.logger\":\"io.sipline.container.refusals\"")
                && l.contains("parse_missing_call_id"), 20_000), server.output());
            assertEquals(0, server.stop(), server.output());
            for (final String line : server.lines)
            {
                // the launcher's own line comes before the JVM, and so before any logger
                assertTrue(line.startsWith("sipline: profile ") || line.startsWith("{") && line.endsWith("}"),
                    "not a JSON line: " + line + "\n" + server.output());
            }
        }
        finally
        {
            server.kill();
        }
    }

    @Test
    void shouldRefuseAWrongKeyInOneLine() throws IOException, InterruptedException
    {
        final Path conf = Files.writeString(install.resolve("wrong.conf"), "port = 5070\nlisten = 0.0.0.0\n");
        final Loopback.Server server = Server.start(home, install, List.of("run", "--config", conf.toString()));
        try
        {
            assertTrue(server.process.waitFor(STOP_MS, TimeUnit.MILLISECONDS), server.output());
            assertTrue(server.await(l -> l.contains("unknown key"), 5_000), server.output());
            assertEquals(2, server.process.exitValue(), server.output());
            assertTrue(server.output().contains("sipline: " + conf + ":2: unknown key 'listen'"), server.output());
        }
        finally
        {
            server.kill();
        }
    }

    /** The launcher of the unpacked archive as a child process, with this JVM's Java as {@code JAVA_HOME}. */
    private static final class Server
    {
        private Server()
        {
        }

        static Loopback.Server start(final Path home, final Path cwd, final List<String> args, final String... jvm)
            throws IOException
        {
            final List<String> cmd = new ArrayList<>();
            cmd.add(home.resolve("bin/sipline").toString());
            cmd.addAll(args);
            final ProcessBuilder builder = new ProcessBuilder(cmd).directory(cwd.toFile());
            final Map<String, String> env = builder.environment();
            env.remove("SIPLINE_CLASSPATH");
            env.put("JAVA_HOME", System.getProperty("java.home"));
            env.put("SIPLINE_LOG_DIR", cwd.resolve("logs").toString());
            // a small heap, not the profile's 4 GiB touched at start: a test machine is shared
            env.put("SIPLINE_JAVA_OPTS", "-Xms64m -Xmx256m -XX:SoftMaxHeapSize=192m -XX:-AlwaysPreTouch "
                + String.join(" ", jvm));
            return Loopback.Server.start(builder, STOP_MS);
        }
    }
}
