package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The click-to-call example ({@code examples/click-to-call}) on a server with {@code --http-port}, its two parties
 * sipp UAS, driven over HTTP as its users would (java.net.http, as curl): {@code POST /calls} starts an RFC 3725
 * flow I call (INVITE without an offer to the first party, its offer to the second, both 2xx ACKed, the answer in
 * the first party's ACK), {@code GET /calls} lists it, and {@code DELETE /calls/ID} or a party's BYE ends both legs.
 */
class ClickToCallE2eTest
{
    private static final Pattern ID = Pattern.compile("\"id\":\"([^\"]+)\"");
    private static final long WAIT_MS = 10_000;

    private static SiplineServer server;
    private static String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws Exception
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        final int httpPort = ClickToCallCompatE2eTest.freeTcpPort();
        server = SiplineServer.start("click-to-call", List.of("--http-port", Integer.toString(httpPort),
            "--deploy", Examples.war("click-to-call").toString()));
        base = "http://127.0.0.1:" + httpPort + "/click-to-call";
    }

    @AfterAll
    static void stop() throws InterruptedException
    {
        SiplineServer.stopCleanly(server);
    }

    @Test
    void startsListsAndEndsACallOverHttp() throws Exception
    {
        final int alicePort = Sipp.freeUdpPort();
        final int bobPort = Sipp.freeUdpPort();
        final Process alice = SippRun.callee("c2c-http-alice", alicePort, 1, List.of("-sn", "uas", "-trace_counts"));
        final Process bob = SippRun.callee("c2c-http-bob", bobPort, 1, List.of("-sn", "uas", "-trace_counts"));
        try
        {
            final String id = startCall(alicePort, bobPort);
            assertTrue(Sipp.await(() -> state(id).contains("\"state\":\"connected\""), WAIT_MS),
                "connected: " + state(id) + "\n" + server.output());
            assertTrue(Sipp.await(() -> SippRun.acked("c2c-http-alice") && SippRun.acked("c2c-http-bob"), WAIT_MS),
                "both parties ACKed\n" + Sipp.report("c2c-http-alice") + Sipp.report("c2c-http-bob"));
            final HttpResponse<String> list = send(HttpRequest.newBuilder(URI.create(base + "/calls")).GET());
            assertEquals(200, list.statusCode());
            assertTrue(list.body().contains("\"id\":\"" + id + "\""), list.body());
            assertTrue(list.body().contains("\"from\":\"sip:alice@127.0.0.1:" + alicePort + "\""), list.body());

            final HttpResponse<String> hangUp =
                send(HttpRequest.newBuilder(URI.create(base + "/calls/" + id)).DELETE());
            assertEquals(202, hangUp.statusCode(), hangUp.body());
            SippRun.awaitCallee("c2c-http-alice", alice, 1, server); // each got a BYE and answered it
            SippRun.awaitCallee("c2c-http-bob", bob, 1, server);
            assertTrue(Sipp.await(() -> state(id).contains("\"state\":\"ended\""), WAIT_MS), state(id));
            assertTrue(state(id).contains("\"detail\":\"hung up over HTTP\""), state(id));
            assertEquals(404, send(HttpRequest.newBuilder(URI.create(base + "/calls/" + id)).DELETE()).statusCode(),
                "a call that is over cannot be hung up again");
        }
        finally
        {
            Sipp.stop(alice);
            Sipp.stop(bob);
        }
    }

    @Test
    void aPartysByeEndsTheOtherLeg() throws Exception
    {
        final int alicePort = Sipp.freeUdpPort();
        final int bobPort = Sipp.freeUdpPort();
        final Process alice = SippRun.callee("c2c-bye-alice", alicePort, 1, List.of("-sn", "uas"));
        final Process bob = SippRun.callee("c2c-bye-bob", bobPort, 1,
            List.of("-sf", Examples.scenario("callee-hangs-up.xml", Map.of())));
        try
        {
            final String id = startCall(alicePort, bobPort);
            SippRun.awaitCallee("c2c-bye-bob", bob, 1, server); // answered, ACKed, hung up, its BYE answered 200
            SippRun.awaitCallee("c2c-bye-alice", alice, 1, server); // answered, ACKed, got the BYE
            assertTrue(Sipp.await(() -> state(id).contains("\"state\":\"ended\""), WAIT_MS), state(id));
            assertTrue(state(id).contains("\"detail\":\"hung up by the second party\""), state(id));
        }
        finally
        {
            Sipp.stop(alice);
            Sipp.stop(bob);
        }
    }

    @Test
    void aBusySecondPartyFailsTheCallAndReleasesTheFirst() throws Exception
    {
        final int alicePort = Sipp.freeUdpPort();
        final int bobPort = Sipp.freeUdpPort();
        final Process alice = SippRun.callee("c2c-busy-alice", alicePort, 1, List.of("-sn", "uas"));
        final Process bob = SippRun.callee("c2c-busy-bob", bobPort, 1, List.of("-sf",
            Examples.scenario("callee-final.xml", Map.of("STATUS", "486", "REASON", "Busy Here"))));
        try
        {
            final String id = startCall(alicePort, bobPort);
            SippRun.awaitCallee("c2c-busy-bob", bob, 1, server);
            SippRun.awaitCallee("c2c-busy-alice", alice, 1, server); // its offer refused in the ACK, then a BYE
            assertTrue(Sipp.await(() -> state(id).contains("\"state\":\"failed\""), WAIT_MS), state(id));
            assertTrue(state(id).contains("\"detail\":\"the second party answered 486 Busy Here\""), state(id));
        }
        finally
        {
            Sipp.stop(alice);
            Sipp.stop(bob);
        }
    }

    @Test
    void refusesWhatIsNotACall() throws Exception
    {
        final HttpResponse<String> noTo = send(form("from=" + encode("sip:alice@127.0.0.1:5999")));
        assertEquals(400, noTo.statusCode(), noTo.body());
        assertTrue(noTo.body().contains("'to' is required"), noTo.body());
        final HttpResponse<String> tel = send(form("from=" + encode("tel:+15551234") + "&to=" + encode("sip:b@x")));
        assertEquals(400, tel.statusCode(), tel.body());
        assertEquals(404, send(HttpRequest.newBuilder(URI.create(base + "/calls/nothing")).DELETE()).statusCode());
        assertEquals(404, send(HttpRequest.newBuilder(URI.create(base + "/calls/nothing")).GET()).statusCode());
    }

    /** POST /calls from alice to bob: 201 with the call; returns its id. */
    private String startCall(final int alicePort, final int bobPort) throws Exception
    {
        final HttpResponse<String> created = send(form("from=" + encode("sip:alice@127.0.0.1:" + alicePort)
            + "&to=" + encode("sip:bob@127.0.0.1:" + bobPort)));
        assertEquals(201, created.statusCode(), created.body() + "\n" + server.output());
        final Matcher m = ID.matcher(created.body());
        assertTrue(m.find(), created.body());
        assertEquals("/click-to-call/calls/" + m.group(1), created.headers().firstValue("Location").orElse(""));
        return m.group(1);
    }

    private HttpRequest.Builder form(final String body)
    {
        return HttpRequest.newBuilder(URI.create(base + "/calls"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private String state(final String id)
    {
        try
        {
            return send(HttpRequest.newBuilder(URI.create(base + "/calls/" + id)).GET()).body();
        }
        catch (final Exception e)
        {
            return e.toString();
        }
    }

    private HttpResponse<String> send(final HttpRequest.Builder request) throws Exception
    {
        return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String encode(final String s)
    {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
