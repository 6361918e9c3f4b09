package io.sipline.container.address;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.TelURL;

import org.junit.jupiter.api.Test;

/** RFC 3966 tel URLs: the RFC's examples, §4 equality, the JSR 289 setters. */
class TelUrlTest
{
    @Test
    void shouldParseTheRfc3966Examples() throws Exception
    {
        final TelURL a = tel("tel:+1-201-555-0123");
        assertTrue(a.isGlobal());
        assertEquals("1-201-555-0123", a.getPhoneNumber());

        final TelURL b = tel("tel:7042;phone-context=example.com");
        assertFalse(b.isGlobal());
        assertEquals("example.com", b.getPhoneContext());

        final TelURL c = tel("tel:863-1234;phone-context=+1-914-555");
        assertEquals("863-1234", c.getPhoneNumber());
        assertEquals("+1-914-555", c.getPhoneContext());
        assertEquals("tel:863-1234;phone-context=+1-914-555", c.toString());
    }

    @Test
    void shouldRejectALocalNumberWithoutContext()
    {
        final ServletParseException e = assertThrows(ServletParseException.class, () -> tel("tel:7042"));
        assertTrue(e.getMessage().startsWith("bad tel URL \"tel:7042\": "), e.getMessage());
    }

    @Test
    void shouldIgnoreVisualSeparatorsAndCaseWhenComparing() throws Exception
    {
        assertEqualPair("tel:+1-201-555-0123", "tel:+1(201)555.0123");
        assertEqualPair("tel:+12015550123", "tel:+1-201-555-0123");
        assertEqualPair("tel:7042;phone-context=EXAMPLE.com", "tel:7042;phone-context=example.com");
        assertEqualPair("tel:+1-201-555-0123;ext=1-2;foo=Bar", "tel:+1-201-555-0123;FOO=bar;ext=12");
        assertEqualPair("tel:863-1234;phone-context=+1-914-555", "tel:8631234;phone-context=+1914555");
    }

    @Test
    void shouldTellDifferentNumbersApart() throws Exception
    {
        assertNotEquals(tel("tel:+1-201-555-0123"), tel("tel:+1-201-555-0124"));
        assertNotEquals(tel("tel:+1-201-555-0123"), tel("tel:+1-201-555-0123;ext=1"),
            "RFC 3966 §4: parameters compare as a set");
        assertNotEquals(tel("tel:7042;phone-context=example.com"), tel("tel:7042;phone-context=example.net"));
        assertNotEquals(tel("tel:+7042"), tel("tel:7042;phone-context=+1"), "global never equals local");
    }

    @Test
    void shouldSetGlobalAndLocalNumbers() throws Exception
    {
        final TelURL url = tel("tel:7042;phone-context=example.com;foo=bar");
        url.setPhoneNumber("+1-201-555-0123");
        assertEquals("tel:+1-201-555-0123;foo=bar", url.toString(), "a global number drops phone-context");
        assertTrue(url.isGlobal());

        url.setPhoneNumber("1-201-555-0199");
        assertEquals("tel:+1-201-555-0199;foo=bar", url.toString(), "the leading + is added");

        url.setPhoneNumber("7042", "example.com");
        assertEquals("tel:7042;phone-context=example.com;foo=bar", url.toString());
        assertFalse(url.isGlobal());
        assertEquals("example.com", url.getPhoneContext());

        assertThrows(IllegalArgumentException.class, () -> url.setPhoneNumber("+7042", "example.com"));
        assertThrows(IllegalArgumentException.class, () -> url.setPhoneNumber("70 42", "example.com"));
        assertThrows(IllegalArgumentException.class, () -> url.setPhoneNumber("+abc"));
        assertEquals("tel:7042;phone-context=example.com;foo=bar", url.toString(), "failed setters change nothing");
    }

    @Test
    void shouldSetAndRemoveParameters() throws Exception
    {
        final TelURL url = tel("tel:+1-201-555-0123");
        url.setParameter("isub", "1411");
        url.setParameter("ext", "22");
        assertEquals("tel:+1-201-555-0123;isub=1411;ext=22", url.toString());
        url.removeParameter("ISUB");
        assertEquals("tel:+1-201-555-0123;ext=22", url.toString());
        assertNull(url.getParameter("isub"));
    }

    @Test
    void shouldCloneIndependentlyAndProtectReadOnlyCopies() throws Exception
    {
        final TelURLImpl url = (TelURLImpl)tel("tel:+1-201-555-0123");
        final TelURL clone = url.clone();
        clone.setPhoneNumber("+44-20-7946-0000");
        assertEquals("tel:+1-201-555-0123", url.toString());

        final TelURLImpl readOnly = url.readOnly("P-Asserted-Identity");
        final IllegalStateException e =
            assertThrows(IllegalStateException.class, () -> readOnly.setPhoneNumber("+1"));
        assertEquals("P-Asserted-Identity is a system header and cannot be modified", e.getMessage());
        assertThrows(IllegalStateException.class, () -> readOnly.setParameter("ext", "1"));
        assertEquals(url, readOnly);
    }

    private static void assertEqualPair(final String a, final String b) throws ServletParseException
    {
        assertEquals(tel(a), tel(b), a + " vs " + b);
        assertEquals(tel(b), tel(a), b + " vs " + a);
        assertEquals(tel(a).hashCode(), tel(b).hashCode(), "hash of " + a + " vs " + b);
    }

    private static TelURL tel(final String text) throws ServletParseException
    {
        return (TelURL)SipAddresses.parseUri(text);
    }
}
