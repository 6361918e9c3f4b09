package io.sipline.container.address;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.Consumer;

import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipURI;

import org.junit.jupiter.api.Test;

/** JSR 289 SipURI setters: escaping (RFC 3261 §19.1.2), IPv6 hosts, parameters, headers, read-only copies, clones. */
class SipUriSettersTest
{
    @Test
    void shouldEscapeWhatTheSettersAreGivenAndUnescapeWhatTheGettersReturn() throws Exception
    {
        final SipURI uri = sip("sip:atlanta.com");
        uri.setUser("alice smith;x=1?@");
        assertEquals("sip:alice%20smith;x=1?%40@atlanta.com", uri.toString(),
            "user-unreserved ; = ? stay, space and @ are escaped");
        assertEquals("alice smith;x=1?@", uri.getUser());

        uri.setUserPassword("p@ss:w ord");
        assertEquals("sip:alice%20smith;x=1?%40:p%40ss%3Aw%20ord@atlanta.com", uri.toString());
        assertEquals("p@ss:w ord", uri.getUserPassword());

        uri.setParameter("na me", "v;a=l");
        assertEquals("v;a=l", uri.getParameter("na me"));
        uri.setHeader("Subject", "project x & more");
        assertEquals("project x & more", uri.getHeader("subject"));
        assertEquals("sip:alice%20smith;x=1?%40:p%40ss%3Aw%20ord@atlanta.com;na%20me=v%3Ba%3Dl" +
            "?Subject=project%20x%20%26%20more", uri.toString());
        assertEquals(uri, SipAddresses.parseUri(uri.toString()), "the escaped form parses back to an equal URI");

        uri.setUser("j\u00fcrgen");
        assertEquals("j%C3%BCrgen", uri.toString().substring(4, 15), "non-ASCII is escaped as UTF-8");
        assertEquals("j\u00fcrgen", uri.getUser());
    }

    @Test
    void shouldSetAndRemoveUserAndPassword() throws Exception
    {
        final SipURI uri = sip("sip:alice:pw@atlanta.com");
        uri.setUserPassword(null);
        assertEquals("sip:alice@atlanta.com", uri.toString());
        uri.setUser(null);
        assertEquals("sip:atlanta.com", uri.toString());
        assertThrows(IllegalStateException.class, () -> uri.setUserPassword("pw"), "no user, no password");
        uri.setUser("bob");
        assertEquals("sip:bob@atlanta.com", uri.toString());
        uri.setUserPassword("");
        assertEquals("sip:bob:@atlanta.com", uri.toString());
        assertEquals("", uri.getUserPassword());
    }

    @Test
    void shouldSetHostsIncludingIpv6AndPorts() throws Exception
    {
        final SipURI uri = sip("sip:alice@atlanta.com;transport=udp");
        uri.setHost("2001:db8::10");
        uri.setPort(5070);
        assertEquals("sip:alice@[2001:db8::10]:5070;transport=udp", uri.toString());
        assertEquals("[2001:db8::10]", uri.getHost());
        assertEquals(5070, uri.getPort());
        uri.setHost("[::1]");
        uri.setPort(5071);
        assertEquals("sip:alice@[::1]:5071;transport=udp", uri.toString());
        uri.setPort(-1);
        assertEquals("sip:alice@[::1];transport=udp", uri.toString());
        uri.setHost("192.0.2.4");
        assertEquals("sip:alice@192.0.2.4;transport=udp", uri.toString());

        assertThrows(IllegalArgumentException.class, () -> uri.setHost("bad host"));
        assertThrows(IllegalArgumentException.class, () -> uri.setHost(""));
        assertThrows(IllegalArgumentException.class, () -> uri.setHost("[2001:db8::zz]"));
        assertThrows(IllegalArgumentException.class, () -> uri.setPort(65536));
        assertEquals("sip:alice@192.0.2.4;transport=udp", uri.toString(), "failed setters change nothing");
    }

    @Test
    void shouldSetTheWellKnownParameters() throws Exception
    {
        final SipURI uri = sip("sip:alice@atlanta.com?subject=hi");
        uri.setTransportParam("tcp");
        uri.setTTLParam(5);
        uri.setMAddrParam("239.255.255.1");
        uri.setMethodParam("INVITE");
        uri.setUserParam("phone");
        uri.setLrParam(true);
        assertEquals("sip:alice@atlanta.com;transport=tcp;ttl=5;maddr=239.255.255.1;method=INVITE;user=phone;lr" +
            "?subject=hi", uri.toString(), "parameters go before the headers");
        assertEquals(5, uri.getTTLParam());
        assertTrue(uri.getLrParam());

        uri.setTransportParam("udp");
        assertEquals("udp", uri.getTransportParam());
        uri.setLrParam(false);
        uri.setTTLParam(-1);
        uri.setMAddrParam(null);
        uri.setMethodParam(null);
        uri.setUserParam(null);
        uri.removeParameter("TRANSPORT");
        assertEquals("sip:alice@atlanta.com?subject=hi", uri.toString());
        assertThrows(IllegalArgumentException.class, () -> uri.setTTLParam(256));
        assertThrows(IllegalArgumentException.class, () -> uri.setParameter("", "x"));
    }

    @Test
    void shouldSetAndRemoveHeaders() throws Exception
    {
        final SipURI uri = sip("sip:alice@atlanta.com");
        uri.setHeader("subject", "a");
        uri.setHeader("priority", "urgent");
        uri.setHeader("Subject", "b");
        assertEquals("sip:alice@atlanta.com?subject=b&priority=urgent", uri.toString(),
            "an existing name keeps its spelling");
        uri.removeHeader("subject");
        assertEquals("sip:alice@atlanta.com?priority=urgent", uri.toString());
        uri.removeHeader("priority");
        assertEquals("sip:alice@atlanta.com", uri.toString());
        uri.removeHeader("absent");
        assertNull(uri.getHeader("priority"));
    }

    @Test
    void shouldSwitchBetweenSipAndSips() throws Exception
    {
        final SipURI uri = sip("sip:alice@atlanta.com");
        uri.setSecure(true);
        assertEquals("sips:alice@atlanta.com", uri.toString());
        assertTrue(uri.isSecure());
        uri.setSecure(false);
        assertEquals("sip:alice@atlanta.com", uri.toString());
        assertFalse(uri.isSecure());
    }

    @Test
    void shouldCloneIndependently() throws Exception
    {
        final SipURI uri = sip("sip:alice@atlanta.com;transport=tcp");
        final SipURI clone = (SipURI)uri.clone();
        clone.setUser("bob");
        clone.setParameter("transport", "udp");
        assertEquals("sip:alice@atlanta.com;transport=tcp", uri.toString());
        assertEquals("sip:bob@atlanta.com;transport=udp", clone.toString());
        uri.setHost("biloxi.com");
        assertEquals("sip:bob@atlanta.com;transport=udp", clone.toString());
    }

    @Test
    void shouldRefuseEveryChangeToAReadOnlyCopy() throws Exception
    {
        final SipURIImpl uri = (SipURIImpl)sip("sip:alice@atlanta.com;lr");
        final SipURIImpl readOnly = uri.readOnly("Route");
        assertTrue(readOnly.isReadOnly());
        assertFalse(uri.isReadOnly());
        final List<Consumer<SipURI>> edits = edits();
        for (final Consumer<SipURI> edit : edits)
        {
            final IllegalStateException e = assertThrows(IllegalStateException.class, () -> edit.accept(readOnly));
            assertEquals("Route is a system header and cannot be modified", e.getMessage());
        }
        assertEquals("sip:alice@atlanta.com;lr", readOnly.toString());
        assertEquals(uri, readOnly);
        assertFalse(readOnly.clone().isReadOnly(), "a clone of a read-only URI is the application's");
        assertSame(uri.wireBytes(), readOnly.wireBytes(), "the copy shares the bytes");
        uri.setUser("bob");
        assertEquals("sip:alice@atlanta.com;lr", readOnly.toString(), "and is not changed by the original");
    }

    private static List<Consumer<SipURI>> edits()
    {
        return List.of(
            u -> u.setUser("x"),
            u -> u.setUserPassword("x"),
            u -> u.setHost("x.com"),
            u -> u.setPort(1),
            u -> u.setSecure(true),
            u -> u.setParameter("a", "b"),
            u -> u.removeParameter("lr"),
            u -> u.setLrParam(false),
            u -> u.setTransportParam("tcp"),
            u -> u.setTTLParam(1),
            u -> u.setHeader("a", "b"),
            u -> u.removeHeader("a"));
    }

    private static SipURI sip(final String text) throws ServletParseException
    {
        return (SipURI)SipAddresses.parseUri(text);
    }
}
