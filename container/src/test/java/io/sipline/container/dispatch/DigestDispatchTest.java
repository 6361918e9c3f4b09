package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;

import org.junit.jupiter.api.Test;

import io.sipline.container.deploy.ApplicationArchive;
import io.sipline.container.deploy.ApplicationClassLoader;
import io.sipline.container.deploy.DeployedApplication;
import io.sipline.container.deploy.DeploymentException;
import io.sipline.container.deploy.SipApplicationDescriptor;
import io.sipline.container.deploy.SipXmlReader;
import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.container.security.Credentials;
import io.sipline.container.security.DigestClient;
import io.sipline.container.security.UserRealm;
import io.sipline.sip.stack.SipStackConfig;

/**
 * Digest authentication in dispatch: a container with a users file and an application whose sip.xml
 * protects REGISTER (401) and INVITE ({@code proxy-authentication}, 407); raw datagrams on loopback, credentials
 * computed by {@link DigestClient} from the challenge the container sent.
 */
class DigestDispatchTest
{
    private static final String REQUEST_URI = "sip:service@127.0.0.1";

    private final DigestClient client = new DigestClient();

    private static final String SIP_XML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <sip-app xmlns="http://www.jcp.org/xml/ns/sipservlet" xmlns:javaee="http://java.sun.com/xml/ns/javaee"
                 version="1.1">
          <app-name>secured</app-name>
          <servlet-selection><main-servlet>main</main-servlet></servlet-selection>
          <servlet><servlet-name>main</servlet-name>
            <servlet-class>io.sipline.container.dispatch.DigestDispatchTest$Recorder</servlet-class></servlet>
          <security-constraint>
            <resource-collection>
              <resource-name>registration</resource-name>
              <servlet-name>main</servlet-name>
              <sip-method>REGISTER</sip-method>
            </resource-collection>
            <auth-constraint><javaee:role-name>subscriber</javaee:role-name></auth-constraint>
          </security-constraint>
          <security-constraint>
            <resource-collection>
              <resource-name>calls</resource-name>
              <servlet-name>main</servlet-name>
              <sip-method>INVITE</sip-method>
            </resource-collection>
            <proxy-authentication/>
            <auth-constraint><javaee:role-name>caller</javaee:role-name></auth-constraint>
          </security-constraint>
          <login-config>
            <auth-method>DIGEST</auth-method>
            <realm-name>sip.example.com</realm-name>
          </login-config>
          <security-role><javaee:role-name>subscriber</javaee:role-name></security-role>
          <security-role><javaee:role-name>caller</javaee:role-name></security-role>
        </sip-app>
        """;

    private static final String USERS = """
        # test users
        alice:plain:Circle Of Life:subscriber,caller
        bob:plain:pw2:subscriber
        """;

    /**
     * Records who the container says sent each request; 200 to REGISTER and OPTIONS, 486 to INVITE (200 when its
     * Call-ID starts with {@code ok-}); nothing to ACK.
     */
    public static final class Recorder extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        final transient Queue<String> seen = new ConcurrentLinkedQueue<>();

        @Override
        protected void doRequest(final SipServletRequest req) throws IOException
        {
            seen.add(req.getMethod() + " user=" + req.getRemoteUser() + " principal="
                + (null == req.getUserPrincipal() ? null : req.getUserPrincipal().getName())
                + " subscriber=" + req.isUserInRole("subscriber") + " caller=" + req.isUserInRole("caller"));
            if ("ACK".equals(req.getMethod()))
            {
                return;
            }
            req.createResponse("INVITE".equals(req.getMethod()) && !req.getCallId().startsWith("ok-") ? 486 : 200)
                .send();
        }
    }

    @Test
    void shouldChallengeRegisterThenLetTheAuthenticatedUserReachTheServlet() throws Exception
    {
        final Recorder servlet = new Recorder();
        try (ContainerServer server = server())
        {
            server.registry().onDeployed(application(SIP_XML, servlet));
            final String challenge = exchange(server, request("REGISTER", "reg-1", 1, null, null));
            assertTrue(challenge.startsWith("SIP/2.0 401 Unauthorized\r\n"), challenge);
            final List<String> challenges = headers(challenge, "WWW-Authenticate");
            assertFalse(challenges.isEmpty(), challenge);
            assertTrue(challenges.getFirst().contains("realm=\"sip.example.com\""), challenges.getFirst());
            assertTrue(servlet.seen.isEmpty(), servlet.seen.toString());

            final String authorization = answer(401, challenges, "REGISTER", "alice", "Circle Of Life");
            final String ok = exchange(server, request("REGISTER", "reg-1", 2, "Authorization", authorization));
            assertTrue(ok.startsWith("SIP/2.0 200 "), ok);
            assertEquals(List.of("REGISTER user=alice principal=alice subscriber=true caller=true"),
                List.copyOf(servlet.seen));

            final String wrong = answer(401, challenges, "REGISTER", "alice", "not the password");
            final String refused = exchange(server, request("REGISTER", "reg-1", 3, "Authorization", wrong));
            assertTrue(refused.startsWith("SIP/2.0 401 Unauthorized\r\n"), refused);
            assertEquals(1, servlet.seen.size(), servlet.seen.toString());
        }
    }

    @Test
    void shouldChallengeInviteWith407AndRefuseAUserWithoutTheRole() throws Exception
    {
        final Recorder servlet = new Recorder();
        try (ContainerServer server = server())
        {
            server.registry().onDeployed(application(SIP_XML, servlet));
            final String challenge = exchange(server, request("INVITE", "inv-1", 1, null, null));
            assertTrue(challenge.startsWith("SIP/2.0 407 Proxy Authentication Required\r\n"), challenge);
            final List<String> challenges = headers(challenge, "Proxy-Authenticate");
            assertFalse(challenges.isEmpty(), challenge);
            assertTrue(headers(challenge, "WWW-Authenticate").isEmpty(), challenge);

            final String bob = answer(407, challenges, "INVITE", "bob", "pw2");
            final String forbidden = exchange(server, request("INVITE", "inv-2", 1, "Proxy-Authorization", bob));
            assertTrue(forbidden.startsWith("SIP/2.0 403 "), forbidden);
            assertTrue(servlet.seen.isEmpty(), servlet.seen.toString());

            final String alice = answer(407, challenges, "INVITE", "alice", "Circle Of Life");
            final String busy = exchange(server, request("INVITE", "inv-3", 1, "Proxy-Authorization", alice));
            assertTrue(busy.startsWith("SIP/2.0 486 "), busy);
            assertEquals(List.of("INVITE user=alice principal=alice subscriber=true caller=true"),
                List.copyOf(servlet.seen));

            final String open = exchange(server, request("OPTIONS", "opt-1", 1, null, null));
            assertTrue(open.startsWith("SIP/2.0 200 "), open);
            assertEquals("OPTIONS user=null principal=null subscriber=false caller=false",
                List.copyOf(servlet.seen).getLast());
        }
    }

    /** The ACK of a 2xx is never challenged (RFC 3261 §22.1): the servlet sees it with its INVITE's user. */
    @Test
    void shouldGiveTheAckOfA2xxItsInvitesUser() throws Exception
    {
        final Recorder servlet = new Recorder();
        try (ContainerServer server = server())
        {
            server.registry().onDeployed(application(SIP_XML, servlet));
            final String challenge = exchange(server, request("INVITE", "ok-1", 1, null, null));
            final String alice = answer(407, headers(challenge, "Proxy-Authenticate"), "INVITE", "alice",
                "Circle Of Life");
            final String ok = exchange(server, request("INVITE", "ok-2", 1, "Proxy-Authorization", alice));
            assertTrue(ok.startsWith("SIP/2.0 200 "), ok);
            final String to = headers(ok, "To").getFirst();
            final String ack = request("ACK", "ok-2", 1, null, null).replace("To: <sip:service@127.0.0.1>", "To: " + to)
                .replace("branch=z9hG4bK-ok-2-1", "branch=z9hG4bK-ok-2-ack");
            try (java.net.DatagramSocket socket = new java.net.DatagramSocket(
                new java.net.InetSocketAddress(TestApps.LOOPBACK, 0)))
            {
                final byte[] bytes = ack.replace("PORT", Integer.toString(socket.getLocalPort()))
                    .getBytes(StandardCharsets.US_ASCII);
                socket.send(new java.net.DatagramPacket(bytes, bytes.length, DispatchSippTest.address(server)));
            }
            assertTrue(TestApps.await(() -> servlet.seen.stream().anyMatch(s -> s.startsWith("ACK"))),
                servlet.seen.toString());
            assertEquals("ACK user=alice principal=alice subscriber=true caller=true",
                servlet.seen.stream().filter(s -> s.startsWith("ACK")).findFirst().orElseThrow());
        }
    }

    @Test
    void shouldRefuseAnApplicationWhoseLoginConfigIsNotDigest() throws Exception
    {
        final String basic = SIP_XML.replace("<auth-method>DIGEST</auth-method>", "<auth-method>BASIC</auth-method>");
        try (ContainerServer server = server())
        {
            final DeployedApplication application = application(basic, new Recorder());
            final DeploymentException e = assertThrows(DeploymentException.class,
                () -> server.registry().onDeployed(application));
            assertTrue(e.getMessage().contains("BASIC"), e.getMessage());
            assertTrue(server.registry().isEmpty());
        }
    }

    private static ContainerServer server() throws Exception
    {
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        final UserRealm users = UserRealm.parse("users", new StringReader(USERS));
        return ContainerServer.start(new SipStackConfig().addresses(List.of(TestApps.LOOPBACK)).ports(0).shards(2),
            router, users);
    }

    private static DeployedApplication application(final String xml, final SipServlet servlet) throws Exception
    {
        final SipApplicationDescriptor descriptor =
            SipXmlReader.read(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "sip.xml");
        final Path dir = Files.createTempDirectory("sipline-test-app");
        Files.createDirectories(dir.resolve("WEB-INF"));
        final ApplicationClassLoader loader;
        try (ApplicationArchive archive = ApplicationArchive.open(dir))
        {
            loader = ApplicationClassLoader.create(archive, "secured", DigestDispatchTest.class.getClassLoader());
        }
        return new DeployedApplication("secured", descriptor, loader, Map.of("main", servlet), List.of(), dir);
    }

    /** One client, so that answers to the same nonce count up (a repeated count is a replay). */
    private String answer(final int status, final List<String> challenges, final String method,
        final String user, final String password)
    {
        final List<String> values = client.answer(status, challenges, method, REQUEST_URI,
            (s, realm) -> new Credentials(user, password));
        assertEquals(1, values.size(), values.toString());
        return values.getFirst();
    }

    private static String exchange(final ContainerServer server, final String request) throws Exception
    {
        return TestApps.exchange(DispatchSippTest.address(server), request);
    }

    /** A request with a fresh branch per call and CSeq, and optionally one credentials header. */
    private static String request(final String method, final String callId, final int cseq, final String header,
        final String value)
    {
        return method + " " + REQUEST_URI + " SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:PORT;branch=z9hG4bK-" + callId + "-" + cseq + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@127.0.0.1>;tag=a1\r\n"
            + "To: <sip:service@127.0.0.1>\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: " + cseq + " " + method + "\r\n"
            + "Contact: <sip:alice@127.0.0.1:PORT>\r\n"
            + (null == header ? "" : header + ": " + value + "\r\n")
            + "Content-Length: 0\r\n\r\n";
    }

    /** Every value of a header in a response's text. */
    private static List<String> headers(final String response, final String name)
    {
        final String prefix = name.toLowerCase(java.util.Locale.ROOT) + ":";
        return response.lines().filter(l -> l.toLowerCase(java.util.Locale.ROOT).startsWith(prefix))
            .map(l -> l.substring(prefix.length()).strip()).toList();
    }
}
