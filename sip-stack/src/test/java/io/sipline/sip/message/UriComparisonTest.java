package io.sipline.sip.message;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UriComparisonTest
{
    private final SipUriFlyweight a = new SipUriFlyweight();
    private final SipUriFlyweight b = new SipUriFlyweight();

    @Test
    void shouldFindTheRfc3261EquivalentUrisEqual()
    {
        // RFC 3261 §19.1.4: "The URIs within each of the following sets are equivalent"
        assertEqual("sip:%61lice@atlanta.com;transport=TCP", "sip:alice@AtLanTa.CoM;Transport=tcp");

        assertEqual("sip:carol@chicago.com", "sip:carol@chicago.com;newparam=5");
        assertEqual("sip:carol@chicago.com", "sip:carol@chicago.com;security=on");
        assertEqual("sip:carol@chicago.com;newparam=5", "sip:carol@chicago.com;security=on");

        assertEqual(
            "sip:biloxi.com;transport=tcp;method=REGISTER?to=sip:bob%40biloxi.com",
            "sip:biloxi.com;method=REGISTER;transport=tcp?to=sip:bob%40biloxi.com");

        assertEqual(
            "sip:alice@atlanta.com?subject=project%20x&priority=urgent",
            "sip:alice@atlanta.com?priority=urgent&subject=project%20x");
    }

    @Test
    void shouldFindTheRfc3261NonEquivalentUrisUnequal()
    {
        // RFC 3261 §19.1.4: "The URIs within each of the following sets are not equivalent"
        assertUnequal("SIP:ALICE@AtLanTa.CoM;Transport=udp", "sip:alice@AtLanTa.CoM;Transport=UDP"); // usernames
        assertUnequal("sip:bob@biloxi.com", "sip:bob@biloxi.com:5060"); // can resolve to different ports
        assertUnequal("sip:bob@biloxi.com", "sip:bob@biloxi.com;transport=udp"); // different transports
        assertUnequal("sip:bob@biloxi.com", "sip:bob@biloxi.com:6000;transport=tcp"); // port and transport
        assertUnequal("sip:carol@chicago.com", "sip:carol@chicago.com?Subject=next%20meeting"); // header component
        assertUnequal("sip:bob@phone21.boxesbybob.com", "sip:bob@192.0.2.4"); // no DNS in comparisons

        // "Note that equality is not transitive"
        assertEqual("sip:carol@chicago.com", "sip:carol@chicago.com;security=off");
        assertUnequal("sip:carol@chicago.com;security=on", "sip:carol@chicago.com;security=off");
    }

    @Test
    void shouldPairARepeatedParameterOccurrenceByOccurrence()
    {
        // A name repeated in one URI pairs its n-th occurrence with the other URI's n-th: a URI equals itself.
        assertEqual("sip:x@h;tag=m;tag=887s", "sip:x@h;tag=m;tag=887s");
        assertEqual("sip:x@h;transport=tcp;transport=udp", "sip:x@h;TRANSPORT=TCP;transport=UDP");
        assertUnequal("sip:x@h;transport=tcp;transport=udp", "sip:x@h;transport=udp;transport=tcp");
        assertUnequal("sip:x@h;maddr=1.2.3.4;maddr=5.6.7.8", "sip:x@h;maddr=1.2.3.4;maddr=9.9.9.9");
        // A second occurrence only in one URI is a parameter in one URI only: ignored unless it is a special one.
        assertEqual("sip:x@h;foo=1", "sip:x@h;foo=1;foo=2");
        assertEqual("tel:+1-201-555-0123;a=1;a=2", "tel:+12015550123;A=1;a=2");
    }

    @Test
    void shouldApplyEachComponentRule()
    {
        assertUnequal("sip:alice@atlanta.com", "sips:alice@atlanta.com");
        assertUnequal("sip:atlanta.com", "sip:alice@atlanta.com");
        assertUnequal("sip:alice@atlanta.com", "sip:alice:pw@atlanta.com");
        assertUnequal("sip:alice:pw@atlanta.com", "sip:alice:PW@atlanta.com");
        assertEqual("sip:alice:p%77@atlanta.com", "sip:alice:pw@atlanta.com");
        assertEqual("sip:alice:@atlanta.com", "sip:alice:@atlanta.com");
        assertUnequal("sip:alice:@atlanta.com", "sip:alice@atlanta.com");
        assertUnequal("sip:alice@atlanta.com:5060", "sip:alice@atlanta.com:5061");

        // must match when present in either: user, ttl, method, maddr, transport
        assertUnequal("sip:alice@atlanta.com;user=ip", "sip:alice@atlanta.com");
        assertUnequal("sip:alice@atlanta.com", "sip:alice@atlanta.com;ttl=1");
        assertUnequal("sip:alice@atlanta.com;method=INVITE", "sip:alice@atlanta.com");
        assertUnequal("sip:alice@atlanta.com;maddr=239.255.255.1", "sip:alice@atlanta.com");
        assertEqual("sip:alice@atlanta.com;maddr=239.255.255.1", "sip:alice@atlanta.com;MADDR=239.255.255.1");
        assertUnequal("sip:alice@atlanta.com;method=INVITE", "sip:alice@atlanta.com;method=BYE");
        assertEqual("sip:alice@atlanta.com;method=invite", "sip:alice@atlanta.com;method=INVITE");

        // other parameters: compared only when present in both
        assertEqual("sip:p1.example.com;lr", "sip:p1.example.com");
        assertEqual("sip:p1.example.com;lr", "sip:p1.example.com;lr");
        assertUnequal("sip:p1.example.com;lr", "sip:p1.example.com;lr=on");
        assertEqual("sip:h;foo=%62ar", "sip:h;FOO=BAR");
        assertEqual("sip:h;%66oo=1;transport=udp", "sip:h;foo=1;transport=udp");
        assertUnequal("sip:h;%66oo=1", "sip:h;foo=2");

        // the order of parameters and headers is not significant
        assertEqual("sip:h;a=1;b=2;transport=tcp?x=1&y=2", "sip:h;transport=tcp;b=2;a=1?y=2&x=1");
    }

    @Test
    void shouldDecodeOnlyEscapesOfUnreservedCharacters()
    {
        assertEqual("sip:%61lice@atlanta.com", "sip:alice@atlanta.com");
        assertEqual("sip:%61%6C%69%63%65@atlanta.com", "sip:alice@atlanta.com");
        assertUnequal("sip:%41lice@atlanta.com", "sip:alice@atlanta.com"); // userinfo is case-sensitive
        assertUnequal("sip:a%3Bb@atlanta.com", "sip:a;b@atlanta.com"); // ';' is reserved
        assertEqual("sip:a%3bb@atlanta.com", "sip:a%3Bb@atlanta.com");
        assertEqual("sip:a%20b@atlanta.com", "sip:a%20b@atlanta.com");
        assertUnequal("sip:a%20b@atlanta.com", "sip:a%2520b@atlanta.com");
        assertEqual("sip:h?to=sip:bob%40biloxi.com", "sip:h?TO=sip:bob%40biloxi.com");
        assertUnequal("sip:h?subject=X", "sip:h?subject=x");
        assertEqual("sip:h?subject=%58", "sip:h?subject=X");
    }

    @Test
    void shouldMatchHeadersAsAMultiset()
    {
        assertUnequal("sip:h?a=1&a=1&a=2", "sip:h?a=1&a=2&a=2");
        assertEqual("sip:h?a=1&a=2&a=1", "sip:h?a=1&a=1&a=2");
        assertUnequal("sip:h?a=1", "sip:h?a=1&b=");
        assertEqual("sip:h?a=&b=", "sip:h?b=&a=");
    }

    @Test
    void shouldCompareHostsByValue()
    {
        assertEqual("sip:[2001:db8::1]", "sip:[2001:DB8:0:0:0:0:0:1]");
        assertEqual("sip:[2001:db8::1]:5060", "sip:[2001:0db8:0000::0001]:5060");
        assertEqual("sip:[::ffff:192.0.2.1]", "sip:[::ffff:c000:201]");
        assertEqual("sip:[::]", "sip:[0:0:0:0:0:0:0:0]");
        assertEqual("sip:[1::]", "sip:[1:0:0:0::0]");
        assertUnequal("sip:[2001:db8::1]", "sip:[2001:db8::2]");
        assertUnequal("sip:[2001:db8::1]", "sip:[2001:db8:1::]");
        assertUnequal("sip:[::1]", "sip:[1::]");
        assertUnequal("sip:[::ffff:192.0.2.1]", "sip:192.0.2.1");
        assertEqual("sip:192.0.2.1", "sip:192.000.002.001");
        assertUnequal("sip:192.0.2.1", "sip:192.0.2.10");
        assertEqual("sip:Atlanta.COM", "sip:atlanta.com");
        assertUnequal("sip:atlanta.com", "sip:atlanta.com.");

        final byte[] x = bytes("[2001:db8::1]");
        final byte[] y = bytes("[2001:DB8::0:1]");
        assertTrue(UriComparison.hostEquals(x, 0, x.length, y, 0, y.length));
        final byte[] z = bytes("host");
        assertFalse(UriComparison.hostEquals(x, 0, x.length, z, 0, z.length));
        final byte[] bad = bytes("-bad-");
        assertFalse(UriComparison.hostEquals(bad, 0, bad.length, bad, 0, bad.length));
    }

    @Test
    void shouldCompareTelUrisPerRfc3966()
    {
        // RFC 3261 §19.1.6 and RFC 3966 §4
        assertEqual("tel:+358-555-1234567;postd=pp22", "tel:+358-555-1234567;POSTD=PP22");
        assertEqual("tel:+358-555-1234567;postd=pp22;isub=1411", "tel:+358-555-1234567;isub=1411;postd=pp22");
        // (§19.1.6 writes phone-context=5, an RFC 2806 form; RFC 3966 §3 needs a domain or "+" digits)
        assertEqual("tel:+358-555-1234567;tsp=a.b;phone-context=+5", "tel:+358-555-1234567;phone-context=+5;tsp=a.b");
        assertEqual("tel:+1-201-555-0123", "tel:+1(201)555.0123");
        assertEqual("tel:+12015550123", "TEL:+1-201-555-0123");
        assertUnequal("tel:+1-201-555-0123", "tel:+1-201-555-0124");
        assertUnequal("tel:+1-201-555-0123", "tel:+1-201-555-01234");
        assertUnequal("tel:+1234;phone-context=+1", "tel:1234;phone-context=+1"); // global vs local
        assertEqual("tel:7042;phone-context=example.com", "tel:7042;phone-context=EXAMPLE.com");
        assertUnequal("tel:7042;phone-context=example.com", "tel:7042;phone-context=example.org");
        assertEqual("tel:863-1234;phone-context=+1-914-555", "tel:8631234;phone-context=+1914555");
        assertUnequal("tel:863-1234;phone-context=+1-914-555", "tel:8631234;phone-context=+1914556");
        assertEqual("tel:+1-201-555-0123;ext=1-234", "tel:+12015550123;ext=1234");
        assertUnequal("tel:+1-201-555-0123;ext=1234", "tel:+1-201-555-0123"); // a name in only one
        assertUnequal("tel:+1-201-555-0123", "tel:+1-201-555-0123;foo");
        assertUnequal("tel:+1-201-555-0123;foo", "tel:+1-201-555-0123;foo=1");
        assertEqual("tel:ABC;phone-context=example.com", "tel:abc;phone-context=example.com");
        assertUnequal("tel:+12015550123", "sip:+12015550123@example.com;user=phone");
    }

    @Test
    void shouldCompareOtherSchemesCaseSensitivelyAfterTheScheme()
    {
        assertEqual("urn:service:sos", "URN:service:sos");
        assertEqual("urn:service:%73os", "urn:service:sos");
        assertUnequal("urn:service:sos", "urn:service:SOS");
        assertUnequal("urn:service:sos", "urx:service:sos");
        assertUnequal("mailto:a@b", "sip:a@b");
    }

    @Test
    void shouldTreatInvalidUrisAsUnequal()
    {
        final byte[] good = bytes("sip:alice@atlanta.com");
        final byte[] bad = bytes("sip:alice@");
        assertFalse(UriComparison.equals(good, 0, good.length, bad, 0, bad.length));
        assertFalse(UriComparison.equals(bad, 0, bad.length, bad, 0, bad.length));
        assertTrue(UriComparison.equals(good, 0, good.length, good, 0, good.length));
        a.reset();
        b.reset();
        assertFalse(UriComparison.equals(a, b));
        assertFalse(UriComparison.sipEquals(a, b));
        assertFalse(UriComparison.telEquals(a, b));
    }

    @Test
    void shouldCompareHeaderParameterTables()
    {
        final NameAddrFlyweight x = new NameAddrFlyweight();
        final NameAddrFlyweight y = new NameAddrFlyweight();
        final int flags = ParamsComparison.QUOTED_CASE_SENSITIVE;
        assertTrue(wrap(x, "<sip:a@b>;tag=ABC;expires=60;foo=\"Bar\""));
        assertTrue(wrap(y, "<sip:a@b>;FOO=\"Bar\";Expires=60;tag=abc"));
        assertTrue(ParamsComparison.sameSet(x.buffer(), x.paramTable(), x.paramCount(),
            y.buffer(), y.paramTable(), y.paramCount(), flags));
        assertTrue(wrap(y, "<sip:a@b>;FOO=\"bar\";Expires=60;tag=abc"));
        assertFalse(ParamsComparison.sameSet(x.buffer(), x.paramTable(), x.paramCount(),
            y.buffer(), y.paramTable(), y.paramCount(), flags));
        assertFalse(ParamsComparison.commonEqual(x.buffer(), x.paramTable(), x.paramCount(),
            y.buffer(), y.paramTable(), y.paramCount(), flags));
        assertTrue(wrap(y, "<sip:a@b>;expires=60"));
        assertFalse(ParamsComparison.sameSet(x.buffer(), x.paramTable(), x.paramCount(),
            y.buffer(), y.paramTable(), y.paramCount(), flags));
        assertTrue(ParamsComparison.commonEqual(x.buffer(), x.paramTable(), x.paramCount(),
            y.buffer(), y.paramTable(), y.paramCount(), flags));
        assertFalse(ParamsComparison.presenceMatches(x.buffer(), x.paramTable(), x.paramCount(),
            y.buffer(), y.paramTable(), y.paramCount(), Ascii.lowerBytes("tag"), flags));
        assertTrue(ParamsComparison.presenceMatches(x.buffer(), x.paramTable(), x.paramCount(),
            y.buffer(), y.paramTable(), y.paramCount(), Ascii.lowerBytes("expires"), flags));
    }

    @Test
    void shouldNotAllocateWhenComparing()
    {
        final String[][] pairs = {
            {"sip:%61lice@atlanta.com;transport=TCP", "sip:alice@AtLanTa.CoM;Transport=tcp"},
            {"sip:biloxi.com;transport=tcp;method=REGISTER?to=sip:bob%40biloxi.com",
                "sip:biloxi.com;method=REGISTER;transport=tcp?to=sip:bob%40biloxi.com"},
            {"sip:[2001:db8::1]:5060;lr", "sip:[2001:DB8:0:0:0:0:0:1]:5060"},
            {"tel:863-1234;phone-context=+1-914-555", "tel:8631234;phone-context=+1914555"},
            {"sip:bob@biloxi.com", "sip:bob@biloxi.com:6000;transport=tcp"},
            {"urn:service:sos", "URN:service:sos"},
        };
        final byte[][] left = new byte[pairs.length][];
        final byte[][] right = new byte[pairs.length][];
        for (int i = 0; i < pairs.length; i++)
        {
            left[i] = bytes(pairs[i][0]);
            right[i] = bytes(pairs[i][1]);
        }
        final int[] sink = {0};
        final long allocated = AllocationMeter.leastBytes(
            () -> compareTimes(left, right, 50_000, sink), () -> compareTimes(left, right, 10_000, sink), 5, 1023);
        assertTrue(allocated < 1024, "allocated " + allocated + " bytes over 10,000 comparisons");
        assertTrue(sink[0] > 0);
    }

    private void compareTimes(final byte[][] left, final byte[][] right, final int times, final int[] sink)
    {
        for (int n = 0; n < times; n++)
        {
            final int i = n % left.length;
            sink[0] += UriComparison.equals(left[i], 0, left[i].length, right[i], 0, right[i].length, a, b) ? 1 : 2;
        }
    }

    private void assertEqual(final String x, final String y)
    {
        assertTrue(wrap(a, x), x);
        assertTrue(wrap(b, y), y);
        assertTrue(UriComparison.equals(a, b), x + " == " + y);
        assertTrue(UriComparison.equals(b, a), y + " == " + x);
    }

    private void assertUnequal(final String x, final String y)
    {
        assertTrue(wrap(a, x), x);
        assertTrue(wrap(b, y), y);
        assertFalse(UriComparison.equals(a, b), x + " != " + y);
        assertFalse(UriComparison.equals(b, a), y + " != " + x);
    }

    private static boolean wrap(final SipUriFlyweight uri, final String text)
    {
        final byte[] bytes = bytes(text);
        return uri.wrap(bytes, 0, bytes.length);
    }

    private static boolean wrap(final NameAddrFlyweight addr, final String text)
    {
        final byte[] bytes = bytes(text);
        return addr.wrap(bytes, 0, bytes.length);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
