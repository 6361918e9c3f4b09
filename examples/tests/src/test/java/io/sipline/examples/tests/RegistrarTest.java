package io.sipline.examples.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.sipline.junit.ClientTransaction;
import io.sipline.junit.ServerTransaction;
import io.sipline.junit.SipMessage;
import io.sipline.junit.SiplineServer;
import io.sipline.junit.SiplineTest;
import io.sipline.junit.UserAgent;

/** The registrar example: RFC 3261 §10.3 bindings, and calls delivered to the newest contact. */
@SiplineTest(war = "../registrar/target/registrar.war")
class RegistrarTest
{
    @Test
    void deliversACallToTheRegisteredContact(final SiplineServer sipline, final UserAgent alice, final UserAgent bob)
    {
        final SipMessage bound = bob.register(sipline.uri("registrar"), "sip:bob@example.com", 600).expect(200);
        assertTrue(bound.header("Contact").contains(bob.uri()), bound.toString());
        assertEquals("600", SipMessage.param(bound.header("Contact"), "expires"));

        final ClientTransaction invite = alice.invite("sip:bob@example.com");
        final ServerTransaction incoming = bob.expectRequest("INVITE");
        assertEquals(bob.uri(), incoming.request().requestUri(), "retargeted to the contact");
        incoming.respond(180).respond(200);
        invite.expect(180);
        invite.expect(200);
        invite.ack();
        bob.expectRequest("ACK");
        final ClientTransaction bye = invite.dialog().bye();
        bob.expectRequest("BYE").respond(200);
        bye.expect(200);
    }

    @Test
    void refusesUnknownUsersAndShortExpiries(final SiplineServer sipline, final UserAgent alice)
    {
        alice.invite("sip:nobody@example.com").expect(404);
        final SipMessage tooBrief = alice.register(sipline.uri("registrar"), "sip:alice@example.com", 10)
            .expect(423);
        assertEquals("60", tooBrief.header("Min-Expires"), "the context parameter min-expires");
    }

    @Test
    void removesABindingWithExpiresZero(final SiplineServer sipline, final UserAgent carol)
    {
        carol.register(sipline.uri("registrar"), "sip:carol@example.com", 300).expect(200);
        final SipMessage removed = carol.register(sipline.uri("registrar"), "sip:carol@example.com", 0).expect(200);
        assertNull(removed.header("Contact"), removed.toString());
        carol.invite("sip:carol@example.com").expect(404);
    }
}
