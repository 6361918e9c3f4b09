package io.sipline.media.service;

import io.sipline.media.relay.MediaRelaySettings;
import io.sipline.media.relay.RelayDrop;
import io.sipline.media.relay.RelayLeg;
import io.sipline.media.relay.RelayStream;
import io.sipline.media.sdp.MediaDescription;
import io.sipline.media.sdp.SessionDescription;
import io.sipline.media.srtp.SdesCryptoAttribute;
import io.sipline.media.srtp.SrtpContext;
import io.sipline.media.srtp.SrtpCryptoSuite;
import io.sipline.media.srtp.SrtpPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.sipline.media.service.TestPhone.await;
import static io.sipline.media.service.TestPhone.rtcp;
import static io.sipline.media.service.TestPhone.rtp;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A call anchored through the service on loopback, with test sockets playing both phones: phone A speaks SDES-SRTP
 * with {@code rtcp-mux}, phone B plain RTP with RTCP on its own port and an SDP that names the wrong port (as behind a
 * NAT), so the relay must latch to where B's packets come from.
 */
@Timeout(60)
class RelayEndToEndTest
{
    private static final int SSRC_A = 0x0A0A_0A0A;
    private static final int SSRC_B = 0x0B0B_0B0B;

    private RelayMediaService media;
    private final CopyOnWriteArrayList<String> events = new CopyOnWriteArrayList<>();
    private TestPhone phoneA;
    private TestPhone phoneB;
    private TestPhone phoneBRtcp;
    private TestPhone stranger;

    @BeforeEach
    void start() throws Exception
    {
        media = RelayMediaService.start(new MediaRelaySettings(42000, 42999, InetAddress.getLoopbackAddress(), null,
            2, 400));
        phoneA = new TestPhone();
        phoneB = new TestPhone();
        phoneBRtcp = new TestPhone();
        stranger = new TestPhone();
    }

    @AfterEach
    void stop()
    {
        media.close();
        phoneA.close();
        phoneB.close();
        phoneBRtcp.close();
        stranger.close();
    }

    @Test
    void shouldRelaySdesToPlainBothWaysLatchingAndDroppingWhatIsNotTheCalls() throws Exception
    {
        final SdesCryptoAttribute keyOfA = SdesCryptoAttribute.generate(1, SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80,
            new SecureRandom());
        final String offerFromA = "v=0\r\no=a 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n" +
            "m=audio " + phoneA.port() + " RTP/SAVP 0 101\r\na=rtpmap:0 PCMU/8000\r\n" +
            "a=rtpmap:101 telephone-event/8000\r\na=rtcp-mux\r\na=crypto:" + keyOfA.format() + "\r\n";
        final MediaAnchor anchor = media.anchor(offerFromA, MediaProfile.RTP_AVP, new MediaListener()
        {
            @Override
            public void onMediaTimeout(final MediaAnchor a, final int stream, final long idleMs)
            {
                events.add("idle " + stream);
            }
        });
        final MediaDescription toB = SessionDescription.parse(anchor.offer()).media().get(0);
        final int legBPort = toB.port();
        final int natPort = 9;
        final String answerFromB = "v=0\r\no=b 2 2 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n" +
            "m=audio " + natPort + " RTP/AVP 0 101\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:101 telephone-event/8000\r\n";
        final MediaDescription toA = SessionDescription.parse(anchor.answer(answerFromB)).media().get(0);
        final int legAPort = toA.port();
        final SdesCryptoAttribute keyOfRelay = SdesCryptoAttribute.parse(toA.attribute("crypto"));
        final SrtpContext protectA = SrtpContext.outbound(SrtpPolicy.fromSdes(keyOfA).build());
        final SrtpContext unprotectA = SrtpContext.inbound(SrtpPolicy.fromSdes(keyOfRelay).build());
        final RelayStream stream = ((AnchoredCall)anchor).relayStream(0);
        final RelayLeg legA = stream.legA();
        final RelayLeg legB = stream.legB();

        // A speaks first: relayed to B's SDP address, which is wrong (B is behind a NAT).
        sendSrtp(protectA, rtp(0, 1, SSRC_A, 160), 172, legAPort);
        await(() -> 1 == legA.packetsIn(), "A's first packet accepted");
        assertEquals(phoneA.socket.getLocalSocketAddress(), legA.latched(), "leg A latched to A's socket");
        assertNull(legB.latched());

        // B speaks: leg B latches to its real address, A gets B's packet as SRTP.
        final byte[] fromB = rtp(0, 500, SSRC_B, 160);
        phoneB.send(fromB, 172, legBPort);
        final byte[] atA = phoneA.receive(3000);
        assertNotNull(atA, "B's packet reaches A");
        final int n = unprotectA.unprotectRtp(atA, 0, atA.length);
        assertEquals(172, n, "A's packet authenticates under the relay's key");
        assertArrayEquals(Arrays.copyOf(fromB, 172), Arrays.copyOf(atA, 172), "payload, SSRC and sequence kept");
        await(() -> null != legB.latched(), "leg B latched");
        assertEquals(phoneB.socket.getLocalSocketAddress(), legB.latched());

        // Now both ways, telephone-event included.
        for (int i = 2; i < 52; i++)
        {
            final byte[] plain = rtp(i % 10 == 0 ? 101 : 0, i, SSRC_A, i % 10 == 0 ? 4 : 160);
            final int length = 12 + (i % 10 == 0 ? 4 : 160);
            final byte[] expected = Arrays.copyOf(plain, length);
            sendSrtp(protectA, plain, length, legAPort);
            assertArrayEquals(expected, phoneB.receive(3000), "A's packet " + i + " reaches B in plain");
            final byte[] back = rtp(0, 500 + i, SSRC_B, 160);
            phoneB.send(back, 172, legBPort);
            final byte[] srtp = phoneA.receive(3000);
            assertNotNull(srtp);
            assertEquals(172, unprotectA.unprotectRtp(srtp, 0, srtp.length));
            assertArrayEquals(Arrays.copyOf(back, 172), Arrays.copyOf(srtp, 172));
        }

        // RTCP: B on its odd port, A multiplexed on its RTP port.
        final int legBRtcp = toB.rtcpPort();
        final byte[] rrB = rtcp(SSRC_B);
        phoneBRtcp.send(rrB, 8, legBRtcp);
        final byte[] srtcp = phoneA.receive(3000);
        assertNotNull(srtcp, "B's RTCP reaches A over the multiplexed port");
        assertEquals(8, unprotectA.unprotectRtcp(srtcp, 0, srtcp.length));
        assertArrayEquals(Arrays.copyOf(rrB, 8), Arrays.copyOf(srtcp, 8));
        final byte[] rrA = rtcp(SSRC_A);
        final int protectedRr = protectA.protectRtcp(rrA, 0, 8);
        phoneA.send(rrA, protectedRr, legAPort);
        assertArrayEquals(Arrays.copyOf(rtcp(SSRC_A), 8), phoneBRtcp.receive(3000),
            "A's RTCP reaches B's RTCP port in plain");

        shouldDropWhatIsNotTheCalls(legA, legB, legAPort, legBPort);

        // Silence is reported once.
        await(() -> events.contains("idle 0"), "the idle stream reported");
        assertEquals(1, events.size());

        // Ending frees every port; nothing is relayed afterwards.
        assertEquals(2, media.relay().portPairsInUse());
        anchor.end();
        await(() -> 0 == media.relay().portPairsInUse(), "the ports given back");
        assertFalse(anchor.isRelayed(0));
        assertEquals(0, media.activeAnchors());
        phoneB.send(rtp(0, 900, SSRC_B, 160), 172, legBPort);
        assertNull(phoneA.receive(200));
    }

    @Test
    void shouldFreeEveryAnchorWhateverTheOrderOfEvents() throws Exception
    {
        final String offer = SdpTranslationTest.plainOffer();
        final MediaAnchor endedBeforeAnswer = media.anchor(offer, MediaProfile.RTP_SAVP, null);
        endedBeforeAnswer.end();
        final MediaAnchor answeredThenEnded = media.anchor(offer, MediaProfile.RTP_AVP, null);
        answeredThenEnded.answer(answeredThenEnded.offer().replace("RTP/AVP", "RTP/AVP"));
        final MediaAnchor endedTwice = media.anchor(offer, MediaProfile.RTP_AVP, null);
        endedTwice.end();
        endedTwice.end();
        final MediaAnchor leftToClose = media.anchor(offer, MediaProfile.RTP_AVP, null);
        answeredThenEnded.end();
        assertEquals(1, media.activeAnchors());
        assertTrue(leftToClose.isRelayed(0));
        media.close();
        assertTrue(leftToClose.isEnded(), "stopping the service ends its anchors");
        assertEquals(0, media.relay().portPairsInUse());
    }

    /** What is not the call's is dropped and counted, never relayed. */
    private void shouldDropWhatIsNotTheCalls(final RelayLeg legA, final RelayLeg legB, final int legAPort,
        final int legBPort) throws Exception
    {
        stranger.send(rtp(0, 9999, SSRC_B, 160), 172, legBPort);
        final byte[] forged = rtp(0, 60, SSRC_A, 160);
        phoneA.send(forged, 182, legAPort);
        phoneA.send(new byte[] {(byte)0xFF, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 13, legAPort);
        phoneA.send(new byte[] {0, 1, 0, 0, 0x21, 0x12, (byte)0xA4, 0x42, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
            20, legAPort);
        await(() -> 1 == legB.drops(RelayDrop.WRONG_SOURCE), "the stranger's packet counted");
        await(() -> 1 == legA.drops(RelayDrop.AUTH_FAIL), "the forged SRTP packet counted");
        await(() -> 1 == legA.drops(RelayDrop.MALFORMED), "the malformed packet counted");
        await(() -> 1 == legA.drops(RelayDrop.STUN_UNEXPECTED), "the STUN packet counted");
        assertNull(phoneB.receive(200), "nothing of it reached B");
        assertNull(phoneA.receive(50), "nothing reached A");
        assertEquals(1, media.relay().drops(RelayDrop.WRONG_SOURCE));
    }

    private void sendSrtp(final SrtpContext protect, final byte[] packet, final int length, final int port)
        throws Exception
    {
        final int n = protect.protectRtp(packet, 0, length);
        assertTrue(n > length);
        phoneA.send(packet, n, port);
    }
}
