package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.CookieManager;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compatibility suite's converged application: Mobicents' click-to-call ({@code src/test/compat/click-to-call},
 * unchanged) with its web half on {@code --http-port}. As its readme tells users: an HTTP request with two SIP
 * addresses starts a third-party call (RFC 3725 flow I: INVITE without SDP to the first, its 2xx offer sent to the
 * second, both answers ACKed), and {@code ?bye=all} from the same browser session ends both legs; its status page
 * is a JSP ({@code index.jsp}, the welcome file). The two parties are
 * sipp's built-in UAS.
 */
class ClickToCallCompatE2eTest
{
    @TempDir
    static Path work;

    @Test
    void startsAThirdPartyCallFromAWebPageAndEndsIt() throws Exception
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        final int bobPort = Sipp.freeUdpPort();
        final int alicePort = Sipp.freeUdpPort();
        final int httpPort = freeTcpPort();
        final Process bob = SippRun.callee("c2c-bob", bobPort, 1, List.of("-sn", "uas", "-trace_counts"));
        final Process alice = SippRun.callee("c2c-alice", alicePort, 1, List.of("-sn", "uas", "-trace_counts"));
        try (SiplineServer server = SiplineServer.start("compat-click-to-call", List.of(
            "--shared-lib", CompatApps.sharedLib().toString(), "--http-port", Integer.toString(httpPort),
            "--deploy", CompatApps.war("click-to-call", work).toString(),
            "--dar", CompatApps.source("click-to-call").resolve("click2call-dar.properties").toString())))
        {
            final HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .connectTimeout(Duration.ofSeconds(5)).build();
            final HttpResponse<String> page = get(browser, "http://127.0.0.1:" + httpPort + "/click-to-call/");
            assertEquals(200, page.statusCode(), page.body() + server.output());
            assertTrue(page.body().contains("Click-to-Call Sample Application")
                && page.body().contains("No registered users"), "the welcome file index.jsp, compiled and run: "
                + page.body());
            final String call = "http://127.0.0.1:" + httpPort + "/click-to-call/call?from="
                + encode("sip:alice@127.0.0.1:" + alicePort) + "&to=" + encode("sip:bob@127.0.0.1:" + bobPort);
            assertEquals(200, get(browser, call).statusCode(), server.output());
            assertTrue(Sipp.await(() -> SippRun.acked("c2c-bob") && SippRun.acked("c2c-alice"), 10_000),
                "both parties ACKed\n" + Sipp.report("c2c-bob") + Sipp.report("c2c-alice") + server.output());
            assertEquals(200, get(browser, call + "&bye=all").statusCode(), server.output());
            SippRun.awaitCallee("c2c-bob", bob, 1, server);
            SippRun.awaitCallee("c2c-alice", alice, 1, server);
            server.stopCleanly();
        }
        finally
        {
            Sipp.stop(bob);
            Sipp.stop(alice);
        }
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

    static int freeTcpPort() throws IOException
    {
        try (ServerSocket s = new ServerSocket())
        {
            s.bind(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0));
            return s.getLocalPort();
        }
    }
}
