package io.sipline.examples.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.sipline.junit.ClientTransaction;
import io.sipline.junit.ServerTransaction;
import io.sipline.junit.SipMessage;
import io.sipline.junit.SiplineServer;
import io.sipline.junit.SiplineTest;
import io.sipline.junit.UserAgent;

/** The b2bua example: every INVITE goes, back-to-back, to the context parameter "target" (here bob). */
@SiplineTest
class B2buaTest
{
    private static final Path WAR = Path.of("../b2bua/target/b2bua.war");

    @Test
    void forwardsACallOnASecondLeg(final SiplineServer sipline, final UserAgent alice, final UserAgent bob)
    {
        sipline.deployment(WAR).contextParam("target", bob.uri("service")).deploy();
        final ClientTransaction invite = alice.invite(sipline.uri("anyone"));
        final ServerTransaction leg = bob.expectRequest("INVITE");
        assertEquals(bob.uri("service"), leg.request().requestUri());
        assertNotEquals(invite.request().callId(), leg.request().callId(), "a B2BUA's second leg is a new call");
        leg.respond(180).respond(200, "application/sdp", "v=0\r\n");
        invite.expect(180);
        assertEquals("v=0\r\n", invite.expect(200).body(), "the callee's answer reaches the caller");
        invite.ack();
        bob.expectRequest("ACK");

        final ClientTransaction bye = leg.dialog().bye(); // the callee hangs up
        final SipMessage byeIn = alice.expectRequest("BYE").respond(200).request();
        assertEquals(invite.request().callId(), byeIn.callId());
        bye.expect(200);
    }

    @Test
    void relaysABusyCallee(final SiplineServer sipline, final UserAgent alice, final UserAgent bob)
    {
        sipline.deployment(WAR).contextParam("target", bob.uri("service")).deploy();
        final ClientTransaction invite = alice.invite(sipline.uri("anyone"));
        bob.expectRequest("INVITE").respond(486);
        invite.expect(486);
    }
}
