package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The b2bua example in the real server, driven by sipp on loopback: sipp caller -> Sipline (b2bua.war, its
 * {@code target} pointed at this test's callee port) -> sipp callee. Normal calls under load, the caller cancelling,
 * the callee busy, silent, hanging up, or sending a reliable 183 (RFC 3262).
 */
class B2buaE2eTest
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
            Map.of("target", "sip:service@127.0.0.1:" + calleePort), work.resolve("apps"));
        server = SiplineServer.start("b2bua", List.of("--deploy", war.toString()));
        assertTrue(server.output().contains("sipline: deployed b2bua"), server.output());
    }

    @AfterAll
    static void stopTheServer() throws Exception
    {
        SiplineServer.stopCleanly(server);
    }

    @Test
    void shouldRelayAThousandCallsAtAHundredPerSecond() throws Exception
    {
        final SippRun[] runs = SippRun.callThrough("b2bua", server, calleePort, 1_000, 100, 10_000,
            List.of("-sn", "uas"), List.of("-sn", "uac", "-s", "service"));
        System.out.println("B2BUA 1,000 calls at 100/s: " + runs[0] + "; callee: " + runs[1]);
    }

    @Test
    void shouldCancelTheCalleeWhenTheCallerCancelsAfterRinging() throws Exception
    {
        SippRun.callThrough("b2bua-cancel", server, calleePort, 20, 10, 2_000,
            List.of("-sf", Examples.scenario("callee-cancelled.xml", Map.of())),
            List.of("-sf", Examples.scenario("caller-cancel.xml", Map.of()), "-s", "service"));
    }

    @Test
    void shouldRelayTheCalleesBusyHere() throws Exception
    {
        SippRun.callThrough("b2bua-486", server, calleePort, 20, 10, 2_000,
            List.of("-sf", Examples.scenario("callee-final.xml", Map.of("STATUS", "486", "REASON", "Busy Here"))),
            List.of("-sf", Examples.scenario("caller-final.xml", Map.of("STATUS", "486")), "-s", "service"));
    }

    @Test
    void shouldRelayTheCalleesHangUp() throws Exception
    {
        SippRun.callThrough("b2bua-bye", server, calleePort, 20, 10, 2_000,
            List.of("-sf", Examples.scenario("callee-hangs-up.xml", Map.of())),
            List.of("-sf", Examples.scenario("caller-receives-bye.xml", Map.of()), "-s", "service"));
    }

    /**
     * RFC 3262 through the example: the callee's reliable 183 goes to the caller reliably (it supports 100rel), the
     * caller's PRACK goes to the callee with the RAck of the callee's 183, and the callee answers only after it.
     */
    @Test
    void shouldRelayAReliable183AndItsPrack() throws Exception
    {
        final Path scenarios = Path.of("src", "test", "resources", "sipp").toAbsolutePath();
        SippRun.callThrough("b2bua-100rel", server, calleePort, 20, 10, 2_000,
            List.of("-sf", scenarios.resolve("prack-callee.xml").toString()),
            List.of("-sf", scenarios.resolve("prack-caller.xml").toString(), "-s", "service"));
    }

    /** A callee that never answers: the server's INVITE client transaction times out (Timer B, 64*T1 = 32 s). */
    @Test
    void shouldAnswer408WhenTheCalleeNeverAnswers() throws Exception
    {
        try (DatagramSocket silent = new DatagramSocket(
            new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), calleePort)))
        {
            final SippRun run = SippRun.call("b2bua-408-uac", server, 2, 10, 40_000,
                List.of("-sf", Examples.scenario("caller-final.xml", Map.of("STATUS", "408")), "-s", "service"));
            run.assertAll(2, server);
            final DatagramPacket packet = new DatagramPacket(new byte[65_536], 65_536);
            silent.setSoTimeout(1_000);
            silent.receive(packet);
            final String first = new String(packet.getData(), 0, packet.getLength(), StandardCharsets.UTF_8);
            assertTrue(first.startsWith("INVITE sip:service@127.0.0.1:" + calleePort + " SIP/2.0"), first);
        }
    }
}
