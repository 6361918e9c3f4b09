package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

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
    void shouldEndTheCalleesLegWhenIts2xxCrossesTheCallersCancel() throws Exception
    {
        // The caller's leg is over (487 and its ACK) when the callee's 200 comes: the B2BUA ACKs it and sends BYE.
        // Before, the forwarder asked for the linked session of the caller's ended session and threw (seen under load
        // as "not a valid session of this container"), leaving the callee's 200 unacknowledged.
        SippRun.callThrough("b2bua-crossing", server, calleePort, 5, 5, 3_000,
            List.of("-sf", Examples.scenario("callee-crossing-2xx.xml", Map.of())),
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

    /**
     * A proxy beyond the callee leg forked the INVITE: two 2xx of different To tags come back (raw sockets play the
     * caller, the forking callee side and the second callee). The example relays the second one to the caller as a
     * dialog of its own (JSR 289 §6.2.3.2 derived sessions, B2buaHelper.createResponseToOriginalRequest), and each
     * of the caller's ACKs and BYEs reaches its own callee dialog (RFC 3261 §13.2.2.4).
     */
    @Test
    void shouldRelayASecondDialogOfAForkedInviteAsADialogOfItsOwn() throws Exception
    {
        final InetAddress loopback = InetAddress.ofLiteral("127.0.0.1");
        final InetSocketAddress sipline = new InetSocketAddress(loopback, server.port());
        try (DatagramSocket caller = new DatagramSocket(new InetSocketAddress(loopback, 0));
            DatagramSocket fork = new DatagramSocket(new InetSocketAddress(loopback, calleePort));
            DatagramSocket second = new DatagramSocket(new InetSocketAddress(loopback, 0)))
        {
            final String callId = "forked-e2e-" + System.nanoTime();
            final int callerPort = caller.getLocalPort();
            send(caller, sipline, "INVITE sip:service@127.0.0.1 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + callerPort + ";branch=z9hG4bK-" + callId + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@127.0.0.1>;tag=a1\r\n"
                + "To: <sip:service@127.0.0.1>\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 INVITE\r\n"
                + "Contact: <sip:alice@127.0.0.1:" + callerPort + ">\r\n"
                + "Content-Length: 0\r\n\r\n");
            final String invite = await(fork, m -> m.startsWith("INVITE "), "the INVITE on the callee leg");

            send(fork, sipline, answer(invite, "callee1", calleePort));
            final String ok1 = await(caller, m -> m.startsWith("SIP/2.0 200 "), "the first 2xx relayed");
            final String to1 = header(ok1, "To");
            send(fork, sipline, answer(invite, "callee2", second.getLocalPort()));
            final String ok2 = await(caller, m -> m.startsWith("SIP/2.0 200 ") && !to1.equals(header(m, "To")),
                "the second 2xx relayed, with a To tag of its own");
            final String to2 = header(ok2, "To");
            assertTrue(to2.contains(";tag="), ok2);

            send(caller, sipline, callerRequest("ACK", callId, callerPort, to1, 1));
            final String ack1 = await(fork, m -> m.startsWith("ACK "), "the first dialog's ACK");
            assertTrue(header(ack1, "To").endsWith(";tag=callee1"), ack1);
            send(caller, sipline, callerRequest("ACK", callId, callerPort, to2, 1));
            final String ack2 = await(second, m -> m.startsWith("ACK "), "the second dialog's ACK, at its Contact");
            assertTrue(header(ack2, "To").endsWith(";tag=callee2"), ack2);

            send(caller, sipline, callerRequest("BYE", callId, callerPort, to2, 2));
            final String bye2 = await(second, m -> m.startsWith("BYE "), "the second dialog's BYE");
            assertTrue(header(bye2, "To").endsWith(";tag=callee2"), bye2);
            send(second, sipline, okTo(bye2));
            send(caller, sipline, callerRequest("BYE", callId, callerPort, to1, 3));
            final String bye1 = await(fork, m -> m.startsWith("BYE "), "the first dialog's BYE");
            assertTrue(header(bye1, "To").endsWith(";tag=callee1"), bye1);
            send(fork, sipline, okTo(bye1));
            await(caller, m -> m.startsWith("SIP/2.0 200 ") && m.contains(" BYE\r\n") && to1.equals(header(m, "To")),
                "200 to the caller's last BYE");
        }
    }

    private static void send(final DatagramSocket socket, final InetSocketAddress to, final String text)
        throws java.io.IOException
    {
        final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        socket.send(new DatagramPacket(bytes, bytes.length, to));
    }

    /** The first message read that matches, within ten seconds. */
    private static String await(final DatagramSocket socket, final Predicate<String> wanted, final String what)
        throws java.io.IOException
    {
        socket.setSoTimeout(100);
        final byte[] buffer = new byte[8192];
        final List<String> read = new java.util.ArrayList<>();
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() - deadline < 0)
        {
            final DatagramPacket p = new DatagramPacket(buffer, buffer.length);
            try
            {
                socket.receive(p);
            }
            catch (final SocketTimeoutException e)
            {
                continue;
            }
            final String text = new String(buffer, 0, p.getLength(), StandardCharsets.US_ASCII);
            if (wanted.test(text))
            {
                return text;
            }
            read.add(text.substring(0, text.indexOf('\r')));
        }
        throw new AssertionError("no " + what + " within 10 s; read " + read);
    }

    private static String header(final String message, final String name)
    {
        final String prefix = name.toLowerCase(Locale.ROOT) + ":";
        for (final String line : message.split("\r\n"))
        {
            if (line.toLowerCase(Locale.ROOT).startsWith(prefix))
            {
                return line.substring(prefix.length()).strip();
            }
        }
        return null;
    }

    /** A 2xx of the forked callee side to the example's INVITE: To tag {@code tag}, Contact at {@code port}. */
    private static String answer(final String invite, final String tag, final int port)
    {
        return "SIP/2.0 200 OK\r\n"
            + "Via: " + header(invite, "Via") + "\r\n"
            + "From: " + header(invite, "From") + "\r\n"
            + "To: " + header(invite, "To") + ";tag=" + tag + "\r\n"
            + "Call-ID: " + header(invite, "Call-ID") + "\r\n"
            + "CSeq: " + header(invite, "CSeq") + "\r\n"
            + "Contact: <sip:" + tag + "@127.0.0.1:" + port + ">\r\n"
            + "Content-Length: 0\r\n\r\n";
    }

    private static String callerRequest(final String method, final String callId, final int port, final String to,
        final int cseq)
    {
        return method + " sip:service@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + port + ";branch=z9hG4bK-" + callId + "-" + method + cseq + "-"
            + to.hashCode() + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@127.0.0.1>;tag=a1\r\n"
            + "To: " + to + "\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: " + cseq + " " + method + "\r\n"
            + "Content-Length: 0\r\n\r\n";
    }

    private static String okTo(final String request)
    {
        return "SIP/2.0 200 OK\r\n"
            + "Via: " + header(request, "Via") + "\r\n"
            + "From: " + header(request, "From") + "\r\n"
            + "To: " + header(request, "To") + "\r\n"
            + "Call-ID: " + header(request, "Call-ID") + "\r\n"
            + "CSeq: " + header(request, "CSeq") + "\r\n"
            + "Content-Length: 0\r\n\r\n";
    }
}
