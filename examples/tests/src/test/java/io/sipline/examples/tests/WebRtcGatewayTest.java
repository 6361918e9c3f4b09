package io.sipline.examples.tests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.sipline.junit.ClientTransaction;
import io.sipline.junit.ServerTransaction;
import io.sipline.junit.SipMessage;
import io.sipline.junit.SiplineServer;
import io.sipline.junit.SiplineTest;
import io.sipline.junit.UserAgent;
import io.sipline.media.relay.MediaRelaySettings;
import io.sipline.media.service.MediaService;
import io.sipline.media.service.RelayMediaService;

/**
 * The webrtc-gateway example without a browser, routed by its DAR file: a media service of the test's own (the
 * relay on loopback) published as the container does, SIP phones as {@link UserAgent}s. A plain-RTP call through the
 * anchor (RTP relayed both ways, BYE ends both legs, the anchor freed), the failures (a stopped media service, no
 * offer, an offer that cannot be anchored, a busy callee, a CANCEL, an answer that does not fit) and a call to a
 * registered browser, which gets a WebRTC offer. (The server is shared by the tests, so the attribute, once
 * published, stays: each test publishes its own service before it deploys.)
 */
@SiplineTest(dar = "../dar/webrtc-gateway.properties")
class WebRtcGatewayTest
{
    private static final Path WAR = Path.of("../webrtc-gateway/target/webrtc-gateway.war");
    private static final Pattern MEDIA = Pattern.compile("m=audio (\\d+) (\\S+)");
    private static final Pattern CONNECTION = Pattern.compile("c=IN IP4 (\\S+)");

    private RelayMediaService media;
    private DatagramSocket aliceRtp;
    private DatagramSocket bobRtp;

    @BeforeEach
    void openSockets() throws IOException
    {
        aliceRtp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        bobRtp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        aliceRtp.setSoTimeout(3_000);
        bobRtp.setSoTimeout(3_000);
    }

    @AfterEach
    void close()
    {
        aliceRtp.close();
        bobRtp.close();
        if (null != media)
        {
            media.close();
        }
    }

    /** Starts a relay on loopback and publishes it to the applications deployed after, as the container does. */
    private void publishMedia(final SiplineServer sipline) throws IOException
    {
        media = RelayMediaService.start(new MediaRelaySettings(43000, 43999, InetAddress.getLoopbackAddress(), null,
            1, 0));
        sipline.container().registry().contextAttribute(MediaService.ATTRIBUTE, media);
    }

    private static void deploy(final SiplineServer sipline, final UserAgent bob)
    {
        sipline.deployment(WAR).contextParam("gateway", "sip:127.0.0.1:" + bob.address().getPort()).deploy();
    }

    private static String offer(final DatagramSocket rtp)
    {
        return "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n" +
            "m=audio " + rtp.getLocalPort() + " RTP/AVP 0 101\r\na=rtpmap:0 PCMU/8000\r\n" +
            "a=rtpmap:101 telephone-event/8000\r\na=sendrecv\r\n";
    }

    private static ClientTransaction invite(final UserAgent from, final String uri, final String sdp)
    {
        return from.send(from.createRequest("INVITE", uri).body("application/sdp", sdp));
    }

    @Test
    void relaysAPlainRtpCallBothWaysAndFreesTheAnchorOnBye(final SiplineServer sipline, final UserAgent alice,
        final UserAgent bob) throws IOException
    {
        publishMedia(sipline);
        deploy(sipline, bob);
        final ClientTransaction invite = invite(alice, sipline.uri("bob"), offer(aliceRtp));
        final ServerTransaction leg = bob.expectRequest("INVITE");
        assertEquals("sip:bob@127.0.0.1:" + bob.address().getPort(), leg.request().requestUri(),
            "the Request-URI's user at the gateway address");
        final String toBob = leg.request().body();
        assertEquals("RTP/AVP", group(MEDIA, toBob, 2), toBob);
        assertNotEquals(Integer.toString(aliceRtp.getLocalPort()), group(MEDIA, toBob, 1), "anchored: " + toBob);
        assertEquals(1, media.activeAnchors());

        leg.respond(180).respond(200, "application/sdp", offer(bobRtp).replace("RTP/AVP 0 101", "RTP/AVP 0"));
        invite.expect(180);
        final SipMessage ok = invite.expect(200);
        final String toAlice = ok.body();
        assertEquals("RTP/AVP", group(MEDIA, toAlice, 2), toAlice);
        invite.ack();
        bob.expectRequest("ACK");

        final InetSocketAddress relayForAlice = new InetSocketAddress(group(CONNECTION, toAlice, 1),
            Integer.parseInt(group(MEDIA, toAlice, 1)));
        final InetSocketAddress relayForBob = new InetSocketAddress(group(CONNECTION, toBob, 1),
            Integer.parseInt(group(MEDIA, toBob, 1)));
        final byte[] fromAlice = rtp(1, 0x11111111);
        aliceRtp.send(new DatagramPacket(fromAlice, fromAlice.length, relayForAlice));
        assertArrayEquals(fromAlice, receive(bobRtp), "alice's RTP reaches bob through the relay");
        final byte[] fromBob = rtp(7, 0x22222222);
        bobRtp.send(new DatagramPacket(fromBob, fromBob.length, relayForBob));
        assertArrayEquals(fromBob, receive(aliceRtp), "bob's RTP reaches alice through the relay");

        final ClientTransaction bye = invite.dialog().bye();
        bye.expect(200);
        final SipMessage byeToBob = bob.expectRequest("BYE").respond(200).request();
        assertNotNull(byeToBob.header("Reason"), byeToBob.toString());
        assertNoAnchor();
    }

    @Test
    void answers503WhenTheMediaServiceIsStopped(final SiplineServer sipline, final UserAgent alice,
        final UserAgent bob) throws IOException
    {
        publishMedia(sipline);
        deploy(sipline, bob);
        media.close(); // a server shutting down
        media = null;
        final SipMessage refused = invite(alice, sipline.uri("bob"), offer(aliceRtp)).expect(503);
        assertTrue(refused.header("Warning").contains("the media service is stopped"), refused.toString());
        bob.expectNoRequest("INVITE", Duration.ofMillis(300));
    }

    @Test
    void answers488ToAnInviteWithoutOffer(final SiplineServer sipline, final UserAgent alice, final UserAgent bob)
        throws IOException
    {
        publishMedia(sipline);
        deploy(sipline, bob);
        final SipMessage refused = alice.invite(sipline.uri("bob")).expect(488);
        assertTrue(refused.header("Warning").contains("SDP offer is required"), refused.toString());
        assertNoAnchor();
    }

    @Test
    void answers488ToAnOfferThatCannotBeAnchored(final SiplineServer sipline, final UserAgent alice,
        final UserAgent bob) throws IOException
    {
        publishMedia(sipline);
        deploy(sipline, bob);
        final SipMessage refused = invite(alice, sipline.uri("bob"), "v=0\r\nthis is not SDP\r\n").expect(488);
        assertNotNull(refused.header("Warning"), refused.toString());
        bob.expectNoRequest("INVITE", Duration.ofMillis(300));
        assertNoAnchor();
    }

    @Test
    void relaysABusyCalleeAndFreesTheAnchor(final SiplineServer sipline, final UserAgent alice, final UserAgent bob)
        throws IOException
    {
        publishMedia(sipline);
        deploy(sipline, bob);
        final ClientTransaction invite = invite(alice, sipline.uri("bob"), offer(aliceRtp));
        bob.expectRequest("INVITE").respond(486);
        invite.expect(486);
        assertNoAnchor();
    }

    @Test
    void passesACancelOnAndFreesTheAnchor(final SiplineServer sipline, final UserAgent alice, final UserAgent bob)
        throws IOException
    {
        publishMedia(sipline);
        deploy(sipline, bob);
        final ClientTransaction invite = invite(alice, sipline.uri("bob"), offer(aliceRtp));
        final ServerTransaction leg = bob.expectRequest("INVITE").respond(180);
        invite.expect(180);
        invite.cancel().expect(200);
        invite.expect(487);
        bob.expectRequest("CANCEL").respond(200);
        leg.respond(487);
        assertNoAnchor();
    }

    @Test
    void answers502WhenTheCalleesAnswerDoesNotFit(final SiplineServer sipline, final UserAgent alice,
        final UserAgent bob) throws IOException
    {
        publishMedia(sipline);
        deploy(sipline, bob);
        final ClientTransaction invite = invite(alice, sipline.uri("bob"), offer(aliceRtp));
        bob.expectRequest("INVITE").respond(200); // no SDP answer
        final SipMessage refused = invite.expect(502);
        assertTrue(refused.header("Warning").contains("no SDP answer"), refused.toString());
        bob.expectRequest("ACK");
        bob.expectRequest("BYE").respond(200);
        assertNoAnchor();
    }

    @Test
    void offersWebRtcToARegisteredBrowser(final SiplineServer sipline, final UserAgent browser, final UserAgent bob)
        throws IOException
    {
        publishMedia(sipline);
        deploy(sipline, bob);
        final SipMessage registered = browser.register(sipline.uri("gina"), "sip:gina@127.0.0.1", 600).expect(200);
        assertTrue(registered.header("Contact").contains("expires=600"), registered.toString());

        final ClientTransaction invite = invite(bob, sipline.uri("gina"), offer(bobRtp));
        final ServerTransaction leg = browser.expectRequest("INVITE");
        assertEquals(browser.uri(), leg.request().requestUri(), "the browser's registered Contact");
        final String toBrowser = leg.request().body();
        assertEquals("UDP/TLS/RTP/SAVPF", group(MEDIA, toBrowser, 2), toBrowser);
        for (final String attribute : new String[] {"a=fingerprint:sha-256 ", "a=setup:actpass", "a=ice-ufrag:",
            "a=ice-pwd:", "a=candidate:", "a=rtcp-mux"})
        {
            assertTrue(toBrowser.contains(attribute), attribute + " missing from " + toBrowser);
        }
        leg.respond(486);
        invite.expect(486);
        assertNoAnchor();

        browser.register(sipline.uri("gina"), "sip:gina@127.0.0.1", 0).expect(200);
        final ClientTransaction again = invite(bob, sipline.uri("gina"), offer(bobRtp));
        final ServerTransaction toPhone = bob.expectRequest("INVITE");
        assertEquals("sip:gina@127.0.0.1:" + bob.address().getPort(), toPhone.request().requestUri(),
            "unregistered: the call goes to the phone gateway");
        toPhone.respond(480);
        again.expect(480);
    }

    /** The anchor is freed once the call has ended (polled: it ends on the call's thread after the last message). */
    private void assertNoAnchor()
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (0 != media.activeAnchors() && System.nanoTime() - deadline < 0)
        {
            LockSupport.parkNanos(10_000_000L);
        }
        assertEquals(0, media.activeAnchors(), "the call's anchor is freed");
    }

    private static String group(final Pattern pattern, final String sdp, final int group)
    {
        final Matcher m = pattern.matcher(sdp);
        assertTrue(m.find(), pattern + " not in " + sdp);
        return m.group(group);
    }

    private static byte[] rtp(final int sequence, final int ssrc)
    {
        final byte[] packet = new byte[12 + 160];
        packet[0] = (byte)0x80;
        packet[3] = (byte)sequence;
        packet[8] = (byte)(ssrc >>> 24);
        packet[9] = (byte)(ssrc >>> 16);
        packet[10] = (byte)(ssrc >>> 8);
        packet[11] = (byte)ssrc;
        Arrays.fill(packet, 12, packet.length, (byte)0x7f);
        return packet;
    }

    private static byte[] receive(final DatagramSocket socket) throws IOException
    {
        final byte[] buffer = new byte[1500];
        final DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        socket.receive(packet);
        return Arrays.copyOf(buffer, packet.getLength());
    }
}
