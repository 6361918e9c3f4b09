package io.sipline.sip.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import io.sipline.sip.test.SelfSignedPem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RFC 5922 §7.1/§7.2 rules of {@link SipDomainTrustManager} on certificates made by {@code keytool}: which names
 * count as SIP domain identities, and how a domain is compared with them (whole names, any case, no suffix or prefix
 * match; an address literal against iPAddress names).
 */
class SipDomainTrustManagerTest
{
    @TempDir
    Path directory;

    @Test
    void shouldTakeTheHostOfSipUrisWithoutAUserPartOnly()
    {
        assertEquals("example.com", SipDomainTrustManager.sipUriHost("sip:example.com"));
        assertEquals("Example.COM", SipDomainTrustManager.sipUriHost("SIP:Example.COM;transport=tls"));
        assertEquals("example.com", SipDomainTrustManager.sipUriHost("sip:example.com:5061"));
        assertEquals("[2001:db8::1]", SipDomainTrustManager.sipUriHost("sip:[2001:db8::1]:5061"));
        assertNull(SipDomainTrustManager.sipUriHost("sip:alice@example.com"), "a user, not a domain");
        assertNull(SipDomainTrustManager.sipUriHost("sips:example.com"), "§7.1: sips URIs do not count");
        assertNull(SipDomainTrustManager.sipUriHost("https://example.com"));
        assertNull(SipDomainTrustManager.sipUriHost("sip:"));
    }

    @Test
    void shouldUseSipUrisBeforeDnsNamesAndNeverTheCommonNameBesideSubjectAltNames() throws Exception
    {
        final SelfSignedPem both = SelfSignedPem.generate(directory, "both-", "CN=cn.example.com",
            "uri:sip:sip.example.com,uri:sip:alice@user.example.com,dns:dns.example.com");
        assertEquals(List.of("sip.example.com"), SipDomainTrustManager.domainIdentities(both.x509()));
        assertTrue(SipDomainTrustManager.matches("SIP.Example.com", both.x509()));
        assertFalse(SipDomainTrustManager.matches("dns.example.com", both.x509()), "DNS names lose to sip: URIs");
        assertFalse(SipDomainTrustManager.matches("user.example.com", both.x509()), "a URI with a user is no domain");
        assertFalse(SipDomainTrustManager.matches("cn.example.com", both.x509()));
        assertFalse(SipDomainTrustManager.matches("example.com", both.x509()), "no suffix match (§7.2)");

        assertFalse(SipDomainTrustManager.matches("foo.sip.example.com", both.x509()), "no wildcard or prefix");
    }

    @Test
    void shouldUseTheCommonNameOnlyWithoutSubjectAltNamesAndAddressesAgainstIpNames() throws Exception
    {
        final SelfSignedPem cn = SelfSignedPem.generate(directory, "cn-", "CN=chicago.example.com, O=Test", null);
        assertEquals(List.of("chicago.example.com"), SipDomainTrustManager.domainIdentities(cn.x509()));
        assertTrue(SipDomainTrustManager.matches("chicago.example.com", cn.x509()));
        assertEquals("[CN=chicago.example.com]", SipDomainTrustManager.identities(cn.x509()));

        final SelfSignedPem local = SelfSignedPem.generate(directory); // ip:127.0.0.1, dns:localhost, CN=localhost
        assertTrue(SipDomainTrustManager.matches("127.0.0.1", local.x509()));
        assertFalse(SipDomainTrustManager.matches("127.0.0.2", local.x509()));
        assertFalse(SipDomainTrustManager.matches("[::1]", local.x509()));
        assertTrue(SipDomainTrustManager.matches("localhost", local.x509()));
        assertEquals("[IP:127.0.0.1, DNS:localhost]", SipDomainTrustManager.identities(local.x509()));
    }
}
