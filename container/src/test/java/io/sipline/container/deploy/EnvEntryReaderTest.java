package io.sipline.container.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.sipline.container.naming.EnvEntry;

/** env-entry elements of sip.xml and web.xml, and the one-line refusals that name the descriptor and line. */
class EnvEntryReaderTest
{
    private static SipApplicationDescriptor sipXml(final String body) throws DeploymentException
    {
        final String xml = "<sip-app xmlns=\"http://www.jcp.org/xml/ns/sipservlet\">\n" + body + "\n</sip-app>\n";
        return SipXmlReader.read(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "app.war!sip.xml");
    }

    @Test
    void shouldReadEnvEntriesOfSipXml() throws Exception
    {
        final SipApplicationDescriptor app = sipXml("""
            <env-entry>
              <description>ignored</description>
              <env-entry-name>maxCalls</env-entry-name>
              <env-entry-type>java.lang.Integer</env-entry-type>
              <env-entry-value>10</env-entry-value>
            </env-entry>
            <env-entry><env-entry-name>motd</env-entry-name><env-entry-value> hi </env-entry-value></env-entry>
            <env-entry><env-entry-name>unset</env-entry-name><env-entry-type>Long</env-entry-type></env-entry>
            """);

        assertEquals(List.of("maxCalls", "motd", "unset"), List.copyOf(app.envEntries().keySet()));
        assertEquals(10, app.envEntries().get("maxCalls").value());
        assertEquals("hi", app.envEntries().get("motd").value()); // descriptor text is trimmed
        assertNull(app.envEntries().get("unset").value());
        assertEquals(Long.class, app.envEntries().get("unset").type());
        assertEquals(app.envEntries(), app.toBuilder().build().envEntries());
    }

    @Test
    void shouldRefuseABadEnvEntryNamingTheLine()
    {
        assertEquals("app.war!sip.xml:2: env-entry 'maxCalls': 'ten' is not a java.lang.Integer",
            assertThrows(DeploymentException.class, () -> sipXml("""
                <env-entry><env-entry-name>maxCalls</env-entry-name>
                  <env-entry-type>java.lang.Integer</env-entry-type><env-entry-value>ten</env-entry-value></env-entry>
                """)).getMessage());
        assertEquals("app.war!sip.xml:3: env-entry 'a' is declared twice",
            assertThrows(DeploymentException.class, () -> sipXml("""
                <env-entry><env-entry-name>a</env-entry-name><env-entry-value>1</env-entry-value></env-entry>
                <env-entry><env-entry-name>a</env-entry-name><env-entry-value>2</env-entry-value></env-entry>
                """)).getMessage());
        assertEquals("app.war!sip.xml:2: <env-entry> has no <env-entry-name>",
            assertThrows(DeploymentException.class, () -> sipXml("""
                <env-entry><env-entry-value>1</env-entry-value></env-entry>
                """)).getMessage());
    }

    @Test
    void shouldReadOnlyTheEnvEntriesOfWebXml() throws Exception
    {
        final byte[] webXml = """
            <web-app xmlns="http://java.sun.com/xml/ns/javaee" version="2.5">
              <servlet><servlet-name>page</servlet-name><servlet-class>x.Page</servlet-class></servlet>
              <env-entry><env-entry-name>flag</env-entry-name><env-entry-type>java.lang.Boolean</env-entry-type>
                <env-entry-value>false</env-entry-value></env-entry>
            </web-app>
            """.getBytes(StandardCharsets.UTF_8);
        assertEquals(List.of(EnvEntry.of("flag", "java.lang.Boolean", "false")),
            EnvEntryReader.readWebXml(webXml, "app.war!web.xml"));
        assertEquals("app.war!web.xml:1: root element is <sip-app>, expected <web-app>",
            assertThrows(DeploymentException.class, () -> EnvEntryReader.readWebXml(
                "<sip-app/>".getBytes(StandardCharsets.UTF_8), "app.war!web.xml")).getMessage());
    }
}
