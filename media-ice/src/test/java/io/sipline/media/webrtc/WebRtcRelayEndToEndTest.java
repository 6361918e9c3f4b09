package io.sipline.media.webrtc;

import io.sipline.media.dtls.DtlsCertificate;
import io.sipline.media.dtls.DtlsEndpointConfig;
import io.sipline.media.dtls.DtlsRole;
import io.sipline.media.dtls.DtlsSrtpKeys;
import io.sipline.media.relay.MediaRelaySettings;
import io.sipline.media.relay.RelayDrop;
import io.sipline.media.sdp.MediaDescription;
import io.sipline.media.sdp.SdpException;
import io.sipline.media.sdp.SessionDescription;
import io.sipline.media.service.MediaAnchor;
import io.sipline.media.service.MediaListener;
import io.sipline.media.service.MediaProfile;
import io.sipline.media.service.RelayMediaService;
import io.sipline.media.srtp.SrtpContext;
import io.sipline.media.stun.StunAddress;
import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunCredential;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A WebRTC call through the media service on loopback: a {@link JavaBrowser} (ICE checks with USE-CANDIDATE, Bouncy
 * Castle DTLS, SRTP) on the WebRTC leg and a plain RTP socket playing the SIP phone on the other. Each test checks
 * the relay's SDP, the ICE-lite answer, the DTLS-SRTP handshake in the role {@code a=setup} gave, then RTP and RTCP
 * both ways with the payload unchanged; re-offers, an ICE restart and new DTLS associations follow.
 */
@Timeout(60)
class WebRtcRelayEndToEndTest
{
    private static final int SSRC_PHONE = 0x0F0F_0F0F;
    private static final int SSRC_BROWSER = 0x0B0B_0B0B;

    private RelayMediaService media;
    private JavaBrowser browser;
    private DatagramSocket phone;
    private final LinkedBlockingQueue<String> events = new LinkedBlockingQueue<>();
    private final MediaListener listener = new MediaListener()
    {
        @Override
        public void onHandshakeFailed(final MediaAnchor anchor, final int stream, final String reason)
        {
            events.add("failed " + stream + ": " + reason);
        }
    };

    @BeforeEach
    void start() throws Exception
    {
        media = RelayMediaService.start(new MediaRelaySettings(45000, 45999, InetAddress.getLoopbackAddress(), null,
            1, 0));
        browser = new JavaBrowser();
        phone = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @AfterEach
    void stop() throws Exception
    {
        media.close();
        browser.close();
        phone.close();
    }

    private String phoneSdp()
    {
        return "v=0\r\no=phone 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n" +
            "m=audio " + phone.getLocalPort() + " RTP/AVP 0 101\r\na=rtpmap:0 PCMU/8000\r\n" +
            "a=rtpmap:101 telephone-event/8000\r\na=rtcp-mux\r\n";
    }

    private String browserSdp(final String setup) throws Exception
    {
        return "v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\n" +
            "a=msid-semantic: WMS\r\n" + browser.media(setup);
    }

    @Test
    void shouldRelayABrowserAnsweringActiveToAPlainPhoneBothWays() throws Exception
    {
        final MediaAnchor anchor = media.anchor(phoneSdp(), MediaProfile.WEBRTC, listener);
        final SessionDescription offer = SessionDescription.parse(anchor.offer());
        assertNotNull(offer.attribute("ice-lite"), "RFC 8445 §5.3: the lite side says so at session level");
        final MediaDescription toBrowser = offer.media().getFirst();
        assertEquals("UDP/TLS/RTP/SAVPF", toBrowser.proto());
        assertEquals("actpass", toBrowser.attribute("setup"));
        assertEquals(media.webRtcLegs() instanceof DtlsWebRtcLegs legs ? legs.certificate().sdpFingerprint() : null,
            toBrowser.attribute("fingerprint"));
        assertNotNull(toBrowser.attribute("rtcp-mux"));
        assertTrue(toBrowser.attribute("candidate").endsWith(" 127.0.0.1 " + toBrowser.port() + " typ host"),
            toBrowser.attribute("candidate"));
        final SessionDescription toPhoneSdp = SessionDescription.parse(anchor.answer(browserSdp("active")));
        assertEquals(null, toPhoneSdp.attribute("group"), "the browser's BUNDLE is not passed on");
        final MediaDescription toPhone = toPhoneSdp.media().getFirst();
        assertEquals("RTP/AVP", toPhone.proto());

        iceAndDtls(toBrowser, DtlsRole.CLIENT);
        mediaBothWays(toPhone.port());
        anchor.end();
    }

    @Test
    void shouldRelayABrowserOfferingActpassToAPlainPhoneBothWays() throws Exception
    {
        final MediaAnchor anchor = media.anchor(browserSdp("actpass"), MediaProfile.RTP_AVP, listener);
        final MediaDescription toPhone = SessionDescription.parse(anchor.offer()).media().getFirst();
        assertEquals("RTP/AVP", toPhone.proto());
        final String answer = "v=0\r\no=phone 2 2 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n" +
            "m=audio " + phone.getLocalPort() + " RTP/AVP 0 101\r\na=rtpmap:0 PCMU/8000\r\n" +
            "a=rtpmap:101 telephone-event/8000\r\na=rtcp-mux\r\n";
        final SessionDescription toBrowserSdp = SessionDescription.parse(anchor.answer(answer));
        assertNotNull(toBrowserSdp.attribute("ice-lite"));
        assertEquals(null, toBrowserSdp.attribute("group"), "BUNDLE refused (RFC 9143 §7.3.3)");
        final MediaDescription toBrowser = toBrowserSdp.media().getFirst();
        assertEquals("active", toBrowser.attribute("setup"), "RFC 5763 §5: the answerer SHOULD be active");

        iceAndDtls(toBrowser, DtlsRole.SERVER);
        mediaBothWays(toPhone.port());
        anchor.end();
    }

    @Test
    void shouldReportAFingerprintMismatchToTheApplication() throws Exception
    {
        final MediaAnchor anchor = media.anchor(phoneSdp(), MediaProfile.WEBRTC, listener);
        final MediaDescription toBrowser = SessionDescription.parse(anchor.offer()).media().getFirst();
        final String otherFingerprint = DtlsCertificate.generate(new SecureRandom()).sdpFingerprint();
        anchor.answer(browserSdp("active").replace(browser.certificate.sdpFingerprint(), otherFingerprint));
        browser.check(toBrowser, true);
        assertNotNull(browser.stun.poll(5, TimeUnit.SECONDS), "the check is answered");
        browser.startDtls(DtlsRole.CLIENT, toBrowser);
        final String event = events.poll(20, TimeUnit.SECONDS);
        assertNotNull(event, "the listener hears the failure");
        assertTrue(event.startsWith("failed 0: ") && event.toLowerCase().contains("fingerprint"), event);
        anchor.end();
    }

    @Test
    void shouldAnswerAWrongPasswordWith401AndReportLostConsentThenStopRelaying() throws Exception
    {
        final AtomicLong clockMs = new AtomicLong(1_000_000);
        media.webRtcLegs(DtlsWebRtcLegs.start(InetAddress.getLoopbackAddress(),
            DtlsCertificate.generate(new SecureRandom()), DtlsEndpointConfig.builder().clockMs(clockMs::get).build(),
            30_000));
        final MediaAnchor anchor = media.anchor(phoneSdp(), MediaProfile.WEBRTC, listener);
        final MediaDescription toBrowser = SessionDescription.parse(anchor.offer()).media().getFirst();
        final MediaDescription toPhone = SessionDescription.parse(anchor.answer(browserSdp("active"))).media()
            .getFirst();

        browser.check(toBrowser, "notTheRelayPassword0000", true);
        final byte[] rejected = browser.stun.poll(5, TimeUnit.SECONDS);
        assertNotNull(rejected, "a check with the wrong password is answered");
        final StunMessageFlyweight error = new StunMessageFlyweight();
        assertTrue(error.wrap(rejected, 0, rejected.length) >= 0);
        assertEquals(StunMessageType.BINDING_ERROR_RESPONSE, error.messageType());
        assertEquals(401, error.errorCode(error.findAttribute(StunAttributeType.ERROR_CODE)));
        awaitDrops(RelayDrop.STUN_UNAUTHENTICATED, 1);
        // DTLS from an address no valid check came from (RFC 8445 §12): dropped and counted, no handshake.
        final byte[] clientHello = new byte[40];
        clientHello[0] = 22; // a DTLS handshake record (RFC 7983 §7: 20-63 is DTLS)
        clientHello[1] = (byte)0xFE;
        clientHello[2] = (byte)0xFD;
        browser.send(clientHello, 0, clientHello.length);
        awaitDrops(RelayDrop.DTLS_UNCHECKED, 1);

        iceAndDtls(toBrowser, DtlsRole.CLIENT);
        mediaBothWays(toPhone.port());

        // A consent check at +29 s keeps the leg; 30 s after it without one, consent is gone (RFC 7675 §5.1).
        clockMs.addAndGet(29_000);
        browser.check(toBrowser, false);
        assertNotNull(browser.stun.poll(5, TimeUnit.SECONDS));
        assertNull(events.poll(1_500, TimeUnit.MILLISECONDS), "consent is fresh");
        clockMs.addAndGet(30_000);
        final String event = events.poll(5, TimeUnit.SECONDS);
        assertNotNull(event, "the application hears that consent expired");
        assertTrue(event.startsWith("failed 0: ICE consent expired"), event);

        final SrtpContext protect = SrtpContext.outbound(browser.keys.getNow(null).outboundPolicy());
        final byte[] late = rtp(0, 7000, SSRC_BROWSER, 160);
        browser.send(late, 0, protect.protectRtp(late, 0, 172));
        phone.setSoTimeout(500);
        assertThrows(SocketTimeoutException.class, () -> phone.receive(new DatagramPacket(new byte[2048], 2048)),
            "nothing is relayed once consent is lost");
        anchor.end();
    }

    @Test
    void shouldKeepIceCredentialsFingerprintAndDtlsRoleOnReOffersFromEitherLeg() throws Exception
    {
        final Established call = established();
        final MediaAnchor anchor = call.anchor();
        final MediaDescription toBrowser = call.toBrowser();
        final MediaDescription toPhone = call.toPhone();

        // The phone puts the call on hold (RFC 3264 §8.4): the browser is offered the same ICE and DTLS, our
        // settled role (passive: the browser is the DTLS client), and the direction.
        final SessionDescription holdToBrowser = SessionDescription.parse(anchor.reoffer(
            phoneSdp().replace("o=phone 1 1", "o=phone 1 2") + "a=sendonly\r\n", true));
        assertTrue(holdToBrowser.origin().contains(" 2 IN IP4 "), "RFC 3264 §8: o= version incremented");
        assertNotNull(holdToBrowser.attribute("ice-lite"));
        final MediaDescription hold = holdToBrowser.media().getFirst();
        assertEquals(toBrowser.port(), hold.port());
        assertEquals("sendonly", hold.direction(null));
        for (final String name : new String[] {"ice-ufrag", "ice-pwd", "fingerprint", "candidate"})
        {
            assertEquals(toBrowser.attribute(name), hold.attribute(name), name + " kept");
        }
        assertEquals("passive", hold.attribute("setup"), "RFC 8842 §5.5: the DTLS roles stay");
        final MediaDescription holdAnswer = SessionDescription.parse(anchor.answer(
            browserSdp("active").replace("a=sendrecv", "a=recvonly"))).media().getFirst();
        assertEquals(toPhone.port(), holdAnswer.port());
        assertEquals("recvonly", holdAnswer.direction(null));

        // The browser re-offers (actpass, as browsers do): answered with the same ICE, fingerprint and role.
        final MediaDescription toPhoneAgain = SessionDescription.parse(anchor.reoffer(browserSdp("actpass"), false))
            .media().getFirst();
        assertEquals(toPhone.port(), toPhoneAgain.port());
        final MediaDescription answerToBrowser = SessionDescription.parse(anchor.answer(
            phoneSdp().replace("o=phone 1 1", "o=phone 1 3"))).media().getFirst();
        assertEquals(toBrowser.port(), answerToBrowser.port());
        assertEquals(toBrowser.attribute("ice-pwd"), answerToBrowser.attribute("ice-pwd"));
        assertEquals(toBrowser.attribute("fingerprint"), answerToBrowser.attribute("fingerprint"));
        assertEquals("passive", answerToBrowser.attribute("setup"));

        // The DTLS association and its keys are the same: media goes on without a new handshake.
        mediaBothWays(toPhone.port(), 5_000);
        assertEquals(null, events.peek(), "no failure reported");
        anchor.end();
    }

    @Test
    void shouldRestartIceOnABrowserReOfferKeepingDtlsAndMedia() throws Exception
    {
        final Established call = established();
        final MediaAnchor anchor = call.anchor();
        final MediaDescription toBrowser = call.toBrowser();
        final MediaDescription toPhone = call.toPhone();

        // A restart the phone refuses (a 488 to the re-INVITE): the leg keeps its ICE session as it was.
        browser.restartIce("rfsd", "refusedPasswordOf24Chars");
        anchor.reoffer(browserSdp("actpass"), false);
        assertTrue(anchor.withdraw());
        final MediaDescription unchanged = SessionDescription.parse(anchor.reoffer(phoneSdp(), true)).media()
            .getFirst();
        assertEquals(toBrowser.attribute("ice-ufrag"), unchanged.attribute("ice-ufrag"));
        assertEquals(toBrowser.attribute("ice-pwd"), unchanged.attribute("ice-pwd"));
        browser.restartIce(JavaBrowser.UFRAG, JavaBrowser.PASSWORD);
        anchor.answer(browserSdp("active"));

        // The browser restarts ICE (pc.restartIce(): new ufrag and pwd, the same fingerprint, actpass).
        browser.restartIce("rstr", "restartedPasswordOf24Chr");
        final MediaDescription toPhoneAgain = SessionDescription.parse(anchor.reoffer(browserSdp("actpass"), false))
            .media().getFirst();
        assertEquals(toPhone.port(), toPhoneAgain.port());
        assertNull(toPhoneAgain.attribute("ice-ufrag"), "the phone's leg has no ICE to restart");
        final MediaDescription restarted = SessionDescription.parse(anchor.answer(
            phoneSdp().replace("o=phone 1 1", "o=phone 1 2"))).media().getFirst();
        assertNotEquals(toBrowser.attribute("ice-ufrag"), restarted.attribute("ice-ufrag"),
            "RFC 8445 §9: the answer to a restart has new credentials");
        assertNotEquals(toBrowser.attribute("ice-pwd"), restarted.attribute("ice-pwd"));
        assertEquals(toBrowser.port(), restarted.port());
        assertEquals(toBrowser.attribute("candidate"), restarted.attribute("candidate"));
        assertEquals(toBrowser.attribute("fingerprint"), restarted.attribute("fingerprint"));
        assertEquals("passive", restarted.attribute("setup"), "RFC 8842 §5.5: the DTLS association stays");

        // Until the new checks nominate a pair, checks under the previous credentials keep consent and media.
        assertEquals(StunMessageType.BINDING_SUCCESS_RESPONSE, checkAnswered(toBrowser, false));
        mediaBothWays(toPhone.port(), 2_000);
        // The new checks, answered under the new password; the nominating one moves the session to them.
        assertEquals(StunMessageType.BINDING_SUCCESS_RESPONSE, checkAnswered(restarted, false));
        assertEquals(StunMessageType.BINDING_SUCCESS_RESPONSE, checkAnswered(restarted, true));
        // The same DTLS keys: media goes on without a new handshake.
        mediaBothWays(toPhone.port(), 4_000);
        assertEquals(StunMessageType.BINDING_ERROR_RESPONSE, checkAnswered(toBrowser, false),
            "the previous credentials are gone once the new ones nominated");
        assertEquals(null, events.peek(), "no failure reported");
        anchor.end();
    }

    @Test
    void shouldMakeANewDtlsAssociationWhenTheBrowserReOffersANewFingerprintOrNewRoles() throws Exception
    {
        final Established call = established();
        final MediaAnchor anchor = call.anchor();
        final MediaDescription toBrowser = call.toBrowser();
        final MediaDescription toPhone = call.toPhone();
        final DtlsSrtpKeys first = browser.keys.getNow(null);

        // A new certificate, actpass (RFC 8842 §4): a new association; we keep our role, the server's.
        browser.newAssociation();
        anchor.reoffer(browserSdp("actpass"), false);
        final MediaDescription renewed = SessionDescription.parse(anchor.answer(
            phoneSdp().replace("o=phone 1 1", "o=phone 1 2"))).media().getFirst();
        assertEquals("passive", renewed.attribute("setup"));
        assertEquals(toBrowser.attribute("fingerprint"), renewed.attribute("fingerprint"), "our certificate stays");
        assertEquals(toBrowser.attribute("ice-ufrag"), renewed.attribute("ice-ufrag"), "ICE is not restarted");
        browser.startDtls(DtlsRole.CLIENT, renewed);
        final DtlsSrtpKeys second = browser.keys.get(15, TimeUnit.SECONDS);
        assertFalse(Arrays.equals(first.outboundPolicy().masterKey(), second.outboundPolicy().masterKey()),
            "new keys from the new handshake");
        awaitBrowserHeard(toPhone.port(), 2_000);
        mediaBothWays(toPhone.port(), 2_000);

        // Another certificate and the roles turned round (the browser the server now): we connect to it.
        browser.newAssociation();
        browser.startDtls(DtlsRole.SERVER, renewed);
        anchor.reoffer(browserSdp("passive"), false);
        final MediaDescription turned = SessionDescription.parse(anchor.answer(
            phoneSdp().replace("o=phone 1 1", "o=phone 1 3"))).media().getFirst();
        assertEquals("active", turned.attribute("setup"), "RFC 5763 §5: we answer passive with active");
        browser.keys.get(15, TimeUnit.SECONDS);
        awaitBrowserHeard(toPhone.port(), 4_000);
        mediaBothWays(toPhone.port(), 4_000);
        assertEquals(null, events.peek(), "no failure reported");
        anchor.end();
    }

    /**
     * After a new handshake, until the relay's keys and the browser's agree both ways: the browser speaks until the
     * phone hears it, and the phone until the browser can read it.
     */
    private void awaitBrowserHeard(final int legAPort, final int seqBase) throws Exception
    {
        final DtlsSrtpKeys keys = browser.keys.getNow(null);
        final SrtpContext protect = SrtpContext.outbound(keys.outboundPolicy());
        final SrtpContext unprotect = SrtpContext.inbound(keys.inboundPolicy());
        final InetSocketAddress legA = new InetSocketAddress(InetAddress.getLoopbackAddress(), legAPort);
        boolean heard = false;
        boolean read = false;
        // Below mediaBothWays' numbers from seqBase on, so that those go forward on the same keys.
        int seq = seqBase - 500;
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (!(heard && read) && System.nanoTime() < deadline)
        {
            final byte[] srtp = rtp(0, ++seq, SSRC_BROWSER, 160);
            browser.send(srtp, 0, protect.protectRtp(srtp, 0, 172));
            heard |= null != receivePhone(100);
            phone.send(new DatagramPacket(rtp(0, seq, SSRC_PHONE, 160), 172, legA));
            final byte[] atBrowser = browser.receiveMedia(100);
            read |= null != atBrowser && 172 == unprotect.unprotectRtp(atBrowser, 0, atBrowser.length);
        }
        assertTrue(heard && read, "the new keys in use both ways: heard " + heard + ", read " + read);
        browser.media.clear();
        while (null != receivePhone(50))
        {
            // Packets relayed under the old keys before the switch.
        }
    }

    @Test
    void shouldRefuseAReOfferChangingOneIceCredentialOrAnAnswerChangingRolesAndStayUsable() throws Exception
    {
        final MediaAnchor anchor = media.anchor(phoneSdp(), MediaProfile.WEBRTC, listener);
        assertThrows(IllegalStateException.class, () -> anchor.reoffer(phoneSdp(), true), "before the answer");
        anchor.answer(browserSdp("active"));
        final SdpException restart = assertThrows(SdpException.class, () -> anchor.reoffer(
            browserSdp("actpass").replace("a=ice-pwd:" + JavaBrowser.PASSWORD, "a=ice-pwd:anotherPasswordOf24Chars"),
            false));
        assertTrue(restart.getMessage().contains("ICE restart changes both"), restart.getMessage());
        // A new fingerprint or new roles in an offer ask for a new DTLS association: taken, and here withdrawn.
        final String otherFingerprint = DtlsCertificate.generate(new SecureRandom()).sdpFingerprint();
        anchor.reoffer(browserSdp("actpass").replace(browser.certificate.sdpFingerprint(), otherFingerprint), false);
        assertTrue(anchor.withdraw());
        anchor.reoffer(browserSdp("passive"), false);
        assertTrue(anchor.withdraw());
        // A stream added (RFC 3264 §8.1) that the browser refuses: the call keeps its one stream.
        assertEquals(2, SessionDescription.parse(anchor.reoffer(phoneSdp() + "m=video " + phone.getLocalPort() +
            " RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n", true)).media().size());
        assertTrue(anchor.withdraw());
        assertEquals(1, anchor.streams());
        // Each refusal left the anchor answered: a good re-offer still goes through.
        final MediaDescription again = SessionDescription.parse(anchor.reoffer(phoneSdp(), true)).media().getFirst();
        assertEquals("passive", again.attribute("setup"));
        assertThrows(IllegalStateException.class, () -> anchor.reoffer(phoneSdp(), true), "one exchange at a time");
        // An answer may not change the DTLS roles our offer kept (a=setup:passive: we stay the server).
        final SdpException roles = assertThrows(SdpException.class, () -> anchor.answer(browserSdp("passive")));
        assertTrue(roles.getMessage().contains("DTLS roles"), roles.getMessage());
        // Only an offer restarts ICE: an answer with new credentials is refused, and the right one still taken.
        browser.restartIce("nwuf", "answerPasswordOf24Chars0");
        final SdpException inAnswer = assertThrows(SdpException.class, () -> anchor.answer(browserSdp("active")));
        assertTrue(inAnswer.getMessage().contains("only an offer restarts ICE"), inAnswer.getMessage());
        browser.restartIce(JavaBrowser.UFRAG, JavaBrowser.PASSWORD);
        anchor.answer(browserSdp("active"));
        assertTrue(anchor.isRelayed(0));
        anchor.end();
    }

    /** An anchored call the phone offered and the browser answered, with ICE, DTLS and media both ways done. */
    private record Established(MediaAnchor anchor, MediaDescription toBrowser, MediaDescription toPhone)
    {
    }

    /** The phone offers, the browser answers {@code a=setup:active} (the DTLS client); ICE, DTLS, media both ways. */
    private Established established() throws Exception
    {
        final MediaAnchor anchor = media.anchor(phoneSdp(), MediaProfile.WEBRTC, listener);
        final MediaDescription toBrowser = SessionDescription.parse(anchor.offer()).media().getFirst();
        final MediaDescription toPhone = SessionDescription.parse(anchor.answer(browserSdp("active"))).media()
            .getFirst();
        iceAndDtls(toBrowser, DtlsRole.CLIENT);
        mediaBothWays(toPhone.port(), 0);
        return new Established(anchor, toBrowser, toPhone);
    }

    /** Sends a check to the relay under the credentials of {@code relayMedia}; returns the response's type. */
    private int checkAnswered(final MediaDescription relayMedia, final boolean useCandidate) throws Exception
    {
        browser.stun.clear();
        browser.check(relayMedia, useCandidate);
        final byte[] answer = browser.stun.poll(5, TimeUnit.SECONDS);
        assertNotNull(answer, "the relay answers the check");
        final StunMessageFlyweight response = new StunMessageFlyweight();
        assertTrue(response.wrap(answer, 0, answer.length) >= 0);
        if (StunMessageType.BINDING_SUCCESS_RESPONSE == response.messageType())
        {
            assertEquals(StunResult.VERIFIED, response.verifyMessageIntegrity(new StunIntegrity(),
                StunCredential.shortTerm(relayMedia.attribute("ice-pwd"))), "signed with the password of that SDP");
        }
        return response.messageType();
    }

    /** ICE (one nominating check, answered with the browser's address) then DTLS in the browser's role. */
    private void iceAndDtls(final MediaDescription toBrowser, final DtlsRole browserRole) throws Exception
    {
        if (DtlsRole.SERVER == browserRole)
        {
            browser.startDtls(browserRole, toBrowser);
        }
        browser.check(toBrowser, true);
        final byte[] answer = browser.stun.poll(5, TimeUnit.SECONDS);
        assertNotNull(answer, "the relay answers the check");
        final StunMessageFlyweight response = new StunMessageFlyweight();
        assertTrue(response.wrap(answer, 0, answer.length) >= 0);
        assertEquals(StunMessageType.BINDING_SUCCESS_RESPONSE, response.messageType());
        final StunAddress mapped = new StunAddress();
        assertEquals(StunResult.OK,
            response.readAddress(response.findAttribute(StunAttributeType.XOR_MAPPED_ADDRESS), mapped));
        assertEquals(browser.port(), mapped.port());
        if (DtlsRole.CLIENT == browserRole)
        {
            browser.startDtls(browserRole, toBrowser);
        }
        final DtlsSrtpKeys keys = browser.keys.get(15, TimeUnit.SECONDS);
        assertNotNull(keys);
        assertEquals(null, events.peek(), "no failure reported");
    }

    private void mediaBothWays(final int legAPort) throws Exception
    {
        mediaBothWays(legAPort, 0);
    }

    /** RTP both ways then RTCP; sequence numbers from {@code seqBase}, so that a second run is no replay. */
    private void mediaBothWays(final int legAPort, final int seqBase) throws Exception
    {
        final DtlsSrtpKeys keys = browser.keys.getNow(null);
        final SrtpContext protect = SrtpContext.outbound(keys.outboundPolicy());
        final SrtpContext unprotect = SrtpContext.inbound(keys.inboundPolicy());
        final InetSocketAddress legA = new InetSocketAddress(InetAddress.getLoopbackAddress(), legAPort);

        // The relay installs its keys a moment after the handshake: the phone speaks until the browser hears it.
        byte[] first = null;
        int seq = seqBase;
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (null == first && System.nanoTime() < deadline)
        {
            final byte[] p = rtp(0, ++seq, SSRC_PHONE, 160);
            phone.send(new DatagramPacket(p, 172, legA));
            first = browser.receiveMedia(100);
        }
        assertNotNull(first, "the phone's RTP reaches the browser");
        for (int i = 0; i < 50; i++)
        {
            final byte[] plain = rtp(0, ++seq, SSRC_PHONE, 160);
            phone.send(new DatagramPacket(plain, 172, legA));
            final byte[] srtp = browser.receiveMedia(3_000);
            assertNotNull(srtp, "packet " + seq + " reaches the browser");
            assertEquals(172, unprotect.unprotectRtp(srtp, 0, srtp.length), "SRTP under the relay's DTLS key");
            assertArrayEquals(Arrays.copyOf(plain, 172), Arrays.copyOf(srtp, 172), "payload, SSRC, seq kept");
        }
        for (int i = 0; i < 50; i++)
        {
            final byte[] plain = rtp(101, seqBase + 1000 + i, SSRC_BROWSER, 160);
            final byte[] srtp = Arrays.copyOf(plain, plain.length);
            final int n = protect.protectRtp(srtp, 0, 172);
            browser.send(srtp, 0, n);
            final byte[] atPhone = receivePhone();
            assertNotNull(atPhone, "browser packet " + i + " reaches the phone");
            assertArrayEquals(Arrays.copyOf(plain, 172), atPhone, "plain RTP at the phone, payload kept");
        }
        // RTCP over rtcp-mux: SRTCP from the browser arrives as plain RTCP on the phone's port.
        if (0 == seqBase)
        {
            final byte[] report = rtcp(SSRC_BROWSER);
            final byte[] srtcp = Arrays.copyOf(report, report.length);
            browser.send(srtcp, 0, protect.protectRtcp(srtcp, 0, 8));
            assertArrayEquals(Arrays.copyOf(report, 8), receivePhone(), "RTCP relayed and unprotected");
        }
    }

    private byte[] receivePhone() throws Exception
    {
        return receivePhone(3_000);
    }

    private byte[] receivePhone(final int timeoutMs) throws Exception
    {
        phone.setSoTimeout(timeoutMs);
        final byte[] buffer = new byte[2048];
        final DatagramPacket p = new DatagramPacket(buffer, buffer.length);
        try
        {
            phone.receive(p);
        }
        catch (final SocketTimeoutException e)
        {
            return null;
        }
        return Arrays.copyOf(buffer, p.getLength());
    }

    static byte[] rtp(final int payloadType, final int seq, final int ssrc, final int payload)
    {
        final byte[] p = new byte[12 + payload + 64];
        p[0] = (byte)0x80;
        p[1] = (byte)payloadType;
        p[2] = (byte)(seq >>> 8);
        p[3] = (byte)seq;
        final int ts = seq * 160;
        p[4] = (byte)(ts >>> 24);
        p[5] = (byte)(ts >>> 16);
        p[6] = (byte)(ts >>> 8);
        p[7] = (byte)ts;
        p[8] = (byte)(ssrc >>> 24);
        p[9] = (byte)(ssrc >>> 16);
        p[10] = (byte)(ssrc >>> 8);
        p[11] = (byte)ssrc;
        for (int i = 0; i < payload; i++)
        {
            p[12 + i] = (byte)(seq * 31 + i);
        }
        return p;
    }

    /** An RTCP receiver report without report blocks (RFC 3550 §6.4.2), 8 octets, with room for SRTCP. */
    static byte[] rtcp(final int ssrc)
    {
        final byte[] p = new byte[8 + 64];
        p[0] = (byte)0x80;
        p[1] = (byte)201;
        p[3] = 1;
        p[4] = (byte)(ssrc >>> 24);
        p[5] = (byte)(ssrc >>> 16);
        p[6] = (byte)(ssrc >>> 8);
        p[7] = (byte)ssrc;
        return p;
    }

    /** Waits until the relay counted {@code count} drops for {@code reason} (counted on the media thread). */
    private void awaitDrops(final int reason, final long count) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (media.relay().drops(reason) < count && System.nanoTime() < deadline)
        {
            Thread.sleep(5);
        }
        assertEquals(count, media.relay().drops(reason), RelayDrop.name(reason));
    }
}
