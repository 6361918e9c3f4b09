package io.sipline.media.service;

import io.sipline.media.relay.MediaRelaySettings;
import io.sipline.media.sdp.MediaDescription;
import io.sipline.media.sdp.SdpException;
import io.sipline.media.sdp.SessionDescription;
import io.sipline.media.srtp.SdesCryptoAttribute;
import io.sipline.media.srtp.SrtpCryptoSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The offer/answer translation of {@link AnchoredCall} (RFC 3264, RFC 4568), against a running relay on loopback.
 */
class SdpTranslationTest
{
    private static RelayMediaService media;

    @BeforeAll
    static void start() throws Exception
    {
        media = RelayMediaService.start(new MediaRelaySettings(41000, 41999, InetAddress.getLoopbackAddress(), null,
            1, 0));
    }

    @AfterAll
    static void stop()
    {
        media.close();
        assertEquals(0, media.relay().portPairsInUse(), "every port pair freed");
    }

    static String plainOffer()
    {
        return """
            v=0
            o=bob 1 1 IN IP4 192.0.2.20
            s=-
            c=IN IP4 192.0.2.20
            t=0 0
            m=audio 30000 RTP/AVP 0 8 101
            a=rtpmap:0 PCMU/8000
            a=rtpmap:8 PCMA/8000
            a=rtpmap:101 telephone-event/8000
            a=fmtp:101 0-16
            a=ptime:20
            a=sendrecv
            m=video 30002 RTP/AVP 96
            a=rtpmap:96 H264/90000
            a=fmtp:96 profile-level-id=42e01f
            m=audio 0 RTP/AVP 0
            m=application 30004 UDP/DTLS/SCTP webrtc-datachannel
            a=sctp-port:5000
            """;
    }

    @Test
    void shouldOfferSdesSrtpForAPlainOfferAndAnswerPlain()
    {
        final MediaAnchor anchor = media.anchor(plainOffer(), MediaProfile.RTP_SAVP, null);
        try
        {
            final SessionDescription offer = SessionDescription.parse(anchor.offer());
            assertEquals("127.0.0.1", offer.connection().address());
            assertEquals(4, offer.media().size(), "one m= line per offered stream, in order");
            final MediaDescription audio = offer.media().get(0);
            assertEquals("RTP/SAVP", audio.proto());
            assertEquals(List.of("0", "8", "101"), audio.formats());
            assertEquals("telephone-event/8000", audio.rtpmap("101"));
            assertEquals("0-16", audio.fmtp("101"));
            assertEquals("20", audio.attribute("ptime"));
            assertTrue(audio.port() >= 41000 && audio.port() <= 41999 && 0 == audio.port() % 2, "an even port");
            assertEquals(audio.port() + 1, audio.rtcpPort());
            assertTrue(audio.rtcpMux());
            final List<String> crypto = audio.attributes("crypto");
            assertEquals(2, crypto.size());
            assertEquals(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, SdesCryptoAttribute.parse(crypto.get(0)).suite());
            assertEquals(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_32, SdesCryptoAttribute.parse(crypto.get(1)).suite());
            final MediaDescription video = offer.media().get(1);
            assertEquals("RTP/SAVP", video.proto());
            assertEquals("profile-level-id=42e01f", video.fmtp("96"));
            assertNotEquals(audio.port(), video.port());
            assertEquals(0, offer.media().get(2).port(), "a stream offered with port 0 stays disabled");
            assertEquals(0, offer.media().get(3).port(), "a data channel is not relayed");
            assertNull(offer.media().get(3).attribute("sctp-port"));
            assertTrue(anchor.isRelayed(0) && anchor.isRelayed(1));
            assertFalse(anchor.isRelayed(2) || anchor.isRelayed(3));

            final String answerFromB = "v=0\r\no=carol 5 5 IN IP4 192.0.2.30\r\ns=-\r\nc=IN IP4 192.0.2.30\r\n" +
                "t=0 0\r\nm=audio 40000 RTP/SAVP 8 101\r\na=rtpmap:8 PCMA/8000\r\n" +
                "a=rtpmap:101 telephone-event/8000\r\na=fmtp:101 0-15\r\na=sendonly\r\n" +
                "a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:" + key(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_32) + "\r\n" +
                "m=video 0 RTP/SAVP 96\r\nm=audio 0 RTP/SAVP 0\r\nm=application 0 UDP/DTLS/SCTP webrtc-datachannel\r\n";
            final SessionDescription answer = SessionDescription.parse(anchor.answer(answerFromB));
            assertEquals(4, answer.media().size());
            final MediaDescription answered = answer.media().get(0);
            assertEquals("RTP/AVP", answered.proto(), "the answer keeps the offerer's profile");
            assertEquals(List.of("8", "101"), answered.formats(), "the codecs leg B chose");
            assertEquals("0-15", answered.fmtp("101"));
            assertEquals("sendonly", answered.direction(null));
            assertTrue(answered.attributes("crypto").isEmpty());
            assertFalse(answered.rtcpMux(), "leg A did not offer rtcp-mux");
            assertEquals(answered.port() + 1, answered.rtcpPort());
            assertEquals("127.0.0.1", answer.connection().address());
            for (int i = 1; i < 4; i++)
            {
                assertEquals(0, answer.media().get(i).port(), "stream " + i + " rejected");
            }
            assertTrue(anchor.isRelayed(0));
            assertFalse(anchor.isRelayed(1), "the stream leg B rejected is freed at once");
            assertThrows(IllegalStateException.class, () -> anchor.answer(answerFromB));
        }
        finally
        {
            anchor.end();
        }
        assertTrue(anchor.isEnded());
        assertFalse(anchor.isRelayed(0));
    }

    @Test
    void shouldAnswerSdesWithItsOwnKeyUnderTheOfferedTagAndOfferPlain()
    {
        final String offerFromA = "v=0\r\no=- 7 7 IN IP4 192.0.2.40\r\ns=-\r\nc=IN IP4 192.0.2.40\r\nt=0 0\r\n" +
            "m=audio 50000 RTP/SAVP 111 0 101\r\na=rtpmap:111 opus/48000/2\r\na=fmtp:111 useinbandfec=1\r\n" +
            "a=rtpmap:101 telephone-event/8000\r\na=rtcp-mux\r\n" +
            "a=crypto:1 FOO_UNKNOWN_SUITE inline:AAAA\r\n" +
            "a=crypto:4 AES_256_CM_HMAC_SHA1_80 inline:" + key(SrtpCryptoSuite.AES_256_CM_HMAC_SHA1_80) + "\r\n" +
            "a=crypto:5 AES_CM_128_HMAC_SHA1_80 inline:" + key(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80) + "\r\n";
        final MediaAnchor anchor = media.anchor(offerFromA, MediaProfile.RTP_AVP, null);
        try
        {
            final MediaDescription toB = SessionDescription.parse(anchor.offer()).media().get(0);
            assertEquals("RTP/AVP", toB.proto());
            assertEquals(List.of("111", "0", "101"), toB.formats());
            assertEquals("opus/48000/2", toB.rtpmap("111"));
            assertEquals("useinbandfec=1", toB.fmtp("111"));
            assertTrue(toB.attributes("crypto").isEmpty(), "no keys on a plain leg");
            final String answerFromB = "v=0\r\no=- 9 9 IN IP4 192.0.2.50\r\ns=-\r\nc=IN IP4 192.0.2.50\r\nt=0 0\r\n" +
                "m=audio 60000 RTP/AVP 111 101\r\na=rtpmap:111 opus/48000/2\r\n" +
                "a=rtpmap:101 telephone-event/8000\r\n";
            final MediaDescription toA = SessionDescription.parse(anchor.answer(answerFromB)).media().get(0);
            assertEquals("RTP/SAVP", toA.proto());
            assertTrue(toA.rtcpMux(), "leg A offered rtcp-mux: accepted");
            final List<String> crypto = toA.attributes("crypto");
            assertEquals(1, crypto.size());
            final SdesCryptoAttribute ours = SdesCryptoAttribute.parse(crypto.get(0));
            assertEquals(4, ours.tag(), "the first offered attribute of a supported suite (RFC 4568 §7.1.2)");
            assertEquals(SrtpCryptoSuite.AES_256_CM_HMAC_SHA1_80, ours.suite());
            assertFalse(crypto.get(0).contains(key(SrtpCryptoSuite.AES_256_CM_HMAC_SHA1_80)), "a key of our own");
        }
        finally
        {
            anchor.end();
        }
    }

    @Test
    void shouldRefuseAnswersThatDoNotMatchTheOfferAndStayAnswerable()
    {
        final MediaAnchor anchor = media.anchor(plainOffer(), MediaProfile.RTP_SAVP, null);
        try
        {
            assertTrue(assertThrows(SdpException.class, () -> anchor.answer(
                "v=0\r\no=- 1 1 IN IP4 192.0.2.9\r\ns=-\r\nt=0 0\r\nm=audio 4000 RTP/SAVP 0\r\n"))
                .getMessage().contains("the offer had 4"));
            final String noCrypto = "v=0\r\no=- 1 1 IN IP4 192.0.2.9\r\ns=-\r\nc=IN IP4 192.0.2.9\r\nt=0 0\r\n" +
                "m=audio 4000 RTP/SAVP 0\r\nm=video 0 RTP/SAVP 96\r\nm=audio 0 RTP/SAVP 0\r\n" +
                "m=application 0 UDP/DTLS/SCTP webrtc-datachannel\r\n";
            assertTrue(assertThrows(SdpException.class, () -> anchor.answer(noCrypto)).getMessage()
                .contains("a=crypto"));
            assertTrue(assertThrows(SdpException.class, () -> anchor.answer(noCrypto.replace("4000 RTP/SAVP",
                "4000 RTP/AVP"))).getMessage().contains("transport"));
            assertTrue(anchor.isRelayed(0) && anchor.isRelayed(1), "a refused answer changes nothing");
        }
        finally
        {
            anchor.end();
            anchor.end();
        }
        assertThrows(IllegalStateException.class, () -> anchor.answer("v=0"));
    }

    @Test
    void shouldRefuseWhatItCannotAnchor() throws Exception
    {
        assertThrows(SdpException.class, () -> media.anchor("v=0\r\nm=audio\r\n", MediaProfile.RTP_AVP, null));
        final String webRtc = plainOffer().replace("RTP/AVP 0 8 101", "UDP/TLS/RTP/SAVPF 0 8 101");
        assertTrue(assertThrows(SdpException.class, () -> media.anchor(webRtc, MediaProfile.RTP_AVP, null))
            .getMessage().contains("ice-ufrag"), "a WebRTC offer without ICE credentials");
        try (RelayMediaService noWebRtc = RelayMediaService.startWithoutWebRtc(new MediaRelaySettings(40900, 40999,
            InetAddress.getLoopbackAddress(), null, 1, 0)))
        {
            assertTrue(assertThrows(SdpException.class, () -> noWebRtc.anchor(webRtc, MediaProfile.RTP_AVP, null))
                .getMessage().contains("DTLS-SRTP"));
            assertThrows(SdpException.class, () -> noWebRtc.anchor(plainOffer(), MediaProfile.WEBRTC, null));
        }
        final String savpWithoutKeys = plainOffer().replace("RTP/AVP 0 8 101", "RTP/SAVP 0 8 101");
        final MediaAnchor anchor = media.anchor(savpWithoutKeys, MediaProfile.RTP_AVP, null);
        assertEquals(0, SessionDescription.parse(anchor.offer()).media().get(0).port(),
            "an SDES stream without a usable a=crypto is not relayed");
        anchor.end();
    }

    static String key(final SrtpCryptoSuite suite)
    {
        final byte[] k = new byte[suite.masterKeySaltLength()];
        for (int i = 0; i < k.length; i++)
        {
            k[i] = (byte)(i * 7 + suite.ordinal());
        }
        return java.util.Base64.getEncoder().encodeToString(k);
    }
}
