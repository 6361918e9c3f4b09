package io.sipline.container.address;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import javax.servlet.sip.Parameterable;
import javax.servlet.sip.ServletParseException;

import org.junit.jupiter.api.Test;

/** Parameterable header values: Accept, Event, Call-Info, Content-Type ... */
class ParameterableTest
{
    @Test
    void shouldSplitValueAndParameters() throws Exception
    {
        final Parameterable event = SipAddresses.parseParameterable("presence ; id = 7 ;ob");
        assertEquals("presence", event.getValue());
        assertEquals("7", event.getParameter("ID"));
        assertEquals("", event.getParameter("ob"));
        assertEquals("presence;id=7;ob", event.toString());

        final Parameterable info = SipAddresses.parseParameterable(
            "<http://www.example.com/alice/photo.jpg;size=2> ;purpose=icon");
        assertEquals("<http://www.example.com/alice/photo.jpg;size=2>", info.getValue(),
            "a ';' inside angle brackets belongs to the value");
        assertEquals("icon", info.getParameter("purpose"));
        assertNull(info.getParameter("size"));

        final Parameterable type = SipAddresses.parseParameterable("text/plain;charset=\"utf-8\";format=flowed");
        assertEquals("utf-8", type.getParameter("charset"));
        assertEquals("text/plain;charset=\"utf-8\";format=flowed", type.toString());
    }

    @Test
    void shouldReadViaLikeValues() throws Exception
    {
        final Parameterable via = SipAddresses.parseParameterable(
            "SIP/2.0/UDP [2001:db8::9]:5070;branch=z9hG4bK776asdhds;received=[2001:db8::1];rport=5080;maddr=x.com");
        assertEquals("SIP/2.0/UDP [2001:db8::9]:5070", via.getValue());
        assertEquals("z9hG4bK776asdhds", via.getParameter("branch"));
        assertEquals("[2001:db8::1]", via.getParameter("received"));
        assertEquals("5080", via.getParameter("rport"));
        assertEquals(via, SipAddresses.parseParameterable(via.toString()));
    }

    @Test
    void shouldRejectMalformedValues()
    {
        for (final String bad : List.of("", "  ", ";a=b", "x;", "x;=1", "x;a=", "x;a=\"open", "x;a b", "<x;y",
            "x\r\ny", "x;a=b c"))
        {
            final ServletParseException e =
                assertThrows(ServletParseException.class, () -> SipAddresses.parseParameterable(bad), bad);
            assertTrue(e.getMessage().startsWith("bad header value \""), e.getMessage());
            assertTrue(e.getMessage().matches("(?s).* at index \\d+"), e.getMessage());
        }
        assertThrows(ServletParseException.class, () -> SipAddresses.parseParameterable(null));
    }

    @Test
    void shouldCompareAsRfc3261Section7_3_1Says() throws Exception
    {
        assertEquals(p("session;handling=optional"), p("Session;HANDLING=OPTIONAL"));
        assertEquals(p("session;handling=optional").hashCode(), p("Session;HANDLING=OPTIONAL").hashCode());
        assertEquals(p("x;a=1;b=2"), p("x;b=2;a=1"));
        assertNotEquals(p("x;a=\"A\""), p("x;a=\"a\""), "quoted strings are case-sensitive");
        assertNotEquals(p("x;a=1"), p("x"));
        assertNotEquals(p("x;a=1"), p("x;a=2"));
        assertNotEquals(p("x"), p("y"));
    }

    @Test
    void shouldEditCloneAndProtect() throws Exception
    {
        final ParameterableImpl value = (ParameterableImpl)p("application/sdp");
        value.setParameter("level", "1");
        value.setParameter("note", "a b");
        assertEquals("application/sdp;level=1;note=\"a b\"", value.toString());
        value.setValue(" application/pidf+xml ");
        assertEquals("application/pidf+xml", value.getValue());
        assertThrows(IllegalArgumentException.class, () -> value.setValue(""));

        final ParameterableImpl clone = value.clone();
        clone.setParameter("level", "2");
        assertEquals("1", value.getParameter("level"));

        final ParameterableImpl readOnly = value.readOnly("Content-Type");
        final IllegalStateException e =
            assertThrows(IllegalStateException.class, () -> readOnly.setParameter("level", "3"));
        assertEquals("Content-Type is a system header and cannot be modified", e.getMessage());
        assertThrows(IllegalStateException.class, () -> readOnly.setValue("x"));
        assertThrows(IllegalStateException.class, () -> readOnly.removeParameter("level"));
        assertEquals(value, readOnly);
    }

    private static Parameterable p(final String text) throws ServletParseException
    {
        return SipAddresses.parseParameterable(text);
    }
}
