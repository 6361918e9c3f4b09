package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compatibility suite's WebSocket application: Mobicents' websocket-b2bua ({@code src/test/compat/websocket-b2bua},
 * unchanged), a registrar and B2BUA for browsers, with {@code @Resource} injection of its factory and the DAR file it
 * ships, on a {@code --ws-port}. Two WebSocket users ({@link WsUser}: JsSIP cannot be one, it ignores the 200 to
 * its REGISTER, which this application sends without the Contact RFC 3261 §10.3 step 8 asks for) exchange a MESSAGE
 * through it (relayed to the callee's connection, found by its {@code .invalid} Contact, RFC 7118 §5), and a sipp
 * caller calls a UDP phone registered through it (INVITE relayed to the registered Contact, the 200 and its ACK,
 * the BYE and its 200 relayed by the servlet).
 */
class WebSocketB2buaCompatE2eTest
{
    private static final Pattern LISTENING = Pattern.compile("sipline: listening on ws 127\\.0\\.0\\.1:(\\d+) .*");

    @TempDir
    static Path work;
    static SiplineServer server;
    static int wsPort;

    @BeforeAll
    static void deployTheApplication() throws Exception
    {
        final Path app = CompatApps.source("websocket-b2bua");
        server = SiplineServer.start("compat-websocket-b2bua", List.of(
            "--shared-lib", CompatApps.sharedLib().toString(), "--ws-port", "0",
            "--deploy", CompatApps.war("websocket-b2bua", work).toString(),
            "--dar", app.resolve("websocket-dar.properties").toString()));
        for (final String line : server.output().split("\n"))
        {
            final Matcher m = LISTENING.matcher(line);
            if (m.matches())
            {
                wsPort = Integer.parseInt(m.group(1));
            }
        }
        assertTrue(wsPort > 0, "no ws line in:\n" + server.output());
    }

    @AfterAll
    static void stopTheServer() throws Exception
    {
        SiplineServer.stopCleanly(server);
    }

    @Test
    void relaysAMessageBetweenTwoWebSocketUsers() throws Exception
    {
        try (WsUser alice = new WsUser("alice", wsPort); WsUser bob = new WsUser("bob", wsPort))
        {
            assertTrue(alice.register().startsWith("SIP/2.0 200 "), server.output());
            assertTrue(bob.register().startsWith("SIP/2.0 200 "), server.output());
            alice.send("MESSAGE sip:bob@127.0.0.1 SIP/2.0", "hello from alice");
            final String relayed = bob.next(m -> m.startsWith("MESSAGE "));
            assertTrue(relayed.startsWith("MESSAGE sip:bob@" + bob.host + ";transport=ws SIP/2.0"),
                "to bob's registered Contact, on his connection:\n" + relayed);
            assertTrue(relayed.endsWith("\r\n\r\nhello from alice"), relayed);
            bob.answer(relayed, 200);
            final String ok = alice.next(m -> m.startsWith("SIP/2.0 ") && m.contains(" MESSAGE\r\n"));
            assertTrue(ok.startsWith("SIP/2.0 200 "), "bob's 200 relayed to alice:\n" + ok + server.output());
        }
    }

    @Test
    void relaysACallToAPhoneRegisteredThroughIt() throws Exception
    {
        assumeTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        final int phonePort = Sipp.freeUdpPort();
        assertEquals(200, ClickToCallAsyncCompatE2eTest.register(server.port(), "carol",
            "sip:carol@127.0.0.1:" + phonePort), server.output());
        SippRun.callThrough("compat-ws-b2bua", server, phonePort, 1, 1, 2_000, List.of("-sn", "uas"),
            List.of("-sn", "uac", "-s", "carol"));
    }

}
