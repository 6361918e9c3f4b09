package io.sipline.container.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import javax.servlet.sip.SipApplicationSessionListener;
import javax.servlet.sip.SipServlet;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deploys WARs and exploded directories compiled in the test with the JDK's compiler: the per-application class
 * loader (child-first, API parent-first), servlet and listener instances, one-line failures, and release on close.
 */
class ApplicationDeployerTest
{
    private static final String HELLO = "com.example.app.Hello";
    private static final String GREETING = "com.example.lib.Greeting";

    @TempDir
    static Path shared;

    static Path appClasses;
    static Path libClasses;
    static Path parentClasses;
    static byte[] libJar;

    @TempDir
    Path dir;

    @BeforeAll
    static void compileTheApplication() throws Exception
    {
        appClasses = shared.resolve("app");
        libClasses = shared.resolve("lib");
        parentClasses = shared.resolve("parent");
        final String greeting = """
            package com.example.lib;

            public final class Greeting
            {
                public static String text()
                {
                    return "%s";
                }
            }
            """;
        TestApplications.compile(Map.of("com/example/lib/Greeting.java", greeting.formatted("from the lib jar")),
            libClasses);
        TestApplications.compile(Map.of("com/example/lib/Greeting.java", greeting.formatted("from the container")),
            parentClasses);
        final Map<String, String> sources = new LinkedHashMap<>();
        sources.put("com/example/lib/Greeting.java", greeting.formatted("only for compiling"));
        sources.put("com/example/app/Hello.java", """
            package com.example.app;

            public class Hello extends javax.servlet.sip.SipServlet
            {
                private static final long serialVersionUID = 1L;

                public String greeting()
                {
                    return com.example.lib.Greeting.text();
                }
            }
            """);
        sources.put("io/sipline/examples/fixture/Shared.java", """
            package io.sipline.examples.fixture;

            public class Shared extends javax.servlet.sip.SipServlet
            {
                private static final long serialVersionUID = 1L;
            }
            """);
        sources.put("com/example/app/NotAServlet.java", """
            package com.example.app;

            public class NotAServlet
            {
            }
            """);
        sources.put("com/example/app/Counter.java", """
            package com.example.app;

            public class Counter implements javax.servlet.sip.SipApplicationSessionListener
            {
                public void sessionCreated(final javax.servlet.sip.SipApplicationSessionEvent event)
                {
                }

                public void sessionDestroyed(final javax.servlet.sip.SipApplicationSessionEvent event)
                {
                }

                public void sessionExpired(final javax.servlet.sip.SipApplicationSessionEvent event)
                {
                }

                public void sessionReadyToInvalidate(final javax.servlet.sip.SipApplicationSessionEvent event)
                {
                }
            }
            """);
        TestApplications.compile(sources, appClasses);
        // the application's own classes only: the helper lives in the lib jar
        deleteTree(appClasses.resolve("com/example/lib"));
        final Map<String, byte[]> jarEntries = new LinkedHashMap<>();
        TestApplications.collect(libClasses, "", jarEntries);
        jarEntries.put("greeting.txt", "hello from the jar".getBytes(StandardCharsets.UTF_8));
        libJar = zipBytes(jarEntries);
    }

    @Test
    void shouldDeployAWarWithItsOwnClassLoader() throws Exception
    {
        final Path war = war("hello.war", HELLO, true);
        final Path work = Files.createDirectory(dir.resolve("work"));
        try (DeployedApplication app = new ApplicationDeployer(getClass().getClassLoader(), work).deploy(war))
        {
            assertEquals("hello", app.name());
            assertEquals(war, app.source());
            final SipServlet servlet = app.servlets().get("hello");
            assertNotNull(servlet);
            assertSame(app.classLoader(), servlet.getClass().getClassLoader());
            assertSame(SipServlet.class, servlet.getClass().getSuperclass());
            // the WAR ships the API jar in WEB-INF/lib, yet the API comes from the container
            assertSame(SipServlet.class, app.classLoader().loadClass("javax.servlet.sip.SipServlet"));
            assertEquals("from the lib jar", servlet.getClass().getMethod("greeting").invoke(servlet));
            assertSame(app.classLoader(), app.classLoader().loadClass(GREETING).getClassLoader());
            assertEquals(1, app.listeners().size());
            assertInstanceOf(SipApplicationSessionListener.class, app.listeners().getFirst());
            assertSame(app.classLoader(), app.listeners().getFirst().getClass().getClassLoader());
            try (InputStream in = app.classLoader().getResourceAsStream("greeting.txt"))
            {
                assertNotNull(in);
                assertEquals("hello from the jar", new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
            assertNotNull(app.classLoader().extractedDirectory());
            assertTrue(app.classLoader().extractedDirectory().startsWith(work));
        }
    }

    @Test
    void shouldPreferTheApplicationsClassesOverTheContainers() throws Exception
    {
        try (URLClassLoader container = new URLClassLoader("container",
            new java.net.URL[] {parentClasses.toUri().toURL()}, getClass().getClassLoader()))
        {
            assertEquals("from the container", container.loadClass(GREETING).getMethod("text").invoke(null));
            try (DeployedApplication app = new ApplicationDeployer(container, null).deploy(war("first.war", HELLO,
                false)))
            {
                final SipServlet servlet = app.servlets().get("hello");
                assertEquals("from the lib jar", servlet.getClass().getMethod("greeting").invoke(servlet));
                assertSame(SipServlet.class, servlet.getClass().getSuperclass());
            }
        }
    }

    @Test
    void shouldGiveEachApplicationItsOwnClasses() throws Exception
    {
        final ApplicationDeployer deployer = new ApplicationDeployer();
        try (DeployedApplication first = deployer.deploy(war("first.war", HELLO, false));
            DeployedApplication second = deployer.deploy(war("second.war", HELLO, false)))
        {
            final Class<?> one = first.servlets().get("hello").getClass();
            final Class<?> two = second.servlets().get("hello").getClass();
            assertEquals(one.getName(), two.getName());
            assertNotEquals(one, two);
            assertNotEquals(first.classLoader().loadClass(GREETING), second.classLoader().loadClass(GREETING));
        }
    }

    @Test
    void shouldLoadAnApplicationClassOfAParentFirstNamespaceTheContainerLacks() throws Exception
    {
        final String name = "io.sipline.examples.fixture.Shared";
        assertTrue(ApplicationClassLoader.isParentFirst(name));
        try (DeployedApplication app = new ApplicationDeployer().deploy(war("shared.war", name, false)))
        {
            assertSame(app.classLoader(), app.servlets().get("hello").getClass().getClassLoader());
            assertSame(ApplicationDeployer.class, app.classLoader().loadClass(ApplicationDeployer.class.getName()),
                "a container class still comes from the container");
            assertThrows(ClassNotFoundException.class, () -> app.classLoader().loadClass("java.lang.Missing"));
        }
    }

    @Test
    void shouldDeployAnExplodedDirectoryInPlace() throws Exception
    {
        final Path root = dir.resolve("exploded");
        Files.createDirectories(root.resolve("WEB-INF/lib"));
        Files.writeString(root.resolve(ApplicationArchive.SIP_XML), sipXml(HELLO), StandardCharsets.UTF_8);
        copyTree(appClasses, root.resolve("WEB-INF/classes"));
        Files.write(root.resolve("WEB-INF/lib/greeting.jar"), libJar);

        try (DeployedApplication app = new ApplicationDeployer().deploy(root))
        {
            final SipServlet servlet = app.servlets().get("hello");
            assertEquals("from the lib jar", servlet.getClass().getMethod("greeting").invoke(servlet));
            assertNull(app.classLoader().extractedDirectory());
        }
        assertTrue(Files.isDirectory(root.resolve("WEB-INF/classes")), "an exploded directory is not deleted");
    }

    @Test
    void shouldRefuseAMissingServletClassNamingTheLine() throws Exception
    {
        final Path work = Files.createDirectory(dir.resolve("work"));
        final Path war = war("missing.war", "com.example.app.Missing", false);

        final DeploymentException ex = assertThrows(DeploymentException.class,
            () -> new ApplicationDeployer(getClass().getClassLoader(), work).deploy(war));

        assertOneLine(ex);
        assertEquals(war + "!/WEB-INF/sip.xml:" + servletLine() + ": servlet 'hello': class com.example.app.Missing"
            + " not found", ex.getMessage());
        assertEmpty(work);
    }

    @Test
    void shouldRefuseAClassThatIsNotASipServlet() throws Exception
    {
        final Path work = Files.createDirectory(dir.resolve("work"));
        final Path war = war("plain.war", "com.example.app.NotAServlet", false);

        final DeploymentException ex = assertThrows(DeploymentException.class,
            () -> new ApplicationDeployer(getClass().getClassLoader(), work).deploy(war));

        assertOneLine(ex);
        assertTrue(ex.getMessage().startsWith(war.toString()), ex.getMessage());
        assertTrue(ex.getMessage().endsWith(
            "com.example.app.NotAServlet does not extend javax.servlet.sip.SipServlet"), ex.getMessage());
        assertEmpty(work);
    }

    @Test
    void shouldRefuseABrokenZip() throws Exception
    {
        final Path war = dir.resolve("broken.war");
        Files.write(war, "PK\u0003\u0004 this is not a zip".getBytes(StandardCharsets.ISO_8859_1));

        final DeploymentException ex = assertThrows(DeploymentException.class,
            () -> new ApplicationDeployer().deploy(war));

        assertOneLine(ex);
        assertTrue(ex.getMessage().startsWith(war + ": not a readable WAR (zip) file"), ex.getMessage());
    }

    @Test
    void shouldReleaseTheApplicationOnClose() throws Exception
    {
        final Path war = war("closing.war", HELLO, false);
        final DeployedApplication app = new ApplicationDeployer().deploy(war);
        final Path extracted = app.classLoader().extractedDirectory();
        assertTrue(Files.isDirectory(extracted));

        app.close();

        assertTrue(app.classLoader().isClosed());
        assertFalse(Files.exists(extracted), "the extracted copy is deleted");
        final ClassNotFoundException ex = assertThrows(ClassNotFoundException.class,
            () -> app.classLoader().loadClass(GREETING));
        assertTrue(ex.getMessage().contains("closed"), ex.getMessage());
        assertSame(SipServlet.class, app.classLoader().loadClass(SipServlet.class.getName()),
            "the API still resolves through the container");
    }

    @Test
    void shouldKeepTheApiAndPlatformParentFirst()
    {
        assertTrue(ApplicationClassLoader.isParentFirst("javax.servlet.sip.SipServlet"));
        assertTrue(ApplicationClassLoader.isParentFirst("javax.servlet.ServletException"));
        assertTrue(ApplicationClassLoader.isParentFirst("java.lang.String"));
        assertTrue(ApplicationClassLoader.isParentFirst("io.sipline.container.deploy.ApplicationDeployer"));
        assertFalse(ApplicationClassLoader.isParentFirst("com.example.lib.Greeting"));
        assertFalse(ApplicationClassLoader.isParentFirst("javaxx.Foo"));
    }

    private Path war(final String name, final String servletClass, final boolean withApiJar) throws IOException
    {
        final Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put(ApplicationArchive.SIP_XML, sipXml(servletClass).getBytes(StandardCharsets.UTF_8));
        TestApplications.collect(appClasses, ApplicationArchive.CLASSES, entries);
        entries.put(ApplicationArchive.LIB + "greeting.jar", libJar);
        if (withApiJar)
        {
            final Path api = Path.of(jarOf(SipServlet.class));
            entries.put(ApplicationArchive.LIB + api.getFileName(), Files.readAllBytes(api));
        }
        final Path war = dir.resolve(name);
        TestApplications.zip(war, entries);
        return war;
    }

    private static String sipXml(final String servletClass)
    {
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <sip-app xmlns="http://www.jcp.org/xml/ns/sipservlet" xmlns:javaee="http://java.sun.com/xml/ns/javaee"
                     version="1.1">
              <app-name>hello</app-name>
              <listener>
                <javaee:listener-class>com.example.app.Counter</javaee:listener-class>
              </listener>
              <servlet>
                <javaee:servlet-name>hello</javaee:servlet-name>
                <javaee:servlet-class>%s</javaee:servlet-class>
              </servlet>
            </sip-app>
            """.formatted(servletClass);
    }

    private static int servletLine()
    {
        final String[] lines = sipXml("x").split("\n");
        for (int i = 0; i < lines.length; i++)
        {
            if (lines[i].contains("<servlet>"))
            {
                return i + 1;
            }
        }
        throw new IllegalStateException();
    }

    private static void assertOneLine(final DeploymentException ex)
    {
        assertFalse(ex.getMessage().contains("\n") || ex.getMessage().contains("\r"), ex.getMessage());
    }

    private static void assertEmpty(final Path directory) throws IOException
    {
        try (Stream<Path> list = Files.list(directory))
        {
            assertEquals(0, list.count(), "a failed deployment leaves no extracted files");
        }
    }

    private static String jarOf(final Class<?> type)
    {
        try
        {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        }
        catch (final java.net.URISyntaxException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static byte[] zipBytes(final Map<String, byte[]> entries) throws IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream out = new ZipOutputStream(bytes))
        {
            for (final Map.Entry<String, byte[]> entry : entries.entrySet())
            {
                out.putNextEntry(new ZipEntry(entry.getKey()));
                out.write(entry.getValue());
                out.closeEntry();
            }
        }
        return bytes.toByteArray();
    }

    private static void copyTree(final Path from, final Path to) throws IOException
    {
        try (Stream<Path> files = Files.walk(from))
        {
            for (final Path file : (Iterable<Path>) files::iterator)
            {
                final Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file))
                {
                    Files.createDirectories(target);
                }
                else
                {
                    Files.copy(file, target);
                }
            }
        }
    }

    private static void deleteTree(final Path root) throws IOException
    {
        try (Stream<Path> files = Files.walk(root))
        {
            for (final Path file : (Iterable<Path>) files.sorted(java.util.Comparator.reverseOrder())::iterator)
            {
                Files.delete(file);
            }
        }
    }
}
