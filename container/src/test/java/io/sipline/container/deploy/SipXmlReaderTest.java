package io.sipline.container.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class SipXmlReaderTest
{
    @Test
    void shouldReadB2buaInTheSipServlet11Schema() throws Exception
    {
        final SipApplicationDescriptor app = read("b2bua-1_1.xml");

        assertEquals(SipXmlDialect.V1_1, app.dialect());
        assertEquals("com.example.b2bua", app.appName());
        assertEquals("Call forwarding B2BUA", app.displayName());
        assertEquals("Forwards every INVITE to the target in the context parameter.", app.description());
        assertTrue(app.distributable());
        assertFalse(app.metadataComplete());
        assertEquals(Map.of("forward.target", "sip:voicemail@10.0.0.7:5080", "io.sipline.threading", "virtual"),
            app.contextParams());
        assertEquals(List.of("forward.target", "io.sipline.threading"), List.copyOf(app.contextParams().keySet()));
        assertEquals(1, app.listeners().size());
        assertEquals("com.example.b2bua.CallCounter", app.listeners().getFirst().className());
        assertEquals(DescriptorOrigin.SIP_XML, app.listeners().getFirst().origin());
        assertEquals("Forwarder", app.mainServlet());
        assertTrue(app.mappings().isEmpty());
        assertEquals(List.of("Forwarder", "Presence"), List.copyOf(app.servlets().keySet()));

        final ServletDefinition forwarder = app.servlets().get("Forwarder");
        assertEquals("com.example.b2bua.ForwardingServlet", forwarder.className());
        assertEquals(Map.of("ring.timeout", "30", "record.route", "true"), forwarder.initParams());
        assertEquals(1, forwarder.loadOnStartup());
        assertEquals(lineOf("b2bua-1_1.xml", "<servlet>"), forwarder.line());
        assertNull(app.servlets().get("Presence").loadOnStartup());
        assertEquals(5, app.sessionTimeoutMinutes());
        assertNull(app.proxyTimeoutSeconds());
        app.validateReferences();
        assertEquals("Forwarder", app.selectServlet(FakeSip.request("OPTIONS", "sip:anyone@example.com")));
    }

    @Test
    void shouldReadProxyWithMappingsProxyConfigAndSecurity() throws Exception
    {
        final SipApplicationDescriptor app = read("proxy-1_1.xml");

        assertEquals(SipXmlDialect.V1_1, app.dialect());
        assertEquals("com.example.proxy", app.appName());
        assertNull(app.mainServlet());
        assertEquals(2, app.mappings().size());
        assertEquals("Registrar", app.mappings().get(0).servletName());
        assertInstanceOf(MappingRule.Equal.class, app.mappings().get(0).rule());
        assertInstanceOf(MappingRule.And.class, app.mappings().get(1).rule());
        assertEquals(2, app.servlets().get("Proxy").loadOnStartup());
        assertEquals(30, app.proxyTimeoutSeconds());

        assertEquals(1, app.securityConstraints().size());
        final SecurityConstraint constraint = app.securityConstraints().getFirst();
        assertEquals("Registration", constraint.displayName());
        assertTrue(constraint.proxyAuthentication());
        assertEquals(List.of("subscriber"), constraint.roleNames());
        assertEquals("NONE", constraint.transportGuarantee());
        assertEquals(List.of("Registrar"), constraint.resourceCollections().getFirst().servletNames());
        assertEquals(List.of("REGISTER"), constraint.resourceCollections().getFirst().sipMethods());
        assertEquals("DIGEST", app.loginConfig().authMethod());
        assertEquals("example.com", app.loginConfig().realmName());
        assertEquals(List.of("subscriber"), app.securityRoles());
        app.validateReferences();

        assertEquals("Registrar", app.selectServlet(FakeSip.request("REGISTER", "sip:registrar.example.com")));
        assertEquals("Proxy", app.selectServlet(FakeSip.request("INVITE", "sip:bob@pbx.example.com")));
        assertEquals("Proxy", app.selectServlet(FakeSip.request("MESSAGE", "sip:bob@example.com")));
        assertNull(app.selectServlet(FakeSip.request("INVITE", "sip:bob@example.org")));
        assertNull(app.selectServlet(FakeSip.request("SUBSCRIBE", "sip:bob@example.com")));
        assertNull(app.selectServlet(FakeSip.request("INVITE", "sip:bob@example.com",
            FakeSip.address("Cheap SPAM Inc", "sip:x@spam.example.net"),
            FakeSip.address(null, "sip:bob@example.com"))));
    }

    @Test
    void shouldReadSipServlet10WithDoctypeWithoutFetchingTheDtd() throws Exception
    {
        final SipApplicationDescriptor app = read("app-1_0.xml");

        assertEquals(SipXmlDialect.V1_0, app.dialect());
        assertNull(app.appName());
        assertEquals("Click-to-dial", app.displayName());
        assertEquals("sip:operator@pbx.example.org", app.contextParams().get("operator"));
        assertEquals("org.example.c2d.SessionListener", app.listeners().getFirst().className());
        assertEquals(0, app.servlets().get("c2d").loadOnStartup());
        assertEquals("Click to dial", app.servlets().get("c2d").displayName());
        assertEquals(45, app.proxyTimeoutSeconds());
        assertEquals(12, app.sessionTimeoutMinutes());
        assertEquals(2, app.mappings().size());
        app.validateReferences();

        assertEquals("tel-gateway", app.selectServlet(FakeSip.request("INVITE", "tel:+1-555-0100")));
        assertEquals("tel-gateway",
            app.selectServlet(FakeSip.request("INVITE", "sip:+15550100@gw.example.org;user=phone")));
        assertEquals("c2d", app.selectServlet(FakeSip.request("INVITE", "sip:DIAL@pbx.example.org")));
        assertNull(app.selectServlet(FakeSip.request("INVITE", "sip:bob@pbx.example.org")));
    }

    @Test
    void shouldReadTheUnnamespacedVariant() throws Exception
    {
        final SipApplicationDescriptor app = read("unnamespaced.xml");

        assertEquals(SipXmlDialect.UNNAMESPACED, app.dialect());
        assertEquals("legacy-echo", app.appName());
        assertEquals("echo", app.mainServlet());
        assertEquals("hello & welcome", app.servlets().get("echo").initParams().get("greeting"));
        assertEquals(0, app.sessionTimeoutMinutes());
        app.validateReferences();
    }

    @Test
    void shouldReportMalformedXmlWithItsLine()
    {
        final DeploymentException ex = assertThrows(DeploymentException.class, () -> read("broken-bad-xml.xml"));

        assertEquals(lineOf("broken-bad-xml.xml", "</servlt>"), ex.line());
        assertEquals("broken-bad-xml.xml", ex.source());
        assertTrue(ex.reason().startsWith("malformed XML"), ex.getMessage());
        assertTrue(ex.getMessage().startsWith("broken-bad-xml.xml:7: "), ex.getMessage());
    }

    @Test
    void shouldRefuseTwoMainServlets()
    {
        final DeploymentException ex = assertThrows(DeploymentException.class, () -> read("broken-two-main.xml"));

        assertEquals(lineOf("broken-two-main.xml", "<main-servlet>second"), ex.line());
        assertTrue(ex.reason().contains("two main servlets"), ex.getMessage());
        assertTrue(ex.reason().contains("'first'") && ex.reason().contains("'second'"), ex.getMessage());
    }

    @Test
    void shouldRefuseMainServletTogetherWithMappings()
    {
        final DeploymentException ex =
            assertThrows(DeploymentException.class, () -> read("broken-main-and-mapping.xml"));

        assertEquals(lineOf("broken-main-and-mapping.xml", "<servlet-mapping>"), ex.line());
        assertTrue(ex.reason().contains("mutually exclusive"), ex.getMessage());
    }

    @Test
    void shouldRefuseMappingToAnUnknownServletWithTheMappingLine() throws Exception
    {
        final SipApplicationDescriptor app = read("broken-unknown-servlet.xml");

        final DeploymentException ex = assertThrows(DeploymentException.class, app::validateReferences);
        assertEquals(lineOf("broken-unknown-servlet.xml", "<servlet-name>nobody") - 1, ex.line());
        assertTrue(ex.reason().contains("unknown servlet 'nobody'"), ex.getMessage());
    }

    @Test
    void shouldRefuseAnUnknownVariableNamingIt()
    {
        final DeploymentException ex = assertThrows(DeploymentException.class, () -> read("broken-unknown-var.xml"));

        assertEquals(lineOf("broken-unknown-var.xml", "request.uri.usr"), ex.line());
        assertTrue(ex.reason().contains("'request.uri.usr'"), ex.getMessage());
    }

    @Test
    void shouldRefuseServletWithoutClass()
    {
        final DeploymentException ex =
            assertThrows(DeploymentException.class, () -> read("broken-missing-class.xml"));

        assertEquals(lineOf("broken-missing-class.xml", "<servlet-name>classless") - 1, ex.line());
        assertTrue(ex.reason().contains("servlet 'classless' has no servlet-class"), ex.getMessage());
    }

    @Test
    void shouldNotResolveExternalEntities()
    {
        final DeploymentException ex = assertThrows(DeploymentException.class, () -> read("broken-xxe.xml"));

        assertEquals(lineOf("broken-xxe.xml", "&secret;"), ex.line());
        assertTrue(ex.reason().contains("secret"), ex.getMessage());
        assertFalse(ex.getMessage().contains("root:"), ex.getMessage());
    }

    @Test
    void shouldRefuseMainServletInA10File()
    {
        final String xml = """
            <?xml version="1.0"?>
            <!DOCTYPE sip-app PUBLIC "-//Java Community Process//DTD SIP Application 1.0//EN" "sip-app_1_0.dtd">
            <sip-app>
              <servlet><servlet-name>s</servlet-name><servlet-class>a.S</servlet-class></servlet>
              <main-servlet>s</main-servlet>
            </sip-app>
            """;
        final DeploymentException ex = assertThrows(DeploymentException.class, () -> parse(xml));

        assertEquals(5, ex.line());
        assertTrue(ex.reason().contains("1.0"), ex.getMessage());
    }

    @Test
    void shouldRefuseWrongRootAndForeignRootNamespace()
    {
        final DeploymentException webApp = assertThrows(DeploymentException.class,
            () -> parse("<?xml version=\"1.0\"?>\n<web-app xmlns=\"http://java.sun.com/xml/ns/javaee\"/>"));
        assertTrue(webApp.reason().contains("namespace"), webApp.getMessage());

        final DeploymentException other = assertThrows(DeploymentException.class, () -> parse("<web-app/>"));
        assertTrue(other.reason().contains("expected <sip-app>"), other.getMessage());
    }

    @Test
    void shouldRefuseDuplicatesAndBadNumbersWithLines()
    {
        final DeploymentException servlet = assertThrows(DeploymentException.class, () -> parse("""
            <sip-app>
              <servlet><servlet-name>s</servlet-name><servlet-class>a.S</servlet-class></servlet>
              <servlet><servlet-name>s</servlet-name><servlet-class>a.T</servlet-class></servlet>
            </sip-app>
            """));
        assertEquals(3, servlet.line());
        assertTrue(servlet.reason().contains("declared twice (first at line 2)"), servlet.getMessage());

        final DeploymentException number = assertThrows(DeploymentException.class, () -> parse("""
            <sip-app>
              <session-config>
                <session-timeout>ten</session-timeout>
              </session-config>
            </sip-app>
            """));
        assertEquals(3, number.line());
        assertTrue(number.reason().contains("'ten' is not an integer"), number.getMessage());

        final DeploymentException flag = assertThrows(DeploymentException.class, () -> parse("""
            <sip-app>
              <servlet><servlet-name>s</servlet-name><servlet-class>a.S</servlet-class></servlet>
              <servlet-mapping><servlet-name>s</servlet-name>
                <pattern><equal ignore-case="yes"><var>request.method</var><value>X</value></equal></pattern>
              </servlet-mapping>
            </sip-app>
            """));
        assertEquals(4, flag.line());
    }

    @Test
    void shouldRefuseMalformedPatterns()
    {
        assertPatternRefused("<pattern/>", "exactly one condition");
        assertPatternRefused("<pattern><equal><var>request.method</var></equal></pattern>", "has no <value>");
        assertPatternRefused("<pattern><exists/></pattern>", "has no <var>");
        assertPatternRefused("<pattern><not/></pattern>", "exactly one condition");
        assertPatternRefused("<pattern><and/></pattern>", "at least one condition");
        assertPatternRefused("<pattern><matches><var>request.method</var><value>I.*</value></matches></pattern>",
            "unknown condition <matches>");
        assertPatternRefused("<pattern><subdomain-of><var>request.uri.host</var><value/></subdomain-of></pattern>",
            "has no <value>");
    }

    @Test
    void shouldAcceptTopLevelMappingsAndMetadataComplete() throws Exception
    {
        final SipApplicationDescriptor app = parse("""
            <sip-app xmlns="http://www.jcp.org/xml/ns/sipservlet" metadata-complete="true">
              <app-name>m</app-name>
              <servlet><servlet-name>s</servlet-name><servlet-class>a.S</servlet-class></servlet>
              <servlet-mapping><servlet-name>s</servlet-name>
                <pattern><equal><var>request.method</var><value>INVITE</value></equal></pattern>
              </servlet-mapping>
            </sip-app>
            """);
        assertTrue(app.metadataComplete());
        assertEquals(1, app.mappings().size());
        assertEquals(4, app.mappings().getFirst().line());
    }

    private static void assertPatternRefused(final String pattern, final String reason)
    {
        final String xml = "<sip-app>\n<servlet><servlet-name>s</servlet-name><servlet-class>a.S</servlet-class>"
            + "</servlet>\n<servlet-mapping><servlet-name>s</servlet-name>\n" + pattern + "\n</servlet-mapping>\n"
            + "</sip-app>";
        final DeploymentException ex = assertThrows(DeploymentException.class, () -> parse(xml), pattern);
        assertTrue(ex.reason().contains(reason), ex.getMessage());
        assertEquals(4, ex.line(), ex.getMessage());
    }

    static SipApplicationDescriptor parse(final String xml) throws DeploymentException
    {
        return SipXmlReader.read(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "inline.xml");
    }

    static SipApplicationDescriptor read(final String fixture) throws DeploymentException
    {
        try (InputStream in = SipXmlReaderTest.class.getResourceAsStream("/deploy/" + fixture))
        {
            if (null == in)
            {
                throw new IllegalArgumentException("no fixture " + fixture);
            }
            return SipXmlReader.read(in, fixture);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    static int lineOf(final String fixture, final String needle)
    {
        try (InputStream in = SipXmlReaderTest.class.getResourceAsStream("/deploy/" + fixture))
        {
            final String[] lines = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).split("\n", -1);
            for (int i = 0; i < lines.length; i++)
            {
                if (lines[i].contains(needle))
                {
                    return i + 1;
                }
            }
            throw new IllegalArgumentException(needle + " not in " + fixture);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
