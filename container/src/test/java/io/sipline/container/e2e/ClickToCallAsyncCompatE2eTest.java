package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.CookieManager;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compatibility suite's Servlet 3.0 converged application: Mobicents' click-to-call-servlet3
 * ({@code src/test/compat/click-to-call-servlet3}, unchanged), declared by annotations only (no {@code sip.xml}, no
 * {@code web.xml}: {@code @SipApplication} on its package, {@code @SipServlet}, {@code @SipListener},
 * {@code @WebServlet(asyncSupported = true)}), both halves looking the factory up in JNDI. As its readme tells users:
 * two SIP phones register, a browser keeps the {@code /status} page open (an async servlet that pushes the table of
 * users and calls), a request to {@code /call} starts an RFC 3725 third-party call between two registered users,
 * and {@code ?bye=all} from the same browser session ends it. The phones are sipp's built-in UAS.
 */
class ClickToCallAsyncCompatE2eTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    @TempDir
    static Path work;

    @Test
    void registeredUsersCallEachOtherFromTheAsyncStatusPage() throws Exception
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        final int bobPort = Sipp.freeUdpPort();
        final int alicePort = Sipp.freeUdpPort();
        final int httpPort = ClickToCallCompatE2eTest.freeTcpPort();
        final Process bob = SippRun.callee("c2ca-bob", bobPort, 1, List.of("-sn", "uas", "-trace_counts"));
        final Process alice = SippRun.callee("c2ca-alice", alicePort, 1, List.of("-sn", "uas", "-trace_counts"));
        final Path app = CompatApps.source("click-to-call-servlet3");
        try (SiplineServer server = SiplineServer.start("compat-click-to-call-async", List.of(
            "--shared-lib", CompatApps.sharedLib().toString(), "--http-port", Integer.toString(httpPort),
            "--deploy", CompatApps.war("click-to-call-servlet3", "Click2CallAsync", work).toString(),
            "--dar", app.resolve("click2call-async-dar.properties").toString())))
        {
            final String aliceContact = "sip:alice@127.0.0.1:" + alicePort;
            final String bobContact = "sip:bob@127.0.0.1:" + bobPort;
            assertEquals(200, register(server.port(), "alice", aliceContact), server.output());
            assertEquals(200, register(server.port(), "bob", bobContact), server.output());
            final String base = "http://127.0.0.1:" + httpPort + "/Click2CallAsync/";
            final HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .connectTimeout(Duration.ofSeconds(5)).build();
            final HttpResponse<InputStream> status = browser.send(HttpRequest.newBuilder(URI.create(base + "status"))
                .build(), HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, status.statusCode(), server.output());
            try (BufferedReader pushed = new BufferedReader(new InputStreamReader(status.body(),
                StandardCharsets.UTF_8)))
            {
                awaitLine(pushed, l -> l.contains(aliceContact) && l.contains(bobContact) && l.contains(">call<"),
                    "the table of both registered users, pushed on the open async request", server);
                final String call = base + "call?from=" + encode(aliceContact) + "&to=" + encode(bobContact);
                assertEquals(200, get(browser, call).statusCode(), server.output());
                assertTrue(Sipp.await(() -> SippRun.acked("c2ca-bob") && SippRun.acked("c2ca-alice"), 10_000),
                    "both parties ACKed\n" + Sipp.report("c2ca-bob") + Sipp.report("c2ca-alice") + server.output());
                awaitLine(pushed, l -> l.contains("call in progress"), "the call pushed as in progress", server);
                assertEquals(200, get(browser, call + "&bye=all").statusCode(), server.output());
                SippRun.awaitCallee("c2ca-bob", bob, 1, server);
                SippRun.awaitCallee("c2ca-alice", alice, 1, server);
            }
            server.stopCleanly();
        }
        finally
        {
            Sipp.stop(bob);
            Sipp.stop(alice);
        }
    }

    /** Sends a REGISTER for {@code user} binding {@code contact}; returns the final response's status. */
    static int register(final int serverPort, final String user, final String contact) throws Exception
    {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            socket.setSoTimeout(5_000);
            final String text = "REGISTER sip:127.0.0.1:" + serverPort + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + socket.getLocalPort() + ";branch=z9hG4bK-reg-" + user + "\r\n"
                + "Max-Forwards: 70\r\nFrom: <sip:" + user + "@127.0.0.1>;tag=" + user + "\r\n"
                + "To: <sip:" + user + "@127.0.0.1>\r\nCall-ID: reg-" + user + "\r\nCSeq: 1 REGISTER\r\n"
                + "Contact: <" + contact + ">;expires=3600\r\nContent-Length: 0\r\n\r\n";
            final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            socket.send(new DatagramPacket(bytes, bytes.length, new InetSocketAddress(LOOPBACK, serverPort)));
            while (true)
            {
                final DatagramPacket p = new DatagramPacket(new byte[65_535], 65_535);
                socket.receive(p);
                final String m = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
                final int status = Integer.parseInt(m.substring(8, 11));
                if (status >= 200)
                {
                    return status;
                }
            }
        }
    }

    /** Reads pushed lines until one matches, on a reader thread bounded by a deadline. */
    private static void awaitLine(final BufferedReader pushed, final Predicate<String> wanted, final String what,
        final SiplineServer server) throws Exception
    {
        final StringBuffer seen = new StringBuffer();
        final CompletableFuture<String> found = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                for (String line = pushed.readLine(); null != line; line = pushed.readLine())
                {
                    seen.append(line).append('\n');
                    if (wanted.test(line))
                    {
                        return line;
                    }
                }
                return null;
            }
            catch (final java.io.IOException e)
            {
                return null;
            }
        });
        final String line = found.completeOnTimeout(null, 10, TimeUnit.SECONDS).get();
        assertTrue(null != line, what + ": not pushed; the page so far:\n" + seen + server.output());
    }

    private static HttpResponse<String> get(final HttpClient browser, final String url) throws Exception
    {
        return browser.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    private static String encode(final String s)
    {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
