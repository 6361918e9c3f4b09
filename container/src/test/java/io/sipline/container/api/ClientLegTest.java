package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;

import com.sun.management.HotSpotDiagnosticMXBean;

import io.sipline.test.AllocationMeter;

/**
 * The client-leg bookkeeping of a sent request: the transport it went on as JSR 289 {@code getTransport} reports it,
 * and the object's size (one per request the container sends on a client transaction, two per B2BUA call); an ACK's
 * smaller {@link SentLeg} (RFC 3261 §13.2.2.4: it is resent as it went, and has no transaction).
 */
class ClientLegTest
{
    private static final int OBJECTS = 1_000;
    private static final boolean COMPACT_HEADERS = "true".equals(ManagementFactory
        .getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption("UseCompactObjectHeaders").getValue());

    @Test
    void shouldReportTheTransportASentRequestWentOn()
    {
        // JSR 289 SipServletMessage.getTransport: the transport the message was sent on (RFC 3261 §18.1.1)
        for (final String name : new String[] {"UDP", "TCP", "TLS", "WS", "WSS"})
        {
            final SipServletRequestImpl r = SipServletRequestImpl.outgoing("BYE", "sip:bob@192.0.2.7",
                MessageHeaders.empty(1));
            r.sentTransport(name);
            assertEquals(name, r.sentTransport());
            assertEquals(name, r.getTransport());
        }
    }

    @Test
    void shouldHaveNoTransportNorSuffixBeforeTheRequestIsSent()
    {
        final SipServletRequestImpl r = SipServletRequestImpl.outgoing("BYE", "sip:bob@192.0.2.7",
            MessageHeaders.empty(1));
        r.destination(new java.net.InetSocketAddress("192.0.2.7", 5060));
        assertNull(r.sentTransport());
        assertNull(r.branchSuffix());
        r.sentTransport("tcp");
        assertEquals("TCP", r.sentTransport());
        r.sentTransport(null);
        assertNull(r.sentTransport());
    }

    @Test
    void shouldRefuseATransportNoRequestGoesOn()
    {
        final ClientLeg leg = new ClientLeg();
        assertThrows(IllegalArgumentException.class, () -> leg.sentTransport("SCTP"));
    }

    @Test
    void shouldKeepTheObjectWithinItsStep()
    {
        final ClientLeg[] kept = new ClientLeg[OBJECTS];
        final Runnable make = () ->
        {
            for (int i = 0; i < kept.length; i++)
            {
                kept[i] = new ClientLeg();
            }
        };
        final long budget = (COMPACT_HEADERS ? 40 : 48) * (long)OBJECTS;
        final long bytes = AllocationMeter.leastBytes(make, make, 5, budget);
        assertTrue(bytes <= budget, "B per ClientLeg: " + (double)bytes / OBJECTS);
        assertNull(kept[OBJECTS - 1].sentTransport());
    }

    @Test
    void shouldKeepAnAcksBranchTransportAndDestinationInASentLeg()
    {
        final SipServletRequestImpl ack = SipServletRequestImpl.outgoing("ACK", "sip:bob@192.0.2.7",
            MessageHeaders.empty(1));
        final java.net.InetSocketAddress to = new java.net.InetSocketAddress("192.0.2.7", 5060);
        ack.destination(to);
        ack.branch(3, 42);
        ack.sentTransport("UDP");
        ack.last2xx(null); // clearing a client leg's field makes none
        assertNull(ack.ack());
        assertNull(ack.proxyBranch());
        assertSame(to, ack.destination());
        assertEquals("UDP", ack.getTransport());
        final String branch = ack.branch();
        assertTrue(branch.startsWith("z9hG4bK"), branch);
        // a field only a client leg has: the leg grows and keeps what it held
        final SipServletRequestImpl other = SipServletRequestImpl.outgoing("BYE", "sip:bob@192.0.2.7",
            MessageHeaders.empty(1));
        ack.last2xx(null);
        ack.pendingCancel(other);
        assertSame(other, ack.pendingCancel());
        assertSame(to, ack.destination());
        assertEquals("UDP", ack.sentTransport());
        assertEquals(branch, ack.branch());
    }

    @Test
    void shouldKeepAnAcksSentLegWithinItsStep()
    {
        final SentLeg[] kept = new SentLeg[OBJECTS];
        final Runnable make = () ->
        {
            for (int i = 0; i < kept.length; i++)
            {
                kept[i] = new SentLeg();
            }
        };
        final long budget = (COMPACT_HEADERS ? 24 : 32) * (long)OBJECTS;
        final long bytes = AllocationMeter.leastBytes(make, make, 5, budget);
        assertTrue(bytes <= budget, "B per SentLeg: " + (double)bytes / OBJECTS);
        assertNull(kept[OBJECTS - 1].sentTransport());
    }
}
