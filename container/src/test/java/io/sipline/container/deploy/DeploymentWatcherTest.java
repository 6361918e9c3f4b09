package io.sipline.container.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The folder watcher with a temp folder and a recording {@link DeploymentListener}: WARs dropped, replaced, deleted,
 * broken and half-written, exploded directories, and the thread's life. Tests with the watching thread poll the
 * recorded events with a deadline; the half-written cases drive {@link DeploymentWatcher#scan} with their own clock.
 */
class DeploymentWatcherTest
{
    private static final long DEADLINE_MS = 20_000;
    private static final String SERVLET = "com.example.watch.Echo";

    @TempDir
    static Path shared;

    static Path classes;

    @TempDir
    Path dir;

    private final Recorder recorder = new Recorder();
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private DeploymentWatcher watcher;

    @BeforeAll
    static void compileTheServlet() throws IOException
    {
        classes = shared.resolve("classes");
        TestApplications.compile(Map.of("com/example/watch/Echo.java", """
            package com.example.watch;

            public class Echo extends javax.servlet.sip.SipServlet
            {
                private static final long serialVersionUID = 1L;
            }
            """), classes);
    }

    @AfterEach
    void closeTheWatcher()
    {
        if (null != watcher)
        {
            watcher.close();
        }
    }

    @Test
    void shouldDeployWarsPresentAtStartBeforeStartReturns() throws Exception
    {
        final Path folder = Files.createDirectory(dir.resolve("apps"));
        final Path one = war(folder.resolve("one.war"), "one", "1");
        final Path two = war(folder.resolve("two.war"), "two", "1");
        age(one);
        age(two);

        watcher = start(List.of(folder));

        assertEquals(List.of("+one@1", "+two@1"), recorder.events());
        assertEquals(List.of("one", "two"), names(watcher.applications()));
        assertTrue(out.toString().contains("sipline: deployed one (servlets echo) from " + one), out.toString());
        assertEquals("", err.toString());
        assertTrue(watcherThreadAlive());
    }

    @Test
    void shouldDeployAWarDroppedIntoTheFolder() throws Exception
    {
        final Path folder = Files.createDirectory(dir.resolve("apps"));
        watcher = start(List.of(folder));
        assertEquals(List.of(), recorder.events());

        drop(war(dir.resolve("b2bua.war"), "b2bua", "1"), folder);

        awaitEvents("+b2bua@1");
        awaitApplications("b2bua");
    }

    @Test
    void shouldRedeployAReplacedWar() throws Exception
    {
        final Path folder = Files.createDirectory(dir.resolve("apps"));
        final Path deployed = war(folder.resolve("app.war"), "app", "1");
        age(deployed);
        watcher = start(List.of(folder));
        awaitEvents("+app@1");
        final DeployedApplication first = watcher.applications().getFirst();

        drop(war(dir.resolve("app.war"), "app", "2"), folder);

        awaitEvents("+app@1", "-app@1", "+app@2");
        awaitApplications("app");
        assertTrue(first.classLoader().isClosed(), "the old version is closed");
        assertEquals("2", watcher.applications().getFirst().descriptor().contextParams().get("version"));
    }

    @Test
    void shouldUndeployADeletedWar() throws Exception
    {
        final Path folder = Files.createDirectory(dir.resolve("apps"));
        final Path war = war(folder.resolve("gone.war"), "gone", "1");
        final Path stays = war(folder.resolve("stays.war"), "stays", "1");
        age(war);
        age(stays);
        watcher = start(List.of(folder));
        final DeployedApplication gone = watcher.applications().getFirst();

        Files.delete(war);

        awaitEvents("+gone@1", "+stays@1", "-gone@1");
        awaitApplications("stays");
        assertTrue(await(() -> gone.classLoader().isClosed()));
        assertTrue(await(() -> out.toString().contains("sipline: undeployed gone from " + war)), out.toString());
    }

    @Test
    void shouldReportABrokenWarOnceAndKeepServingTheOthers() throws Exception
    {
        final Path folder = Files.createDirectory(dir.resolve("apps"));
        final Path good = war(folder.resolve("good.war"), "good", "1");
        age(good);
        watcher = start(List.of(folder));

        final Path broken = dir.resolve("broken.war");
        Files.writeString(broken, "PK\u0003\u0004 not a zip at all", StandardCharsets.ISO_8859_1);
        drop(broken, folder);
        drop(war(dir.resolve("later.war"), "later", "1"), folder);

        awaitEvents("+good@1", "+later@1");
        assertTrue(await(() -> err.toString().contains("broken.war")), err.toString());
        final String line = err.toString().strip();
        assertEquals(1, line.lines().count(), line);
        assertTrue(line.startsWith("sipline: cannot deploy " + folder.resolve("broken.war")
            + ": not a readable WAR (zip) file"), line);
        awaitApplications("good", "later");

        // fixed in place: deployed without a second error line
        drop(war(dir.resolve("broken.war"), "fixed", "1"), folder);
        awaitEvents("+good@1", "+later@1", "+fixed@1");
        assertEquals(1, err.toString().strip().lines().count(), err.toString());
    }

    @Test
    void shouldKeepTheOldVersionWhenTheReplacementIsBroken() throws Exception
    {
        final Path folder = Files.createDirectory(dir.resolve("apps"));
        final Path war = war(folder.resolve("app.war"), "app", "1");
        age(war);
        watcher = start(List.of(folder));

        final Path broken = dir.resolve("app.war");
        Files.writeString(broken, "not a zip", StandardCharsets.ISO_8859_1);
        drop(broken, folder);

        assertTrue(await(() -> err.toString().contains("cannot deploy")), err.toString());
        assertEquals(List.of("+app@1"), recorder.events());
        assertEquals(List.of("app"), names(watcher.applications()));
        assertFalse(watcher.applications().getFirst().classLoader().isClosed());
    }

    @Test
    void shouldReportAListenerThatRefusesTheApplication() throws Exception
    {
        final Path folder = Files.createDirectory(dir.resolve("apps"));
        age(war(folder.resolve("refused.war"), "refused", "1"));
        age(war(folder.resolve("ok.war"), "ok", "1"));
        recorder.refuse = "refused";

        watcher = start(List.of(folder));

        assertEquals(List.of("+ok@1"), recorder.events());
        assertEquals("sipline: cannot deploy refused: init failed", err.toString().strip());
        assertEquals(List.of("ok"), names(watcher.applications()));
    }

    @Test
    void shouldWatchExplodedApplicationsInTheFolder() throws Exception
    {
        final Path folder = Files.createDirectory(dir.resolve("apps"));
        watcher = start(List.of(folder));

        final Path staged = exploded(dir.resolve("staged"), "exploded", "1");
        Files.move(staged, folder.resolve("exploded"), StandardCopyOption.ATOMIC_MOVE);
        awaitEvents("+exploded@1");

        deleteTree(folder.resolve("exploded"));
        awaitEvents("+exploded@1", "-exploded@1");
        awaitApplications();
    }

    @Test
    void shouldDeployApplicationsNamedDirectlyOnceWithoutAThread() throws Exception
    {
        final Path war = war(dir.resolve("direct.war"), "direct", "1");
        final Path exploded = exploded(dir.resolve("tree"), "tree", "1");

        watcher = start(List.of(war, exploded));

        assertEquals(List.of("+direct@1", "+tree@1"), recorder.events());
        assertEquals(List.of(), watcher.folders());
        assertFalse(watcherThreadAlive());
        watcher.close();
        assertEquals(List.of("+direct@1", "+tree@1", "-tree@1", "-direct@1"), recorder.events());
        watcher = null;
    }

    @Test
    void shouldStopItsThreadAndUndeployOnClose() throws Exception
    {
        final Path folder = Files.createDirectory(dir.resolve("apps"));
        age(war(folder.resolve("a.war"), "a", "1"));
        watcher = start(List.of(folder));
        final DeployedApplication a = watcher.applications().getFirst();
        assertTrue(watcherThreadAlive());

        watcher.close();

        assertTrue(await(() -> !watcherThreadAlive()), "the watcher thread ends");
        assertEquals(List.of("+a@1", "-a@1"), recorder.events());
        assertTrue(a.classLoader().isClosed());
        assertEquals(List.of(), watcher.applications());
        watcher = null;
    }

    @Test
    void shouldNotDeployAWarWhileItIsStillBeingWritten() throws Exception
    {
        final Path folder = Files.createDirectory(dir.resolve("apps"));
        final AtomicLong now = new AtomicLong(1_000_000_000_000L);
        final Duration quiet = Duration.ofSeconds(2);
        final DeploymentWatcher manual = new DeploymentWatcher(List.of(folder), new ApplicationDeployer(), recorder,
            new PrintWriter(out, true), new PrintWriter(err, true), Duration.ofHours(1), quiet, now::get);
        final byte[] whole = Files.readAllBytes(war(dir.resolve("copy.war"), "copy", "1"));
        final Path target = folder.resolve("copy.war");

        // the first half lands: seen, not deployed
        write(target, Arrays.copyOf(whole, whole.length / 2), now.get());
        manual.scan(false);
        now.addAndGet(quiet.toMillis() / 2);
        manual.scan(false);
        // the copy goes on: the file changed, so the quiet time starts again
        write(target, whole, now.get());
        now.addAndGet(quiet.toMillis() - 1);
        manual.scan(false);
        now.addAndGet(quiet.toMillis() - 1);
        manual.scan(false);
        assertEquals(List.of(), recorder.events(), "nothing deployed while the file keeps changing");
        assertEquals("", err.toString(), "the half-written WAR was never opened");

        // unchanged for the whole quiet time since it was last seen changing: deployed
        now.addAndGet(1);
        manual.scan(false);
        assertEquals(List.of("+copy@1"), recorder.events());
        assertEquals("", err.toString());
        manual.close();
    }

    @Test
    void shouldWaitForAFreshFileAtStartButNotForAnOldOne() throws Exception
    {
        final Path folder = Files.createDirectory(dir.resolve("apps"));
        final AtomicLong now = new AtomicLong(2_000_000_000_000L);
        final Duration quiet = Duration.ofSeconds(1);
        final byte[] fresh = Files.readAllBytes(war(dir.resolve("f.war"), "fresh", "1"));
        final byte[] old = Files.readAllBytes(war(dir.resolve("o.war"), "old", "1"));
        write(folder.resolve("fresh.war"), fresh, now.get() - 10);
        write(folder.resolve("old.war"), old, now.get() - quiet.toMillis());
        final DeploymentWatcher manual = new DeploymentWatcher(List.of(folder), new ApplicationDeployer(), recorder,
            new PrintWriter(out, true), new PrintWriter(err, true), Duration.ofHours(1), quiet, now::get);

        manual.scan(true);
        assertEquals(List.of("+old@1"), recorder.events());
        now.addAndGet(quiet.toMillis());
        manual.scan(false);
        assertEquals(List.of("+old@1", "+fresh@1"), recorder.events());
        manual.close();
    }

    // ------------------------------------------------------------------------------------------------------------

    private DeploymentWatcher start(final List<Path> paths) throws IOException
    {
        final DeploymentWatcher w = new DeploymentWatcher(paths, new ApplicationDeployer(), recorder,
            new PrintWriter(out, true), new PrintWriter(err, true), Duration.ofMillis(50), Duration.ofMillis(100),
            System::currentTimeMillis);
        w.start();
        return w;
    }

    private void awaitEvents(final String... expected) throws InterruptedException
    {
        final List<String> want = List.of(expected);
        assertTrue(await(() -> want.equals(recorder.events())),
            "expected " + want + ", got " + recorder.events() + "\nout: " + out + "\nerr: " + err);
    }

    private void awaitApplications(final String... expected) throws InterruptedException
    {
        final List<String> want = List.of(expected);
        assertTrue(await(() -> want.equals(names(watcher.applications()))),
            "expected " + want + ", got " + names(watcher.applications()));
    }

    private static boolean await(final BooleanSupplier condition) throws InterruptedException
    {
        return Sipp.await(condition, DEADLINE_MS);
    }

    private static boolean watcherThreadAlive()
    {
        return Thread.getAllStackTraces().keySet().stream()
            .anyMatch(t -> DeploymentWatcher.THREAD_NAME.equals(t.getName()) && t.isAlive());
    }

    private static List<String> names(final List<DeployedApplication> apps)
    {
        return apps.stream().map(DeployedApplication::name).toList();
    }

    /** Moves a finished file into the folder in one step, as a deployment tool should. */
    private static void drop(final Path file, final Path folder) throws IOException
    {
        Files.move(file, folder.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.ATOMIC_MOVE);
    }

    /** Makes a file look written long ago, so the scan at start takes it as complete. */
    private static void age(final Path file) throws IOException
    {
        Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
    }

    private static void write(final Path file, final byte[] bytes, final long mtime) throws IOException
    {
        Files.write(file, bytes);
        Files.setLastModifiedTime(file, FileTime.fromMillis(mtime));
    }

    private static Path war(final Path file, final String name, final String version) throws IOException
    {
        final Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put(ApplicationArchive.SIP_XML, sipXml(name, version).getBytes(StandardCharsets.UTF_8));
        TestApplications.collect(classes, ApplicationArchive.CLASSES, entries);
        TestApplications.zip(file, entries);
        return file;
    }

    private static Path exploded(final Path root, final String name, final String version) throws IOException
    {
        final Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put(ApplicationArchive.SIP_XML, sipXml(name, version).getBytes(StandardCharsets.UTF_8));
        TestApplications.collect(classes, ApplicationArchive.CLASSES, entries);
        for (final Map.Entry<String, byte[]> e : entries.entrySet())
        {
            final Path file = root.resolve(e.getKey());
            Files.createDirectories(file.getParent());
            Files.write(file, e.getValue());
        }
        return root;
    }

    private static void deleteTree(final Path root) throws IOException
    {
        try (var files = Files.walk(root))
        {
            for (final Path p : files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList())
            {
                Files.delete(p);
            }
        }
    }

    private static String sipXml(final String name, final String version)
    {
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <sip-app xmlns="http://www.jcp.org/xml/ns/sipservlet" xmlns:javaee="http://java.sun.com/xml/ns/javaee"
                     version="1.1">
              <app-name>%s</app-name>
              <javaee:context-param>
                <javaee:param-name>version</javaee:param-name>
                <javaee:param-value>%s</javaee:param-value>
              </javaee:context-param>
              <servlet>
                <javaee:servlet-name>echo</javaee:servlet-name>
                <javaee:servlet-class>%s</javaee:servlet-class>
              </servlet>
            </sip-app>
            """.formatted(name, version, SERVLET);
    }

    /** Records {@code +name@version} and {@code -name@version} in order; refuses one application by name. */
    private static final class Recorder implements DeploymentListener
    {
        private final List<String> events = new ArrayList<>();
        volatile String refuse;

        @Override
        public synchronized void onDeployed(final DeployedApplication application) throws DeploymentException
        {
            assertNotNull(application.servlets().get("echo"));
            if (application.name().equals(refuse))
            {
                throw new DeploymentException(application.name(), "init failed");
            }
            events.add("+" + tag(application));
        }

        @Override
        public synchronized void onUndeployed(final DeployedApplication application)
        {
            events.add("-" + tag(application));
        }

        synchronized List<String> events()
        {
            return List.copyOf(events);
        }

        private static String tag(final DeployedApplication application)
        {
            return application.name() + "@" + application.descriptor().contextParams().get("version");
        }
    }
}
