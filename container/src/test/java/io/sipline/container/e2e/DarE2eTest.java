package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The b2bua and registrar examples side by side under the examples' DAR file
 * ({@code examples/dar/examples.properties}): REGISTER reaches the registrar (its 200 lists the binding), INVITE the
 * b2bua (calls reach the b2bua's target).
 */
class DarE2eTest
{
    @TempDir
    Path work;

    @Test
    void shouldRouteRegisterToTheRegistrarAndInviteToTheB2bua() throws Exception
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        final int calleePort = Sipp.freeUdpPort();
        final Path b2bua = Examples.configured("b2bua", Map.of("target", "sip:service@127.0.0.1:" + calleePort),
            work);
        final Path dar = Examples.root().resolve("examples/dar/examples.properties");
        try (SiplineServer server = SiplineServer.start("dar", List.of("--deploy", b2bua.toString(),
            "--deploy", Examples.war("registrar").toString(), "--dar", dar.toString())))
        {
            SippRun.call("dar-register", server, 1, 1, 1_000, List.of("-sf", Examples.scenario("register.xml",
                Map.of()), "-key", "user", "dave", "-key", "contact_port", Integer.toString(calleePort)))
                .assertAll(1, server);
            assertTrue(server.awaitLine(l -> l.contains("REGISTER dave@127.0.0.1: 1 binding"), 10_000),
                server.output());
            SippRun.callThrough("dar-calls", server, calleePort, 20, 10, 2_000, List.of("-sn", "uas"),
                List.of("-sn", "uac", "-s", "service"));
            server.stopCleanly();
        }
    }
}
