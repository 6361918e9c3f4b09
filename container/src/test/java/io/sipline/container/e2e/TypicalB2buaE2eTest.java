package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The typical-b2bua example (the load harness's realistic application) in the real server, driven by sipp: calls
 * relayed with their SDP, a caller's CANCEL, a callee's busy, a callee hanging up; its session listeners count and
 * its periodic line reaches the server's log through {@code ServletContext.log}.
 */
class TypicalB2buaE2eTest
{
    @TempDir
    static Path work;

    static SiplineServer server;
    static int calleePort;

    @BeforeAll
    static void startTheServer() throws Exception
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        calleePort = Sipp.freeUdpPort();
        final Path war = Examples.configured("typical-b2bua",
            Map.of("target", "sip:service@127.0.0.1:" + calleePort), work.resolve("apps"));
        server = SiplineServer.start("typical-b2bua", List.of("--deploy", war.toString()));
        assertTrue(server.output().contains("sipline: deployed typical-b2bua"), server.output());
    }

    @AfterAll
    static void stopTheServer() throws Exception
    {
        SiplineServer.stopCleanly(server);
    }

    @Test
    void shouldRelayFiveHundredCallsAndLogEveryTenth() throws Exception
    {
        SippRun.callThrough("typical", server, calleePort, 500, 100, 5_000, List.of("-sn", "uas"),
            List.of("-sn", "uac", "-s", "service"));
        assertTrue(server.awaitLine(l -> l.contains("typical-b2bua: 500 calls placed; calls "), 5_000),
            server.output());
    }

    @Test
    void shouldCancelTheCalleeWhenTheCallerCancels() throws Exception
    {
        SippRun.callThrough("typical-cancel", server, calleePort, 10, 10, 2_000,
            List.of("-sf", Examples.scenario("callee-cancelled.xml", Map.of())),
            List.of("-sf", Examples.scenario("caller-cancel.xml", Map.of()), "-s", "service"));
    }

    @Test
    void shouldRelayTheCalleesBusyHere() throws Exception
    {
        SippRun.callThrough("typical-486", server, calleePort, 10, 10, 2_000,
            List.of("-sf", Examples.scenario("callee-final.xml", Map.of("STATUS", "486", "REASON", "Busy Here"))),
            List.of("-sf", Examples.scenario("caller-final.xml", Map.of("STATUS", "486")), "-s", "service"));
    }

    @Test
    void shouldRelayTheCalleesHangUp() throws Exception
    {
        SippRun.callThrough("typical-bye", server, calleePort, 10, 10, 2_000,
            List.of("-sf", Examples.scenario("callee-hangs-up.xml", Map.of())),
            List.of("-sf", Examples.scenario("caller-receives-bye.xml", Map.of()), "-s", "service"));
    }
}
