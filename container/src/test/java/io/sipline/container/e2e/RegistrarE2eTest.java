package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The registrar example in the real server, driven by sipp on loopback: a user registers a contact (a sipp callee),
 * calls to the user reach that contact through the registrar's B2BUA; after {@code Contact: *} with
 * {@code Expires: 0} a call to the user gets 404.
 */
class RegistrarE2eTest
{
    static SiplineServer server;

    @BeforeAll
    static void startTheServer() throws Exception
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        final Path war = Examples.war("registrar");
        server = SiplineServer.start("registrar", List.of("--deploy", war.toString()));
        assertTrue(server.output().contains("sipline: deployed registrar"), server.output());
    }

    @AfterAll
    static void stopTheServer() throws Exception
    {
        SiplineServer.stopCleanly(server);
    }

    @Test
    void shouldDeliverCallsToARegisteredUser() throws Exception
    {
        final int contactPort = Sipp.freeUdpPort();
        register("alice", contactPort, "registrar-register-alice");
        SippRun.callThrough("registrar-alice", server, contactPort, 20, 10, 2_000, List.of("-sn", "uas"),
            List.of("-sn", "uac", "-s", "alice"));
    }

    @Test
    void shouldAnswer404ToAnUnregisteredUser() throws Exception
    {
        final int contactPort = Sipp.freeUdpPort();
        register("bob", contactPort, "registrar-register-bob");
        SippRun.call("registrar-unregister-bob", server, 1, 1, 1_000,
            List.of("-sf", Examples.scenario("unregister.xml", Map.of()), "-key", "user", "bob"))
            .assertAll(1, server);
        SippRun.call("registrar-call-bob", server, 3, 10, 1_000,
            List.of("-sf", Examples.scenario("caller-final.xml", Map.of("STATUS", "404")), "-s", "bob"))
            .assertAll(3, server);
    }

    @Test
    void shouldAnswer404ToAUserWhoNeverRegistered() throws Exception
    {
        SippRun.call("registrar-call-nobody", server, 3, 10, 1_000,
            List.of("-sf", Examples.scenario("caller-final.xml", Map.of("STATUS", "404")), "-s", "nobody"))
            .assertAll(3, server);
    }

    private static void register(final String user, final int contactPort, final String name) throws Exception
    {
        SippRun.call(name, server, 1, 1, 1_000, List.of("-sf", Examples.scenario("register.xml", Map.of()),
            "-key", "user", user, "-key", "contact_port", Integer.toString(contactPort)))
            .assertAll(1, server);
    }
}
