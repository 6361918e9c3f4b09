package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sipline.container.dispatch.TestCertificate;
import io.sipline.test.Sipp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Calls over SIP over WebSocket (RFC 7118) with a browser SIP library nobody here wrote: SIP.js under Node with the
 * {@code ws} module and a session description handler of the test's own that offers and answers a plain audio SDP
 * (Node has no WebRTC; SIP.js takes one through its {@code sessionDescriptionHandlerFactory} option). Both ways, over
 * WS and over WSS (the client checks the server's certificate against the test's own):
 * <ul>
 *   <li>a sipp caller over UDP reaches a SIP.js user registered over WebSocket through the registrar example: the
 *       INVITE comes on the client's connection with our {@code WS}/{@code WSS} Via and a {@code transport=ws}
 *       Contact, the call is established (200, ACK) and sipp's BYE ends it on the client;</li>
 *   <li>a SIP.js caller reaches a sipp UAS over UDP through the b2bua example: the 200 carries our
 *       {@code transport=ws} Contact, the call is established and the client's BYE ends it at sipp.</li>
 * </ul>
 * Skipped when npm, node or sipp is missing.
 */
class WebSocketCallE2eTest
{
    private static final Pattern LISTENING = Pattern.compile("sipline: listening on (wss?) 127\\.0\\.0\\.1:(\\d+) .*");

    @TempDir
    static Path work;

    static Path client;
    static TestCertificate certificate;
    static SiplineServer registrar;
    static int[] registrarPorts;
    static SiplineServer b2bua;
    static int[] b2buaPorts;
    static int calleePort;

    @BeforeAll
    static void installSipJsAndStartTheServers() throws Exception
    {
        assumeTrue(NodeRun.onPath("npm") && NodeRun.onPath("node"), "npm and node are needed for the SIP.js client");
        assumeTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        client = NodeRun.install("sipjs", List.of("package.json", "package-lock.json", "sipjs-client.mjs"))
            .resolve("sipjs-client.mjs");
        certificate = TestCertificate.generate(Files.createDirectories(work.resolve("tls")));
        registrar = start("websocket-registrar", Examples.war("registrar"));
        registrarPorts = webSocketPorts(registrar);
        calleePort = Sipp.freeUdpPort();
        b2bua = start("websocket-b2bua", Examples.configured("b2bua",
            Map.of("target", "sip:service@127.0.0.1:" + calleePort), work.resolve("apps")));
        b2buaPorts = webSocketPorts(b2bua);
    }

    @AfterAll
    static void stopTheServers() throws Exception
    {
        SiplineServer.stopCleanly(registrar);
        SiplineServer.stopCleanly(b2bua);
    }

    @Test
    void shouldConnectAUdpCallerToAUserRegisteredOverWebSocket() throws Exception
    {
        callTheWebSocketUser("ws://127.0.0.1:" + registrarPorts[0] + "/", "gina", "-", "SIP/2.0/WS ");
    }

    @Test
    void shouldConnectAUdpCallerToAUserRegisteredOverSecureWebSocket() throws Exception
    {
        callTheWebSocketUser("wss://127.0.0.1:" + registrarPorts[1] + "/", "hugo", certificate.certificate.toString(),
            "SIP/2.0/WSS ");
    }

    @Test
    void shouldConnectAWebSocketCallerToAUdpCalleeThroughTheB2bua() throws Exception
    {
        callFromWebSocket("ws://127.0.0.1:" + b2buaPorts[0] + "/", "ivy", "-", b2buaPorts[0]);
    }

    @Test
    void shouldConnectASecureWebSocketCallerToAUdpCalleeThroughTheB2bua() throws Exception
    {
        callFromWebSocket("wss://127.0.0.1:" + b2buaPorts[1] + "/", "jack", certificate.certificate.toString(),
            b2buaPorts[1]);
    }

    /** sipp (UDP) -> registrar example (B2BUA to the binding) -> SIP.js over the connection it registered on. */
    private static void callTheWebSocketUser(final String url, final String user, final String ca, final String via)
        throws Exception
    {
        final NodeRun callee = NodeRun.start(client, List.of(url, user, "127.0.0.1", ca, "callee"));
        try
        {
            assertTrue(Sipp.await(() -> callee.has("REGISTERED 200 ") || !callee.process.isAlive(), NodeRun.NODE_MS),
                callee.output());
            // sipp's uac: INVITE with an SDP offer, 200, ACK, BYE, 200
            SippRun.call("websocket-call-" + user, registrar, 1, 1, 2_000, List.of("-sn", "uac", "-s", user))
                .assertAll(1, registrar);
            assertEquals(0, callee.await(), callee.output());
            final String invite = callee.line("INVITE_RECEIVED ");
            // RFC 7118 §5: our Via names the WebSocket transport, our Contact is reachable over it
            assertTrue(null != invite && invite.contains(" via " + via) && invite.contains("transport=ws"),
                callee.output());
            assertTrue(callee.has("SDP_RECEIVED") && callee.has("ESTABLISHED") && callee.has("BYE_RECEIVED")
                && callee.has("TERMINATED"), callee.output());
        }
        finally
        {
            callee.stop();
        }
    }

    /** SIP.js over WS -> b2bua example -> sipp UAS over UDP; SIP.js ends the call with BYE. */
    private static void callFromWebSocket(final String url, final String user, final String ca, final int port)
        throws Exception
    {
        final String name = "websocket-uas-" + user;
        final Process uas = SippRun.callee(name, calleePort, 1, List.of("-sn", "uas"));
        try
        {
            final NodeRun caller = NodeRun.start(client, List.of(url, user, "127.0.0.1", ca, "caller",
                "sip:service@127.0.0.1"));
            assertEquals(0, caller.await(), caller.output() + "\n== server\n" + b2bua.output());
            final String answered = caller.line("ANSWERED 200 ");
            assertTrue(null != answered && answered.contains(":" + port + ";transport=ws"), caller.output());
            assertTrue(caller.has("SDP_RECEIVED") && caller.has("ESTABLISHED") && caller.has("BYE_ANSWERED 200")
                && caller.has("TERMINATED"), caller.output());
            SippRun.awaitCallee(name, uas, 1, b2bua); // INVITE, ACK and BYE reached sipp
        }
        finally
        {
            Sipp.stop(uas);
        }
    }

    private static SiplineServer start(final String name, final Path war) throws IOException, InterruptedException
    {
        final int tlsPort;
        try (ServerSocket free = new ServerSocket(0))
        {
            tlsPort = free.getLocalPort();
        }
        return SiplineServer.start(name, List.of("--deploy", war.toString(), "--ws-port", "0", "--wss-port", "0",
            "--tls-port", Integer.toString(tlsPort), "--tls-cert", certificate.certificate.toString(), "--tls-key",
            certificate.privateKey.toString()));
    }

    /** The WS and WSS ports a server printed at start. */
    private static int[] webSocketPorts(final SiplineServer server)
    {
        final int[] ports = new int[2];
        for (final String line : server.output().split("\n"))
        {
            final Matcher m = LISTENING.matcher(line);
            if (m.matches())
            {
                ports["ws".equals(m.group(1)) ? 0 : 1] = Integer.parseInt(m.group(2));
            }
        }
        assertTrue(ports[0] > 0 && ports[1] > 0, "no ws and wss lines in:\n" + server.output());
        return ports;
    }
}
