package io.sipline.container.deploy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApplicationArchiveTest
{
    @TempDir
    static Path shared;

    static Path classes;
    static Path libClasses;

    @BeforeAll
    static void compileTheApplication() throws Exception
    {
        classes = shared.resolve("classes");
        TestApplications.compile(Map.of("com/example/b2bua/Forwarder.java", """
            package com.example.b2bua;

            @javax.servlet.sip.annotation.SipServlet(loadOnStartup = 4)
            public class Forwarder extends javax.servlet.sip.SipServlet
            {
                private static final long serialVersionUID = 1L;
            }
            """, "com/example/b2bua/CallCounter.java", """
            package com.example.b2bua;

            @javax.servlet.sip.annotation.SipListener
            public class CallCounter implements javax.servlet.sip.SipApplicationSessionListener
            {
                @Override
                public void sessionCreated(final javax.servlet.sip.SipApplicationSessionEvent event)
                {
                }

                @Override
                public void sessionDestroyed(final javax.servlet.sip.SipApplicationSessionEvent event)
                {
                }

                @Override
                public void sessionExpired(final javax.servlet.sip.SipApplicationSessionEvent event)
                {
                }

                @Override
                public void sessionReadyToInvalidate(final javax.servlet.sip.SipApplicationSessionEvent event)
                {
                }
            }
            """), classes);
        libClasses = shared.resolve("lib-classes");
        TestApplications.compile(Map.of("org/example/lib/Status.java", """
            package org.example.lib;

            @javax.servlet.sip.annotation.SipServlet(name = "status", loadOnStartup = 3)
            public class Status extends javax.servlet.sip.SipServlet
            {
                private static final long serialVersionUID = 1L;
            }
            """), libClasses);
    }

    @Test
    void shouldDeployAWarWithSipXmlClassesAndLibraryJars(@TempDir final Path dir) throws Exception
    {
        final Path war = war(dir.resolve("b2bua.war"), fixture("b2bua-1_1.xml"), true);

        try (ApplicationArchive archive = ApplicationArchive.open(war))
        {
            assertFalse(archive.isDirectory());
            assertEquals("b2bua", archive.baseName());
            assertEquals(List.of("WEB-INF/lib/presence.jar"), archive.libraryEntries());
            assertTrue(archive.classEntries().contains("WEB-INF/classes/com/example/b2bua/Forwarder.class"));
            assertEquals(war + "!/WEB-INF/sip.xml", archive.describe(ApplicationArchive.SIP_XML));

            final List<String> origins = new ArrayList<>();
            archive.forEachClass((origin, bytes) ->
            {
                assertEquals((byte) 0xCA, bytes[0]);
                origins.add(origin);
            });
            assertTrue(origins.contains(war + "!/WEB-INF/lib/presence.jar!/org/example/lib/Status.class"),
                origins.toString());
            assertFalse(origins.stream().anyMatch(o -> o.contains("META-INF")), origins.toString());

            final SipApplicationDescriptor app = DeploymentDescriptors.load(archive);
            assertEquals("com.example.b2bua", app.appName());
            assertEquals(war + "!/WEB-INF/sip.xml", app.source());
            assertEquals("Forwarder", app.mainServlet());
            assertEquals("com.example.b2bua.ForwardingServlet", app.servlets().get("Forwarder").className(),
                "sip.xml's Forwarder wins over @SipServlet Forwarder");
            assertEquals(List.of("Forwarder", "Presence", "status"), List.copyOf(app.servlets().keySet()));
            assertEquals(1, app.servlets().get("Forwarder").loadOnStartup());
            assertEquals(3, app.servlets().get("status").loadOnStartup());
            assertTrue(app.servlets().get("status").source().contains("presence.jar!/"));
            assertEquals(List.of("com.example.b2bua.CallCounter"),
                app.listeners().stream().map(ListenerDefinition::className).toList(), "listed once");
            assertEquals(5, app.sessionTimeoutMinutes());
        }
    }

    @Test
    void shouldReadAnExplodedDirectory(@TempDir final Path dir) throws Exception
    {
        final Path app = dir.resolve("proxy");
        Files.createDirectories(app.resolve("WEB-INF/lib"));
        Files.write(app.resolve(ApplicationArchive.SIP_XML), fixture("proxy-1_1.xml"));
        Files.write(app.resolve("WEB-INF/lib/presence.jar"), jar());
        Files.writeString(app.resolve("WEB-INF/lib/README.txt"), "not a jar");

        try (ApplicationArchive archive = ApplicationArchive.open(app))
        {
            assertTrue(archive.isDirectory());
            assertEquals("proxy", archive.baseName());
            assertArrayEquals(fixture("proxy-1_1.xml"), archive.sipXml().orElseThrow());
            assertEquals(List.of("WEB-INF/lib/presence.jar"), archive.libraryEntries());
            assertTrue(archive.read("WEB-INF/web.xml").isEmpty());

            final SipApplicationDescriptor descriptor = DeploymentDescriptors.load(archive);
            assertEquals("com.example.proxy", descriptor.appName());
            assertEquals(List.of("Registrar", "Proxy", "status"), List.copyOf(descriptor.servlets().keySet()));
            assertEquals(2, descriptor.mappings().size());
        }
    }

    @Test
    void shouldNameTheSipXmlEntryAndLineInsideAWar(@TempDir final Path dir) throws Exception
    {
        final Path war = war(dir.resolve("broken.war"), fixture("broken-unknown-servlet.xml"), false);

        try (ApplicationArchive archive = ApplicationArchive.open(war))
        {
            final DeploymentException ex = assertThrows(DeploymentException.class,
                () -> DeploymentDescriptors.load(archive));
            assertEquals(war + "!/WEB-INF/sip.xml", ex.source());
            assertEquals(SipXmlReaderTest.lineOf("broken-unknown-servlet.xml", "<servlet-name>nobody") - 1, ex.line());
            assertTrue(ex.getMessage().startsWith(war + "!/WEB-INF/sip.xml:"), ex.getMessage());
        }
    }

    @Test
    void shouldRefuseAFileThatIsNotAZip(@TempDir final Path dir) throws Exception
    {
        final Path garbage = dir.resolve("garbage.war");
        Files.writeString(garbage, "this is not a zip file");
        final Path truncated = dir.resolve("truncated.war");
        final byte[] whole = Files.readAllBytes(war(dir.resolve("whole.war"), fixture("b2bua-1_1.xml"), true));
        Files.write(truncated, Arrays.copyOf(whole, whole.length / 2));

        for (final Path bad : List.of(garbage, truncated))
        {
            final DeploymentException ex = assertThrows(DeploymentException.class, () -> ApplicationArchive.open(bad));
            assertEquals(bad.toString(), ex.source());
            assertTrue(ex.reason().contains("not a readable WAR"), ex.getMessage());
        }
        final DeploymentException missing = assertThrows(DeploymentException.class,
            () -> ApplicationArchive.open(dir.resolve("absent.war")));
        assertTrue(missing.getMessage().contains("absent.war"), missing.getMessage());
    }

    @Test
    void shouldRefuseAnArchiveWithNeitherSipXmlNorAnnotations(@TempDir final Path dir) throws Exception
    {
        final Path war = dir.resolve("plain.war");
        TestApplications.zip(war, Map.of("index.html", "<html/>".getBytes(StandardCharsets.UTF_8),
            "WEB-INF/web.xml", "<web-app/>".getBytes(StandardCharsets.UTF_8)));

        try (ApplicationArchive archive = ApplicationArchive.open(war))
        {
            final DeploymentException ex = assertThrows(DeploymentException.class,
                () -> DeploymentDescriptors.load(archive));
            assertEquals(war.toString(), ex.source());
            assertTrue(ex.reason().contains("not a SIP application"), ex.getMessage());
        }
    }

    @Test
    void shouldRefuseABrokenLibraryJarNamingIt(@TempDir final Path dir) throws Exception
    {
        final Path war = dir.resolve("badlib.war");
        final Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put(ApplicationArchive.SIP_XML, fixture("unnamespaced.xml"));
        final byte[] jar = jar();
        entries.put("WEB-INF/lib/broken.jar", Arrays.copyOf(jar, 40));
        TestApplications.zip(war, entries);

        try (ApplicationArchive archive = ApplicationArchive.open(war))
        {
            final DeploymentException ex = assertThrows(DeploymentException.class,
                () -> DeploymentDescriptors.load(archive));
            assertEquals(war + "!/WEB-INF/lib/broken.jar", ex.source());
        }
    }

    @Test
    void shouldRefuseEntryPathsThatLeaveTheApplication(@TempDir final Path dir) throws Exception
    {
        Files.createDirectories(dir.resolve("app/WEB-INF"));
        try (ApplicationArchive archive = ApplicationArchive.open(dir.resolve("app")))
        {
            assertThrows(DeploymentException.class, () -> archive.read("../secret"));
            assertThrows(DeploymentException.class, () -> archive.read("/etc/passwd"));
            assertTrue(archive.classEntries().isEmpty());
            assertTrue(archive.sipXml().isEmpty());
        }
    }

    private static Path war(final Path war, final byte[] sipXml, final boolean withClasses) throws IOException
    {
        final Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n".getBytes(StandardCharsets.US_ASCII));
        entries.put(ApplicationArchive.SIP_XML, sipXml);
        if (withClasses)
        {
            TestApplications.collect(classes, "WEB-INF/classes/", entries);
            entries.put("WEB-INF/lib/presence.jar", jar());
        }
        TestApplications.zip(war, entries);
        return war;
    }

    private static byte[] jar() throws IOException
    {
        final Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n".getBytes(StandardCharsets.US_ASCII));
        TestApplications.collect(libClasses, "", entries);
        final Path jar = Files.createTempFile(shared, "lib", ".jar");
        TestApplications.zip(jar, entries);
        return Files.readAllBytes(jar);
    }

    private static byte[] fixture(final String name) throws IOException
    {
        try (InputStream in = ApplicationArchiveTest.class.getResourceAsStream("/deploy/" + name))
        {
            return in.readAllBytes();
        }
    }
}
