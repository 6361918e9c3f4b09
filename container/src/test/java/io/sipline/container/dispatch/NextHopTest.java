package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.net.InetSocketAddress;

import org.junit.jupiter.api.Test;

import io.sipline.container.address.SipAddresses;
import io.sipline.container.api.MessageHeaders;
import io.sipline.container.api.SipServletRequestImpl;

/**
 * The next hop of a request the container sends (RFC 3261 §8.1.2, §12.2.1.1): the top Route's URI, else the
 * Request-URI, as text or as a URI object the application set; the hop of a URI object is found again by its bytes.
 */
class NextHopTest
{
    private static SipServletRequestImpl request(final String uriText)
    {
        final MessageHeaders h = MessageHeaders.empty(2);
        h.insert(h.size(), "Max-Forwards", "70");
        return SipServletRequestImpl.outgoing("INVITE", uriText, h);
    }

    @Test
    void shouldFindTheHopOfARequestUriObjectByItsBytes() throws Exception
    {
        final NextHop hops = new NextHop();
        final SipServletRequestImpl first = request("sip:old@192.0.2.7");
        first.setRequestURI(SipAddresses.parseUri("sip:service@127.0.0.1:5090;transport=tcp"));
        final SipServletRequestImpl second = request("sip:old@192.0.2.7");
        second.setRequestURI(SipAddresses.parseUri("sip:service@127.0.0.1:5090;transport=tcp")); // another object
        final NextHop.Hop hop = hops.of(first);
        assertEquals(new InetSocketAddress("127.0.0.1", 5090), hop.numeric());
        assertEquals("tcp", hop.transport());
        assertSame(hop, hops.of(second), "equal bytes: the hop found before");
        assertEquals(hop, hops.of("sip:service@127.0.0.1:5090;transport=tcp"), "as the same URI given as text");
    }

    @Test
    void shouldTakeTheTopRouteBeforeTheRequestUriAndTheRequestUriTextWithoutAnObject() throws Exception
    {
        final NextHop hops = new NextHop();
        final SipServletRequestImpl routed = request("sip:bob@192.0.2.7");
        routed.headers().insert(0, "Route", "<sip:192.0.2.9:5070;lr>");
        routed.setRequestURI(SipAddresses.parseUri("sip:service@127.0.0.1:5090"));
        assertEquals(new InetSocketAddress("192.0.2.9", 5070), hops.of(routed).numeric());
        assertEquals(new InetSocketAddress("192.0.2.7", 5060), hops.of(request("sip:bob@192.0.2.7")).numeric());
        final SipServletRequestImpl tel = request("sip:bob@192.0.2.7");
        tel.setRequestURI(SipAddresses.parseUri("tel:+15551234"));
        assertNull(hops.of(tel), "no host to send a tel URL to");
    }
}
