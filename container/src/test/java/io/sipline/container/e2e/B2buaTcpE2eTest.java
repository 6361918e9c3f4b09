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
 * The b2bua example with its callee leg over TCP: its {@code target} is {@code sip:...;transport=tcp} (RFC 3263
 * §4.1), so the server reaches a sipp callee that listens on TCP only ({@code -t t1}); the caller talks UDP. Every
 * call completes: the INVITE, the ACK and the BYE of the callee leg go over TCP and its responses come back on the
 * connection (sipp would count an unexpected or missing message as a failed call).
 */
class B2buaTcpE2eTest
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
        final Path war = Examples.configured("b2bua",
            Map.of("target", "sip:service@127.0.0.1:" + calleePort + ";transport=tcp"), work.resolve("apps"));
        server = SiplineServer.start("b2bua-tcp", List.of("--deploy", war.toString()));
        assertTrue(server.output().contains("sipline: deployed b2bua"), server.output());
    }

    @AfterAll
    static void stopTheServer() throws Exception
    {
        SiplineServer.stopCleanly(server);
    }

    @Test
    void shouldRelayCallsToATcpCallee() throws Exception
    {
        final SippRun[] runs = SippRun.callThrough("b2bua-tcp", server, calleePort, 50, 10, 5_000,
            List.of("-sn", "uas", "-t", "t1"), List.of("-sn", "uac", "-s", "service"));
        System.out.println("B2BUA, callee over TCP, 50 calls at 10/s: " + runs[0] + "; callee: " + runs[1]);
    }

    @Test
    void shouldRelayTheCalleesHangUpOverTcp() throws Exception
    {
        SippRun.callThrough("b2bua-tcp-bye", server, calleePort, 10, 10, 2_000,
            List.of("-sf", Examples.scenario("callee-hangs-up-tcp.xml", Map.of()), "-t", "t1"),
            List.of("-sf", Examples.scenario("caller-receives-bye.xml", Map.of()), "-s", "service"));
    }
}
