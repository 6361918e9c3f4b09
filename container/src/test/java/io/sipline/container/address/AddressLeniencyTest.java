package io.sipline.container.address;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import javax.servlet.sip.Address;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.URI;

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

    @Test
    void setHostWithPortIsRefused()
    {
        final SipURI uri = SipAddresses.sipUri("user", "example.com");
        assertThrows(IllegalArgumentException.class, () -> uri.setHost("127.0.0.1:5090"),
            "SipURI.setHost takes a host; the port has setPort");
        assertEquals("sip:user@example.com", uri.toString());
    }

    @Test
    void setParameterOnGenericUriIsKeptButNotWritten() throws Exception
    {
        final URI uri = SipAddresses.parseUri("http://www.example.com/alice/photo.jpg");
        uri.setParameter("purpose", "icon");
        assertEquals("icon", uri.getParameter("Purpose"));
        assertEquals("purpose", uri.getParameterNames().next());
        assertEquals("http://www.example.com/alice/photo.jpg", uri.toString(), "no parameter syntax to write it in");
        assertEquals("icon", uri.clone().getParameter("purpose"));
        uri.removeParameter("PURPOSE");
        assertNull(uri.getParameter("purpose"));
        assertFalse(uri.getParameterNames().hasNext());
    }

    @Test
    void setURINullThrowsNullPointerException() throws Exception
    {
        final Address address = SipAddresses.parseAddress("<sip:alice@atlanta.example>");
        assertThrows(NullPointerException.class, () -> address.setURI(null), "JSR 289: NullPointerException");
    }

    @Test
    void setQOutOfRangeIsRefused() throws Exception
    {
        final Address address = SipAddresses.parseAddress("<sip:alice@atlanta.example>");
        assertThrows(IllegalArgumentException.class, () -> address.setQ(1.5f), "JSR 289: explicit");
        address.setQ(-1.0f);
        assertEquals(-1.0f, address.getQ());
    }

    @Test
    void setDisplayNameWithLineBreakIsRefused() throws Exception
    {
        final Address address = SipAddresses.parseAddress("<sip:alice@atlanta.example>");
        assertThrows(IllegalArgumentException.class, () -> address.setDisplayName("Alice\r\nVia: forged"),
            "a line break would inject a header (RFC 3261 §25.1 display-name)");
    }

    @Test
    void setUserPasswordWithoutUserIsRefused()
    {
        final SipURI uri = SipAddresses.sipUri(null, "atlanta.example");
        assertThrows(IllegalStateException.class, () -> uri.setUserPassword("secret"),
            "RFC 3261 §25.1: userinfo = user [\":\" password] \"@\"");
    }
}
