package io.sipline.container.address;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.SplittableRandom;

import javax.servlet.sip.Address;
import javax.servlet.sip.Parameterable;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.URI;

import org.junit.jupiter.api.Test;

/**
 * Property: parsing is total. Every string made by randomly mutating a valid URI, address or header value either
 * parses or throws {@link ServletParseException}, never anything else; and whatever parses prints a wire form that
 * parses back to an equal object (a URI prints exactly the text it was parsed from).
 */
class AddressParseMutationTest
{
    private static final int MUTATIONS = 100_000;
    private static final long SEED = 0x5191_1E7AL;

    private static final List<String> SEEDS = List.of(
        "sip:alice@atlanta.com",
        "sips:alice:secret@atlanta.com:5061;transport=tls;lr?subject=project%20x&priority=urgent",
        "sip:biloxi.com;transport=tcp;method=REGISTER?to=sip:bob%40biloxi.com",
        "sip:[2001:db8::10]:5070;maddr=239.255.255.1;ttl=15",
        "sip:%61lice@192.0.2.4;user=phone",
        "tel:+1-201-555-0123;ext=42",
        "tel:7042;phone-context=example.com",
        "tel:863-1234;phone-context=+1-914-555;isub=1411",
        "mailto:alice@atlanta.example.com",
        "urn:service:sos",
        "http://www.example.com/alice/photo.jpg",
        "\"Alice\" <sip:alice@atlanta.example.com>;tag=1928301774",
        "Bob Smith <sips:bob@biloxi.example.com;transport=tcp>;expires=3600;q=0.7",
        "\"\\\"q\\\" \\\\ J\u00fcrgen\" <sip:j@b.com>;+sip.instance=\"<urn:uuid:f81d4fae>\";reg-id=1;ob",
        "<tel:+1-201-555-0123>;tag=x",
        "sip:+12125551212@phone2net.example.com;tag=887s",
        "*",
        "presence;id=7",
        "<http://www.example.com/alice/photo.jpg;size=2> ;purpose=icon",
        "text/plain;charset=\"utf-8\";format=flowed");

    /** Characters that matter to the grammars, plus a few that never belong. */
    private static final String ALPHABET = "aZ09:;@?&=%<>\"\\[] ,.+-*#/()!~'$\t\r\n\u00e9\u65e5\uD83D\u0000\u007f";

    @Test
    void shouldParseOrThrowServletParseExceptionForEveryMutation()
    {
        final SplittableRandom random = new SplittableRandom(SEED);
        final int[] outcomes = new int[2];
        for (int n = 0; n < MUTATIONS; n++)
        {
            final String seed = SEEDS.get(random.nextInt(SEEDS.size()));
            final String text = mutate(seed, random);
            try
            {
                checkUri(text, outcomes);
                checkAddress(text, outcomes);
                checkParameterable(text, outcomes);
            }
            catch (final AssertionError e)
            {
                throw e;
            }
            catch (final Throwable t)
            {
                fail("mutation " + n + " of \"" + seed + "\": \"" + escape(text) + "\" threw " + t, t);
            }
        }
        assertTrue(outcomes[0] > MUTATIONS / 10, "parsed: " + outcomes[0]);
        assertTrue(outcomes[1] > MUTATIONS / 10, "rejected: " + outcomes[1]);
    }

    private static void checkUri(final String text, final int[] outcomes)
    {
        final URI uri;
        try
        {
            uri = SipAddresses.parseUri(text);
        }
        catch (final ServletParseException e)
        {
            outcomes[1]++;
            assertTrue(e.getMessage().matches("(?s)bad (SIP URI|tel URL|URI) .* at index \\d+"), e.getMessage());
            return;
        }
        outcomes[0]++;
        assertEquals(text.strip(), uri.toString().strip(), "a URI prints the text it came from");
        assertEquals(uri, reparseUri(uri.toString()), "round trip of " + escape(text));
        assertEquals(uri, uri.clone());
        assertEquals(uri.hashCode(), uri.clone().hashCode());
    }

    private static void checkAddress(final String text, final int[] outcomes)
    {
        final Address address;
        try
        {
            address = SipAddresses.parseAddress(text);
        }
        catch (final ServletParseException e)
        {
            outcomes[1]++;
            assertTrue(e.getMessage().matches("(?s)bad (address|SIP URI|tel URL|URI) .* at index \\d+"),
                e.getMessage());
            return;
        }
        outcomes[0]++;
        final Address again;
        try
        {
            again = SipAddresses.parseAddress(address.toString());
        }
        catch (final ServletParseException e)
        {
            throw new AssertionError("\"" + escape(text) + "\" printed \"" + escape(address.toString()) +
                "\" which does not parse: " + e.getMessage(), e);
        }
        assertEquals(address, again, "round trip of " + escape(text));
        assertEquals(address.hashCode(), again.hashCode(), "hash after round trip of " + escape(text));
        assertEquals(address.getDisplayName(), again.getDisplayName(), "display name of " + escape(text));
    }

    private static void checkParameterable(final String text, final int[] outcomes)
    {
        final Parameterable value;
        try
        {
            value = SipAddresses.parseParameterable(text);
        }
        catch (final ServletParseException e)
        {
            outcomes[1]++;
            return;
        }
        outcomes[0]++;
        try
        {
            final Parameterable again = SipAddresses.parseParameterable(value.toString());
            assertEquals(value, again, "round trip of " + escape(text));
        }
        catch (final ServletParseException e)
        {
            throw new AssertionError("\"" + escape(text) + "\" printed \"" + escape(value.toString()) +
                "\" which does not parse: " + e.getMessage(), e);
        }
    }

    private static URI reparseUri(final String text)
    {
        try
        {
            final URI uri = SipAddresses.parseUri(text);
            assertNotNull(uri);
            return uri;
        }
        catch (final ServletParseException e)
        {
            throw new AssertionError("printed URI \"" + escape(text) + "\" does not parse: " + e.getMessage(), e);
        }
    }

    /** One to three edits: insert, delete, replace, duplicate a span, truncate, or swap two characters. */
    private static String mutate(final String seed, final SplittableRandom random)
    {
        final StringBuilder s = new StringBuilder(seed);
        final int edits = 1 + random.nextInt(3);
        for (int e = 0; e < edits; e++)
        {
            final int at = s.isEmpty() ? 0 : random.nextInt(s.length() + 1);
            final char c = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
            switch (random.nextInt(6))
            {
                case 0 -> s.insert(at, c);
                case 1 ->
                {
                    if (at < s.length())
                    {
                        s.deleteCharAt(at);
                    }
                }
                case 2 ->
                {
                    if (at < s.length())
                    {
                        s.setCharAt(at, c);
                    }
                }
                case 3 ->
                {
                    final int end = Math.min(s.length(), at + 1 + random.nextInt(8));
                    s.insert(at, s.substring(at, end));
                }
                case 4 -> s.setLength(at);
                default ->
                {
                    if (s.length() > 1)
                    {
                        final int other = random.nextInt(s.length());
                        final int here = Math.min(at, s.length() - 1);
                        final char t = s.charAt(here);
                        s.setCharAt(here, s.charAt(other));
                        s.setCharAt(other, t);
                    }
                }
            }
        }
        return s.toString();
    }

    private static String escape(final String s)
    {
        return s.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t").replace("\u0000", "\\0");
    }
}
