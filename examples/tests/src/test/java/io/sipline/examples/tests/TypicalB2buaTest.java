package io.sipline.examples.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.sipline.junit.ClientTransaction;
import io.sipline.junit.ServerTransaction;
import io.sipline.junit.SiplineServer;
import io.sipline.junit.SiplineTest;
import io.sipline.junit.UserAgent;

/**
 * The typical-b2bua example: the INVITE reaches the context parameter "target" with its X-Call-Ref header, the
 * answer and the ACK cross, and the caller's BYE is relayed and answered end to end.
 */
@SiplineTest
class TypicalB2buaTest
{
    private static final Path WAR = Path.of("../typical-b2bua/target/typical-b2bua.war");

    @Test
    void relaysACallWithItsReferenceAndTheCallersHangUp(final SiplineServer sipline, final UserAgent alice,
        final UserAgent bob)
    {
        sipline.deployment(WAR).contextParam("target", bob.uri("service")).deploy();
        final ClientTransaction invite = alice.invite(sipline.uri("anyone"));
        final ServerTransaction leg = bob.expectRequest("INVITE");
        assertEquals("call-1", leg.request().header("X-Call-Ref"));
        assertNotEquals(invite.request().callId(), leg.request().callId(), "a second leg is a new call");
        leg.respond(180).respond(200, "application/sdp", "v=0\r\n");
        invite.expect(180);
        assertEquals("v=0\r\n", invite.expect(200).body());
        invite.ack();
        bob.expectRequest("ACK");

        final ClientTransaction bye = invite.dialog().bye();
        bob.expectRequest("BYE").respond(200);
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
