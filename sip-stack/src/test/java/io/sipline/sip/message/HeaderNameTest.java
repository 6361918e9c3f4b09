package io.sipline.sip.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.junit.jupiter.api.Test;

/**
 * {@link HeaderName#lookup(CharSequence)}: every known name is found in its canonical, lower and upper case and by
 * its compact form, as the bytes of a received name are; names that only look alike (other lengths, other letters, a
 * non-ASCII letter that folds to an ASCII one) are {@link HeaderName#UNKNOWN}.
 */
class HeaderNameTest
{
    @Test
    void shouldFindEveryKnownNameInAnyCaseAsTheByteLookupDoes()
    {
        for (final HeaderName h : HeaderName.values())
        {
            if (HeaderName.UNKNOWN == h)
            {
                continue;
            }
            for (final String name : new String[] {h.canonical(), h.canonical().toLowerCase(Locale.ROOT),
                h.canonical().toUpperCase(Locale.ROOT), new StringBuilder(h.canonical()).toString()})
            {
                assertSame(h, HeaderName.lookup(name), name);
                final byte[] b = name.getBytes(StandardCharsets.US_ASCII);
                assertSame(h, HeaderName.lookup(b, 0, b.length), name);
            }
            if (0 != h.compactForm())
            {
                assertSame(h, HeaderName.lookup(String.valueOf(h.compactForm())));
                assertSame(h, HeaderName.lookup(String.valueOf(Character.toUpperCase(h.compactForm()))));
            }
        }
    }

    @Test
    void shouldAnswerUnknownForNamesThatOnlyLookAlike()
    {
        for (final String name : new String[] {"", "X-Call-Ref", "Vias", "Vi", "Call-IDs", "Cal-ID", "Tö",
            "\u017Fubject", "Accept-Languag", "z", "Contact-Extra"})
        {
            assertEquals(HeaderName.UNKNOWN, HeaderName.lookup(name), name);
        }
    }
}
