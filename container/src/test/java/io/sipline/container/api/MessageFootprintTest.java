package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;

import com.sun.management.HotSpotDiagnosticMXBean;

import io.sipline.test.AllocationMeter;

/**
 * Bytes per request and response object (twelve per B2BUA call): a request 88 B with compact object headers (96 with
 * 12-byte headers), a response 72 (80). Each object is made over a header section and body that already exist, so
 * the figure is the object alone; every one is kept in an array, so escape analysis removes none.
 */
class MessageFootprintTest
{
    private static final int OBJECTS = 1_000;
    private static final boolean COMPACT_HEADERS = "true".equals(ManagementFactory
        .getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption("UseCompactObjectHeaders").getValue());

    private final FakeHost host = new FakeHost();

    @Test
    void shouldKeepARequestObjectWithinItsStep()
    {
        final MessageHeaders headers = MessageHeaders.empty(1);
        final SipServletRequestImpl[] kept = new SipServletRequestImpl[OBJECTS];
        final Runnable make = () ->
        {
            for (int i = 0; i < kept.length; i++)
            {
                kept[i] = SipServletRequestImpl.outgoing("BYE", "sip:bob@192.0.2.7", headers);
            }
        };
        final long budget = (COMPACT_HEADERS ? 88 : 96) * (long)OBJECTS;
        final long bytes = AllocationMeter.leastBytes(make, make, 5, budget);
        assertTrue(bytes <= budget, "B per request object: " + (double)bytes / OBJECTS);
        assertEquals("sip:bob@192.0.2.7", kept[OBJECTS - 1].requestUriText());
    }

    @Test
    void shouldKeepAResponseObjectWithinItsStep()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = SipServletResponseImpl.received(TestMessages.parse("SIP/2.0 200 OK\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK1\r\n"
            + "From: <sip:app@192.0.2.1>;tag=1\r\n"
            + "To: <sip:bob@biloxi.example>;tag=2\r\n"
            + "Call-ID: c1\r\n"
            + "CSeq: 1 INVITE\r\n"
            + "Content-Length: 0\r\n\r\n"), invite, TestMessages.PEER, TestMessages.LOCAL);
        final SipServletResponseImpl[] kept = new SipServletResponseImpl[OBJECTS];
        final Runnable make = () ->
        {
            for (int i = 0; i < kept.length; i++)
            {
                kept[i] = SipServletResponseImpl.forwardOf(invite, ok, 200);
            }
        };
        final long budget = (COMPACT_HEADERS ? 72 : 80) * (long)OBJECTS;
        final long bytes = AllocationMeter.leastBytes(make, make, 5, budget);
        assertTrue(bytes <= budget, "B per response object: " + (double)bytes / OBJECTS);
        assertEquals(200, kept[OBJECTS - 1].getStatus());
        assertTrue(kept[OBJECTS - 1].isForwarded());
    }
}
