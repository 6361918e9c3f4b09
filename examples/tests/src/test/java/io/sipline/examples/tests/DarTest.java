package io.sipline.examples.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.sipline.junit.ClientTransaction;
import io.sipline.junit.SiplineServer;
import io.sipline.junit.SiplineTest;
import io.sipline.junit.UserAgent;

/** The examples' DAR (examples/dar/examples.properties): REGISTER to the registrar, INVITE to the b2bua. */
@SiplineTest(dar = "../dar/examples.properties")
class DarTest
{
    @Test
    void routesEachMethodToItsApplication(final SiplineServer sipline, final UserAgent alice, final UserAgent bob)
    {
        sipline.deployment(Path.of("../registrar/target/registrar.war")).deploy();
        sipline.deployment(Path.of("../b2bua/target/b2bua.war")).contextParam("target", bob.uri("service")).deploy();
        alice.register(sipline.uri("registrar"), 120).expect(200);
        final ClientTransaction invite = alice.invite("sip:somebody@example.com");
        assertEquals(bob.uri("service"), bob.expectRequest("INVITE").respond(603).request().requestUri(),
            "the b2bua, not the registrar (which would answer 404)");
        invite.expect(603);
    }
}
