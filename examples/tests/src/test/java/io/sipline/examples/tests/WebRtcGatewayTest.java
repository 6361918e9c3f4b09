package io.sipline.examples.tests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
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
import io.sipline.junit.Dialog;
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
 * offer, an offer that cannot be anchored, a busy callee, a CANCEL, an answer that does not fit), re-INVITEs
 * relayed through the anchor (hold and resume from either leg, a new address, no offer in the INVITE, a refused
 * re-offer that keeps the media, glare, a video stream added) and a call to a registered browser, which gets a
 * WebRTC offer. (The server is shared by the tests, so the attribute, once published, stays: each test publishes its
 * own service before it deploys.)
 */
@SiplineTest(dar = "../dar/webrtc-gateway.properties")
class WebRtcGatewayTest
{
    private static final Path WAR = Path.of("../webrtc-gateway/target/webrtc-gateway.war");
    private static final Pattern MEDIA = Pattern.compile("m=audio (\\d+) (\\S+)");
    private static final Pattern CONNECTION = Pattern.compile("c=IN IP4 (\\S+)");
    private static final Pattern VIDEO = Pattern.compile("m=video (\\d+) RTP/AVP 96");
    private static final Pattern DIRECTION = Pattern.compile("a=(sendrecv|sendonly|recvonly|inactive)");

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
        return sdp(rtp, 1, "sendrecv");
    }

    /** A phone's SDP on {@code rtp}'s port, {@code o=} version {@code version}, with a direction attribute. */
    private static String sdp(final DatagramSocket rtp, final int version, final String direction)
    {
        return "v=0\r\no=- 1 " + version + " IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n" +
            "m=audio " + rtp.getLocalPort() + " RTP/AVP 0 101\r\na=rtpmap:0 PCMU/8000\r\n" +
            "a=rtpmap:101 telephone-event/8000\r\na=" + direction + "\r\n";
    }

    /** An established call from alice to bob through the gateway, and the relay's address on each leg. */
    private record Established(ClientTransaction invite, ServerTransaction leg, InetSocketAddress relayForAlice,
        InetSocketAddress relayForBob)
    {
    }

    private Established establish(final SiplineServer sipline, final UserAgent alice, final UserAgent bob)
        throws IOException
    {
        publishMedia(sipline);
        deploy(sipline, bob);
        final ClientTransaction invite = invite(alice, sipline.uri("bob"), offer(aliceRtp));
        final ServerTransaction leg = bob.expectRequest("INVITE");
        final String toBob = leg.request().body();
        leg.respond(200, "application/sdp", offer(bobRtp));
        final String toAlice = invite.expect(200).body();
        invite.ack();
        bob.expectRequest("ACK");
        return new Established(invite, leg, address(toAlice), address(toBob));
    }

    private static InetSocketAddress address(final String sdp)
    {
        return new InetSocketAddress(group(CONNECTION, sdp, 1), Integer.parseInt(group(MEDIA, sdp, 1)));
    }

    private static String direction(final String sdp)
    {
        return group(DIRECTION, sdp, 1);
    }

    /** One RTP packet from {@code from} through the relay at {@code relay} must arrive at {@code to}. */
    private static void relayed(final DatagramSocket from, final InetSocketAddress relay, final DatagramSocket to,
        final int sequence) throws IOException
    {
        final byte[] packet = rtp(sequence, 0x33333333);
        from.send(new DatagramPacket(packet, packet.length, relay));
        assertArrayEquals(packet, receive(to), "RTP " + sequence + " relayed");
    }

    @Test
    void relaysReinvitesFromEitherLegThroughTheAnchor(final SiplineServer sipline, final UserAgent alice,
        final UserAgent bob) throws IOException
    {
        final Established call = establish(sipline, alice, bob);
        relayed(aliceRtp, call.relayForAlice(), bobRtp, 1);

        // Alice holds (RFC 3264 §8.4): bob is offered sendonly on the relay's same port; his recvonly comes back.
        final Dialog aliceSide = call.invite().dialog();
        final ClientTransaction hold = aliceSide.send(aliceSide.createRequest("INVITE")
            .body("application/sdp", sdp(aliceRtp, 2, "sendonly")));
        final ServerTransaction holdAtBob = bob.expectRequest("INVITE");
        final String holdOffer = holdAtBob.request().body();
        assertEquals("sendonly", direction(holdOffer), holdOffer);
        assertEquals(call.relayForBob(), address(holdOffer), "the relay keeps its port toward bob");
        holdAtBob.respond(200, "application/sdp", sdp(bobRtp, 2, "recvonly"));
        final String holdAnswer = hold.expect(200).body();
        assertEquals("recvonly", direction(holdAnswer), holdAnswer);
        assertEquals(call.relayForAlice(), address(holdAnswer));
        hold.ack();
        bob.expectRequest("ACK");
        relayed(aliceRtp, call.relayForAlice(), bobRtp, 2);

        // Bob resumes from another address: alice is offered sendrecv on the same relay port, media follows bob.
        try (DatagramSocket bobMoved = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
        {
            bobMoved.setSoTimeout(3_000);
            final Dialog bobSide = call.leg().dialog();
            final ClientTransaction resume = bobSide.send(bobSide.createRequest("INVITE")
                .body("application/sdp", sdp(bobMoved, 3, "sendrecv")));
            final ServerTransaction resumeAtAlice = alice.expectRequest("INVITE");
            final String resumeOffer = resumeAtAlice.request().body();
            assertEquals("sendrecv", direction(resumeOffer), resumeOffer);
            assertEquals(call.relayForAlice(), address(resumeOffer));
            resumeAtAlice.respond(200, "application/sdp", sdp(aliceRtp, 3, "sendrecv"));
            final String resumeAnswer = resume.expect(200).body();
            assertEquals(call.relayForBob(), address(resumeAnswer));
            resume.ack();
            alice.expectRequest("ACK");
            relayed(aliceRtp, call.relayForAlice(), bobMoved, 3);
        }

        call.invite().dialog().bye().expect(200);
        bob.expectRequest("BYE").respond(200);
        assertNoAnchor();
    }

    @Test
    void relaysAVideoStreamAddedByAReinviteOnceTheOtherLegAcceptsIt(final SiplineServer sipline,
        final UserAgent alice, final UserAgent bob) throws IOException
    {
        final Established call = establish(sipline, alice, bob);
        try (DatagramSocket aliceVideo = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            DatagramSocket bobVideo = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
        {
            bobVideo.setSoTimeout(3_000);
            // Alice adds video (RFC 3264 §8.1: a new m= line after the audio); bob refuses the re-INVITE first.
            final Dialog aliceSide = call.invite().dialog();
            final ClientTransaction refused = aliceSide.send(aliceSide.createRequest("INVITE")
                .body("application/sdp", sdp(aliceRtp, 2, "sendrecv") + video(aliceVideo)));
            bob.expectRequest("INVITE").respond(488);
            refused.expect(488);
            relayed(aliceRtp, call.relayForAlice(), bobRtp, 1);

            // Again, and bob accepts: each leg gets a video m= line on new relay ports, and video is relayed.
            final ClientTransaction added = aliceSide.send(aliceSide.createRequest("INVITE")
                .body("application/sdp", sdp(aliceRtp, 3, "sendrecv") + video(aliceVideo)));
            final ServerTransaction atBob = bob.expectRequest("INVITE");
            final String offerToBob = atBob.request().body();
            final Matcher videoToBob = VIDEO.matcher(offerToBob);
            assertTrue(videoToBob.find(), offerToBob);
            assertNotEquals(call.relayForBob().getPort(), Integer.parseInt(videoToBob.group(1)));
            assertEquals(call.relayForBob(), address(offerToBob), "the audio keeps its relay port");
            atBob.respond(200, "application/sdp", sdp(bobRtp, 2, "sendrecv") + video(bobVideo));
            final String answerToAlice = added.expect(200).body();
            final Matcher videoToAlice = VIDEO.matcher(answerToAlice);
            assertTrue(videoToAlice.find(), answerToAlice);
            added.ack();
            bob.expectRequest("ACK");
            relayed(aliceVideo, new InetSocketAddress(call.relayForAlice().getAddress(),
                Integer.parseInt(videoToAlice.group(1))), bobVideo, 2);
            relayed(aliceRtp, call.relayForAlice(), bobRtp, 3);
        }
        call.invite().dialog().bye().expect(200);
        bob.expectRequest("BYE").respond(200);
        assertNoAnchor();
    }

    /** A video m= line on {@code rtp}'s port. */
    private static String video(final DatagramSocket rtp)
    {
        return "m=video " + rtp.getLocalPort() + " RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n";
    }

    @Test
    void relaysAReinviteWithoutOfferTheOfferInThe2xxTheAnswerInTheAck(final SiplineServer sipline,
        final UserAgent alice, final UserAgent bob) throws IOException
    {
        final Established call = establish(sipline, alice, bob);
        final Dialog aliceSide = call.invite().dialog();
        final ClientTransaction reinvite = aliceSide.send(aliceSide.createRequest("INVITE"));
        final ServerTransaction atBob = bob.expectRequest("INVITE");
        assertTrue(null == atBob.request().body() || atBob.request().body().isEmpty(),
            "no offer: " + atBob.request());
        atBob.respond(200, "application/sdp", sdp(bobRtp, 2, "sendonly"));
        final String offerToAlice = reinvite.expect(200).body();
        assertEquals("sendonly", direction(offerToAlice), offerToAlice);
        assertEquals(call.relayForAlice(), address(offerToAlice));
        reinvite.ack("application/sdp", sdp(aliceRtp, 2, "recvonly"));
        final SipMessage ackAtBob = bob.expectRequest("ACK").request();
        final String answerToBob = ackAtBob.body();
        assertEquals("recvonly", direction(answerToBob), ackAtBob.toString());
        assertEquals(call.relayForBob(), address(answerToBob));
        relayed(aliceRtp, call.relayForAlice(), bobRtp, 1);

        call.invite().dialog().bye().expect(200);
        bob.expectRequest("BYE").respond(200);
        assertNoAnchor();
    }

    @Test
    void keepsTheMediaWhenTheOtherLegRefusesAReinviteAndAnswers491ToGlare(final SiplineServer sipline,
        final UserAgent alice, final UserAgent bob) throws IOException
    {
        final Established call = establish(sipline, alice, bob);
        try (DatagramSocket aliceMoved = new DatagramSocket(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
        {
            aliceMoved.setSoTimeout(500);
            final Dialog aliceSide = call.invite().dialog();
            final ClientTransaction move = aliceSide.send(aliceSide.createRequest("INVITE")
                .body("application/sdp", sdp(aliceMoved, 2, "sendrecv")));
            final ServerTransaction atBob = bob.expectRequest("INVITE");

            // Glare (RFC 3261 §14.2): bob's own re-INVITE while alice's is pending gets 491.
            final Dialog bobSide = call.leg().dialog();
            bobSide.send(bobSide.createRequest("INVITE").body("application/sdp", sdp(bobRtp, 2, "sendonly")))
                .expect(491);

            atBob.respond(488);
            move.expect(488);
            // RFC 3264 §8: the old session stays: bob's media still goes to alice's old address.
            relayed(bobRtp, call.relayForBob(), aliceRtp, 1);
            assertThrows(SocketTimeoutException.class, () -> receive(aliceMoved), "nothing for the refused address");

            // A 491 from bob reaches alice as it is, and the next re-INVITE goes through.
            final ClientTransaction again = aliceSide.send(aliceSide.createRequest("INVITE")
                .body("application/sdp", sdp(aliceMoved, 3, "sendrecv")));
            bob.expectRequest("INVITE").respond(491);
            again.expect(491);
            final ClientTransaction third = aliceSide.send(aliceSide.createRequest("INVITE")
                .body("application/sdp", sdp(aliceMoved, 4, "sendrecv")));
            bob.expectRequest("INVITE").respond(200, "application/sdp", sdp(bobRtp, 3, "sendrecv"));
            third.expect(200);
            third.ack();
            bob.expectRequest("ACK");
            aliceMoved.setSoTimeout(3_000);
            relayed(bobRtp, call.relayForBob(), aliceMoved, 2);
        }
        call.invite().dialog().bye().expect(200);
        bob.expectRequest("BYE").respond(200);
        assertNoAnchor();
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
