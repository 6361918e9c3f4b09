package io.sipline.container.address;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;

import javax.servlet.sip.Address;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.TelURL;
import javax.servlet.sip.URI;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

/**
 * The From and To of a received message ({@link SipAddresses#parseReceivedParty}, a {@link ReceivedParty}): parsed on
 * first use over the message's bytes, and then the same address as one parsed from the value's text.
 */
class ReceivedPartyTest
{
    private static final String[] VALUES = {
        "\"Alice\" <sip:alice@atlanta.example>;tag=1928301774",
        "sip:bob@biloxi.example;tag=a6;x=y",
        "Bob  Smith <sip:bob@biloxi.example:5070;transport=tcp>",
        "<sips:carol@chicago.example;lr>;expires=60;q=0.5",
        "<tel:+1-201-555-0123>;tag=88",
        "<urn:service:sos>",
        "\"a;tag=b \\\"x\\\"\" <sip:c@d.example;tag=e>;tag=f",
    };
    private static final int ROUNDS = 10_000;

    private static byte[] header(final String value)
    {
        return ("From: " + value + "\r\n").getBytes(StandardCharsets.UTF_8);
    }

    private static Address received(final String value)
    {
        final byte[] bytes = header(value);
        return SipAddresses.parseReceivedParty(bytes, 6, bytes.length - 2, "From");
    }

    @Test
    void shouldReadAsTheAddressOfItsText() throws Exception
    {
        for (final String value : VALUES)
        {
            final Address text = SipAddresses.parseAddress(value);
            // each getter first, on an address not yet parsed, so each one has to parse it
            assertEquals(text.toString(), received(value).toString(), value);
            assertEquals(text.getValue(), received(value).getValue(), value);
            assertEquals(text.getDisplayName(), received(value).getDisplayName(), value);
            assertEquals(text.getParameter("tag"), received(value).getParameter("tag"), value);
            assertEquals(text.getQ(), received(value).getQ(), value);
            assertEquals(text.getExpires(), received(value).getExpires(), value);
            assertEquals(text.getURI().toString(), received(value).getURI().toString(), value);
            assertEquals(text.getURI(), received(value).getURI(), value);
            assertEquals(names(text.getParameterNames()), names(received(value).getParameterNames()), value);
            assertEquals(text.getParameters(), received(value).getParameters(), value);
            assertEquals(text, received(value), value);
            assertEquals(received(value), text, value);
            assertEquals(text.hashCode(), received(value).hashCode(), value);
            assertFalse(received(value).isWildcard(), value);
            assertEquals(text.clone().toString(), received(value).clone().toString(), value);
            assertNull(((Address)received(value).clone()).getParameter("tag"), value);
            assertEquals(text.toString(), ((AddressImpl)received(value)).copy().toString(), value);
            assertEquals(text.toString(), ((AddressImpl)received(value)).readOnly("To").toString(), value);
        }
    }

    @Test
    void shouldGiveTheUriAndItsTextOnceForEveryRead()
    {
        final Address from = received(VALUES[0]);
        final URI uri = from.getURI();
        assertSame(uri, from.getURI());
        assertSame(uri.toString(), uri.toString());
        assertEquals("sip:alice@atlanta.example", uri.toString());
        assertEquals("1928301774", from.getParameter("tag"));
        assertSame(uri, from.getURI(), "parsing the rest keeps the URI");
        assertTrue(received(VALUES[4]).getURI() instanceof TelURL);
        assertEquals("urn:service:sos", received(VALUES[5]).getURI().toString());
    }

    @Test
    void shouldReadAUriMadeOfItsTextThroughItsGetters()
    {
        final SipURI uri = (SipURI)received(VALUES[2]).getURI();
        assertEquals("bob", uri.getUser());
        assertEquals("biloxi.example", uri.getHost());
        assertEquals(5070, uri.getPort());
        assertEquals("tcp", uri.getTransportParam());
        assertEquals("sip", uri.getScheme());
        assertFalse(uri.isSecure());
        assertTrue(((SipURI)received(VALUES[3]).getURI()).isSecure());
        assertTrue(((SipURI)received(VALUES[3]).getURI()).getLrParam());
        assertEquals("sip:bob@biloxi.example:5070;transport=tcp",
            new String(((SipURIImpl)uri).wireBytes(), StandardCharsets.ISO_8859_1));
    }

    @Test
    void shouldRefuseEveryChangeAsAReceivedSystemHeader()
    {
        final Address from = received(VALUES[0]);
        assertThrows(IllegalStateException.class, () -> from.setDisplayName("Mallory"));
        assertThrows(IllegalStateException.class, () -> from.setParameter("x", "1"));
        assertThrows(IllegalStateException.class, () -> from.removeParameter("tag"));
        assertThrows(IllegalStateException.class, () -> from.setURI(from.getURI()));
        final SipURI uri = (SipURI)from.getURI();
        final IllegalStateException e = assertThrows(IllegalStateException.class, () -> uri.setUser("mallory"));
        assertTrue(e.getMessage().contains("From"), e.getMessage());
        assertEquals("Alice <sip:alice@atlanta.example>;tag=1928301774", from.toString());
    }

    @Test
    void shouldLetACopyOfItsUriChangeWithoutChangingIt()
    {
        final Address from = received(VALUES[0]);
        final SipURI copy = (SipURI)from.getURI().clone();
        copy.setUser("bob");
        copy.setParameter("x", "1");
        assertEquals("sip:bob@atlanta.example;x=1", copy.toString());
        assertEquals("sip:alice@atlanta.example", from.getURI().toString());
        assertNotEquals(copy, from.getURI());
        final Address clone = (Address)from.clone();
        ((SipURI)clone.getURI()).setHost("biloxi.example");
        assertEquals("Alice <sip:alice@biloxi.example>", clone.toString());
        assertEquals("Alice <sip:alice@atlanta.example>;tag=1928301774", from.toString());
    }

    @Test
    void shouldLeaveWhatIsNotAPlainAddressToTheText()
    {
        for (final String value : new String[] {"\"Ann\u00e9\" <sip:ann@x.example>", "Bob\r\n <sip:bob@b.example>",
            "<sip:@x>", "*"})
        {
            assertNull(received(value), value);
        }
        final byte[] far = new byte[ReceivedParty.MAX_POSITION + 100];
        final byte[] value = VALUES[0].getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(value, 0, far, far.length - value.length, value.length);
        assertNull(SipAddresses.parseReceivedParty(far, far.length - value.length, far.length, "From"), "past 64 KiB");
        assertEquals(VALUES[0].substring(1, 6), received(VALUES[0]).getDisplayName());
    }

    @Test
    void shouldMakeOnlyTheUriAndItsTextWhenOnlyTheUriIsRead()
    {
        final byte[] bytes = header(VALUES[0]);
        final Object[] kept = new Object[ROUNDS];
        final Runnable run = () -> {
            for (int i = 0; i < ROUNDS; i++)
            {
                kept[i] = SipAddresses.parseReceivedParty(bytes, 6, bytes.length - 2, "From").getURI().toString();
            }
        };
        final double perAddress = AllocationMeter.leastBytes(run, run, 5, 0) / (double)ROUNDS;
        final double text = AllocationMeter.leastBytes(() -> textOnly(bytes, kept), () -> textOnly(bytes, kept), 5, 0)
            / (double)ROUNDS;
        System.out.printf("received From, its URI's text: %.1f B; the URI's text alone: %.1f B%n", perAddress, text);
        // the address (48 B with 12-byte object headers) and the URI object (24 B) beside the String: no copy of
        // bytes, no tag, no display name
        assertTrue(perAddress <= text + 72, "B per received From read for its URI: " + perAddress);
    }

    private static void textOnly(final byte[] bytes, final Object[] kept)
    {
        for (int i = 0; i < ROUNDS; i++)
        {
            kept[i] = new String(bytes, 15, 25, StandardCharsets.ISO_8859_1);
        }
    }

    private static String names(final Iterator<String> names)
    {
        final StringBuilder out = new StringBuilder();
        names.forEachRemaining(n -> out.append(n).append(','));
        return out.toString();
    }
}
