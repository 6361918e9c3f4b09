package io.sipline.container.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.sipline.container.deploy.DeploymentException;
import io.sipline.container.deploy.SipApplicationDescriptor;
import io.sipline.container.deploy.SipXmlReader;

class SecurityPolicyTest
{
    static final String APP = """
        <?xml version="1.0" encoding="UTF-8"?>
        <sip-app xmlns="http://www.jcp.org/xml/ns/sipservlet" xmlns:javaee="http://java.sun.com/xml/ns/javaee"
                 version="1.1">
          <app-name>secured</app-name>
          <servlet><servlet-name>registrar</servlet-name><servlet-class>a.Registrar</servlet-class></servlet>
          <servlet><servlet-name>proxy</servlet-name><servlet-class>a.Proxy</servlet-class></servlet>
          <servlet><servlet-name>open</servlet-name><servlet-class>a.Open</servlet-class></servlet>
          <security-constraint>
            <resource-collection>
              <resource-name>registration</resource-name>
              <servlet-name>registrar</servlet-name>
              <sip-method>REGISTER</sip-method>
            </resource-collection>
            <auth-constraint><javaee:role-name>subscriber</javaee:role-name></auth-constraint>
          </security-constraint>
          <security-constraint>
            <resource-collection>
              <resource-name>calls</resource-name>
              <servlet-name>proxy</servlet-name>
            </resource-collection>
            <proxy-authentication/>
            <auth-constraint><javaee:role-name>caller</javaee:role-name></auth-constraint>
          </security-constraint>
          <security-constraint>
            <resource-collection>
              <resource-name>admin messages</resource-name>
              <servlet-name>proxy</servlet-name>
              <sip-method>MESSAGE</sip-method>
            </resource-collection>
            <auth-constraint><javaee:role-name>*</javaee:role-name></auth-constraint>
          </security-constraint>
          <security-constraint>
            <resource-collection>
              <resource-name>options unprotected</resource-name>
              <servlet-name>proxy</servlet-name>
              <sip-method>OPTIONS</sip-method>
            </resource-collection>
            <user-data-constraint><javaee:transport-guarantee>NONE</javaee:transport-guarantee></user-data-constraint>
          </security-constraint>
          <login-config>
            <auth-method>DIGEST</auth-method>
            <realm-name>sip.example.com</realm-name>
          </login-config>
          <security-role><javaee:role-name>subscriber</javaee:role-name></security-role>
          <security-role><javaee:role-name>caller</javaee:role-name></security-role>
          <security-role><javaee:role-name>operator</javaee:role-name></security-role>
        </sip-app>
        """;

    @Test
    void shouldProtectTheNamedServletAndMethodWith401()
    {
        final SecurityPolicy policy = policy(APP);
        assertEquals("sip.example.com", policy.realm());
        assertFalse(policy.protectsNothing());
        final SecurityPolicy.Requirement register = policy.requirement("registrar", "REGISTER");
        assertEquals(ChallengeKind.WWW, register.kind());
        assertEquals(Set.of("subscriber"), register.roles());
        assertFalse(register.anyAuthenticatedUser());
        assertNull(policy.requirement("registrar", "INVITE"));
        assertNull(policy.requirement("registrar", "register"), "method names are case-sensitive");
        assertNull(policy.requirement("open", "REGISTER"));
        assertNull(policy.requirement("unknown", "REGISTER"));
    }

    @Test
    void shouldAskFor407WithProxyAuthenticationAndCombineRoles()
    {
        final SecurityPolicy policy = policy(APP);
        final SecurityPolicy.Requirement invite = policy.requirement("proxy", "INVITE");
        assertEquals(ChallengeKind.PROXY, invite.kind());
        assertEquals(Set.of("caller"), invite.roles());
        final SecurityPolicy.Requirement message = policy.requirement("proxy", "MESSAGE");
        assertEquals(ChallengeKind.PROXY, message.kind(), "the all-methods constraint covers MESSAGE too");
        assertEquals(Set.of("caller", "subscriber", "operator"), message.roles(), "'*' is every declared role");
        assertNull(policy.requirement("proxy", "OPTIONS"), "a covering constraint without roles opens the request");
        assertNull(policy.requirement("proxy", "ACK"), "RFC 3261 §22.1");
        assertNull(policy.requirement("proxy", "CANCEL"), "RFC 3261 §22.1");
    }

    @Test
    void shouldPermitUsersWithARequiredRoleOnly()
    {
        final SecurityPolicy.Requirement requirement = policy(APP).requirement("proxy", "INVITE");
        assertTrue(SecurityPolicy.permits(requirement, new SipPrincipal("a", "r", Set.of("caller", "x"))));
        assertFalse(SecurityPolicy.permits(requirement, new SipPrincipal("b", "r", Set.of("subscriber"))));
        assertFalse(SecurityPolicy.permits(requirement, null));
        final SecurityPolicy.Requirement anyUser = new SecurityPolicy.Requirement(ChallengeKind.WWW, Set.of(), true);
        assertTrue(SecurityPolicy.permits(anyUser, new SipPrincipal("c", "r", Set.of())));
    }

    @Test
    void shouldCoverEveryServletWhenACollectionNamesNone()
    {
        final SecurityPolicy policy = policy(app("""
            <security-constraint>
              <resource-collection><resource-name>all</resource-name><sip-method>INVITE</sip-method>
              </resource-collection>
              <auth-constraint><role-name>**</role-name></auth-constraint>
            </security-constraint>
            """, ""));
        assertEquals("secured", policy.realm(), "no login-config: the application name");
        assertTrue(policy.requirement("s", "INVITE").anyAuthenticatedUser());
        assertTrue(policy.requirement("not-declared", "INVITE").anyAuthenticatedUser());
        assertNull(policy.requirement("s", "BYE"));
    }

    @Test
    void shouldProtectNothingWithoutConstraints()
    {
        final SecurityPolicy policy = policy(app("", "<login-config><auth-method>DIGEST</auth-method></login-config>"));
        assertTrue(policy.protectsNothing());
        assertNull(policy.requirement("s", "INVITE"));
        assertTrue(SecurityPolicy.NONE.protectsNothing());
    }

    @Test
    void shouldRefuseAuthMethodsOtherThanDigestWithTheLine()
    {
        for (final String method : new String[] {"BASIC", "CLIENT-CERT", "FORM"})
        {
            final DeploymentException ex = assertThrows(DeploymentException.class, () -> SecurityPolicy.from(
                parse(app("", "<login-config><auth-method>" + method + "</auth-method></login-config>"))));
            assertTrue(ex.reason().contains(method) && ex.reason().contains("DIGEST"), ex.getMessage());
            assertEquals(5, ex.line(), ex.getMessage());
        }
    }

    static String app(final String constraints, final String login)
    {
        return "<sip-app xmlns=\"http://www.jcp.org/xml/ns/sipservlet\" version=\"1.1\">\n" +
            "<app-name>secured</app-name>\n" +
            "<servlet><servlet-name>s</servlet-name><servlet-class>a.S</servlet-class></servlet>\n" +
            constraints + "\n" +
            login + "\n" +
            "</sip-app>\n";
    }

    static SecurityPolicy policy(final String xml)
    {
        try
        {
            return SecurityPolicy.from(parse(xml));
        }
        catch (final DeploymentException ex)
        {
            throw new AssertionError(ex);
        }
    }

    static SipApplicationDescriptor parse(final String xml) throws DeploymentException
    {
        return SipXmlReader.read(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "sip.xml");
    }
}
