package io.sipline.container.address;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipURI;

import org.junit.jupiter.api.Test;

/** Address: wire form, display-name quoting, q and expires, equality (RFC 3261 §20.20), clone, protection. */
class AddressTest
{
    @Test
    void shouldQuoteDisplayNamesOnlyWhenNeeded() throws Exception
    {
        final Address address = SipAddresses.address(SipAddresses.sipUri("alice", "atlanta.com"), "Alice Liddell");
        assertEquals("Alice Liddell <sip:alice@atlanta.com>", address.toString());

        address.setDisplayName("Liddell, Alice");
        assertEquals("\"Liddell, Alice\" <sip:alice@atlanta.com>", address.toString());
        address.setDisplayName("Say \"hi\" \\o/");
        assertEquals("\"Say \\\"hi\\\" \\\\o/\" <sip:alice@atlanta.com>", address.toString());
        address.setDisplayName(" padded");
        assertEquals("\" padded\" <sip:alice@atlanta.com>", address.toString());
        address.setDisplayName("J\u00fcrgen");
        assertEquals("\"J\u00fcrgen\" <sip:alice@atlanta.com>", address.toString());
        address.setDisplayName(null);
        assertEquals("sip:alice@atlanta.com", address.toString());
        address.setDisplayName("");
        assertNull(address.getDisplayName());
        assertThrows(IllegalArgumentException.class, () -> address.setDisplayName("two\r\nlines"));
    }

    @Test
    void shouldRoundTripDisplayNamesThroughTheWireForm() throws Exception
    {
        for (final String name : List.of("Alice", "Alice Liddell", "\"quoted\"", "back\\slash", "a,b;c?d", "<x>",
            "tab\there", "  ", "J\u00fcrgen", "\u65e5\u672c"))
        {
            final Address address = SipAddresses.address(SipAddresses.sipUri("a", "b.com"), name);
            final Address parsed = SipAddresses.parseAddress(address.toString());
            assertEquals(name, parsed.getDisplayName(), address.toString());
        }
    }

    @Test
    void shouldUseAngleBracketsWhenTheUriHasCommaSemicolonOrQuestionMark() throws Exception
    {
        assertEquals("<sip:alice@atlanta.com;transport=tcp>;tag=1",
            SipAddresses.parseAddress("<sip:alice@atlanta.com;transport=tcp>;tag=1").toString());
        assertEquals("<sip:alice@atlanta.com?subject=x>",
            SipAddresses.parseAddress("<sip:alice@atlanta.com?subject=x>").toString());
        assertEquals("<sip:a,b@atlanta.com>", SipAddresses.parseAddress("<sip:a,b@atlanta.com>").toString());
        assertEquals("sip:alice@atlanta.com;tag=1", SipAddresses.parseAddress("<sip:alice@atlanta.com>;tag=1")
            .toString());
    }

    @Test
    void shouldReadAndWriteQAndExpires() throws Exception
    {
        final Address contact = SipAddresses.parseAddress("<sip:alice@pc33.atlanta.com>;q=0.7;expires=3600");
        assertEquals(0.7f, contact.getQ());
        assertEquals(3600, contact.getExpires());

        contact.setQ(1.0f);
        contact.setExpires(0);
        assertEquals("sip:alice@pc33.atlanta.com;q=1.0;expires=0", contact.toString());
        contact.setQ(0.125f);
        assertEquals("0.125", contact.getParameter("q"));
        contact.setQ(0.5f);
        assertEquals("0.5", contact.getParameter("q"));
        contact.setQ(-1.0f);
        contact.setExpires(-1);
        assertEquals(-1.0f, contact.getQ());
        assertEquals(-1, contact.getExpires());
        assertEquals("sip:alice@pc33.atlanta.com", contact.toString());
        assertThrows(IllegalArgumentException.class, () -> contact.setQ(1.5f));
        assertThrows(IllegalArgumentException.class, () -> contact.setQ(Float.NaN));

        assertEquals(-1, SipAddresses.parseAddress("<sip:a@b.com>;expires=soon").getExpires());
        assertEquals(-1.0f, SipAddresses.parseAddress("<sip:a@b.com>;q=high").getQ());
    }

    @Test
    void shouldKeepParametersInOrderAndQuoteValuesThatNeedIt() throws Exception
    {
        final Address address = SipAddresses.parseAddress(
            "<sip:alice@atlanta.com>;+sip.instance=\"<urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6>\";reg-id=1;ob");
        assertEquals("<urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6>", address.getParameter("+sip.instance"),
            "values are returned unquoted");
        assertEquals("", address.getParameter("ob"), "a flag parameter reads as the empty string");
        assertEquals(List.of("+sip.instance", "reg-id", "ob"), names(address));
        final List<String> entries = new ArrayList<>();
        for (final Map.Entry<String, String> e : address.getParameters())
        {
            entries.add(e.getKey() + "=" + e.getValue());
        }
        assertEquals(List.of("+sip.instance=<urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6>", "reg-id=1", "ob="),
            entries);

        address.setParameter("note", "two words");
        address.setParameter("reg-id", "2");
        address.setParameter("received", "[2001:db8::1]");
        address.removeParameter("OB");
        assertEquals("sip:alice@atlanta.com;+sip.instance=\"<urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6>\"" +
            ";reg-id=2;note=\"two words\";received=[2001:db8::1]", address.toString());
        assertEquals("two words", address.getParameter("note"));
        assertThrows(IllegalArgumentException.class, () -> address.setParameter("bad name", "x"));
        address.setParameter("note", null);
        assertNull(address.getParameter("note"), "a null value removes the parameter (JSR 289)");
    }

    @Test
    void shouldCompareAsRfc3261Section20_20Says() throws Exception
    {
        assertEqualPair("\"Alice\" <sip:alice@atlanta.com>;tag=1", "sip:alice@ATLANTA.com;TAG=1");
        assertEqualPair("<sip:%61lice@atlanta.com;transport=TCP>", "<sip:alice@AtLanTa.CoM;Transport=tcp>");
        assertEqualPair("<sip:alice@atlanta.com>;tag=1;foo=bar", "<sip:alice@atlanta.com>;tag=1",
            "an extension parameter in one only is ignored");
        assertEqualPair("<sip:alice@atlanta.com>;foo=BAR", "<sip:alice@atlanta.com>;foo=bar");
        assertEqualPair("<sip:alice@atlanta.com>;a=1;b=2", "<sip:alice@atlanta.com>;b=2;a=1");
        assertEqualPair("*", " * ");

        assertNotEqualPair("<sip:alice@atlanta.com>;tag=1", "<sip:alice@atlanta.com>;tag=2");
        assertNotEqualPair("<sip:alice@atlanta.com>;tag=1", "<sip:alice@atlanta.com>");
        assertNotEqualPair("<sip:alice@atlanta.com>;expires=60", "<sip:alice@atlanta.com>");
        assertNotEqualPair("<sip:alice@atlanta.com>;q=0.5", "<sip:alice@atlanta.com>");
        assertNotEqualPair("<sip:alice@atlanta.com>;foo=1", "<sip:alice@atlanta.com>;foo=2");
        assertNotEqualPair("<sip:alice@atlanta.com>;foo=\"A\"", "<sip:alice@atlanta.com>;foo=\"a\"");
        assertNotEqualPair("<sip:alice@atlanta.com>", "<sip:bob@atlanta.com>");
        assertNotEqualPair("<sip:alice@atlanta.com>", "<sip:alice@atlanta.com:5060>");
        assertNotEqualPair("*", "<sip:alice@atlanta.com>");
        assertNotEquals(SipAddresses.parseAddress("sip:a@b.com"), SipAddresses.parseParameterable("sip:a@b.com"));
    }

    @Test
    void shouldCloneDeeplyWithoutTheTag() throws Exception
    {
        final AddressImpl from = (AddressImpl)SipAddresses.parseAddress("\"Alice\" <sip:alice@atlanta.com>;tag=9;x=1");
        final AddressImpl clone = from.clone();
        assertNull(clone.getParameter("tag"), "JSR 289 Address.clone: the clone has no tag parameter");
        assertEquals("1", clone.getParameter("x"));
        assertEquals("Alice", clone.getDisplayName());
        assertNotSame(from.getURI(), clone.getURI());

        ((SipURI)clone.getURI()).setUser("bob");
        clone.setParameter("x", "2");
        clone.setDisplayName("Bob");
        assertEquals("Alice <sip:alice@atlanta.com>;tag=9;x=1", from.toString());

        final AddressImpl copy = from.copy();
        assertEquals("9", copy.getParameter("tag"));
        assertEquals(from, copy);
        copy.setParameter("tag", "10");
        assertEquals("9", from.getParameter("tag"));
    }

    @Test
    void shouldShareTheUriWithTheApplication() throws Exception
    {
        final Address address = SipAddresses.parseAddress("<sip:alice@atlanta.com>");
        ((SipURI)address.getURI()).setTransportParam("tcp");
        assertEquals("<sip:alice@atlanta.com;transport=tcp>", address.toString());
        final SipURI other = SipAddresses.sipUri("bob", "biloxi.com");
        address.setURI(other);
        assertSame(other, address.getURI());
        assertThrows(NullPointerException.class, () -> address.setURI(null),
            "JSR 289 Address.setURI: NullPointerException on null uri");
    }

    @Test
    void shouldRefuseEveryChangeToASystemHeader() throws Exception
    {
        final AddressImpl via = ((AddressImpl)SipAddresses.parseAddress("<sip:p1.example.com;lr>;x=1"))
            .readOnly("Record-Route");
        for (final Consumer<AddressImpl> edit : List.<Consumer<AddressImpl>>of(
            a -> a.setDisplayName("x"), a -> a.setURI(SipAddresses.sipUri(null, "x.com")),
            a -> a.setParameter("y", "2"), a -> a.removeParameter("x"), a -> a.setQ(0.5f), a -> a.setExpires(1),
            a -> a.setValue("<sip:x.com>"), a -> ((SipURI)a.getURI()).setLrParam(false)))
        {
            final IllegalStateException e = assertThrows(IllegalStateException.class, () -> edit.accept(via));
            assertEquals("Record-Route is a system header and cannot be modified", e.getMessage());
        }
        assertEquals("<sip:p1.example.com;lr>;x=1", via.toString());
        assertEquals(AbstractParameterable.Protection.NONE, via.clone().protection());
        via.clone().setParameter("y", "2");
    }

    @Test
    void shouldProtectOnlyTheTagOfFromAndTo() throws Exception
    {
        final AddressImpl parsed = (AddressImpl)SipAddresses.parseAddress("\"Alice\" <sip:alice@atlanta.com>;tag=42");
        final AddressImpl from = parsed.tagProtected("From");

        final IllegalStateException set =
            assertThrows(IllegalStateException.class, () -> from.setParameter("TAG", "1"));
        assertEquals("the tag parameter of From is set by the container and cannot be modified", set.getMessage());
        assertThrows(IllegalStateException.class, () -> from.removeParameter("tag"));
        assertEquals("42", from.getParameter("tag"));

        from.setDisplayName("Alice L.");
        ((SipURI)from.getURI()).setUser("alice2");
        from.setParameter("x", "1");
        assertEquals("Alice L. <sip:alice2@atlanta.com>;tag=42;x=1", from.toString(), "'.' is a token character");
        assertEquals("Alice <sip:alice@atlanta.com>;tag=42", parsed.toString(), "the original is untouched");
    }

    @Test
    void shouldSetTheValueWithoutTouchingTheParameters() throws Exception
    {
        final Address address = SipAddresses.parseAddress("<sip:alice@atlanta.com>;tag=1");
        assertEquals("sip:alice@atlanta.com", address.getValue());
        address.setValue("Bob <sip:bob@biloxi.com>");
        assertEquals("Bob <sip:bob@biloxi.com>;tag=1", address.toString());
        assertEquals("Bob <sip:bob@biloxi.com>", address.getValue());
        assertThrows(IllegalArgumentException.class, () -> address.setValue("<sip:"));
    }

    @Test
    void shouldRoundTripTypicalHeaderValues() throws Exception
    {
        for (final String text : List.of(
            "\"Alice\" <sip:alice@atlanta.example.com>;tag=1928301774",
            "Bob <sips:bob@biloxi.example.com>",
            "<sip:carol@chicago.example.com;transport=tcp>;expires=3600;q=0.7",
            "sip:+12125551212@phone2net.example.com;tag=887s",
            "<tel:+1-201-555-0123>;tag=x",
            "<sip:[2001:db8::10]:5070;lr>",
            "\"\\\"q\\\" \\\\\" <sip:a@b.com>",
            "<urn:service:sos>",
            "*"))
        {
            final Address first = SipAddresses.parseAddress(text);
            final Address second = SipAddresses.parseAddress(first.toString());
            assertEquals(first, second, text);
            assertEquals(first.toString(), second.toString(), text);
            assertEquals(first.getDisplayName(), second.getDisplayName(), text);
            assertEquals(first.hashCode(), second.hashCode(), text);
        }
    }

    private static void assertEqualPair(final String a, final String b) throws ServletParseException
    {
        assertEqualPair(a, b, a + " vs " + b);
    }

    private static void assertEqualPair(final String a, final String b, final String message)
        throws ServletParseException
    {
        final Address x = SipAddresses.parseAddress(a);
        final Address y = SipAddresses.parseAddress(b);
        assertEquals(x, y, message);
        assertEquals(y, x, message);
        assertEquals(x.hashCode(), y.hashCode(), "hash: " + message);
    }

    private static void assertNotEqualPair(final String a, final String b) throws ServletParseException
    {
        assertNotEquals(SipAddresses.parseAddress(a), SipAddresses.parseAddress(b), a + " vs " + b);
        assertNotEquals(SipAddresses.parseAddress(b), SipAddresses.parseAddress(a), b + " vs " + a);
    }

    private static List<String> names(final Address address)
    {
        final List<String> out = new ArrayList<>();
        address.getParameterNames().forEachRemaining(out::add);
        assertFalse(out.isEmpty());
        assertTrue(out.stream().allMatch(n -> null != address.getParameter(n)));
        return out;
    }
}
