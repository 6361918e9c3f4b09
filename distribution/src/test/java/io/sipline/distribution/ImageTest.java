package io.sipline.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
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
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.logging.log4j.layout.template.json.util.JsonReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image Jib wrote ({@code target/sipline-VERSION-image-test.tar}, from the base that
 * {@code src/image/build-base.sh} makes of Debian packages and the local JDK) run as a container without a Docker
 * daemon: its layers unpacked in order into a temporary root, as a runtime does, and its configuration's
 * entrypoint, arguments, environment and working directory started there in a user and mount namespace of its own
 * ({@code unshare --user --map-root-user --mount}, {@code chroot}), with {@code /dev}, {@code /proc} and
 * {@code /sys} bound in and the host's network, as {@code docker run --network host} does. The process runs as the
 * namespace's root, not the image's user 65534 (one id is mapped): the files that user needs are checked to be
 * readable by it instead. The server answers OPTIONS over UDP and {@code GET /health}, and stops with 0 on SIGTERM
 * sent to its process id.
 */
class ImageTest
{
    private static final long START_MS = 120_000;
    private static final long STOP_MS = 30_000;
    private static final String HOME = "/opt/sipline";
    private static final String JAVA_HOME = "/opt/java/openjdk";

    @TempDir
    static Path work;

    private static Path root;
    private static Map<?, ?> config;

    @BeforeAll
    static void unpack() throws IOException, InterruptedException
    {
        final String image = System.getProperty("sipline.image.tar");
        if (null == image || image.isEmpty())
        {
            final String why = "no image to test: ./mvnw verify builds it where mmdebstrap is installed "
                + "(apt-get install mmdebstrap)";
            if ("true".equals(System.getenv("CI")))
            {
                fail(why);
            }
            Assumptions.abort(why);
        }
        final Path tar = Path.of(image);
        assertTrue(Files.isRegularFile(tar), "no image " + tar);
        final Path saved = Files.createDirectory(work.resolve("image"));
        run(List.of("tar", "-xf", tar.toString(), "-C", saved.toString()));

        // manifest.json: [{"Config": FILE, "RepoTags": [...], "Layers": [FILE, ...]}], as docker save writes it
        final Map<?, ?> manifest = (Map<?, ?>) ((List<?>) json(saved.resolve("manifest.json"))).getFirst();
        final Map<?, ?> image0 = (Map<?, ?>) json(saved.resolve((String) manifest.get("Config")));
        config = (Map<?, ?>) image0.get("config");
        final List<?> layers = (List<?>) manifest.get("Layers");
        assertEquals(((List<?>) ((Map<?, ?>) image0.get("rootfs")).get("diff_ids")).size(), layers.size());
        root = Files.createDirectory(work.resolve("root"));
        for (final Object layer : layers)
        {
            // in order, each over the one before; no layer of this image deletes a file (no .wh. entries)
            run(List.of("tar", "--warning=no-unknown-keyword", "-xzf", saved.resolve((String) layer).toString(),
                "-C", root.toString()));
        }
        try (Stream<Path> files = Files.walk(root))
        {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().startsWith(".wh.")), "a whiteout entry");
        }
    }

    /** {@code rm -rf}: the root holds absolute symbolic links, which it removes without following. */
    @AfterAll
    static void removeRoot() throws IOException, InterruptedException
    {
        if (null != root)
        {
            run(List.of("rm", "-rf", "--one-file-system", root.toString()));
        }
    }

    @Test
    void shouldStartTheLauncherWithTheBasesJava() throws IOException
    {
        assertEquals(List.of(HOME + "/bin/sipline", "run"), config.get("Entrypoint"));
        assertEquals(List.of("--config", HOME + "/conf/sipline.conf", "--bind", "0.0.0.0"), config.get("Cmd"));
        assertEquals(HOME, config.get("WorkingDir"));
        assertEquals("65534", config.get("User"));
        assertEquals(Set.of("5060/udp", "5060/tcp", "8080/tcp"), ((Map<?, ?>) config.get("ExposedPorts")).keySet());
        final List<?> env = (List<?>) config.get("Env");
        assertTrue(env.contains("JAVA_HOME=" + JAVA_HOME), env::toString);
        assertTrue(env.stream().anyMatch(e -> ((String) e).startsWith("PATH=" + JAVA_HOME + "/bin:")), env::toString);
        assertTrue(env.contains("SIPLINE_LOG_DIR=/tmp"), env::toString);

        // the launcher takes JAVA_HOME when its release file says 25 or newer
        final List<String> release = Files.readAllLines(root.resolve(JAVA_HOME.substring(1) + "/release"));
        assertTrue(release.stream().anyMatch(l -> l.matches("JAVA_VERSION=\"(2[5-9]|[3-9][0-9])[.\"].*")),
            release::toString);
        try (Stream<Path> lib = Files.list(root.resolve(HOME.substring(1) + "/lib")))
        {
            assertTrue(lib.anyMatch(p -> p.getFileName().toString().startsWith("sipline-container-")));
        }
        assertFalse(Files.exists(root.resolve("app")), "Jib's own /app layout is filtered out");

        // user 65534 reads every file of the server and its Java, and runs the launcher and java
        for (final String dir : List.of(HOME, JAVA_HOME))
        {
            try (Stream<Path> files = Files.walk(root.resolve(dir.substring(1))))
            {
                for (final Path file : (Iterable<Path>) files::iterator)
                {
                    if (Files.isSymbolicLink(file))
                    {
                        continue;
                    }
                    final Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
                    assertTrue(mode.contains(PosixFilePermission.OTHERS_READ), file + " " + mode);
                    if (Files.isDirectory(file))
                    {
                        assertTrue(mode.contains(PosixFilePermission.OTHERS_EXECUTE), file + " " + mode);
                    }
                }
            }
        }
        for (final String exe : List.of(HOME + "/bin/sipline", JAVA_HOME + "/bin/java"))
        {
            assertTrue(Files.getPosixFilePermissions(root.resolve(exe.substring(1)))
                .contains(PosixFilePermission.OTHERS_EXECUTE), exe);
        }
    }

    @Test
    void shouldAnswerOptionsFromTheImageRunAsAContainer() throws IOException, InterruptedException
    {
        // docker run --network host -e SIPLINE_JAVA_OPTS=... IMAGE ARGS: the arguments replace the image's Cmd
        final Loopback.Started started = Loopback.startReady(p -> Loopback.Server.start(container(List.of(
            "--config", HOME + "/conf/sipline.conf", "--bind", "127.0.0.1", "--port", Integer.toString(p.sip()),
            "--admin-port", Integer.toString(p.admin()), "--shards", "1")), STOP_MS),
            l -> l.equals("sipline: ready"), START_MS);
        final Loopback.Server server = started.server();
        final int port = started.ports().sip();
        final int admin = started.ports().admin();
        try
        {
            assertTrue(started.ready(), "no 'sipline: ready':\n" + server.output());
            assertTrue(server.output().contains("GC log /tmp/gc-zgc-"), "the image's SIPLINE_LOG_DIR and the conf's"
                + " profile:\n" + server.output());
            assertTrue(server.output().contains("udp 127.0.0.1:" + port), server.output());
            // the image's runtime links jdk.incubator.vector and bin/sipline adds it: the SSRC index scans with SIMD
            assertTrue(server.output().lines().anyMatch(l -> l.startsWith("sipline: media on udp ")
                && l.contains("; SSRC index: vector, ")), "the media relay's line:\n" + server.output());
            final String options = Loopback.exchange(port, "OPTIONS", "");
            assertTrue(options.startsWith("SIP/2.0 200 "), options);

            final HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + admin + "/health")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode(), health.body());

            assertEquals(0, server.stop(), "exit code after SIGTERM:\n" + server.output());
            assertTrue(server.output().contains("sipline: stopped"), server.output());
            try (Stream<Path> logs = Files.list(root.resolve("tmp")))
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
     * The image's entrypoint with {@code args} in place of its Cmd, in its environment and working directory, in
     * {@link #root}: the process id is the JVM's (unshare, sh, chroot, env and the launcher each exec the next).
     */
    private static ProcessBuilder container(final List<String> args)
    {
        final List<String> cmd = new ArrayList<>(List.of("unshare", "--user", "--map-root-user", "--mount",
            "--propagation", "private", "--", "sh", "-c",
            // the bind mounts live in the new mount namespace only, and end with it
            "set -e; r=$1; shift; for d in dev proc sys; do mkdir -p \"$r/$d\"; mount --rbind \"/$d\" \"$r/$d\"; done;"
                + " exec chroot \"$r\" \"$@\"",
            "sh", root.toString(), "/usr/bin/env", "-i", "-C", (String) config.get("WorkingDir")));
        for (final Object e : (List<?>) config.get("Env"))
        {
            cmd.add((String) e);
        }
        // -e SIPLINE_JAVA_OPTS: a small heap, not the profile's 4 GiB touched at start (a test machine is shared)
        cmd.add("SIPLINE_JAVA_OPTS=-Xms64m -Xmx256m -XX:SoftMaxHeapSize=192m -XX:-AlwaysPreTouch");
        for (final Object e : (List<?>) config.get("Entrypoint"))
        {
            cmd.add((String) e);
        }
        cmd.addAll(args);
        final ProcessBuilder builder = new ProcessBuilder(cmd).directory(work.toFile());
        builder.environment().clear();
        builder.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        return builder;
    }

    private static Object json(final Path file) throws IOException
    {
        return JsonReader.read(Files.readString(file, StandardCharsets.UTF_8));
    }

    private static void run(final List<String> cmd) throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), cmd + " did not finish");
        assertEquals(0, p.exitValue(), cmd + ": " + new String(out, StandardCharsets.UTF_8));
    }
}
