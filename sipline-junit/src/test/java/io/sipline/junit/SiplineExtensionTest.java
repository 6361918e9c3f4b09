package io.sipline.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The annotation's application (classes and webapp), single-application routing, and the injected agents. */
@SiplineTest(classes = "target/test-classes", webapp = "src/test/webapp/uas")
class SiplineExtensionTest
{
    private static int port;

    @BeforeAll
    static void started(final SiplineServer sipline)
    {
        assertNotEquals(0, sipline.port(), "bound to a free port");
        port = sipline.port();
    }

    @Test
    void deploysTheAnnotatedApplicationInOneContainerPerClass(final SiplineServer sipline)
    {
        assertEquals(Set.of("uas"), sipline.applications());
        assertEquals(port, sipline.port());
        assertEquals("127.0.0.1", sipline.address().getAddress().getHostAddress());
    }

    @Test
    void placesAndEndsACall(final SiplineServer sipline, final UserAgent alice)
    {
        final ClientTransaction invite = alice.invite(sipline.uri("uas"));
        invite.expect(180);
        final SipMessage ok = invite.expect(200);
        assertEquals("hello", ok.header("X-Greeting"), "the context parameter of sip.xml");
        invite.ack();
        alice.expectNoRequest("BYE", java.time.Duration.ofMillis(200));
        invite.dialog().bye().expect(200);
    }

    @Test
    void registersAndSeesNonSuccess(final SiplineServer sipline, final UserAgent alice, final UserAgent bob)
    {
        final SipMessage ok = alice.register(sipline.uri("registrar"), 60).expect(200);
        assertTrue(ok.header("Contact").contains(alice.uri()), ok.toString());
        assertNotEquals(alice.address(), bob.address(), "each parameter is an agent of its own");
        bob.send(bob.createRequest("INFO", sipline.uri("uas"))).expect(486);
    }

    @Nested
    class WhenNested
    {
        @Test
        void runsInTheEnclosingClassContainer(final SiplineServer sipline, final UserAgent carol)
        {
            assertEquals(port, sipline.port());
            carol.send(carol.createRequest("OPTIONS", sipline.uri("uas"))).expect(200);
        }
    }
}
