package io.sipline.container.address;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import javax.servlet.sip.SipURI;

import org.junit.jupiter.api.Test;

/**
 * Where the JSR 289 javadoc of {@code SipFactory}, {@code Address}, {@code SipURI}, {@code TelURL}, {@code URI} and
 * {@code Parameterable} leaves room, Sipline accepts what the reference container accepts; where it is explicit, it
 * refuses. One test per decision, named after the method (the table is in docs/developing-applications.md).
 */
class AddressLeniencyTest
{
    @Test
    void createSipURIWithHostAndPortIsAccepted()
    {
        final SipURI uri = SipAddresses.sipUri("user", "127.0.0.1:5090");
        assertEquals("127.0.0.1", uri.getHost());
        assertEquals(5090, uri.getPort());
        assertEquals("user", uri.getUser());
        assertEquals("sip:user@127.0.0.1:5090", uri.toString());
        final SipURI named = SipAddresses.sipUri(null, "example.com:5070");
        assertEquals("example.com", named.getHost());
        assertEquals(5070, named.getPort());
    }

    @Test
    void createSipURIWithBracketedIpv6AndPortIsAccepted()
    {
        final SipURI uri = SipAddresses.sipUri("user", "[2001:db8::1]:5090");
        assertEquals("[2001:db8::1]", uri.getHost());
        assertEquals(5090, uri.getPort());
        assertEquals("sip:user@[2001:db8::1]:5090", uri.toString());
    }

    @Test
    void createSipURIWithBareIpv6StaysAHost()
    {
        final SipURI uri = SipAddresses.sipUri("user", "2001:db8::1");
        assertEquals("[2001:db8::1]", uri.getHost());
        assertEquals(-1, uri.getPort());
        assertEquals("sip:user@[2001:db8::1]", uri.toString());
    }

    @Test
    void createSipURIWithBadPortIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> SipAddresses.sipUri("user", "127.0.0.1:port"));
        assertThrows(IllegalArgumentException.class, () -> SipAddresses.sipUri("user", "127.0.0.1:"));
        assertThrows(IllegalArgumentException.class, () -> SipAddresses.sipUri("user", "host:5060:5061"),
            "two colons make it an IPv6 address, and this one is not");
    }
}
