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

/**
 * SIP over WebSocket (RFC 7118) with a client nobody here wrote: JsSIP, the browser SIP library, under Node with the
 * {@code ws} module ({@code src/test/resources/e2e/jssip}: package.json and package-lock.json with exact versions,
 * installed by {@code npm ci} into {@code target/e2e/jssip}). The server runs the registrar example with a WS and a
 * WSS port (kernel-chosen, read from its start-up lines); JsSIP registers and unregisters over each, and a sipp
 * caller reaches a JsSIP user registered over WS through the registrar: the INVITE goes on the client's connection,
 * found by its {@code .invalid} Contact host; once that connection is gone, the call gets 430 Flow Failed. Skipped
 * when npm or node is missing.
 */
class WebSocketE2eTest
{
    private static final Pattern LISTENING = Pattern.compile("sipline: listening on (wss?) 127\\.0\\.0\\.1:(\\d+) .*");

    static SiplineServer server;
    static Path client;
    static TestCertificate certificate;
    static int wsPort;
    static int wssPort;

    @BeforeAll
    static void installJsSipAndStartTheServer() throws Exception
    {
        assumeTrue(NodeRun.onPath("npm") && NodeRun.onPath("node"), "npm and node are needed for the JsSIP client");
        final Path dir = NodeRun.install("jssip", List.of("package.json", "package-lock.json", "jssip-client.js"));
        client = dir.resolve("jssip-client.js");
        certificate = TestCertificate.generate(Files.createTempDirectory(dir, "tls"));
        final int tlsPort;
        try (ServerSocket free = new ServerSocket(0))
        {
            tlsPort = free.getLocalPort();
        }
        server = SiplineServer.start("websocket", List.of("--deploy", Examples.war("registrar").toString(),
            "--ws-port", "0", "--wss-port", "0", "--tls-port", Integer.toString(tlsPort),
            "--tls-cert", certificate.certificate.toString(), "--tls-key", certificate.privateKey.toString()));
        for (final String line : server.output().split("\n"))
        {
            final Matcher m = LISTENING.matcher(line);
            if (m.matches())
            {
                if ("ws".equals(m.group(1)))
                {
                    wsPort = Integer.parseInt(m.group(2));
                }
                else
                {
                    wssPort = Integer.parseInt(m.group(2));
                }
            }
        }
        assertTrue(wsPort > 0 && wssPort > 0, "no ws and wss lines in:\n" + server.output());
    }

    @AfterAll
    static void stopTheServer() throws Exception
    {
        SiplineServer.stopCleanly(server);
    }

    @Test
    void shouldRegisterAndUnregisterOverWebSocket() throws Exception
    {
        final NodeRun run = node("ws://127.0.0.1:" + wsPort + "/", "carol", "-", "register");
        assertEquals(0, run.await(), run.output());
        assertTrue(run.has("UPGRADED sip"), run.output());
        assertTrue(run.has("REGISTERED 200 "), run.output());
        assertTrue(run.has("UNREGISTERED 200"), run.output());
    }

    @Test
    void shouldRegisterAndUnregisterOverSecureWebSocket() throws Exception
    {
        // The client checks the server's certificate against the test's own CA (the self-signed certificate).
        final NodeRun run = node("wss://127.0.0.1:" + wssPort + "/", "dave",
            certificate.certificate.toString(), "register");
        assertEquals(0, run.await(), run.output());
        assertTrue(run.has("REGISTERED 200 "), run.output());
        assertTrue(run.has("UNREGISTERED 200"), run.output());
    }

    @Test
    void shouldDeliverACallToAUserRegisteredOverWebSocket() throws Exception
    {
        assumeTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        final NodeRun callee = node("ws://127.0.0.1:" + wsPort + "/", "erin", "-", "callee");
        assertTrue(Sipp.await(() -> callee.has("REGISTERED 200 ") || !callee.process.isAlive(), NodeRun.NODE_MS),
            callee.output());
        // JsSIP under Node has no WebRTC: it answers the INVITE 488 itself, which the registrar's B2BUA relays.
        SippRun.call("websocket-call-erin", server, 1, 1, 1_000,
            List.of("-sf", Examples.scenario("caller-final.xml", Map.of("STATUS", "488")), "-s", "erin"))
            .assertAll(1, server);
        assertEquals(0, callee.await(), callee.output());
        assertTrue(callee.has("INVITE_RECEIVED INVITE sip:"), callee.output());
    }

    @Test
    void shouldAnswer430ToACallForAUserWhoseConnectionIsGone() throws Exception
    {
        assumeTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        final NodeRun gone = node("ws://127.0.0.1:" + wsPort + "/", "frank", "-", "drop");
        assertEquals(0, gone.await(), gone.output());
        assertTrue(gone.has("REGISTERED 200 "), gone.output());
        // RFC 5626 §5.3: the binding is still there, its flow is not.
        SippRun.call("websocket-call-frank", server, 1, 1, 1_000,
            List.of("-sf", Examples.scenario("caller-final.xml", Map.of("STATUS", "430")), "-s", "frank"))
            .assertAll(1, server);
    }

    private static NodeRun node(final String url, final String user, final String ca, final String mode)
        throws IOException
    {
        return NodeRun.start(client, List.of(url, user, "127.0.0.1", ca, mode));
    }
}
