package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.sipline.sip.message.ViaFlyweight;

/** RFC 3261 §18.2.2 and RFC 3581 §4: where a UDP response goes. */
class ResponseAddressTest
{
    private static final InetSocketAddress SOURCE_V4 = new InetSocketAddress(InetAddress.ofLiteral("192.0.2.7"), 5062);
    private static final InetSocketAddress SOURCE_V6 =
        new InetSocketAddress(InetAddress.ofLiteral("2001:db8::7"), 5064);

    private static ViaFlyweight via(final String value)
    {
        final byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        final ViaFlyweight via = new ViaFlyweight();
        assertTrue(via.wrap(bytes, 0, bytes.length), () -> "bad test Via: " + via.error());
        return via;
    }

    private static InetSocketAddress at(final String ip, final int port)
    {
        return new InetSocketAddress(InetAddress.ofLiteral(ip), port);
    }

    @Test
    void shouldSendToSourceAddressAndSentByPort()
    {
        // §18.2.2: received (the source, §18.2.1) with the sent-by port.
        assertEquals(at("192.0.2.7", 5070),
            ResponseAddress.select(via("SIP/2.0/UDP 192.0.2.7:5070;branch=z9hG4bK1"), SOURCE_V4));
    }

    @Test
    void shouldUseDefaultPort5060WhenSentByHasNone()
    {
        assertEquals(at("192.0.2.7", 5060),
            ResponseAddress.select(via("SIP/2.0/UDP pc33.atlanta.example;branch=z9hG4bK1"), SOURCE_V4));
    }

    @Test
    void shouldSendToSourceAddressNotSentByHostWhenTheyDiffer()
    {
        // A NATed client: sent-by is its private address; §18.2.1 adds received=<source>, §18.2.2 sends there.
        assertEquals(at("192.0.2.7", 5060),
            ResponseAddress.select(via("SIP/2.0/UDP 10.0.0.5;branch=z9hG4bK1"), SOURCE_V4));
    }

    @Test
    void shouldReturnSourceItselfWhenSentByPortEqualsSourcePort()
    {
        assertSame(SOURCE_V4, ResponseAddress.select(via("SIP/2.0/UDP 192.0.2.7:5062;branch=z9hG4bK1"), SOURCE_V4));
    }

    @Test
    void shouldSendToSourcePortWhenRportIsPresent()
    {
        // RFC 3581 §4: received and rport, i.e. the source address and port, exactly.
        assertSame(SOURCE_V4,
            ResponseAddress.select(via("SIP/2.0/UDP 10.0.0.5:5060;branch=z9hG4bK1;rport"), SOURCE_V4));
    }

    @Test
    void shouldIgnoreAnRportValueTheClientWrote()
    {
        // RFC 3581 §4: the server sets rport to the source port whatever it held.
        assertSame(SOURCE_V4,
            ResponseAddress.select(via("SIP/2.0/UDP 10.0.0.5:5060;rport=9999;branch=z9hG4bK1"), SOURCE_V4));
    }

    @Test
    void shouldIgnoreAReceivedTheClientWrote()
    {
        // §18.2.1: the server transport overwrites received with the source address.
        assertEquals(at("192.0.2.7", 5070),
            ResponseAddress.select(via("SIP/2.0/UDP 10.0.0.5:5070;received=198.51.100.1;branch=z9hG4bK1"),
                SOURCE_V4));
    }

    @Test
    void shouldSendToMaddrWithSentByPort()
    {
        // §18.2.2: maddr wins, with the sent-by port, or 5060.
        assertEquals(at("239.255.255.1", 5080), ResponseAddress.select(
            via("SIP/2.0/UDP 10.0.0.5:5080;maddr=239.255.255.1;ttl=1;branch=z9hG4bK1"), SOURCE_V4));
        assertEquals(at("239.255.255.1", 5060), ResponseAddress.select(
            via("SIP/2.0/UDP 10.0.0.5;maddr=239.255.255.1;branch=z9hG4bK1"), SOURCE_V4));
    }

    @Test
    void shouldPreferMaddrOverRport()
    {
        // RFC 3581 §4 applies only "if there is no maddr parameter".
        assertEquals(at("192.0.2.99", 5080), ResponseAddress.select(
            via("SIP/2.0/UDP 10.0.0.5:5080;rport;maddr=192.0.2.99;branch=z9hG4bK1"), SOURCE_V4));
    }

    @Test
    void shouldLeaveAMaddrHostNameUnresolvedForTheLocator()
    {
        // No DNS on this path: the host name and the sent-by port (or 5060), for the shard's RFC 3263 locator.
        assertEquals(InetSocketAddress.createUnresolved("cafe.example", 5080), ResponseAddress.select(
            via("SIP/2.0/UDP 10.0.0.5:5080;maddr=cafe.example;branch=z9hG4bK1"), SOURCE_V4));
        assertEquals(InetSocketAddress.createUnresolved("cafe.de", 5060), ResponseAddress.select(
            via("SIP/2.0/UDP 10.0.0.5;rport;maddr=cafe.de;branch=z9hG4bK1"), SOURCE_V4));
        assertNull(ResponseAddress.select(via("SIP/2.0/UDP 10.0.0.5:0;maddr=cafe.de;branch=z9hG4bK1"), SOURCE_V4));
    }

    @Test
    void shouldHandleIpv6SentByAndSource()
    {
        // RFC 5118 §4: IPv6 references in sent-by.
        assertEquals(at("2001:db8::7", 5070),
            ResponseAddress.select(via("SIP/2.0/UDP [2001:db8::7]:5070;branch=z9hG4bK1"), SOURCE_V6));
        assertEquals(at("2001:db8::7", 5060),
            ResponseAddress.select(via("SIP/2.0/UDP [2001:db8::7];branch=z9hG4bK1"), SOURCE_V6));
        assertSame(SOURCE_V6,
            ResponseAddress.select(via("SIP/2.0/UDP [2001:db8::99]:5070;rport;branch=z9hG4bK1"), SOURCE_V6));
    }

    @Test
    void shouldAcceptIpv6Maddr()
    {
        assertEquals(at("ff02::1", 5070), ResponseAddress.select(
            via("SIP/2.0/UDP [2001:db8::7]:5070;maddr=[ff02::1];branch=z9hG4bK1"), SOURCE_V6));
    }

    @Test
    void shouldRefuseSentByPortZero()
    {
        assertNull(ResponseAddress.select(via("SIP/2.0/UDP 192.0.2.7:0;branch=z9hG4bK1"), SOURCE_V4));
    }
}
