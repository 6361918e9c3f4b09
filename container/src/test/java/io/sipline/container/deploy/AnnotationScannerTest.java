package io.sipline.container.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AnnotationScannerTest
{
    static final Map<String, String> B2BUA_SOURCES = Map.of(
        "com/example/b2bua/package-info.java", """
            @SipApplication(name = "annotated-b2bua", mainServlet = "Forwarder", sessionTimeout = 7,
                distributable = true, displayName = "Annotated B2BUA")
            package com.example.b2bua;

            import javax.servlet.sip.annotation.SipApplication;
            """,
        "com/example/b2bua/Forwarder.java", """
            package com.example.b2bua;

            import javax.servlet.sip.SipServletRequest;
            import javax.servlet.sip.annotation.SipApplicationKey;
            import javax.servlet.sip.annotation.SipServlet;

            @SipServlet(loadOnStartup = 1, description = "forwards calls")
            public class Forwarder extends javax.servlet.sip.SipServlet
            {
                private static final long serialVersionUID = 1L;

                @SipApplicationKey
                public static String key(final SipServletRequest request)
                {
                    return request.getCallId();
                }
            }
            """,
        "com/example/b2bua/Registrar.java", """
            package com.example.b2bua;

            import javax.servlet.sip.annotation.SipServlet;

            @SipServlet(name = "registrar", applicationName = "annotated-b2bua")
            public class Registrar extends javax.servlet.sip.SipServlet
            {
                private static final long serialVersionUID = 1L;
            }
            """,
        "com/example/b2bua/Startup.java", """
            package com.example.b2bua;

            import javax.servlet.sip.SipServletContextEvent;
            import javax.servlet.sip.SipServletListener;
            import javax.servlet.sip.annotation.SipListener;

            @SipListener(description = "starts things")
            public class Startup implements SipServletListener
            {
                @Override
                public void servletInitialized(final SipServletContextEvent event)
                {
                }
            }
            """,
        "com/example/b2bua/Helper.java", """
            package com.example.b2bua;

            final class Helper
            {
                static final String NOTE = "mentions javax/servlet/sip/annotation/ but has no annotation";
            }
            """);

    @TempDir
    static Path shared;

    static Path exploded;

    @BeforeAll
    static void compileTheApplication() throws Exception
    {
        exploded = shared.resolve("b2bua");
        TestApplications.compile(B2BUA_SOURCES, exploded.resolve("WEB-INF/classes"));
    }

    @Test
    void shouldFindEveryAnnotationFromClassFilesAlone() throws Exception
    {
        final AnnotationScanResult result;
        try (ApplicationArchive archive = ApplicationArchive.open(exploded))
        {
            result = AnnotationScanner.scan(archive);
        }

        final AnnotationScanResult.ApplicationAnnotation app = result.application();
        assertNotNull(app);
        assertEquals("com.example.b2bua", app.packageName());
        assertEquals("annotated-b2bua", app.name());
        assertEquals("Forwarder", app.mainServlet());
        assertEquals("Annotated B2BUA", app.displayName());
        assertEquals(7, app.sessionTimeout());
        assertNull(app.proxyTimeout(), "not written, so not given");
        assertEquals(Boolean.TRUE, app.distributable());

        assertEquals(2, result.servlets().size());
        final ServletDefinition forwarder = result.servlets().get(0).definition();
        assertEquals("Forwarder", forwarder.name(), "defaults to the unqualified class name");
        assertEquals("com.example.b2bua.Forwarder", forwarder.className());
        assertEquals(1, forwarder.loadOnStartup());
        assertEquals("forwards calls", forwarder.description());
        assertEquals(DescriptorOrigin.ANNOTATION, forwarder.origin());
        assertTrue(forwarder.source().endsWith("WEB-INF/classes/com/example/b2bua/Forwarder.class"),
            forwarder.source());
        assertNull(result.servlets().get(0).applicationName());
        final ServletDefinition registrar = result.servlets().get(1).definition();
        assertEquals("registrar", registrar.name());
        assertNull(registrar.loadOnStartup());
        assertEquals("annotated-b2bua", result.servlets().get(1).applicationName());

        assertEquals(1, result.listeners().size());
        assertEquals("com.example.b2bua.Startup", result.listeners().getFirst().definition().className());
        assertEquals("starts things", result.listeners().getFirst().definition().description());
        assertEquals(List.of(new ApplicationKeyMethod("com.example.b2bua.Forwarder", "key")),
            result.applicationKeys().stream().map(AnnotationScanResult.AnnotatedKey::method).toList());
        assertFalse(result.declaresNothing());
    }

    @Test
    void shouldBuildTheModelFromAnnotationsAlone() throws Exception
    {
        final SipApplicationDescriptor app;
        try (ApplicationArchive archive = ApplicationArchive.open(exploded))
        {
            app = DeploymentDescriptors.load(archive);
        }

        assertNull(app.dialect());
        assertEquals("annotated-b2bua", app.appName());
        assertEquals("Annotated B2BUA", app.displayName());
        assertEquals(List.of("Forwarder", "registrar"), List.copyOf(app.servlets().keySet()));
        assertEquals("Forwarder", app.mainServlet());
        assertEquals(7, app.sessionTimeoutMinutes());
        assertNull(app.proxyTimeoutSeconds());
        assertTrue(app.distributable());
        assertEquals(new ApplicationKeyMethod("com.example.b2bua.Forwarder", "key"), app.applicationKey());
        assertEquals("com.example.b2bua.Startup", app.listeners().getFirst().className());
    }

    @Test
    void shouldLetSipXmlWinOverAnnotations() throws Exception
    {
        final SipApplicationDescriptor sipXml = SipXmlReaderTest.parse("""
            <sip-app xmlns="http://www.jcp.org/xml/ns/sipservlet" xmlns:javaee="http://java.sun.com/xml/ns/javaee">
              <javaee:display-name>From sip.xml</javaee:display-name>
              <listener><javaee:listener-class>com.example.b2bua.Audit</javaee:listener-class></listener>
              <listener><javaee:listener-class>com.example.b2bua.Startup</javaee:listener-class></listener>
              <servlet>
                <javaee:servlet-name>registrar</javaee:servlet-name>
                <javaee:servlet-class>com.example.b2bua.XmlRegistrar</javaee:servlet-class>
                <javaee:init-param>
                  <javaee:param-name>expires</javaee:param-name><javaee:param-value>600</javaee:param-value>
                </javaee:init-param>
              </servlet>
              <session-config><javaee:session-timeout>9</javaee:session-timeout></session-config>
            </sip-app>
            """);
        final AnnotationScanResult annotations;
        try (ApplicationArchive archive = ApplicationArchive.open(exploded))
        {
            annotations = AnnotationScanner.scan(archive);
        }

        final SipApplicationDescriptor app = DeploymentDescriptors.merge(sipXml, annotations, "dir", "dir");

        assertEquals("annotated-b2bua", app.appName(), "no app-name in sip.xml: the annotation names it");
        assertEquals("From sip.xml", app.displayName());
        assertEquals(9, app.sessionTimeoutMinutes());
        assertTrue(app.distributable());
        assertEquals(List.of("registrar", "Forwarder"), List.copyOf(app.servlets().keySet()));
        assertEquals("com.example.b2bua.XmlRegistrar", app.servlets().get("registrar").className());
        assertEquals(DescriptorOrigin.SIP_XML, app.servlets().get("registrar").origin());
        assertEquals(DescriptorOrigin.ANNOTATION, app.servlets().get("Forwarder").origin());
        assertEquals("Forwarder", app.mainServlet(), "sip.xml selects nothing: @SipApplication(mainServlet)");
        assertEquals(List.of("com.example.b2bua.Audit", "com.example.b2bua.Startup"),
            app.listeners().stream().map(ListenerDefinition::className).toList());
    }

    @Test
    void shouldKeepSipXmlMappingsOverTheAnnotatedMainServlet() throws Exception
    {
        final SipApplicationDescriptor sipXml = SipXmlReaderTest.parse("""
            <sip-app xmlns="http://www.jcp.org/xml/ns/sipservlet">
              <app-name>annotated-b2bua</app-name>
              <servlet-selection>
                <servlet-mapping>
                  <servlet-name>registrar</servlet-name>
                  <pattern><equal><var>request.method</var><value>REGISTER</value></equal></pattern>
                </servlet-mapping>
              </servlet-selection>
            </sip-app>
            """);
        final AnnotationScanResult annotations;
        try (ApplicationArchive archive = ApplicationArchive.open(exploded))
        {
            annotations = AnnotationScanner.scan(archive);
        }

        final SipApplicationDescriptor app = DeploymentDescriptors.merge(sipXml, annotations, "dir", "dir");

        assertNull(app.mainServlet());
        assertEquals("registrar", app.selectServlet(FakeSip.request("REGISTER", "sip:example.com")));
        assertNull(app.selectServlet(FakeSip.request("INVITE", "sip:example.com")));
    }

    @Test
    void shouldRefuseAnnotationsOfAnotherApplication() throws Exception
    {
        final SipApplicationDescriptor sipXml = SipXmlReaderTest.parse(
            "<sip-app xmlns=\"http://www.jcp.org/xml/ns/sipservlet\"><app-name>other</app-name></sip-app>");
        final AnnotationScanResult annotations;
        try (ApplicationArchive archive = ApplicationArchive.open(exploded))
        {
            annotations = AnnotationScanner.scan(archive);
        }

        final DeploymentException ex = assertThrows(DeploymentException.class,
            () -> DeploymentDescriptors.merge(sipXml, annotations, "dir", "dir"));
        assertTrue(ex.source().endsWith("Registrar.class"), ex.getMessage());
        assertTrue(ex.reason().contains("applicationName = \"annotated-b2bua\""), ex.getMessage());
    }

    @Test
    void shouldRefuseAnApplicationKeyWithTheWrongSignature() throws Exception
    {
        final Path app = shared.resolve("bad-key");
        TestApplications.compile(Map.of("k/Keys.java", """
            package k;

            import javax.servlet.sip.SipServletRequest;
            import javax.servlet.sip.annotation.SipApplicationKey;

            public class Keys
            {
                @SipApplicationKey
                public String key(final SipServletRequest request)
                {
                    return "x";
                }
            }
            """), app.resolve("WEB-INF/classes"));

        try (ApplicationArchive archive = ApplicationArchive.open(app))
        {
            final DeploymentException ex =
                assertThrows(DeploymentException.class, () -> AnnotationScanner.scan(archive));
            assertTrue(ex.source().endsWith("k/Keys.class"), ex.getMessage());
            assertTrue(ex.reason().contains("k.Keys.key must be 'public static String key(SipServletRequest)'"),
                ex.getMessage());
        }
    }

    @Test
    void shouldRefuseTwoApplicationsTwoKeysAndAbstractServlets() throws Exception
    {
        final Map<String, String> sources = new LinkedHashMap<>();
        sources.put("a/package-info.java", "@javax.servlet.sip.annotation.SipApplication(name = \"a\")\npackage a;\n");
        sources.put("b/package-info.java", "@javax.servlet.sip.annotation.SipApplication(name = \"b\")\npackage b;\n");
        final Path twoApps = shared.resolve("two-apps");
        TestApplications.compile(sources, twoApps.resolve("WEB-INF/classes"));
        try (ApplicationArchive archive = ApplicationArchive.open(twoApps))
        {
            final DeploymentException ex =
                assertThrows(DeploymentException.class, () -> AnnotationScanner.scan(archive));
            assertTrue(ex.reason().contains("second @SipApplication (package b)"), ex.getMessage());
            assertTrue(ex.reason().contains("package a"), ex.getMessage());
        }

        final Path twoKeys = shared.resolve("two-keys");
        TestApplications.compile(Map.of("k/Keys.java", """
            package k;

            import javax.servlet.sip.SipServletRequest;
            import javax.servlet.sip.annotation.SipApplicationKey;

            @javax.servlet.sip.annotation.SipServlet
            public class Keys extends javax.servlet.sip.SipServlet
            {
                private static final long serialVersionUID = 1L;

                @SipApplicationKey
                public static String one(final SipServletRequest request)
                {
                    return "1";
                }

                @SipApplicationKey
                public static String two(final SipServletRequest request)
                {
                    return "2";
                }
            }
            """), twoKeys.resolve("WEB-INF/classes"));
        try (ApplicationArchive archive = ApplicationArchive.open(twoKeys))
        {
            final DeploymentException ex = assertThrows(DeploymentException.class,
                () -> DeploymentDescriptors.load(archive));
            assertTrue(ex.reason().contains("second @SipApplicationKey method k.Keys.two"), ex.getMessage());
        }
        TestApplications.compile(Map.of("k/S.java", """
            package k;

            @javax.servlet.sip.annotation.SipServlet
            public abstract class S extends javax.servlet.sip.SipServlet
            {
                private static final long serialVersionUID = 1L;
            }
            """), shared.resolve("abstract/WEB-INF/classes"));
        try (ApplicationArchive archive = ApplicationArchive.open(shared.resolve("abstract")))
        {
            final DeploymentException ex =
                assertThrows(DeploymentException.class, () -> AnnotationScanner.scan(archive));
            assertTrue(ex.reason().contains("k.S is abstract"), ex.getMessage());
        }
    }

    @Test
    void shouldRefuseAMalformedClassThatMentionsTheAnnotations() throws Exception
    {
        final Path app = shared.resolve("garbage");
        final Path classFile = app.resolve("WEB-INF/classes/x/Broken.class");
        Files.createDirectories(classFile.getParent());
        Files.write(classFile, ("\u00ca\u00fe\u00ba\u00be junk Ljavax/servlet/sip/annotation/SipServlet; junk")
            .getBytes(StandardCharsets.ISO_8859_1));

        try (ApplicationArchive archive = ApplicationArchive.open(app))
        {
            final DeploymentException ex =
                assertThrows(DeploymentException.class, () -> AnnotationScanner.scan(archive));
            assertTrue(ex.source().endsWith("x/Broken.class"), ex.getMessage());
        }
    }

    @Test
    void shouldSkipScanningWhenMetadataIsComplete() throws Exception
    {
        final Path app = shared.resolve("complete");
        TestApplications.compile(B2BUA_SOURCES, app.resolve("WEB-INF/classes"));
        Files.writeString(app.resolve("WEB-INF/sip.xml"), """
            <sip-app xmlns="http://www.jcp.org/xml/ns/sipservlet" xmlns:javaee="http://java.sun.com/xml/ns/javaee"
                     metadata-complete="true">
              <app-name>complete</app-name>
              <servlet>
                <javaee:servlet-name>only</javaee:servlet-name>
                <javaee:servlet-class>com.example.b2bua.Forwarder</javaee:servlet-class>
              </servlet>
            </sip-app>
            """);

        try (ApplicationArchive archive = ApplicationArchive.open(app))
        {
            final SipApplicationDescriptor descriptor = DeploymentDescriptors.load(archive);
            assertEquals("complete", descriptor.appName());
            assertEquals(List.of("only"), List.copyOf(descriptor.servlets().keySet()));
            assertEquals("only", descriptor.mainServlet(), "a single servlet is the main servlet");
            assertTrue(descriptor.listeners().isEmpty());
            assertNull(descriptor.applicationKey());
        }
    }
}
