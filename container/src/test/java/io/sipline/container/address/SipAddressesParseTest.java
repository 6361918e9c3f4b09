package io.sipline.container.address;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.TelURL;
import javax.servlet.sip.URI;

import org.junit.jupiter.api.Test;

class SipAddressesParseTest
{
    @Test
    void shouldParseEveryPartOfASipUri() throws Exception
    {
        final SipURI uri = (SipURI)SipAddresses.parseUri(
            "sip:alice:secretword@atlanta.com:5061;transport=TCP;ttl=15;maddr=239.255.255.1;method=REGISTER;user=ip" +
                ";lr?subject=project%20x&priority=urgent");

        assertEquals("sip", uri.getScheme());
        assertTrue(uri.isSipURI());
        assertFalse(uri.isSecure());
        assertEquals("alice", uri.getUser());
        assertEquals("secretword", uri.getUserPassword());
        assertEquals("atlanta.com", uri.getHost());
        assertEquals(5061, uri.getPort());
        assertEquals("TCP", uri.getTransportParam());
        assertEquals(15, uri.getTTLParam());
        assertEquals("239.255.255.1", uri.getMAddrParam());
        assertEquals("REGISTER", uri.getMethodParam());
        assertEquals("ip", uri.getUserParam());
        assertTrue(uri.getLrParam());
        assertEquals("", uri.getParameter("lr"), "a flag parameter reads as the empty string");
        assertNull(uri.getParameter("nope"));
        assertEquals("project x", uri.getHeader("Subject"), "header names ignore case, values are unescaped");
        assertEquals("urgent", uri.getHeader("priority"));
        assertEquals(List.of("subject", "priority"), list(uri.getHeaderNames()));
        assertEquals(List.of("transport", "ttl", "maddr", "method", "user", "lr"), list(uri.getParameterNames()));
    }

    @Test
    void shouldParseSipsAndDefaults() throws Exception
    {
        final SipURI uri = (SipURI)SipAddresses.parseUri("sips:atlanta.com");

        assertTrue(uri.isSecure());
        assertEquals("sips", uri.getScheme());
        assertNull(uri.getUser());
        assertNull(uri.getUserPassword());
        assertEquals(-1, uri.getPort());
        assertEquals(-1, uri.getTTLParam());
        assertFalse(uri.getLrParam());
        assertFalse(uri.getHeaderNames().hasNext());
        assertFalse(uri.getParameterNames().hasNext());
    }

    @Test
    void shouldParseIpv6References() throws Exception
    {
        final SipURI uri = (SipURI)SipAddresses.parseUri("sip:[2001:db8::10]:5070");

        assertEquals("[2001:db8::10]", uri.getHost());
        assertEquals(5070, uri.getPort());
        assertEquals("sip:[2001:db8::10]:5070", uri.toString());
        assertEquals(SipAddresses.parseUri("sip:[2001:DB8:0:0:0:0:0:10]:5070"), uri, "IPv6 compares by value");
        assertEquals(SipAddresses.parseUri("sip:[2001:DB8:0:0:0:0:0:10]:5070").hashCode(), uri.hashCode());
    }

    @Test
    void shouldParseTelUrls() throws Exception
    {
        final TelURL global = (TelURL)SipAddresses.parseUri("tel:+1-201-555-0123;ext=42");
        assertEquals("tel", global.getScheme());
        assertFalse(global.isSipURI());
        assertTrue(global.isGlobal());
        assertEquals("1-201-555-0123", global.getPhoneNumber(), "JSR 289: no leading '+'");
        assertNull(global.getPhoneContext());
        assertEquals("42", global.getParameter("ext"));

        final TelURL local = (TelURL)SipAddresses.parseUri("tel:7042;phone-context=example.com");
        assertFalse(local.isGlobal());
        assertEquals("7042", local.getPhoneNumber());
        assertEquals("example.com", local.getPhoneContext());
    }

    @Test
    void shouldParseOtherSchemesAsGenericUris() throws Exception
    {
        for (final String text : List.of("mailto:alice@atlanta.example.com", "urn:service:sos",
            "http://www.example.com/alice/photo.jpg"))
        {
            final URI uri = SipAddresses.parseUri(text);
            assertInstanceOf(GenericURIImpl.class, uri, text);
            assertFalse(uri.isSipURI());
            assertEquals(text, uri.toString());
            assertNull(uri.getParameter("x"));
        }
        assertEquals("mailto", SipAddresses.parseUri("mailto:a@b").getScheme());
    }

    @Test
    void shouldTrimSurroundingWhiteSpace() throws Exception
    {
        assertEquals("sip:a@b", SipAddresses.parseUri(" \tsip:a@b  ").toString());
    }

    @Test
    void shouldSayWhatIsWrongAndWhere()
    {
        final ServletParseException e =
            assertThrows(ServletParseException.class, () -> SipAddresses.parseUri("sip:@x"));
        assertEquals("bad SIP URI \"sip:@x\": empty user part before '@' at index 4", e.getMessage());

        assertTrue(assertThrows(ServletParseException.class, () -> SipAddresses.parseUri("tel:12"))
            .getMessage().startsWith("bad tel URL \"tel:12\": "));
        assertTrue(assertThrows(ServletParseException.class, () -> SipAddresses.parseUri("nocolon"))
            .getMessage().startsWith("bad URI \"nocolon\": "));
        assertTrue(assertThrows(ServletParseException.class, () -> SipAddresses.parseUri("sip:ali\u00e7e@x"))
            .getMessage().endsWith("at index 7"), "the index counts characters of the caller's string");
        assertThrows(ServletParseException.class, () -> SipAddresses.parseUri(null));
        assertThrows(ServletParseException.class, () -> SipAddresses.parseUri(""));
        assertThrows(ServletParseException.class, () -> SipAddresses.parseUri("sip:alice@atlanta.com:70000"));
    }

    @Test
    void shouldParseNameAddrWithParameters() throws Exception
    {
        final Address address = SipAddresses.parseAddress("\"Alice\" <sip:alice@atlanta.example.com>;tag=1928301774");

        assertEquals("Alice", address.getDisplayName());
        assertEquals("sip:alice@atlanta.example.com", address.getURI().toString());
        assertEquals("1928301774", address.getParameter("tag"));
        assertEquals("1928301774", address.getParameter("TAG"));
        assertFalse(address.isWildcard());
        assertEquals("Alice <sip:alice@atlanta.example.com>;tag=1928301774", address.toString());
    }

    @Test
    void shouldReadAddrSpecParametersAsHeaderParameters() throws Exception
    {
        final Address address = SipAddresses.parseAddress("sip:alice@atlanta.com;tag=88sja8x");

        assertNull(address.getDisplayName());
        assertEquals("sip:alice@atlanta.com", address.getURI().toString());
        assertEquals("88sja8x", address.getParameter("tag"));
        assertEquals("sip:alice@atlanta.com;tag=88sja8x", address.toString());
    }

    @Test
    void shouldKeepUriParametersInsideAngleBrackets() throws Exception
    {
        final Address address = SipAddresses.parseAddress("<sip:alice@pc33.atlanta.com;transport=tcp>;expires=3600");

        assertEquals("tcp", ((SipURI)address.getURI()).getTransportParam());
        assertEquals(3600, address.getExpires());
        assertEquals("<sip:alice@pc33.atlanta.com;transport=tcp>;expires=3600", address.toString());
    }

    @Test
    void shouldUnquoteDisplayNames() throws Exception
    {
        final Address address = SipAddresses.parseAddress("\"Alice \\\"A\\\" \\\\ Liddell\" <sip:alice@a.com>");
        assertEquals("Alice \"A\" \\ Liddell", address.getDisplayName());
        assertEquals("\"Alice \\\"A\\\" \\\\ Liddell\" <sip:alice@a.com>", address.toString());

        assertEquals("Bob  Smith", SipAddresses.parseAddress("\"Bob  Smith\" <sip:b@b.com>").getDisplayName());
        assertEquals("Bob Smith", SipAddresses.parseAddress("Bob   Smith <sip:b@b.com>").getDisplayName());
        assertEquals("J\u00fcrgen", SipAddresses.parseAddress("\"J\u00fcrgen\" <sip:j@b.com>").getDisplayName());
    }

    @Test
    void shouldQuoteControlCharactersAndUnfoldFoldedDisplayNames() throws Exception
    {
        final Address del = SipAddresses.parseAddress("\"a\\\u007fb\" <sip:a@b.com>");
        assertEquals("a\u007fb", del.getDisplayName());
        assertEquals("\"a\\\u007fb\" <sip:a@b.com>", del.toString(), "DEL is no qdtext: written as a quoted-pair");
        assertEquals(del.getDisplayName(), SipAddresses.parseAddress(del.toString()).getDisplayName());

        final Address folded = SipAddresses.parseAddress("\"Alice\r\n Liddell\" <sip:a@b.com>;x=\"1\r\n 2\"");
        assertEquals("Alice Liddell", folded.getDisplayName(), "RFC 3261 §7.3.1: folding is the white space after it");
        assertEquals("1 2", folded.getParameter("x"));
        assertEquals("Alice Liddell <sip:a@b.com>;x=\"1 2\"", folded.toString());
    }

    @Test
    void shouldRejectALoneSurrogateInAUri()
    {
        final ServletParseException e =
            assertThrows(ServletParseException.class, () -> SipAddresses.parseUri("mailto:a@b.c\uD83Dm"));
        assertTrue(e.getMessage().endsWith("at index 12"), e.getMessage());
    }

    @Test
    void shouldParseTheWildcard() throws Exception
    {
        final Address star = SipAddresses.parseAddress(" * ");
        assertTrue(star.isWildcard());
        assertNull(star.getURI());
        assertEquals("*", star.toString());
    }

    @Test
    void shouldParseTelAndGenericUrisInAddresses() throws Exception
    {
        assertInstanceOf(TelURL.class, SipAddresses.parseAddress("<tel:+1-201-555-0123>").getURI());
        final Address info = SipAddresses.parseAddress("<http://www.example.com/alice/photo.jpg> ;purpose=icon");
        assertEquals("icon", info.getParameter("purpose"));
        assertEquals("http://www.example.com/alice/photo.jpg;purpose=icon", info.toString());
    }

    @Test
    void shouldRejectBadAddresses()
    {
        final ServletParseException e = assertThrows(ServletParseException.class,
            () -> SipAddresses.parseAddress("\"Alice <sip:alice@a.com>"));
        assertTrue(e.getMessage().startsWith("bad address \"\"Alice <sip:alice@a.com>\": "), e.getMessage());
        assertThrows(ServletParseException.class, () -> SipAddresses.parseAddress("<sip:alice@a.com"));
        assertThrows(ServletParseException.class, () -> SipAddresses.parseAddress("sip:a@b.com?x=y"));
        assertThrows(ServletParseException.class, () -> SipAddresses.parseAddress(""));
        assertThrows(ServletParseException.class, () -> SipAddresses.parseAddress(null));
        assertThrows(ServletParseException.class, () -> SipAddresses.parseAddress("<sip:@x>"));
    }

    @Test
    void shouldBuildSipUrisAndAddresses()
    {
        final SipURI uri = SipAddresses.sipUri("alice smith", "atlanta.com");
        assertEquals("sip:alice%20smith@atlanta.com", uri.toString());
        assertEquals("alice smith", uri.getUser());
        assertEquals("sip:atlanta.com", SipAddresses.sipUri(null, "atlanta.com").toString());
        assertEquals("sip:[::1]", SipAddresses.sipUri(null, "::1").toString());
        assertThrows(IllegalArgumentException.class, () -> SipAddresses.sipUri("a", "bad host"));
        assertThrows(IllegalArgumentException.class, () -> SipAddresses.sipUri("a", null));

        final Address address = SipAddresses.address(uri, "Alice");
        assertEquals("Alice <sip:alice%20smith@atlanta.com>", address.toString());
        assertEquals("<sip:atlanta.com;lr>",
            SipAddresses.address(uriOf("sip:atlanta.com;lr"), null).toString());
        assertEquals("sip:atlanta.com", SipAddresses.address(uriOf("sip:atlanta.com"), null).toString());
    }

    @Test
    void shouldParseAHeadersPlainBytesAsItsTextAndLeaveTheRestToTheText() throws Exception
    {
        for (final String value : new String[] {"\"Alice\" <sip:alice@atlanta.example>;tag=1928301774",
            "sip:bob@biloxi.example;tag=a6;x=y", "Bob  Smith <sip:bob@biloxi.example>", "*"})
        {
            final byte[] wire = ("To: " + value + "\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            final Address fromBytes = SipAddresses.parsePlainAddress(wire, 4, wire.length - 2,
                AbstractParameterable.Protection.READ_ONLY, "To");
            final Address fromText = SipAddresses.parseAddress(value);
            assertEquals(fromText.toString(), fromBytes.toString(), value);
            assertEquals(fromText.getDisplayName(), fromBytes.getDisplayName(), value);
            assertEquals(AbstractParameterable.Protection.READ_ONLY, ((AddressImpl)fromBytes).protection());
        }
        for (final String value : new String[] {"\"Ann\u00e9\" <sip:ann@x.example>", "Bob\r\n <sip:bob@b.example>",
            "<sip:@x>"})
        {
            final byte[] wire = ("To: " + value + "\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            assertNull(SipAddresses.parsePlainAddress(wire, 4, wire.length - 2,
                AbstractParameterable.Protection.READ_ONLY, "To"), "UTF-8, folded or bad: parsed as text");
        }
    }

    @Test
    void shouldFindAPartyWithoutItsTagInTheBytesAsTheTextIsCut()
    {
        final String[][] cases = {
            {"\"Alice\" <sip:alice@atlanta.example>;tag=1928301774", "\"Alice\" <sip:alice@atlanta.example>"},
            {"<sip:bob@biloxi.example>", "<sip:bob@biloxi.example>"},
            {"sip:bob@biloxi.example;TAG=a6", "sip:bob@biloxi.example"},
            {"\"a;tag=b\" <sip:c@d.example;tag=e>;tag=f", "\"a;tag=b\" <sip:c@d.example;tag=e>"},
            {"<sip:bob@biloxi.example>;tag=a6;x=1", null}, // a parameter after the tag: the text is cut instead
            {"\"Ann\u00e9\" <sip:ann@x.example>;tag=1", null}, // not ASCII
        };
        for (final String[] c : cases)
        {
            final byte[] b = ("From: " + c[0]).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            final long span = SipAddresses.withoutTag(b, 6, b.length);
            if (null == c[1])
            {
                assertEquals(-1, span, c[0]);
                continue;
            }
            assertEquals(6, (int)(span >>> 32), c[0]);
            assertEquals(c[1], new String(b, 6, (int)span - 6, java.nio.charset.StandardCharsets.US_ASCII), c[0]);
        }
    }

    private static URI uriOf(final String text)
    {
        try
        {
            return SipAddresses.parseUri(text);
        }
        catch (final ServletParseException e)
        {
            throw new AssertionError(e);
        }
    }

    private static List<String> list(final Iterator<String> it)
    {
        final List<String> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }
}
