package io.sipline.media.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * RFC 8839 §5 attributes: candidate lines as RFC 8839, Chrome and Firefox write them, parsed and written back
 * byte-for-byte; malformed lines rejected with a reason; ufrag/pwd/options rules.
 */
class IceSdpTest
{
    private static final String[] ROUND_TRIP = {
        // RFC 8839 §5.1 / RFC 8445 examples
        "candidate:1 1 UDP 2130706431 10.0.1.1 8998 typ host",
        "candidate:2 1 UDP 1694498815 192.0.2.3 45664 typ srflx raddr 10.0.1.1 rport 8998",
        // Chrome
        "candidate:1467250027 1 udp 2122260223 192.168.0.196 46243 typ host generation 0 network-id 1 network-cost 10",
        "candidate:842163049 1 udp 1686052607 203.0.113.7 46154 typ srflx raddr 192.168.0.196 rport 46243"
            + " generation 0 ufrag EsAw network-id 1 network-cost 10",
        "candidate:3697061916 1 udp 2122262783 2001:db8:85a3::8a2e:370:7334 50021 typ host generation 0 ufrag EsAw"
            + " network-id 2",
        "candidate:2999745851 1 udp 2122260223 c4f0b6c8-3c0f-4c8e-9a2e-1f3d5e7a9b0c.local 54400 typ host"
            + " generation 0 ufrag EsAw network-cost 999",
        "candidate:1028066219 2 udp 41885695 198.51.100.9 61234 typ relay raddr 203.0.113.7 rport 46154"
            + " generation 0 ufrag EsAw network-id 1",
        // Firefox
        "candidate:0 1 UDP 2122252543 192.168.1.10 54321 typ host",
        "candidate:1 1 UDP 2122187007 fe80::1c2b:3dff:fe4e:5f60 54322 typ host",
        "candidate:2 1 UDP 1686052863 203.0.113.7 54321 typ srflx raddr 0.0.0.0 rport 0",
        "candidate:3 2 UDP 92217342 198.51.100.9 60000 typ relay raddr 203.0.113.7 rport 54323",
        "candidate:4 1 UDP 1677732095 2001:db8::2 3478 typ prflx raddr ::ffff:0:0 rport 9",
    };

    @Test
    void shouldRoundTripRealWorldCandidates() throws IceParseException
    {
        for (final String line : ROUND_TRIP)
        {
            final IceCandidate candidate = IceSdp.parseCandidate("a=" + line + "\r\n");
            assertEquals(line, IceSdp.appendCandidate(new StringBuilder(), candidate).toString());
            assertEquals(line, candidate.toString());
        }
    }

    @Test
    void shouldParseFields() throws IceParseException
    {
        final IceCandidate srflx = IceSdp.parseCandidate(ROUND_TRIP[3]);
        assertEquals("842163049", srflx.foundation());
        assertEquals(1, srflx.componentId());
        assertEquals(1_686_052_607, srflx.priority());
        assertEquals(IceCandidateType.SERVER_REFLEXIVE, srflx.type());
        assertEquals(IceCandidate.FAMILY_IPV4, srflx.family());
        assertEquals((203 << 24) | (113 << 8) | 7, srflx.ipv4());
        assertEquals(46154, srflx.port());
        assertEquals(IceCandidate.FAMILY_IPV4, srflx.relatedFamily());
        assertEquals(0xC0A800C4L, srflx.relatedLo());
        assertEquals(46243, srflx.relatedPort());
        assertEquals("EsAw", srflx.extension("ufrag"));
        assertEquals("0", srflx.extension("generation"));
        assertEquals("10", srflx.extension("network-cost"));
        assertNull(srflx.extension("tcptype"));

        final IceCandidate v6 = IceSdp.parseCandidate(ROUND_TRIP[4]);
        assertEquals(IceCandidate.FAMILY_IPV6, v6.family());
        assertEquals(0x2001_0db8_85a3_0000L, v6.addressHi());
        assertEquals(0x0000_8a2e_0370_7334L, v6.addressLo());
        assertFalse(v6.isLinkLocalIpv6());
        assertTrue(IceSdp.parseCandidate(ROUND_TRIP[8]).isLinkLocalIpv6());

        final IceCandidate mdns = IceSdp.parseCandidate(ROUND_TRIP[5]);
        assertEquals(IceCandidate.FAMILY_FQDN, mdns.family());
        assertEquals("c4f0b6c8-3c0f-4c8e-9a2e-1f3d5e7a9b0c.local", mdns.fqdn());

        final IceCandidate relay = IceSdp.parseCandidate(ROUND_TRIP[6]);
        assertEquals(IceCandidateType.RELAYED, relay.type());
        assertEquals(2, relay.componentId());
    }

    @Test
    void shouldWriteIpv6Canonically() throws IceParseException
    {
        final IceCandidate candidate = IceSdp.parseCandidate(
            "candidate:1 1 UDP 1 2001:0DB8:0000:0000:0000:0000:0000:0001 1 typ host");
        assertEquals("candidate:1 1 UDP 1 2001:db8::1 1 typ host", candidate.toString());
        assertEquals("candidate:1 1 UDP 1 :: 1 typ host", IceSdp.parseCandidate("candidate:1 1 UDP 1 :: 1 typ host")
            .toString());
        // RFC 5952 §4.2.3: the first of two equal zero runs is compressed
        assertEquals("candidate:1 1 UDP 1 2001:db8::1:0:0:1 1 typ host",
            IceSdp.parseCandidate("candidate:1 1 UDP 1 2001:db8:0:0:1:0:0:1 1 typ host").toString());
        // RFC 5952 §4.2.2: a single zero group is not compressed
        assertEquals("candidate:1 1 UDP 1 2001:db8:0:1:1:1:1:1 1 typ host",
            IceSdp.parseCandidate("candidate:1 1 UDP 1 2001:db8::1:1:1:1:1 1 typ host").toString());
    }

    @Test
    void shouldIgnoreTcpAndUnknownTypes()
    {
        final IceParseException tcp = assertThrows(IceParseException.class, () -> IceSdp.parseCandidate(
            "candidate:448279307 1 tcp 1518280447 192.168.0.196 9 typ host tcptype active generation 0"));
        assertEquals(IceParseException.UNSUPPORTED_TRANSPORT, tcp.reason());
        assertTrue(tcp.isIgnorable());
        final IceParseException type = assertThrows(IceParseException.class,
            () -> IceSdp.parseCandidate("candidate:1 1 UDP 1 10.0.0.1 9 typ magic"));
        assertEquals(IceParseException.UNSUPPORTED_TYPE, type.reason());
    }

    @Test
    void shouldRejectMalformedCandidatesWithAReason()
    {
        final String[] bad = {
            "", "candidate:", "candidate:1", "candidate:1 1 UDP 1 10.0.0.1 9", "candidate:1 1 UDP 1 10.0.0.1 9 typ",
            "candidate:1 1 UDP 1 10.0.0.1 9 type host", "candidate:1  1 UDP 1 10.0.0.1 9 typ host",
            "candidate:1 0 UDP 1 10.0.0.1 9 typ host", "candidate:1 257 UDP 1 10.0.0.1 9 typ host",
            "candidate:1 1 UDP 0 10.0.0.1 9 typ host", "candidate:1 1 UDP 2147483648 10.0.0.1 9 typ host",
            "candidate:1 1 UDP 1 10.0.0.1 65536 typ host", "candidate:1 1 UDP 1 10.0.0.256 9 typ host",
            "candidate:1 1 UDP 1 10.0.0 9 typ host", "candidate:1 1 UDP 1 1::2::3 9 typ host",
            "candidate:1 1 UDP 1 fe80::1%eth0 9 typ host", "candidate:1 1 UDP 1 [::1] 9 typ host",
            "candidate:1 1 UDP 1 bad_host 9 typ host", "candidate:f_o 1 UDP 1 10.0.0.1 9 typ host",
            "candidate:123456789012345678901234567890123 1 UDP 1 10.0.0.1 9 typ host",
            "candidate:1 1 UDP 1 10.0.0.1 9 typ srflx raddr", "candidate:1 1 UDP 1 10.0.0.1 9 typ srflx rport 9",
            "candidate:1 1 UDP 1 10.0.0.1 9 typ srflx raddr 1.2.3.4 rport x",
            "candidate:1 1 UDP 1 10.0.0.1 9 typ host generation", "candidate:1 1 U\"DP 1 10.0.0.1 9 typ host",
        };
        for (final String line : bad)
        {
            final IceParseException e = assertThrows(IceParseException.class, () -> IceSdp.parseCandidate(line),
                line);
            assertEquals(IceParseException.MALFORMED, e.reason(), line);
            assertTrue(e.getMessage().startsWith("candidate:"), e.getMessage());
        }
    }

    @Test
    void shouldCheckUfragAndPasswordLengths() throws IceParseException
    {
        assertEquals("EsAw", IceSdp.checkUfrag("EsAw"));
        assertEquals("a+/9", IceSdp.checkUfrag("a+/9"));
        assertEquals("x".repeat(256), IceSdp.checkUfrag("x".repeat(256)));
        assertThrows(IceParseException.class, () -> IceSdp.checkUfrag("abc"));
        assertThrows(IceParseException.class, () -> IceSdp.checkUfrag("x".repeat(257)));
        assertThrows(IceParseException.class, () -> IceSdp.checkUfrag("ab-cd"));
        assertThrows(IceParseException.class, () -> IceSdp.checkUfrag(null));
        assertEquals("P9sBvYpl2hKNhxdmjpWLoOtr", IceSdp.checkPassword("P9sBvYpl2hKNhxdmjpWLoOtr"));
        assertEquals("x".repeat(22), IceSdp.checkPassword("x".repeat(22)));
        final IceParseException shortPwd = assertThrows(IceParseException.class,
            () -> IceSdp.checkPassword("x".repeat(21)));
        assertEquals("ice-pwd: length 21 outside 22..256", shortPwd.getMessage());
        assertThrows(IceParseException.class, () -> IceSdp.checkPassword("x".repeat(21) + "!"));
    }

    @Test
    void shouldReadAndWriteSessionAttributes() throws IceParseException
    {
        final IceSessionAttributes attributes = new IceSessionAttributes();
        assertTrue(attributes.accept("a=ice-ufrag:EsAw\r\n"));
        assertTrue(attributes.accept("a=ice-pwd:P9sBvYpl2hKNhxdmjpWLoOtr"));
        assertTrue(attributes.accept("a=ice-options:trickle ice2 renomination"));
        assertTrue(attributes.accept("a=ice-lite"));
        assertTrue(attributes.accept("a=end-of-candidates"));
        assertFalse(attributes.accept("a=candidate:1 1 UDP 1 10.0.0.1 9 typ host"));
        assertFalse(attributes.accept("a=mid:0"));
        assertEquals(IceSdp.OPTION_TRICKLE | IceSdp.OPTION_ICE2 | IceSdp.OPTION_UNKNOWN, attributes.options());
        assertEquals("a=ice-lite\r\na=ice-ufrag:EsAw\r\na=ice-pwd:P9sBvYpl2hKNhxdmjpWLoOtr\r\n"
            + "a=ice-options:trickle ice2\r\na=end-of-candidates\r\n",
            attributes.append(new StringBuilder()).toString());
        assertThrows(IceParseException.class, () -> attributes.accept("a=ice-ufrag:ab"));
        assertThrows(IceParseException.class, () -> attributes.accept("a=ice-options:"));
        assertThrows(IceParseException.class, () -> attributes.accept("a=ice-options:trickle  ice2"));
        assertThrows(IceParseException.class, () -> attributes.accept("a=ice-options:tr-ickle"));
        assertEquals(IceSdp.OPTION_TRICKLE, IceSdp.parseOptions("trickle"));
    }

    /** RFC 8839 §5.5: {@code ice-pacing-att = "ice-pacing:" pacing-value}, {@code pacing-value = 1*10DIGIT}. */
    @Test
    void shouldReadAndWriteIcePacing() throws IceParseException
    {
        final IceSessionAttributes attributes = new IceSessionAttributes();
        assertEquals(0, attributes.pacingMs(), "absent");
        assertTrue(attributes.accept("a=ice-pacing:80\r\n"));
        assertEquals(80, attributes.pacingMs());
        assertEquals("a=ice-pacing:80\r\n", attributes.append(new StringBuilder()).toString());
        assertTrue(attributes.accept("a=ice-pacing:9999999999"));
        assertEquals(9_999_999_999L, attributes.pacingMs(), "ten digits");
        assertThrows(IceParseException.class, () -> attributes.accept("a=ice-pacing:10000000000"));
        assertThrows(IceParseException.class, () -> attributes.accept("a=ice-pacing:"));
        assertThrows(IceParseException.class, () -> attributes.accept("a=ice-pacing:-5"));
        assertThrows(IceParseException.class, () -> attributes.accept("a=ice-pacing:5ms"));
        attributes.pacingMs(0);
        assertEquals("", attributes.append(new StringBuilder()).toString(), "0 writes nothing");
    }
}
