package io.sipline.sip.message;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SipUriFlyweightTest
{
    private final SipUriFlyweight uri = new SipUriFlyweight();

    @Test
    void shouldParseRfc3261ExampleUris()
    {
        // RFC 3261 §19.1.3
        assertValid("sip:alice@atlanta.com");
        assertEquals(SipUriFlyweight.SCHEME_SIP, uri.scheme());
        assertEquals("alice", uri.user());
        assertEquals("atlanta.com", uri.host());
        assertEquals(SipUriFlyweight.HOST_NAME, uri.hostType());
        assertEquals(-1, uri.port());
        assertFalse(uri.hasPassword());
        assertEquals(0, uri.paramCount());
        assertEquals(0, uri.headerCount());

        assertValid("sip:alice:secretword@atlanta.com;transport=tcp");
        assertEquals("alice", uri.user());
        assertEquals("secretword", uri.password());
        assertEquals("tcp", span(uri.transportParamStart(), uri.transportParamEnd()));

        assertValid("sips:alice@atlanta.com?subject=project%20x&priority=urgent");
        assertTrue(uri.isSips());
        assertTrue(uri.isSip());
        assertEquals(2, uri.headerCount());
        assertEquals("subject", span(uri.headerNameStart(0), uri.headerNameEnd(0)));
        assertEquals("project%20x", span(uri.headerValueStart(0), uri.headerValueEnd(0)));
        assertEquals(1, uri.headerIndex("Priority"));
        assertEquals("urgent", span(uri.headerValueStart(1), uri.headerValueEnd(1)));

        assertValid("sip:+1-212-555-1212:1234@gateway.com;user=phone");
        assertEquals("+1-212-555-1212", uri.user());
        assertEquals("1234", uri.password());
        assertTrue(uri.isUserPhone());

        assertValid("sips:1212@gateway.com");
        assertEquals("1212", uri.user());

        assertValid("sip:alice@192.0.2.4");
        assertEquals(SipUriFlyweight.HOST_IPV4, uri.hostType());
        assertEquals("192.0.2.4", uri.host());

        assertValid("sip:atlanta.com;method=REGISTER?to=alice%40atlanta.com");
        assertFalse(uri.hasUser());
        assertEquals("atlanta.com", uri.host());
        assertEquals("REGISTER", span(uri.methodParamStart(), uri.methodParamEnd()));
        assertEquals("alice%40atlanta.com", span(uri.headerValueStart(0), uri.headerValueEnd(0)));

        // "The last sample URI above has a user field value of alice;day=tuesday"
        assertValid("sip:alice;day=tuesday@atlanta.com");
        assertEquals("alice;day=tuesday", uri.user());
        assertEquals(0, uri.paramCount());
    }

    @Test
    void shouldParseIpv6References()
    {
        // RFC 5118 §4
        assertValid("sip:[2001:db8::10]:5070");
        assertEquals(SipUriFlyweight.HOST_IPV6, uri.hostType());
        assertEquals("[2001:db8::10]", uri.host());
        assertEquals(5070, uri.port());

        assertValid("sip:[2001:db8::10]");
        assertEquals("[2001:db8::10]", uri.host());
        assertEquals(-1, uri.port());

        // RFC 5118 §4.10: a "port" inside the brackets is part of the address
        assertValid("sip:user@[2001:db8::10:5070]");
        assertEquals("[2001:db8::10:5070]", uri.host());
        assertEquals(-1, uri.port());

        assertValid("sip:alice@atlanta.com;maddr=[2001:db8::10]");
        assertEquals("[2001:db8::10]", span(uri.maddrParamStart(), uri.maddrParamEnd()));

        assertValid("sip:[2001:db8::192.0.2.1]");
        assertValid("sip:[::ffff:192.0.2.1]:5060;transport=udp");
        assertValid("sip:[::1]");
        assertValid("sip:[::]");
        assertValid("sip:[1::]");
        assertValid("sip:[2001:DB8:0:0:8:800:200C:417A]");
        assertValid("sip:[1:2:3:4:5:6:7::]");

        // RFC 5118 §4.10: the RFC 3261 ABNF admits three colons before an embedded IPv4 address; "following the
        // Robustness Principle, an implementation must tolerate both" forms.
        assertValid("sip:[2001:db8:::192.0.2.1]");
        assertInvalid("sip:[2001:db8:::1]", SipUriFlyweight.ERR_IPV6);
        assertInvalid("sip:user@2001:db8::10", SipUriFlyweight.ERR_HOST); // not in brackets
        assertInvalid("sip:[2001:db8::10", SipUriFlyweight.ERR_IPV6_UNTERMINATED);
        assertInvalid("sip:[1:2:3:4:5:6:7:8:9]", SipUriFlyweight.ERR_IPV6);
        assertInvalid("sip:[1:2:3:4:5:6:7]", SipUriFlyweight.ERR_IPV6);
        assertInvalid("sip:[1::2:3:4:5:6:7:8]", SipUriFlyweight.ERR_IPV6);
        assertInvalid("sip:[12345::1]", SipUriFlyweight.ERR_IPV6);
        assertInvalid("sip:[1::2::3]", SipUriFlyweight.ERR_IPV6);
        assertInvalid("sip:[2001:db8::256.0.0.1]", SipUriFlyweight.ERR_IPV6);
        assertInvalid("sip:[:1::2]", SipUriFlyweight.ERR_IPV6);
        assertInvalid("sip:[1::2:]", SipUriFlyweight.ERR_IPV6);
        assertInvalid("sip:[]", SipUriFlyweight.ERR_IPV6);
        assertInvalid("sip:[2001:db8::g]", SipUriFlyweight.ERR_IPV6);
        assertInvalid("sip:alice@atlanta.com;maddr=[2001:db8::10", SipUriFlyweight.ERR_MADDR);
    }

    @Test
    void shouldParseTelUris()
    {
        // RFC 3966 §6
        assertValid("tel:+1-201-555-0123");
        assertTrue(uri.isTel());
        assertFalse(uri.isSip());
        assertTrue(uri.isGlobalNumber());
        assertEquals("+1-201-555-0123", uri.user());
        assertEquals(SipUriFlyweight.HOST_NONE, uri.hostType());

        assertValid("tel:7042;phone-context=example.com");
        assertFalse(uri.isGlobalNumber());
        assertEquals("7042", uri.user());
        assertEquals("example.com", span(uri.phoneContextStart(), uri.phoneContextEnd()));

        assertValid("tel:863-1234;phone-context=+1-914-555");
        assertEquals("+1-914-555", span(uri.phoneContextStart(), uri.phoneContextEnd()));

        assertValid("tel:+1-201-555-0123;ext=1234;isub=abc%20d/e;foo=bar;flag");
        assertEquals("1234", span(uri.extensionStart(), uri.extensionEnd()));
        assertEquals("abc%20d/e", span(uri.isubStart(), uri.isubEnd()));
        assertEquals(4, uri.paramCount());
        assertEquals("bar", uri.paramValue("FOO"));
        assertFalse(uri.paramHasValue(3));

        assertValid("tel:*21#;phone-context=example.com");
        assertValid("tel:+358-555-1234567;postd=pp22");

        assertInvalid("tel:1234", SipUriFlyweight.ERR_TEL_CONTEXT);
        assertInvalid("tel:+", SipUriFlyweight.ERR_TEL_NUMBER);
        assertInvalid("tel:+--", SipUriFlyweight.ERR_TEL_NUMBER);
        assertInvalid("tel:", SipUriFlyweight.ERR_TEL_NUMBER);
        assertInvalid("tel:+1-201;ext=abc", SipUriFlyweight.ERR_TEL_PARAM);
        assertInvalid("tel:+1-201;phone-context=", SipUriFlyweight.ERR_TEL_PARAM);
        assertInvalid("tel:1234;phone-context=ex_ample.com", SipUriFlyweight.ERR_TEL_PARAM);
        assertInvalid("tel:+1-201;", SipUriFlyweight.ERR_TEL_PARAM);
        assertInvalid("tel:+1 201", SipUriFlyweight.ERR_CHAR);
    }

    @Test
    void shouldKeepOtherSchemesOpaque()
    {
        assertValid("urn:service:sos");
        assertEquals(SipUriFlyweight.SCHEME_OTHER, uri.scheme());
        assertFalse(uri.isSip());
        assertFalse(uri.isTel());
        assertEquals("urn", span(uri.schemeStart(), uri.schemeEnd()));
        assertEquals("service:sos", span(uri.opaqueStart(), uri.opaqueEnd()));
        assertEquals(SipUriFlyweight.HOST_NONE, uri.hostType());
        assertEquals(-1, uri.port());

        assertValid("mailto:alice@example.com");
        assertValid("http://example.com/a;b?c=d&e");
        assertValid("nobodyKnowsThisScheme:totallyopaquecontent"); // RFC 4475 §3.1.1.9-ish opaque schemes
        assertValid("soap.beep://192.0.2.103:3002");
        assertValid("isbn:2983792873");
        assertValid("SIP:ALICE@AtLanTa.CoM");
        assertEquals(SipUriFlyweight.SCHEME_SIP, uri.scheme());

        assertInvalid("foo:", SipUriFlyweight.ERR_OPAQUE);
        assertInvalid("1abc:x", SipUriFlyweight.ERR_SCHEME);
        assertInvalid("noscheme", SipUriFlyweight.ERR_SCHEME);
        assertInvalid("", SipUriFlyweight.ERR_SCHEME);
        assertInvalid("http://example.com/a b", SipUriFlyweight.ERR_CHAR);
        assertInvalid("http://example.com/#frag", SipUriFlyweight.ERR_CHAR);
        assertInvalid("http://example.com/%zz", SipUriFlyweight.ERR_ESCAPE);
    }

    @Test
    void shouldKeepEscapesInUserAndAcceptTheFullUserAlphabet()
    {
        assertValid("sip:%61lice@atlanta.com;transport=TCP");
        assertEquals("%61lice", uri.user());
        assertEquals("TCP", span(uri.transportParamStart(), uri.transportParamEnd()));

        // RFC 4475 §3.1.1.3 (esc01), §3.1.1.4 (escnull), §3.1.1.9 (semiuri), §3.1.1.1 (wsinv)
        assertValid("sip:sips%3Auser%40example.com@example.net");
        assertEquals("sips%3Auser%40example.com", uri.user());
        assertEquals("example.net", uri.host());
        assertValid("sip:null-%00-null@example.com");
        assertValid("sip:user;par=u%40example.net@example.com");
        assertEquals("user;par=u%40example.net", uri.user());
        assertValid("sip:1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*@example.com");
        assertEquals("1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*", uri.user());
        assertValid("sip:the_user:-_.!~*'()&=+$,@some.host.com:5555;transport=tcp");
        assertEquals("-_.!~*'()&=+$,", uri.password());
        assertValid("sip:alice:@atlanta.com");
        assertTrue(uri.hasPassword());
        assertEquals("", uri.password());

        assertInvalid("sip:%6@atlanta.com", SipUriFlyweight.ERR_ESCAPE);
        assertInvalid("sip:%zzlice@atlanta.com", SipUriFlyweight.ERR_ESCAPE);
        assertInvalid("sip:al%@atlanta.com", SipUriFlyweight.ERR_ESCAPE);
        assertInvalid("sip:al ice@atlanta.com", SipUriFlyweight.ERR_USER);
        assertInvalid("sip:al#ice@atlanta.com", SipUriFlyweight.ERR_USER);
        assertInvalid("sip:alice:se:cret@atlanta.com", SipUriFlyweight.ERR_PASSWORD);
        assertInvalid("sip:alic\u00e9@atlanta.com", SipUriFlyweight.ERR_USER);
    }

    @Test
    void shouldLocateWellKnownAndGenericParameters()
    {
        assertValid("sip:h.example.com:5080;transport=TCP;user=ip;method=INVITE;ttl=15;maddr=239.255.255.1;lr;" +
            "foo=bar;baz;x=[a]:/&+$");
        assertEquals(5080, uri.port());
        assertEquals(9, uri.paramCount());
        assertEquals(0, uri.transportIndex());
        assertEquals(1, uri.userParamIndex());
        assertEquals(2, uri.methodIndex());
        assertEquals(3, uri.ttlIndex());
        assertEquals(4, uri.maddrIndex());
        assertEquals("TCP", span(uri.transportParamStart(), uri.transportParamEnd()));
        assertEquals("ip", span(uri.userParamStart(), uri.userParamEnd()));
        assertFalse(uri.isUserPhone());
        assertEquals("INVITE", span(uri.methodParamStart(), uri.methodParamEnd()));
        assertEquals(15, uri.ttl());
        assertEquals("239.255.255.1", span(uri.maddrParamStart(), uri.maddrParamEnd()));
        assertTrue(uri.hasLr());
        assertFalse(uri.paramHasValue(5));
        assertEquals(-1, uri.paramValueStart(5));
        assertEquals(6, uri.paramIndex("FOO"));
        assertEquals(6, uri.paramIndex(Ascii.lowerBytes("foo")));
        assertEquals("bar", uri.paramValue("foo"));
        assertEquals("", uri.paramValue("baz"));
        assertNull(uri.paramValue("nope"));
        assertEquals(-1, uri.paramIndex("nope"));
        assertEquals("[a]:/&+$", uri.paramValue("x"));
        assertEquals("sip:h.example.com:5080".length(), uri.hostPortEnd());
        assertEquals(uri.end(), uri.headersStart());

        // lr written with a value (lr=on) is still loose routing; names ignore case
        assertValid("sip:p1.example.com;LR=on");
        assertTrue(uri.hasLr());
        assertValid("sip:p1.example.com;TRANSPORT=tls;TTL=0");
        assertEquals("tls", span(uri.transportParamStart(), uri.transportParamEnd()));
        assertEquals(0, uri.ttl());

        assertInvalid("sip:host;=x", SipUriFlyweight.ERR_PARAM_NAME);
        assertInvalid("sip:host;", SipUriFlyweight.ERR_PARAM_NAME);
        assertInvalid("sip:host;a=", SipUriFlyweight.ERR_PARAM_VALUE);
        assertInvalid("sip:host;ttl=256", SipUriFlyweight.ERR_TTL);
        assertInvalid("sip:host;ttl=0015", SipUriFlyweight.ERR_TTL);
        assertInvalid("sip:host;ttl", SipUriFlyweight.ERR_TTL);
        assertInvalid("sip:host;maddr=a_b", SipUriFlyweight.ERR_MADDR);
        assertInvalid("sip:host;transport=[x]", SipUriFlyweight.ERR_PARAM_TOKEN);
        assertInvalid("sip:host;transport", SipUriFlyweight.ERR_PARAM_TOKEN);
        assertInvalid("sip:user@example.com; lr", SipUriFlyweight.ERR_PARAM_NAME); // RFC 4475 §3.1.2.8
        assertInvalid("sip:host?", SipUriFlyweight.ERR_HEADER_NAME);
        assertInvalid("sip:host?a", SipUriFlyweight.ERR_HEADER_EQUALS);
        assertInvalid("sip:host?a=1&", SipUriFlyweight.ERR_HEADER_NAME);
    }

    @Test
    void shouldParseHeadersWithEmptyValues()
    {
        assertValid("sip:user@example.com?Route=%3Csip:example.com%3E&body=&Subject=a?b");
        assertEquals(3, uri.headerCount());
        assertEquals("%3Csip:example.com%3E", span(uri.headerValueStart(0), uri.headerValueEnd(0)));
        assertEquals(uri.headerValueStart(1), uri.headerValueEnd(1));
        assertEquals("a?b", span(uri.headerValueStart(2), uri.headerValueEnd(2)));
        assertEquals("sip:user@example.com".length(), uri.headersStart());
    }

    @Test
    void shouldReturnAbsoluteSpansInsideALargerBuffer()
    {
        final byte[] buf = bytes("To: <sip:bob:pw@biloxi.com:5060;lr?x=y>;tag=1");
        final int start = 5;
        final int end = buf.length - ";tag=1".length() - 1;
        assertTrue(uri.wrap(buf, start, end), uri.errorReason());
        assertEquals(start, uri.schemeStart());
        assertEquals(8, uri.schemeEnd());
        assertEquals(9, uri.userStart());
        assertEquals(12, uri.userEnd());
        assertEquals(13, uri.passwordStart());
        assertEquals(15, uri.passwordEnd());
        assertEquals(16, uri.hostStart());
        assertEquals(26, uri.hostEnd());
        assertEquals(5060, uri.port());
        assertTrue(uri.hasLr());
        assertEquals("sip:bob:pw@biloxi.com:5060;lr?x=y", uri.toString());
        assertEquals(buf, uri.buffer());
        assertEquals(start, uri.start());
        assertEquals(end, uri.end());
    }

    @Test
    void shouldRejectMalformedHostsPortsAndCharacters()
    {
        assertInvalid("sip:alice@", SipUriFlyweight.ERR_EMPTY_HOST);
        assertInvalid("sip:", SipUriFlyweight.ERR_EMPTY_HOST);
        assertInvalid("sip:;lr", SipUriFlyweight.ERR_EMPTY_HOST);
        assertInvalid("sip:@atlanta.com", SipUriFlyweight.ERR_EMPTY_USER);
        assertInvalid("sip::pw@atlanta.com", SipUriFlyweight.ERR_EMPTY_USER);
        assertInvalid("sip:atlanta.com:65536", SipUriFlyweight.ERR_PORT);
        assertInvalid("sip:atlanta.com:99999999999999999999999", SipUriFlyweight.ERR_PORT);
        assertInvalid("sip:atlanta.com:", SipUriFlyweight.ERR_PORT);
        assertInvalid("sip:atlanta.com:50a", SipUriFlyweight.ERR_CHAR);
        assertInvalid("sip:alice@atlanta.com name", SipUriFlyweight.ERR_CHAR);
        assertInvalid("sip:alice@atlanta.com\u0001", SipUriFlyweight.ERR_CHAR);
        assertInvalid("sip:alice@atlanta.com\r\n", SipUriFlyweight.ERR_CHAR);
        assertInvalid("sip:alice@atl\u0000anta.com", SipUriFlyweight.ERR_CHAR);
        assertInvalid("sip:alice@atlanta.com>", SipUriFlyweight.ERR_CHAR);
        assertInvalid("sip:alice@-atlanta.com", SipUriFlyweight.ERR_HOST);
        assertInvalid("sip:alice@atlanta-.com", SipUriFlyweight.ERR_HOST);
        assertInvalid("sip:alice@atlanta..com", SipUriFlyweight.ERR_HOST);
        assertInvalid("sip:alice@atlanta.123", SipUriFlyweight.ERR_HOST);
        assertInvalid("sip:alice@1.2.3.256", SipUriFlyweight.ERR_HOST);
        assertInvalid("sip:alice@1.2.3", SipUriFlyweight.ERR_HOST);
        assertInvalid("sip:alice@.", SipUriFlyweight.ERR_HOST);
        assertInvalid("sip:alice@host_name.com", SipUriFlyweight.ERR_CHAR);
        assertInvalid("<sip:alice@atlanta.com>", SipUriFlyweight.ERR_SCHEME);
        assertInvalid(" sip:alice@atlanta.com", SipUriFlyweight.ERR_SCHEME);

        assertValid("sip:alice@atlanta.com.");
        assertValid("sip:alice@a");
        assertValid("sip:alice@0.0.0.0:0");
        assertEquals(0, uri.port());
        assertValid("sip:alice@atlanta.com:65535");
        assertEquals(65535, uri.port());
        assertValid("sip:alice@x1-2.example.com");
    }

    @Test
    void shouldRejectBadSpansWithoutThrowing()
    {
        final byte[] buf = bytes("sip:alice@atlanta.com");
        assertFalse(uri.wrap(null, 0, 0));
        assertEquals(SipUriFlyweight.ERR_BOUNDS, uri.errorReason());
        assertFalse(uri.wrap(buf, -1, 3));
        assertFalse(uri.wrap(buf, 0, buf.length + 1));
        assertFalse(uri.wrap(buf, 4, 3));
        assertEquals(SipUriFlyweight.ERR_BOUNDS, uri.errorReason());
        assertFalse(uri.isValid());
        assertEquals(SipUriFlyweight.SCHEME_NONE, uri.scheme());
    }

    @Test
    void shouldFailCleanlyBeyondTheParameterAndHeaderLimits()
    {
        final StringBuilder sb = new StringBuilder("sip:host");
        for (int i = 0; i < SipUriFlyweight.DEFAULT_MAX_PARAMS; i++)
        {
            sb.append(";p").append(i).append('=').append(i);
        }
        assertValid(sb.toString());
        assertEquals(SipUriFlyweight.DEFAULT_MAX_PARAMS, uri.paramCount());
        assertEquals("31", uri.paramValue("p31"));
        assertInvalid(sb + ";one-more", SipUriFlyweight.ERR_TOO_MANY_PARAMS);

        final StringBuilder hb = new StringBuilder("sip:host?");
        for (int i = 0; i < SipUriFlyweight.DEFAULT_MAX_HEADERS; i++)
        {
            hb.append(i == 0 ? "" : "&").append('h').append(i).append('=').append(i);
        }
        assertValid(hb.toString());
        assertEquals(SipUriFlyweight.DEFAULT_MAX_HEADERS, uri.headerCount());
        assertInvalid(hb + "&x=y", SipUriFlyweight.ERR_TOO_MANY_HEADERS);

        final SipUriFlyweight small = new SipUriFlyweight(2, 1);
        final byte[] ok = bytes("sip:h;a;b?x=1");
        assertTrue(small.wrap(ok, 0, ok.length));
        final byte[] tooMany = bytes("sip:h;a;b;c");
        assertFalse(small.wrap(tooMany, 0, tooMany.length));
        assertEquals(SipUriFlyweight.ERR_TOO_MANY_PARAMS, small.errorReason());
        final byte[] tooManyHeaders = bytes("sip:h?x=1&y=2");
        assertFalse(small.wrap(tooManyHeaders, 0, tooManyHeaders.length));
        assertEquals(SipUriFlyweight.ERR_TOO_MANY_HEADERS, small.errorReason());
    }

    @Test
    void shouldForgetEverythingBetweenWraps()
    {
        assertValid("sip:alice:pw@[::1]:5060;lr;transport=tcp;ttl=3?a=b");
        assertInvalid("sip:bob@host;ttl=999", SipUriFlyweight.ERR_TTL);
        assertValid("sip:bob@host");
        assertFalse(uri.hasLr());
        assertFalse(uri.hasPassword());
        assertEquals(-1, uri.port());
        assertEquals(-1, uri.ttl());
        assertEquals(-1, uri.transportParamStart());
        assertEquals(0, uri.paramCount());
        assertEquals(0, uri.headerCount());
        assertEquals(SipUriFlyweight.HOST_NAME, uri.hostType());
        assertNull(uri.errorReason());
        assertEquals(-1, uri.errorOffset());
        uri.reset();
        assertFalse(uri.isValid());
        assertEquals("", uri.toString());
    }

    @Test
    void shouldClassifyHostsStatically()
    {
        assertEquals(SipUriFlyweight.HOST_NAME, hostType("example.com"));
        assertEquals(SipUriFlyweight.HOST_IPV4, hostType("192.0.2.1"));
        assertEquals(SipUriFlyweight.HOST_IPV6, hostType("[2001:db8::1]"));
        assertEquals(SipUriFlyweight.HOST_NONE, hostType("2001:db8::1"));
        assertEquals(SipUriFlyweight.HOST_NONE, hostType("[2001:db8::1"));
        assertEquals(SipUriFlyweight.HOST_NONE, hostType(""));
        assertEquals(SipUriFlyweight.HOST_NONE, hostType("a b"));
        final byte[] v4 = bytes("192.0.2.1");
        assertEquals(0xC0000201L, SipUriFlyweight.ipv4Value(v4, 0, v4.length));
    }

    @Test
    void shouldNeverThrowOnMutatedInput()
    {
        final String[] seeds = {
            "sip:alice:pw@[2001:db8::10]:5070;transport=tcp;maddr=[::1];ttl=5;lr?a=b&c=%20",
            "tel:+1-201-555-0123;ext=12;isub=x;phone-context=+1-914",
            "sips:1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*@example.com",
            "urn:service:sos",
        };
        final Random random = new Random(42);
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
                final boolean ok = uri.wrap(b, s, e);
                if (!ok)
                {
                    assertNotNull(uri.errorReason());
                    assertTrue(uri.errorOffset() >= s && uri.errorOffset() <= e);
                }
            }
        }
    }

    @Test
    void shouldNotAllocateWhenWrapping()
    {
        final String[] samples = {
            "sip:alice@atlanta.com",
            "sip:alice:secretword@atlanta.com;transport=tcp",
            "sips:alice@atlanta.com?subject=project%20x&priority=urgent",
            "sip:+1-212-555-1212:1234@gateway.com;user=phone",
            "sip:[2001:db8::10]:5070;maddr=[2001:db8::1];lr",
            "sip:h;a=1;b=2;c=3;d=4;e=5;f=6;g=7;h=8;i=9;j=10;k=11;l=12?x=1&y=2&z=3&w=4&v=5",
            "tel:863-1234;phone-context=+1-914-555;ext=22",
            "urn:service:sos",
            "sip:alice@atlanta.com;ttl=300",
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

        final int[] sink = {0};
        final byte[] lr = Ascii.lowerBytes("lr");
        final long allocated = AllocationMeter.leastBytes(
            () ->
            {
                for (int n = 0; n < 50_000; n++)
                {
                    final int i = n % samples.length;
                    sink[0] += uri.wrap(buf, offsets[i], offsets[i + 1]) ? uri.paramCount() + uri.port() : 1;
                }
            },
            () ->
            {
                for (int n = 0; n < 10_000; n++)
                {
                    final int i = n % samples.length;
                    sink[0] += uri.wrap(buf, offsets[i], offsets[i + 1]) ? uri.paramCount() + uri.port() : 1;
                    sink[0] += uri.paramIndex(lr) + uri.paramIndex("x");
                }
            },
            5, 1023);
        assertTrue(allocated < 1024, "allocated " + allocated + " bytes over 10,000 wraps");
        assertTrue(sink[0] != 0);
    }

    private void assertValid(final String text)
    {
        final byte[] b = bytes(text);
        assertTrue(uri.wrap(b, 0, b.length), () -> text + ": " + uri.errorReason() + " at " + uri.errorOffset());
        assertTrue(uri.isValid());
        assertNull(uri.errorReason());
    }

    private void assertInvalid(final String text, final String reason)
    {
        final byte[] b = bytes(text);
        assertFalse(uri.wrap(b, 0, b.length), text);
        assertFalse(uri.isValid());
        assertEquals(reason, uri.errorReason(), text);
        assertTrue(uri.errorOffset() >= 0 && uri.errorOffset() <= b.length, text);
    }

    private String span(final int start, final int end)
    {
        return start < 0 ? null : Ascii.string(uri.buffer(), start, end);
    }

    private static int hostType(final String text)
    {
        final byte[] b = bytes(text);
        return SipUriFlyweight.hostType(b, 0, b.length);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
