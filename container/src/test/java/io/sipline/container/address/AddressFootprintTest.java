package io.sipline.container.address;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

/**
 * Bytes per parsed Address (objects an application sees are kept small). Every result is kept
 * in an array, so the figure is what a parse leaves on the heap plus any garbage it makes; the parse makes none
 * beyond the objects it returns, so it is the retained size. Baseline in the same run: keeping the same text as a
 * {@code String} (a copy of its bytes plus the String object), the least any representation that can print the
 * header again must hold.
 */
class AddressFootprintTest
{
    private static final String ADDRESS = "\"Alice\" <sip:alice@atlanta.example.com>;tag=1928301774";
    private static final String URI = "sip:alice@atlanta.example.com";
    private static final int ROUNDS = 10_000;
    private static final int ATTEMPTS = 5;

    /**
     * Expected layout with compressed references (12-byte headers, 8-byte alignment): AddressImpl 40, SipURIImpl 24,
     * its wire byte[29] 48, the String[2] of parameters 24, "Alice" 24 + 24, "1928301774" 24 + 32, name "tag" a
     * shared constant: 240 bytes.
     */
    private static final double ADDRESS_BUDGET = 240;
    /** SipURIImpl 24 + byte[29] 48. */
    private static final double URI_BUDGET = 72;

    @Test
    void shouldKeepAParsedAddressSmall()
    {
        final double address = perParse(() -> SipAddresses.parseAddress(ADDRESS));
        final byte[] bytes = ADDRESS.getBytes(StandardCharsets.ISO_8859_1);
        final double text = perParse(() -> new String(bytes, StandardCharsets.ISO_8859_1));
        System.out.printf("parsed Address %s: %.1f B; the same text as a String: %.1f B (%.2fx)%n",
            ADDRESS, address, text, address / text);
        assertTrue(address <= ADDRESS_BUDGET, "B per parsed address: " + address);
    }

    @Test
    void shouldKeepAParsedUriToItsBytes()
    {
        final double uri = perParse(() -> SipAddresses.parseUri(URI));
        final byte[] bytes = URI.getBytes(StandardCharsets.ISO_8859_1);
        final double text = perParse(() -> new String(bytes, StandardCharsets.ISO_8859_1));
        System.out.printf("parsed SipURI %s: %.1f B; the same text as a String: %.1f B%n", URI, uri, text);
        assertTrue(uri <= URI_BUDGET, "B per parsed URI: " + uri);
    }

    @Test
    void shouldParseAReadOnlyAddressAtOnceWithoutAModifiableOneToCopy() throws Exception
    {
        final double plain = perParse(() -> SipAddresses.parseAddress(ADDRESS));
        final double readOnly = perParse(() -> SipAddresses.parseAddress(ADDRESS,
            AbstractParameterable.Protection.READ_ONLY, "From"));
        System.out.printf("parsed Address: %.1f B; read-only: %.1f B%n", plain, readOnly);
        assertTrue(readOnly <= plain + 1, "a read-only address costs what a parse costs: " + readOnly);
        final Address a = SipAddresses.parseAddress(ADDRESS, AbstractParameterable.Protection.READ_ONLY, "From");
        assertEquals(SipAddresses.parseAddress(ADDRESS), a);
        assertThrows(IllegalStateException.class, () -> a.setDisplayName("Mallory"));
        assertThrows(IllegalStateException.class, () -> ((SipURIImpl)a.getURI()).setUser("mallory"));
        final Address tagged = SipAddresses.parseAddress(ADDRESS, AbstractParameterable.Protection.TAG, "From");
        ((SipURIImpl)tagged.getURI()).setUser("bob"); // From of a request still to be sent: its URI may change
        assertThrows(IllegalStateException.class, () -> tagged.setParameter("tag", "x"));
        assertEquals("Alice <sip:bob@atlanta.example.com>;tag=1928301774", tagged.toString());
    }

    @Test
    void shouldStillBeTheSameAddressAfterManyParses() throws Exception
    {
        final Address address = SipAddresses.parseAddress(ADDRESS);
        assertEquals("Alice <sip:alice@atlanta.example.com>;tag=1928301774", address.toString());
    }

    private static double perParse(final Parse parse)
    {
        final Object[] kept = new Object[ROUNDS];
        final Runnable run = () -> {
            for (int i = 0; i < ROUNDS; i++)
            {
                try
                {
                    kept[i] = parse.run();
                }
                catch (final ServletParseException e)
                {
                    throw new AssertionError(e);
                }
            }
        };
        final long bytes = AllocationMeter.leastBytes(run, run, ATTEMPTS, 0);
        return bytes / (double)ROUNDS;
    }

    @FunctionalInterface
    private interface Parse
    {
        Object run() throws ServletParseException;
    }
}
