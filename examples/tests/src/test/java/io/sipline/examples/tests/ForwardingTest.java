package io.sipline.examples.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.sipline.junit.ClientTransaction;
import io.sipline.junit.Dialog;
import io.sipline.junit.ServerTransaction;
import io.sipline.junit.SiplineServer;
import io.sipline.junit.SiplineTest;
import io.sipline.junit.UserAgent;

/**
 * The forwarding library's B2BUA behaviour (CANCEL, in-dialog requests), through the b2bua example that packages
 * it: forwarding is a library, not an application of its own.
 */
@SiplineTest
class ForwardingTest
{
    private UserAgent callee;

    @BeforeEach
    void deploy(final SiplineServer sipline, final UserAgent bob)
    {
        callee = bob;
        sipline.deployment(Path.of("../b2bua/target/b2bua.war")).contextParam("target", bob.uri()).deploy();
    }

    @Test
    void cancelsTheCalleeLeg(final SiplineServer sipline, final UserAgent alice)
    {
        final ClientTransaction invite = alice.invite(sipline.uri("anyone"));
        final ServerTransaction leg = callee.expectRequest("INVITE").respond(180);
        invite.expect(180);
        invite.cancel().expect(200);
        callee.expectRequest("CANCEL").respond(200);
        leg.respond(487);
        invite.expect(487);
    }

    @Test
    void relaysRequestsInsideTheDialog(final SiplineServer sipline, final UserAgent alice)
    {
        final ClientTransaction invite = alice.invite(sipline.uri("anyone"));
        final ServerTransaction leg = callee.expectRequest("INVITE").respond(200);
        invite.expect(200);
        invite.ack();
        callee.expectRequest("ACK");
        final Dialog dialog = invite.dialog();
        final ClientTransaction info = dialog.send(dialog.createRequest("INFO").body("text/plain", "dtmf 5"));
        final ServerTransaction infoIn = callee.expectRequest("INFO");
        assertEquals("dtmf 5", infoIn.request().body());
        assertEquals(leg.request().callId(), infoIn.request().callId(), "on the callee's leg");
        infoIn.respond(200);
        info.expect(200);
        final ClientTransaction bye = dialog.bye();
        callee.expectRequest("BYE").respond(200);
        bye.expect(200);
    }
}
