package io.sipline.sip.message;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NameAddrFlyweightTest
{
    private final NameAddrFlyweight addr = new NameAddrFlyweight();

    @Test
    void shouldParseQuotedDisplayNameWithEscapes()
    {
        assertValid("\"\\\"Joe\\\" O'Hara\" <sip:joe@x>");
        assertTrue(addr.isNameAddr());
        assertTrue(addr.hasDisplayName());
        assertTrue(addr.isDisplayNameQuoted());
        assertEquals("\"\\\"Joe\\\" O'Hara\"", span(addr.displayNameStart(), addr.displayNameEnd()));
        assertEquals("\"Joe\" O'Hara", addr.displayName());
        assertEquals("sip:joe@x", span(addr.uriStart(), addr.uriEnd()));
        assertTrue(addr.uri().isValid());
        assertEquals("joe", addr.uri().user());
        assertEquals("x", addr.uri().host());
        assertFalse(addr.hasTag());
        assertEquals(-1, addr.tagStart());

        final StringBuilder sb = new StringBuilder("name: ");
        addr.appendDisplayName(sb);
        assertEquals("name: \"Joe\" O'Hara", sb.toString());

        assertValid("\"\" <sip:joe@x>");
        assertEquals("", addr.displayName());
        assertValid("\"Bell, Alexander\" <sip:a.g.bell@example.com>;tag=43");
        assertEquals("Bell, Alexander", addr.displayName());
    }

    @Test
    void shouldParseTokenDisplayNameAndTag()
    {
        assertValid("Alice Smith <sip:alice@atlanta.com>;tag=1928301774");
        assertFalse(addr.isDisplayNameQuoted());
        assertEquals("Alice Smith", span(addr.displayNameStart(), addr.displayNameEnd()));
        assertEquals("Alice Smith", addr.displayName());
        assertEquals("1928301774", span(addr.tagStart(), addr.tagEnd()));
        assertEquals("1928301774", addr.tag());
        assertEquals(1, addr.paramCount());

        assertValid("Bob <sip:bob@biloxi.com>;TAG=a6c85cf");
        assertEquals("Bob", addr.displayName());
        assertEquals("a6c85cf", addr.tag());

        // RFC 4475 §3.1.1.6: no LWS between the display name and '<'
        assertValid("caller<sip:caller@example.com>;tag=323");
        assertEquals("caller", addr.displayName());
        assertEquals("323", addr.tag());

        assertValid("Mr.  Bob\t Jr. <sip:bob@x>");
        assertEquals("Mr. Bob Jr.", addr.displayName());
    }

    @Test
    void shouldTreatParametersAfterABareAddrSpecAsHeaderParameters()
    {
        // RFC 3261 §20.10
        assertValid("sip:bob@x;tag=1");
        assertFalse(addr.isNameAddr());
        assertFalse(addr.hasDisplayName());
        assertNull(addr.displayName());
        assertEquals("sip:bob@x", span(addr.uriStart(), addr.uriEnd()));
        assertEquals(0, addr.uri().paramCount());
        assertEquals("1", addr.tag());

        assertValid("sip:bob@biloxi.com;transport=tcp;tag=abc");
        assertEquals(0, addr.uri().paramCount());
        assertEquals(-1, addr.uri().transportParamStart());
        assertEquals(2, addr.paramCount());
        assertEquals("tcp", addr.paramValue("transport"));
        assertEquals(1, addr.paramIndex(Ascii.lowerBytes("tag")));

        assertValid("<sip:bob@biloxi.com;transport=tcp>;tag=abc");
        assertEquals(1, addr.uri().paramCount());
        assertEquals(1, addr.paramCount());
        assertEquals("abc", addr.tag());

        assertValid("tel:+14085264000;tag=x");
        assertTrue(addr.uri().isTel());
        assertEquals(0, addr.uri().paramCount());
        assertEquals("x", addr.tag());

        assertValid("isbn:2983792873");
        assertEquals(SipUriFlyweight.SCHEME_OTHER, addr.uri().scheme());

        assertInvalid("sip:user@example.com?Route=%3Csip:sip.example.com%3E", NameAddrFlyweight.ERR_ADDR_SPEC);
        assertInvalid("sip:a?b@example.com", NameAddrFlyweight.ERR_ADDR_SPEC);
        assertInvalid("sip:a,b@example.com", NameAddrFlyweight.ERR_ADDR_SPEC);
    }

    @Test
    void shouldRecogniseTheContactWildcard()
    {
        assertValid("*");
        assertTrue(addr.isWildcard());
        assertFalse(addr.uri().isValid());
        assertEquals(-1, addr.uriStart());
        assertValid("  *\t");
        assertTrue(addr.isWildcard());

        assertValid("*bot <sip:bot@x>");
        assertFalse(addr.isWildcard());
        assertEquals("*bot", addr.displayName());
    }

    @Test
    void shouldAllowLinearWhiteSpaceAndFolding()
    {
        // RFC 4475 §3.1.1.1 (wsinv)
        assertValid("\r\n sip:vivekg@chair-dnrc.example.com ;   tag    = 1918181833n");
        assertEquals("sip:vivekg@chair-dnrc.example.com", span(addr.uriStart(), addr.uriEnd()));
        assertEquals("1918181833n", addr.tag());

        assertValid("\"J Rosenberg \\\\\\\"\"       <sip:jdrosen@example.com>\r\n  ;\r\n  tag = 98asjd8");
        assertEquals("J Rosenberg \\\"", addr.displayName());
        assertEquals("98asjd8", addr.tag());

        assertValid("\"Quoted string \\\"\\\"\" <sip:jdrosen@example.com> ; newparam =\r\n      newvalue ;\r\n" +
            "  secondparam ; q = 0.33");
        assertEquals("Quoted string \"\"", addr.displayName());
        assertEquals(3, addr.paramCount());
        assertEquals("newvalue", addr.paramValue("newparam"));
        assertEquals("", addr.paramValue("secondparam"));
        assertFalse(addr.paramHasValue(1));
        assertEquals(330, addr.qMillis());

        assertValid("\"J\u00f6hn\r\n Doe\" <sip:j@x>");
        assertEquals("J\u00f6hn Doe", addr.displayName());

        assertValid("Alice\r\n\t<sip:alice@x> \r\n ");
        assertEquals("Alice", addr.displayName());

        assertInvalid("<sip:alice@x>\r\n;tag=1", NameAddrFlyweight.ERR_AFTER_URI); // CRLF without WSP is no fold
        assertInvalid("\"a\rb\" <sip:a@b>", NameAddrFlyweight.ERR_QUOTED);
        assertInvalid("\"a\\\r\n b\" <sip:a@b>", NameAddrFlyweight.ERR_QUOTED);
    }

    @Test
    void shouldLocateContactParameters()
    {
        assertValid("<sip:alice@pc33.atlanta.com>;expires=3600;q=0.7;+sip.instance=\"<urn:uuid:1>\"");
        assertEquals(3600, addr.expires());
        assertEquals(700, addr.qMillis());
        assertEquals(0, addr.expiresIndex());
        assertEquals("\"<urn:uuid:1>\"", addr.paramValue("+sip.instance"));

        assertQ("1", 1000);
        assertQ("1.0", 1000);
        assertQ("1.000", 1000);
        assertQ("0", 0);
        assertQ("0.", 0);
        assertQ("0.123", 123);
        assertQ("0.05", 50);
        assertQ("1.5", -1);
        assertQ("0.1234", -1);
        assertQ("2", -1);
        assertQ("abc", -1);

        assertValid("<sip:a@b>;expires=280297596632815");
        assertEquals(0xFFFFFFFFL, addr.expires());
        assertValid("<sip:a@b>;expires=99999999999999999999999");
        assertEquals(0xFFFFFFFFL, addr.expires());
        assertValid("<sip:a@b>;expires=soon");
        assertEquals(-1, addr.expires());
        assertValid("<sip:a@b>");
        assertEquals(-1, addr.expires());
        assertEquals(-1, addr.qMillis());
    }

    @Test
    void shouldParseRouteAndIpv6Values()
    {
        assertValid("<sip:p1.example.com;lr>");
        assertTrue(addr.isNameAddr());
        assertTrue(addr.uri().hasLr());

        assertValid("<sip:[2001:db8::10]:5070;maddr=[2001:db8::1]>;received=[2001:db8::9:255];x=host.example.com");
        assertEquals(SipUriFlyweight.HOST_IPV6, addr.uri().hostType());
        assertEquals(5070, addr.uri().port());
        assertEquals("[2001:db8::9:255]", addr.paramValue("received"));

        // P-Asserted-Identity (RFC 3325 §9.1)
        assertValid("\"Cullen Jennings\" <sip:fluffy@cisco.com>");
        assertEquals("Cullen Jennings", addr.displayName());
        assertValid("<tel:+14085264000>");
        assertTrue(addr.uri().isTel());
        assertTrue(addr.uri().isGlobalNumber());
    }

    @Test
    void shouldRejectMalformedValuesWithoutThrowing()
    {
        assertInvalid("<sip:alice@x", NameAddrFlyweight.ERR_RAQUOT);
        assertInvalid("Alice <sip:alice@x", NameAddrFlyweight.ERR_RAQUOT);
        assertInvalid("\"unterminated <sip:a@b>", NameAddrFlyweight.ERR_QUOTED);
        assertInvalid("\"Alice\" sip:alice@x", NameAddrFlyweight.ERR_LAQUOT);
        assertInvalid("Alice", NameAddrFlyweight.ERR_LAQUOT);
        assertInvalid("Alice Smith", NameAddrFlyweight.ERR_LAQUOT);
        assertInvalid("Bob sip:bob@x", NameAddrFlyweight.ERR_DISPLAY);
        assertInvalid("Bob\"x\" <sip:bob@x>", NameAddrFlyweight.ERR_DISPLAY);
        assertInvalid(";tag=1", NameAddrFlyweight.ERR_DISPLAY);
        assertInvalid("J\u00f6hn <sip:j@x>", NameAddrFlyweight.ERR_DISPLAY);
        assertInvalid("", NameAddrFlyweight.ERR_EMPTY);
        assertInvalid(" \t ", NameAddrFlyweight.ERR_EMPTY);
        assertInvalid("<sip:a@b> junk", NameAddrFlyweight.ERR_AFTER_URI);
        assertInvalid("<sip:a@b>x", NameAddrFlyweight.ERR_AFTER_URI);
        assertInvalid("<sip:a@b>;", NameAddrFlyweight.ERR_PARAM_NAME);
        assertInvalid("<sip:a@b>;=1", NameAddrFlyweight.ERR_PARAM_NAME);
        assertInvalid("<sip:a@b>;p=", NameAddrFlyweight.ERR_PARAM_VALUE);
        assertInvalid("<sip:a@b>;p=\"open", NameAddrFlyweight.ERR_PARAM_VALUE);
        assertInvalid("<sip:a@b>;x=[::1", NameAddrFlyweight.ERR_PARAM_VALUE);
        assertInvalid("<sip:a@b>;x=[zz]", NameAddrFlyweight.ERR_PARAM_VALUE);
        assertInvalid("<sip:a@b>\u0000", NameAddrFlyweight.ERR_AFTER_URI);
        assertInvalid("<sip:a@b>;tag=\"x\"", NameAddrFlyweight.ERR_TAG);
        assertInvalid("<sip:a@b>;tag", NameAddrFlyweight.ERR_TAG);
        assertInvalid("<sip:a@b>;tag=1;TAG=2", NameAddrFlyweight.ERR_DUPLICATE_TAG);

        // URI errors come through with the URI's reason and offset
        assertInvalid("Alice <sip:alice@[2001:db8::1>", SipUriFlyweight.ERR_IPV6_UNTERMINATED);
        assertEquals(17, addr.errorOffset());
        assertInvalid("\"Watson, Thomas\" < sip:t.watson@example.org >", SipUriFlyweight.ERR_SCHEME); // 4475 §3.1.2.14
        assertInvalid("<sip:alice@atlanta.com:70000>", SipUriFlyweight.ERR_PORT);
        assertInvalid("<sip:alice@>", SipUriFlyweight.ERR_EMPTY_HOST);
        assertInvalid("<>", SipUriFlyweight.ERR_SCHEME);
        assertInvalid("sip:alice@", SipUriFlyweight.ERR_EMPTY_HOST);

        final byte[] b = bytes("<sip:a@b>");
        assertFalse(addr.wrap(b, 2, 1));
        assertEquals(NameAddrFlyweight.ERR_BOUNDS, addr.errorReason());
        assertFalse(addr.wrap(null, 0, 0));
    }

    @Test
    void shouldFailCleanlyBeyondTheParameterLimit()
    {
        final StringBuilder sb = new StringBuilder("<sip:a@b>");
        for (int i = 0; i < NameAddrFlyweight.DEFAULT_MAX_PARAMS; i++)
        {
            sb.append(";p").append(i);
        }
        assertValid(sb.toString());
        assertEquals(NameAddrFlyweight.DEFAULT_MAX_PARAMS, addr.paramCount());
        assertInvalid(sb + ";tag=1", NameAddrFlyweight.ERR_TOO_MANY_PARAMS);
    }

    @Test
    void shouldForgetEverythingBetweenWraps()
    {
        assertValid("\"A\" <sip:a@b;lr>;tag=1;expires=5;q=0.5");
        assertInvalid("<sip:a@b", NameAddrFlyweight.ERR_RAQUOT);
        assertFalse(addr.uri().isValid());
        assertValid("sip:c@d");
        assertFalse(addr.hasDisplayName());
        assertFalse(addr.hasTag());
        assertFalse(addr.isNameAddr());
        assertFalse(addr.uri().hasLr());
        assertEquals(-1, addr.expires());
        assertEquals(-1, addr.qMillis());
        assertEquals(0, addr.paramCount());
        assertNull(addr.errorReason());
        assertSame(addr.uri(), addr.uri());
        assertEquals("sip:c@d", addr.toString());
    }

    @Test
    void shouldNeverThrowOnMutatedInput()
    {
        final String[] seeds = {
            "\"\\\"Joe\\\" O'Hara\" <sip:joe@[2001:db8::1]:5060;lr>;tag=abc;q=0.5;x=\"y\"",
            "Alice Smith\r\n <sip:alice@atlanta.com>;tag=1928301774;received=[::1]",
            "sip:bob@x;tag=1",
        };
        final Random random = new Random(7);
        for (final String seed : seeds)
        {
            final byte[] original = bytes(seed);
            for (int n = 0; n < 20_000; n++)
            {
                final byte[] b = original.clone();
                final int edits = 1 + random.nextInt(4);
                for (int k = 0; k < edits; k++)
                {
                    b[random.nextInt(b.length)] = (byte)random.nextInt(256);
                }
                final int s = random.nextInt(b.length);
                final int e = s + random.nextInt(b.length - s + 1);
                if (addr.wrap(b, s, e))
                {
                    addr.displayName();
                    addr.expires();
                    addr.qMillis();
                }
                else
                {
                    assertNotNull(addr.errorReason());
                }
            }
        }
    }

    @Test
    void shouldNotAllocateWhenWrapping()
    {
        final String[] samples = {
            "\"\\\"Joe\\\" O'Hara\" <sip:joe@x>",
            "Alice Smith <sip:alice@atlanta.com>;tag=1928301774",
            "sip:bob@biloxi.com;tag=a6c85cf",
            "<sip:alice@pc33.atlanta.com;transport=tcp>;expires=3600;q=0.7;+sip.instance=\"<urn:uuid:1>\"",
            "<sip:[2001:db8::10]:5070;lr>;received=[2001:db8::9:255]",
            "*",
            "\r\n sip:vivekg@chair-dnrc.example.com ;   tag    = 1918181833n",
            "<tel:+14085264000>",
            "<sip:p1.example.com;lr>;a;b;c;d;e;f;g;h;i;j",
        };
        final int[] offsets = new int[samples.length + 1];
        final StringBuilder all = new StringBuilder();
        for (int i = 0; i < samples.length; i++)
        {
            offsets[i] = all.length();
            all.append(samples[i]);
        }
        offsets[samples.length] = all.length();
        final byte[] buf = bytes(all.toString());
        final byte[] tag = Ascii.lowerBytes("tag");

        final long[] sink = {0};
        final long allocated = AllocationMeter.leastBytes(
            () ->
            {
                for (int n = 0; n < 50_000; n++)
                {
                    final int i = n % samples.length;
                    sink[0] += addr.wrap(buf, offsets[i], offsets[i + 1]) ? addr.tagEnd() + addr.paramIndex(tag) : 1;
                }
            },
            () ->
            {
                for (int n = 0; n < 10_000; n++)
                {
                    final int i = n % samples.length;
                    sink[0] += addr.wrap(buf, offsets[i], offsets[i + 1]) ? addr.tagEnd() + addr.paramIndex(tag) : 1;
                    sink[0] += addr.expires() + addr.qMillis() + addr.uri().port();
                }
            },
            5, 1023);
        assertTrue(allocated < 1024, "allocated " + allocated + " bytes over 10,000 wraps");
        assertTrue(sink[0] != 0);
    }

    private void assertQ(final String q, final int expected)
    {
        assertValid("<sip:a@b>;q=" + q);
        assertEquals(expected, addr.qMillis(), q);
    }

    private void assertValid(final String text)
    {
        final byte[] b = bytes(text);
        assertTrue(addr.wrap(b, 0, b.length), () -> text + ": " + addr.errorReason() + " at " + addr.errorOffset());
        assertTrue(addr.isValid());
        assertNull(addr.errorReason());
    }

    private void assertInvalid(final String text, final String reason)
    {
        final byte[] b = bytes(text);
        assertFalse(addr.wrap(b, 0, b.length), text);
        assertFalse(addr.isValid());
        assertEquals(reason, addr.errorReason(), text);
        assertTrue(addr.errorOffset() >= 0 && addr.errorOffset() <= b.length, text);
    }

    private String span(final int start, final int end)
    {
        return start < 0 ? null : Ascii.string(addr.buffer(), start, end);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
