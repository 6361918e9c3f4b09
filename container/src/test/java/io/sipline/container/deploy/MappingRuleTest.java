package io.sipline.container.deploy;

import static io.sipline.container.deploy.MappingRule.and;
import static io.sipline.container.deploy.MappingRule.contains;
import static io.sipline.container.deploy.MappingRule.equal;
import static io.sipline.container.deploy.MappingRule.exists;
import static io.sipline.container.deploy.MappingRule.not;
import static io.sipline.container.deploy.MappingRule.or;
import static io.sipline.container.deploy.MappingRule.subdomainOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javax.servlet.sip.SipServletRequest;

import org.junit.jupiter.api.Test;

class MappingRuleTest
{
    private static final SipServletRequest INVITE = FakeSip.request(
        "INVITE", "sips:Bob.Smith@Sales.Example.COM;transport=tls;maddr=10.0.0.1",
        FakeSip.address("Alice Liddell", "sip:alice@atlanta.example.com:5070"),
        FakeSip.address(null, "tel:+1-555-0100;phone-context=example.com"));

    @Test
    void shouldResolveEveryVariable()
    {
        assertEquals("INVITE", value("request.method"));
        assertEquals("sips:Bob.Smith@Sales.Example.COM;transport=tls;maddr=10.0.0.1", value("request.uri"));
        assertEquals("sips", value("request.uri.scheme"));
        assertEquals("Bob.Smith", value("request.uri.user"));
        assertEquals("Sales.Example.COM", value("request.uri.host"));
        assertEquals("5061", value("request.uri.port"));
        assertNull(value("request.uri.tel"));
        assertEquals("tls", value("request.uri.param.transport"));
        assertNull(value("request.uri.param.lr"));

        assertEquals("\"Alice Liddell\" <sip:alice@atlanta.example.com:5070>", value("request.from"));
        assertEquals("Alice Liddell", value("request.from.display-name"));
        assertEquals("sip:alice@atlanta.example.com:5070", value("request.from.uri"));
        assertEquals("sip", value("request.from.uri.scheme"));
        assertEquals("alice", value("request.from.uri.user"));
        assertEquals("atlanta.example.com", value("request.from.uri.host"));
        assertEquals("5070", value("request.from.uri.port"));

        assertNull(value("request.to.display-name"));
        assertEquals("tel", value("request.to.uri.scheme"));
        assertEquals("1-555-0100", value("request.to.uri.tel"));
        assertEquals("example.com", value("request.to.uri.param.phone-context"));
        assertNull(value("request.to.uri.user"));
        assertNull(value("request.to.uri.host"));
        assertNull(value("request.to.uri.port"));
    }

    @Test
    void shouldDefaultThePortByScheme()
    {
        assertEquals("5060", RequestVariable.of("request.uri.port").valueOf(FakeSip.request("OPTIONS", "sip:x.org")));
        assertEquals("5061", RequestVariable.of("request.uri.port").valueOf(FakeSip.request("OPTIONS", "sips:x.org")));
        assertTrue(equal("request.uri.port", "5080", false).matches(FakeSip.request("OPTIONS", "sip:x.org:5080")));
    }

    @Test
    void shouldTreatSipUriWithUserPhoneAsTelephoneNumber()
    {
        final SipServletRequest phone = FakeSip.request("INVITE", "sip:+15550100;isub=12@gw.example.com;user=phone");
        final SipServletRequest notPhone = FakeSip.request("INVITE", "sip:+15550100@gw.example.com");

        assertEquals("15550100", RequestVariable.of("request.uri.tel").valueOf(phone));
        assertTrue(exists("request.uri.tel").matches(phone));
        assertFalse(exists("request.uri.tel").matches(notPhone));
        assertTrue(exists("request.uri.tel").matches(FakeSip.request("INVITE", "tel:+15550100")));
        assertTrue(equal("request.uri.tel", "15550100", false).matches(FakeSip.request("INVITE", "tel:+15550100")));
    }

    @Test
    void shouldCompareEqualCaseSensitivelyUnlessAsked()
    {
        assertTrue(equal("request.method", "INVITE", false).matches(INVITE));
        assertFalse(equal("request.method", "invite", false).matches(INVITE));
        assertTrue(equal("request.method", "invite", true).matches(INVITE));
        assertFalse(equal("request.uri.user", "bob.smith", false).matches(INVITE));
        assertTrue(equal("request.uri.user", "bob.smith", true).matches(INVITE));
        assertFalse(equal("request.to.display-name", "", false).matches(INVITE), "no value never equals");
    }

    @Test
    void shouldTestExistence()
    {
        assertTrue(exists("request.from.display-name").matches(INVITE));
        assertFalse(exists("request.to.display-name").matches(INVITE));
        assertTrue(exists("request.uri.param.maddr").matches(INVITE));
        assertFalse(exists("request.uri.param.ttl").matches(INVITE));
    }

    @Test
    void shouldMatchSubstringsWithOptionalIgnoreCase()
    {
        assertTrue(contains("request.from.display-name", "Liddell", false).matches(INVITE));
        assertFalse(contains("request.from.display-name", "liddell", false).matches(INVITE));
        assertTrue(contains("request.from.display-name", "LIDDELL", true).matches(INVITE));
        assertTrue(contains("request.uri", "transport=tls", false).matches(INVITE));
        assertFalse(contains("request.to.display-name", "x", true).matches(INVITE));
    }

    @Test
    void shouldMatchSubdomainsLabelByLabel()
    {
        assertTrue(subdomainOf("request.uri.host", "example.com").matches(INVITE), "Sales.Example.COM");
        assertTrue(subdomainOf("request.uri.host", "sales.example.com").matches(INVITE), "a domain is its own");
        assertTrue(subdomainOf("request.uri.host", "COM.").matches(INVITE), "case and root dot ignored");
        assertFalse(subdomainOf("request.uri.host", "les.example.com").matches(INVITE), "not a label boundary");
        assertFalse(subdomainOf("request.uri.host", "example.org").matches(INVITE));
        assertFalse(subdomainOf("request.uri.host", "west.sales.example.com").matches(INVITE), "parent is not child");
        assertFalse(subdomainOf("request.to.uri.host", "example.com").matches(INVITE), "tel URL has no host");

        final SipServletRequest byIp = FakeSip.request("INVITE", "sip:bob@192.168.1.10");
        assertTrue(subdomainOf("request.uri.host", "192.168.1.10").matches(byIp));
        assertFalse(subdomainOf("request.uri.host", "168.1.10").matches(byIp), "an address has no subdomains");
        assertFalse(subdomainOf("request.uri.host", "1.10").matches(byIp));

        final SipServletRequest byIpv6 = FakeSip.request("INVITE", "sip:bob@[2001:DB8::1]:5060");
        assertTrue(subdomainOf("request.uri.host", "2001:db8::1").matches(byIpv6));
        assertFalse(subdomainOf("request.uri.host", "db8::1").matches(byIpv6));
    }

    @Test
    void shouldCombineWithAndOrNotAndNesting()
    {
        final MappingRule isInvite = equal("request.method", "INVITE", false);
        final MappingRule isBye = equal("request.method", "BYE", false);
        final MappingRule fromAtlanta = subdomainOf("request.from.uri.host", "atlanta.example.com");

        assertTrue(and(isInvite, fromAtlanta).matches(INVITE));
        assertFalse(and(isInvite, fromAtlanta, isBye).matches(INVITE));
        assertTrue(or(isBye, isInvite).matches(INVITE));
        assertFalse(or(isBye, not(isInvite)).matches(INVITE));
        assertTrue(not(isBye).matches(INVITE));
        assertFalse(not(not(isBye)).matches(INVITE));
        assertTrue(and(or(isBye, and(isInvite, not(exists("request.to.display-name")))),
            not(or(isBye, contains("request.uri", "maddr=10.0.0.2", false)))).matches(INVITE));
        assertThrows(IllegalArgumentException.class, MappingRule::and);
        assertThrows(IllegalArgumentException.class, MappingRule::or);
    }

    @Test
    void shouldCompileNestedRulesFromSipXml() throws Exception
    {
        final SipApplicationDescriptor app = SipXmlReaderTest.parse("""
            <sip-app xmlns="http://www.jcp.org/xml/ns/sipservlet" xmlns:javaee="http://java.sun.com/xml/ns/javaee">
              <servlet-selection>
                <servlet-mapping>
                  <servlet-name>vip</servlet-name>
                  <pattern>
                    <and>
                      <equal ignore-case="true"><var>request.method</var><value>invite</value></equal>
                      <or>
                        <contains ignore-case="true"><var>request.from.display-name</var><value>ALICE</value></contains>
                        <exists><var>request.uri.param.vip</var></exists>
                      </or>
                      <not><subdomain-of><var>request.uri.host</var><value>example.org</value></subdomain-of></not>
                    </and>
                  </pattern>
                </servlet-mapping>
                <servlet-mapping>
                  <servlet-name>rest</servlet-name>
                  <pattern><exists><var>request.method</var></exists></pattern>
                </servlet-mapping>
              </servlet-selection>
              <servlet>
                <javaee:servlet-name>vip</javaee:servlet-name><javaee:servlet-class>a.Vip</javaee:servlet-class>
              </servlet>
              <servlet>
                <javaee:servlet-name>rest</javaee:servlet-name><javaee:servlet-class>a.Rest</javaee:servlet-class>
              </servlet>
            </sip-app>
            """);
        app.validateReferences();

        assertEquals("vip", app.selectServlet(INVITE));
        assertEquals("vip", app.selectServlet(FakeSip.request("INVITE", "sip:carol@example.com;vip",
            FakeSip.address("Carol", "sip:carol@example.com"), FakeSip.address(null, "sip:x@example.com"))));
        assertEquals("rest", app.selectServlet(FakeSip.request("INVITE", "sip:carol@example.com",
            FakeSip.address("Carol", "sip:carol@example.com"), FakeSip.address(null, "sip:x@example.com"))));
        assertEquals("rest", app.selectServlet(FakeSip.request("INVITE", "sip:alice@pbx.example.org")));
        assertEquals("rest", app.selectServlet(FakeSip.request("MESSAGE", "sip:bob@example.com")));
    }

    @Test
    void shouldRefuseUnknownVariables()
    {
        for (final String name : new String[] {"request.uri.usr", "request.from.user", "request.via", "request",
            "request.uri.param.", "request.to.uri.display-name", "response.status", "request.from.uri.param."})
        {
            final IllegalArgumentException ex =
                assertThrows(IllegalArgumentException.class, () -> RequestVariable.of(name), name);
            assertTrue(ex.getMessage().contains("'" + name + "'"), ex.getMessage());
        }
    }

    private static String value(final String variable)
    {
        return RequestVariable.of(variable).valueOf(INVITE);
    }
}
