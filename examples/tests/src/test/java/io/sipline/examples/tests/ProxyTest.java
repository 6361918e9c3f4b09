package io.sipline.examples.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.sipline.junit.ClientTransaction;
import io.sipline.junit.ServerTransaction;
import io.sipline.junit.SiplineServer;
import io.sipline.junit.SiplineTest;
import io.sipline.junit.UserAgent;

/** The proxy example: parallel forking with Record-Route, and the reject header. */
@SiplineTest
class ProxyTest
{
    private static final Path WAR = Path.of("../proxy/target/proxy.war");

    @Test
    void forksAndCancelsTheLosingBranch(final SiplineServer sipline, final UserAgent alice, final UserAgent bob,
        final UserAgent carol)
    {
        sipline.deployment(WAR).initParam("proxy", "targets", bob.uri() + ", " + carol.uri()).deploy();
        final ClientTransaction invite = alice.invite(sipline.uri("team"));
        final ServerTransaction toBob = bob.expectRequest("INVITE").respond(180);
        final ServerTransaction toCarol = carol.expectRequest("INVITE");
        assertFalse(toCarol.request().headers("Record-Route").isEmpty(), "the proxy record-routes");
        toCarol.respond(200);
        invite.expect(200);
        bob.expectRequest("CANCEL").respond(200); // RFC 3261 §16.7 step 10: the other branch is cancelled
        toBob.respond(487);

        invite.ack();
        carol.expectRequest("ACK");
        assertEquals(1, invite.dialog().routeSet().size());
        final ClientTransaction bye = invite.dialog().bye();
        carol.expectRequest("BYE").respond(200);
        bye.expect(200);
    }

    @Test
    void refusesRequestsWithTheRejectHeader(final SiplineServer sipline, final UserAgent alice, final UserAgent bob)
    {
        sipline.deployment(WAR).initParam("proxy", "targets", bob.uri()).deploy();
        final ClientTransaction invite = alice.send(alice.createRequest("INVITE", sipline.uri("bob"))
            .add("X-Block", "yes"));
        invite.expect(403);
        bob.expectNoRequest("INVITE", java.time.Duration.ofMillis(300));
    }
}
