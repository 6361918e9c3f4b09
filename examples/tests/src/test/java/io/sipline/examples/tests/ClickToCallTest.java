package io.sipline.examples.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.sipline.junit.ClientTransaction;
import io.sipline.junit.ServerTransaction;
import io.sipline.junit.SiplineServer;
import io.sipline.junit.SiplineTest;
import io.sipline.junit.UserAgent;

/**
 * The click-to-call example, its web half served by the extension ({@code http = true}): {@code POST /calls} sends
 * the first party an INVITE without an offer, its offer goes to the second party, and the second party's answer
 * comes back in the first party's ACK (RFC 3725 flow I); a party's BYE or {@code DELETE /calls/ID} ends both legs.
 */
@SiplineTest(war = "../click-to-call/target/click-to-call.war", http = true)
class ClickToCallTest
{
    private static final String OFFER = "v=0\r\no=alice 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\n"
        + "t=0 0\r\nm=audio 49170 RTP/AVP 0\r\n";
    private static final String ANSWER = "v=0\r\no=bob 2 2 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\n"
        + "t=0 0\r\nm=audio 51372 RTP/AVP 0\r\n";
    private static final Pattern ID = Pattern.compile("\"id\":\"([^\"]+)\"");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void connectsThePartiesAndTheSecondHangsUp(final SiplineServer sipline, final UserAgent alice,
        final UserAgent bob) throws Exception
    {
        final String id = start(sipline, alice, bob);
        final ServerTransaction second = connect(alice, bob);
        assertTrue(awaitState(sipline, id, "connected"), call(sipline, id));

        final ClientTransaction bye = second.dialog().bye();
        bye.expect(200);
        alice.expectRequest("BYE").respond(200);
        assertTrue(awaitState(sipline, id, "ended"), call(sipline, id));
        assertTrue(call(sipline, id).contains("hung up by the second party"), call(sipline, id));
    }

    @Test
    void hangsUpBothPartiesOverHttp(final SiplineServer sipline, final UserAgent alice, final UserAgent bob)
        throws Exception
    {
        final String id = start(sipline, alice, bob);
        connect(alice, bob);
        final HttpResponse<String> hangUp = http.send(HttpRequest.newBuilder(
            sipline.httpUri("/click-to-call/calls/" + id)).DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(202, hangUp.statusCode(), hangUp.body());
        alice.expectRequest("BYE").respond(200);
        bob.expectRequest("BYE").respond(200);
        assertTrue(awaitState(sipline, id, "ended"), call(sipline, id));
    }

    @Test
    void anUnansweredFirstPartyFailsTheCall(final SiplineServer sipline, final UserAgent alice, final UserAgent bob)
        throws Exception
    {
        final String id = start(sipline, alice, bob);
        alice.expectRequest("INVITE").respond(480);
        assertTrue(awaitState(sipline, id, "failed"), call(sipline, id));
        assertTrue(call(sipline, id).contains("the first party answered 480"), call(sipline, id));
        bob.expectNoRequest("INVITE", Duration.ofMillis(300));
    }

    /** POST /calls from alice to bob; returns the call's id. */
    private String start(final SiplineServer sipline, final UserAgent alice, final UserAgent bob) throws Exception
    {
        final String form = "from=" + URLEncoder.encode(alice.uri(), StandardCharsets.UTF_8) + "&to="
            + URLEncoder.encode(bob.uri(), StandardCharsets.UTF_8);
        final HttpResponse<String> created = http.send(HttpRequest.newBuilder(sipline.httpUri("/click-to-call/calls"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(201, created.statusCode(), created.body());
        final Matcher m = ID.matcher(created.body());
        assertTrue(m.find(), created.body());
        return m.group(1);
    }

    /** The RFC 3725 flow I exchange up to both ACKs; returns the second party's INVITE. */
    private static ServerTransaction connect(final UserAgent alice, final UserAgent bob)
    {
        final ServerTransaction first = alice.expectRequest("INVITE");
        assertTrue(null == first.request().body() || first.request().body().isEmpty(), "no offer to the first party");
        first.respond(180).respond(200, "application/sdp", OFFER);
        final ServerTransaction second = bob.expectRequest("INVITE");
        assertEquals(OFFER, second.request().body(), "the first party's offer goes to the second");
        second.respond(200, "application/sdp", ANSWER);
        bob.expectRequest("ACK");
        assertEquals(ANSWER, alice.expectRequest("ACK").request().body(), "the answer in the first party's ACK");
        return second;
    }

    private boolean awaitState(final SiplineServer sipline, final String id, final String state)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < deadline)
        {
            if (call(sipline, id).contains("\"state\":\"" + state + "\""))
            {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    private String call(final SiplineServer sipline, final String id)
    {
        try
        {
            return http.send(HttpRequest.newBuilder(sipline.httpUri("/click-to-call/calls/" + id)).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
        }
        catch (final IOException | InterruptedException e)
        {
            return e.toString();
        }
    }
}
