package io.sipline.container.address;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.URI;

import org.junit.jupiter.api.Test;

/** RFC 3261 §19.1.4 URI comparison, with the RFC's own examples verbatim, and generic-URI equality. */
class SipUriEqualityTest
{
    @Test
    void shouldFindTheRfc3261EquivalentUrisEqual() throws Exception
    {
        assertEqualPair("sip:%61lice@atlanta.com;transport=TCP", "sip:alice@AtLanTa.CoM;Transport=tcp");
        assertEqualPair("sip:carol@chicago.com", "sip:carol@chicago.com;newparam=5");
        assertEqualPair("sip:carol@chicago.com", "sip:carol@chicago.com;security=on");
        assertEqualPair("sip:carol@chicago.com;newparam=5", "sip:carol@chicago.com;security=on");
        assertEqualPair("sip:biloxi.com;transport=tcp;method=REGISTER?to=sip:bob%40biloxi.com",
            "sip:biloxi.com;method=REGISTER;transport=tcp?to=sip:bob%40biloxi.com");
        assertEqualPair("sip:alice@atlanta.com?subject=project%20x&priority=urgent",
            "sip:alice@atlanta.com?priority=urgent&subject=project%20x");
    }

    @Test
    void shouldFindTheRfc3261DifferentUrisNotEqual() throws Exception
    {
        // different usernames
        assertNotEqualPair("SIP:ALICE@AtLanTa.CoM;Transport=udp", "sip:alice@AtLanTa.CoM;Transport=UDP");
        // can resolve to different ports
        assertNotEqualPair("sip:bob@biloxi.com", "sip:bob@biloxi.com:5060");
        // can resolve to different transports
        assertNotEqualPair("sip:bob@biloxi.com", "sip:bob@biloxi.com;transport=udp");
        // can resolve to different port and transports
        assertNotEqualPair("sip:bob@biloxi.com", "sip:bob@biloxi.com:6000;transport=tcp");
        // different header component
        assertNotEqualPair("sip:carol@chicago.com", "sip:carol@chicago.com?Subject=next%20meeting");
        // even though that's what phone21.boxesbybob.com resolves to
        assertNotEqualPair("sip:bob@phone21.boxesbybob.com", "sip:bob@192.0.2.4");
    }

    @Test
    void shouldApplyTheOtherRulesOfSection19_1_4() throws Exception
    {
        assertNotEqualPair("sip:alice@atlanta.com", "sips:alice@atlanta.com");
        assertNotEqualPair("sip:alice@atlanta.com", "sip:atlanta.com");
        assertNotEqualPair("sip:alice:pw@atlanta.com", "sip:alice@atlanta.com");
        assertNotEqualPair("sip:alice:pw@atlanta.com", "sip:alice:PW@atlanta.com");
        assertNotEqualPair("sip:Alice@atlanta.com", "sip:alice@atlanta.com");
        assertNotEqualPair("sip:a%3Bb@atlanta.com", "sip:a;b@atlanta.com");
        for (final String param : new String[] {"user=phone", "ttl=1", "method=INVITE", "maddr=10.0.0.1",
            "transport=tcp"})
        {
            assertNotEqualPair("sip:alice@atlanta.com", "sip:alice@atlanta.com;" + param);
        }
        assertNotEqualPair("sip:alice@atlanta.com;foo=1", "sip:alice@atlanta.com;foo=2");
        assertEqualPair("sip:alice@atlanta.com;lr", "sip:alice@atlanta.com");
        assertEqualPair("sip:alice@atlanta.com;FOO=Bar", "sip:alice@atlanta.com;foo=bAR");
        assertEqualPair("sip:alice@192.0.2.4:5070", "sip:alice@192.0.2.4:5070");
        assertEqualPair("sip:[2001:db8::10]:5070", "sip:[2001:DB8:0:0:0:0:0:10]:5070");
        assertNotEqualPair("sip:[2001:db8::10]", "sip:[2001:db8::11]");
        assertNotEqualPair("sip:alice@atlanta.com?a=b", "sip:alice@atlanta.com?a=B");
    }

    @Test
    void shouldSpreadTheUsersOfOneDomainOverDistinctHashes() throws Exception
    {
        final java.util.Set<Integer> hashes = new java.util.HashSet<>();
        for (int i = 0; i < 1000; i++)
        {
            hashes.add(uri("sip:user" + i + "@example.com").hashCode());
        }
        assertEquals(1000, hashes.size(), "a registrar's table keyed by address of record must not degenerate");
        assertEquals(uri("sip:%61%6C%69ce@example.com").hashCode(), uri("sip:alice@EXAMPLE.com").hashCode());
        assertEquals(uri("http://example.com/%7ealice").hashCode(), uri("HTTP://example.com/~alice").hashCode());
    }

    @Test
    void shouldNeverEqualAnotherKindOfUri() throws Exception
    {
        assertNotEqualPair("sip:+1-201-555-0123@atlanta.com;user=phone", "tel:+1-201-555-0123");
        assertNotEquals(uri("sip:alice@atlanta.com"), "sip:alice@atlanta.com");
        assertNotEquals(uri("sip:alice@atlanta.com"), null);
    }

    @Test
    void shouldCompareGenericUrisBySchemeIgnoringCaseAndTheRestExactly() throws Exception
    {
        assertEqualPair("mailto:alice@atlanta.com", "MAILTO:alice@atlanta.com");
        assertEqualPair("http://example.com/%7Ealice", "http://example.com/~alice");
        assertNotEqualPair("http://example.com/alice", "http://example.com/Alice");
        assertNotEqualPair("urn:service:sos", "urn:service:sos.fire");
    }

    private static void assertEqualPair(final String a, final String b) throws ServletParseException
    {
        final URI ua = uri(a);
        final URI ub = uri(b);
        assertEquals(ua, ub, a + " vs " + b);
        assertEquals(ub, ua, b + " vs " + a);
        assertEquals(ua.hashCode(), ub.hashCode(), "hash of " + a + " vs " + b);
        assertEquals(ua, ua.clone());
    }

    private static void assertNotEqualPair(final String a, final String b) throws ServletParseException
    {
        assertNotEquals(uri(a), uri(b), a + " vs " + b);
        assertNotEquals(uri(b), uri(a), b + " vs " + a);
    }

    private static URI uri(final String text) throws ServletParseException
    {
        return SipAddresses.parseUri(text);
    }
}
