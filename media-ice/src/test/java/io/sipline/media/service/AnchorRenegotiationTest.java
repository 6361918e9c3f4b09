package io.sipline.media.service;

import io.sipline.media.relay.MediaRelaySettings;
import io.sipline.media.relay.RelayDrop;
import io.sipline.media.relay.RelayLeg;
import io.sipline.media.sdp.MediaDescription;
import io.sipline.media.sdp.SdpException;
import io.sipline.media.sdp.SessionDescription;
import io.sipline.media.srtp.SdesCryptoAttribute;
import io.sipline.media.srtp.SrtpContext;
import io.sipline.media.srtp.SrtpCryptoSuite;
import io.sipline.media.srtp.SrtpPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.Arrays;

import static io.sipline.media.service.TestPhone.rtp;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Re-offers on an anchored SDES-SRTP to plain RTP call, with test phones on loopback: a hold from either side keeps
 * the ports and keys and passes the direction; a new SDES key from phone A re-keys leg A, and its packets under the
 * new key are relayed; a re-offer that changes a stream's transport is refused and leaves the call as it was; a
 * re-offer the other side refuses is withdrawn and the previous session stays (address, key, stream); an accepted
 * one moves the media to the new address, and a stream re-offered with port 0 is freed once answered; a stream
 * added by either leg is relayed once the other accepts it, and freed when it refuses it; a stream added in the slot
 * of a removed one (RFC 3264 §8.1) is relayed there, and a refusal gives the slot back to the removed stream.
 */
@Timeout(60)
class AnchorRenegotiationTest
{
    private static final int SSRC_A = 0x0A0A_0A0A;

    private static String offerFromA(final TestPhone a, final SdesCryptoAttribute key, final int version,
        final String direction)
    {
        return "v=0\r\no=a 1 " + version + " IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n" +
            "m=audio " + a.port() + " RTP/SAVP 0\r\na=rtpmap:0 PCMU/8000\r\na=rtcp-mux\r\na=" + direction + "\r\n" +
            "a=crypto:" + key.format() + "\r\n";
    }

    private static String sdpOfB(final TestPhone b, final int version, final String direction)
    {
        return "v=0\r\no=b 2 " + version + " IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n" +
            "m=audio " + b.port() + " RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=" + direction + "\r\n";
    }

    @Test
    void shouldKeepPortsAndKeysOnHoldAndReKeyOnANewSdesKey() throws Exception
    {
        try (RelayMediaService media = RelayMediaService.start(new MediaRelaySettings(47000, 47999,
            InetAddress.getLoopbackAddress(), null, 1, 0));
            TestPhone a = new TestPhone();
            TestPhone b = new TestPhone())
        {
            final SecureRandom random = new SecureRandom();
            final SdesCryptoAttribute keyOfA = SdesCryptoAttribute.generate(1,
                SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, random);
            final MediaAnchor anchor = media.anchor(offerFromA(a, keyOfA, 1, "sendrecv"), MediaProfile.RTP_AVP, null);
            final MediaDescription toB = SessionDescription.parse(anchor.offer()).media().getFirst();
            final MediaDescription toA = SessionDescription.parse(anchor.answer(sdpOfB(b, 1, "sendrecv"))).media()
                .getFirst();
            int seq = 1;
            seq = aToB(a, b, SrtpContext.outbound(SrtpPolicy.fromSdes(keyOfA).build()), toA.port(), seq);

            // B holds: A is offered sendonly on the same port with the relay's same key.
            final SessionDescription holdToA = SessionDescription.parse(anchor.reoffer(sdpOfB(b, 2, "sendonly"),
                false));
            final MediaDescription hold = holdToA.media().getFirst();
            assertEquals(toA.port(), hold.port());
            assertEquals("sendonly", hold.direction(null));
            assertEquals(toA.attribute("crypto"), hold.attribute("crypto"), "the relay's key to A is kept");
            final MediaDescription holdAnswer = SessionDescription.parse(anchor.answer(offerFromA(a, keyOfA, 2,
                "recvonly"))).media().getFirst();
            assertEquals(toB.port(), holdAnswer.port());
            assertEquals("recvonly", holdAnswer.direction(null));

            // A re-offers with a new key (RFC 4568 §7.1.4): the relay answers under the same tag and re-keys leg A.
            final SdesCryptoAttribute newKeyOfA = SdesCryptoAttribute.generate(1,
                SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, random);
            final MediaDescription toBAgain = SessionDescription.parse(anchor.reoffer(
                offerFromA(a, newKeyOfA, 3, "sendrecv"), true)).media().getFirst();
            assertEquals(toB.port(), toBAgain.port());
            assertEquals("sendrecv", toBAgain.direction(null));
            final MediaDescription answerToA = SessionDescription.parse(anchor.answer(sdpOfB(b, 3, "sendrecv")))
                .media().getFirst();
            assertEquals(toA.port(), answerToA.port());
            assertNotNull(answerToA.attribute("crypto"));
            assertEquals(1, SdesCryptoAttribute.parse(answerToA.attribute("crypto")).tag());
            final SrtpContext newProtect = SrtpContext.outbound(SrtpPolicy.fromSdes(newKeyOfA).build());
            // The new key takes effect on the media thread: A speaks until B hears it.
            final long deadline = System.nanoTime() + 5_000_000_000L;
            byte[] heard = null;
            while (null == heard && System.nanoTime() < deadline)
            {
                final byte[] p = rtp(0, ++seq, SSRC_A, 160);
                a.send(p, newProtect.protectRtp(p, 0, 172), toA.port());
                heard = b.receive(100);
            }
            assertNotNull(heard, "A's packets under its new key are relayed");
            aToB(a, b, newProtect, toA.port(), seq);

            assertThrows(SdpException.class, () -> anchor.reoffer(sdpOfB(b, 4, "sendrecv")
                .replace("RTP/AVP", "RTP/SAVP"), false), "a stream's transport changed");
            assertThrows(IllegalStateException.class, () -> anchor.answer(sdpOfB(b, 4, "sendrecv")),
                "nothing waits for an answer");
            assertNotEquals(null, anchor.reoffer(sdpOfB(b, 4, "sendrecv"), false));
            anchor.end();
        }
    }

    @Test
    void shouldKeepThePreviousSessionWhenAReofferIsWithdrawn() throws Exception
    {
        try (RelayMediaService media = RelayMediaService.start(new MediaRelaySettings(47000, 47999,
            InetAddress.getLoopbackAddress(), null, 1, 0));
            TestPhone a = new TestPhone();
            TestPhone b = new TestPhone();
            TestPhone elsewhere = new TestPhone())
        {
            final SecureRandom random = new SecureRandom();
            final SdesCryptoAttribute keyOfA = SdesCryptoAttribute.generate(1,
                SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, random);
            final MediaAnchor anchor = media.anchor(offerFromA(a, keyOfA, 1, "sendrecv"), MediaProfile.RTP_AVP, null);
            final MediaDescription toA = SessionDescription.parse(anchor.answer(sdpOfB(b, 1, "sendrecv"))).media()
                .getFirst();
            final SrtpContext protect = SrtpContext.outbound(SrtpPolicy.fromSdes(keyOfA).build());
            int seq = aToB(a, b, protect, toA.port(), 1);
            assertFalse(anchor.withdraw(), "nothing to withdraw");

            // B moves to another address and holds; A refuses (488): B's old address still gets the media.
            final String moved = sdpOfB(elsewhere, 2, "sendonly");
            assertNotNull(anchor.reoffer(moved, false));
            assertTrue(anchor.isReoffered());
            assertThrows(IllegalStateException.class, () -> anchor.reoffer(sdpOfB(b, 3, "sendrecv"), false),
                "one exchange at a time (the gateway answers 491)");
            assertTrue(anchor.withdraw());
            assertFalse(anchor.isReoffered());
            assertFalse(anchor.withdraw(), "withdrawn once");
            assertThrows(IllegalStateException.class, () -> anchor.answer(offerFromA(a, keyOfA, 2, "recvonly")),
                "no re-offer waits for an answer");
            seq = aToB(a, b, protect, toA.port(), seq);
            assertEquals(null, elsewhere.receive(200), "the refused address gets nothing");

            // A offers a new key; B refuses: the old key still authenticates, the new one does not.
            final SdesCryptoAttribute refusedKey = SdesCryptoAttribute.generate(1,
                SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, random);
            anchor.reoffer(offerFromA(a, refusedKey, 2, "sendrecv"), true);
            assertTrue(anchor.withdraw());
            seq = aToB(a, b, protect, toA.port(), seq);
            final RelayLeg legA = ((AnchoredCall)anchor).relayStream(0).legA();
            final long authFailures = legA.drops(RelayDrop.AUTH_FAIL);
            final byte[] p = rtp(0, ++seq, SSRC_A, 160);
            a.send(p, SrtpContext.outbound(SrtpPolicy.fromSdes(refusedKey).build()).protectRtp(p, 0, 172),
                toA.port());
            TestPhone.await(() -> legA.drops(RelayDrop.AUTH_FAIL) > authFailures, "the refused key's packet dropped");
            assertEquals(null, b.receive(200));

            // B removes the stream; A refuses: the stream is still relayed.
            anchor.reoffer(sdpOfB(b, 3, "sendrecv").replace("m=audio " + b.port(), "m=audio 0"), false);
            assertTrue(anchor.withdraw());
            assertTrue(anchor.isRelayed(0));
            seq = aToB(a, b, protect, toA.port(), seq);

            // Accepted this time: the media goes to B's new address, and the next re-offer may come.
            final MediaDescription answerToB = SessionDescription.parse(anchor.reoffer(sdpOfB(elsewhere, 4,
                "sendrecv"), false)).media().getFirst();
            assertEquals(toA.port(), answerToB.port());
            anchor.answer(offerFromA(a, keyOfA, 3, "sendrecv"));
            seq = aToB(a, elsewhere, protect, toA.port(), seq);

            // Removing the stream, accepted: freed once answered.
            anchor.reoffer(offerFromA(a, keyOfA, 4, "sendrecv").replace("m=audio " + a.port(), "m=audio 0"), true);
            assertTrue(anchor.isRelayed(0), "not before the answer");
            final MediaDescription removed = SessionDescription.parse(anchor.answer(sdpOfB(elsewhere, 5,
                "sendrecv"))).media().getFirst();
            assertEquals(0, removed.port());
            assertFalse(anchor.isRelayed(0));
            anchor.end();
            assertFalse(anchor.withdraw(), "ended");
        }
    }

    @Test
    void shouldPassHoldAndResumeFromEitherSide() throws Exception
    {
        try (RelayMediaService media = RelayMediaService.start(new MediaRelaySettings(47000, 47999,
            InetAddress.getLoopbackAddress(), null, 1, 0));
            TestPhone a = new TestPhone();
            TestPhone b = new TestPhone())
        {
            final SdesCryptoAttribute keyOfA = SdesCryptoAttribute.generate(1,
                SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, new SecureRandom());
            final MediaAnchor anchor = media.anchor(offerFromA(a, keyOfA, 1, "sendrecv"), MediaProfile.RTP_AVP, null);
            final MediaDescription toA = SessionDescription.parse(anchor.answer(sdpOfB(b, 1, "sendrecv"))).media()
                .getFirst();
            final String[][] exchanges = {
                // who offers, its direction, what the other gets, the other's answer, what the offerer gets back
                {"A", "inactive", "inactive", "inactive", "inactive"},
                {"A", "sendrecv", "sendrecv", "sendrecv", "sendrecv"},
                {"B", "sendonly", "sendonly", "recvonly", "recvonly"},
                {"B", "sendrecv", "sendrecv", "sendrecv", "sendrecv"},
            };
            int version = 2;
            for (final String[] e : exchanges)
            {
                final boolean fromA = "A".equals(e[0]);
                final String offer = fromA ? offerFromA(a, keyOfA, version, e[1]) : sdpOfB(b, version, e[1]);
                final MediaDescription offered = SessionDescription.parse(anchor.reoffer(offer, fromA)).media()
                    .getFirst();
                assertEquals(e[2], offered.direction(null), String.join(" ", e));
                final String answer = fromA ? sdpOfB(b, version, e[3]) : offerFromA(a, keyOfA, version, e[3]);
                final MediaDescription answered = SessionDescription.parse(anchor.answer(answer)).media().getFirst();
                assertEquals(e[4], answered.direction(null), String.join(" ", e));
                version++;
            }
            aToB(a, b, SrtpContext.outbound(SrtpPolicy.fromSdes(keyOfA).build()), toA.port(), 1);
            anchor.end();
        }
    }

    @Test
    void shouldAddAStreamFromEitherLegWhenTheOtherAcceptsItAndFreeItWhenRefused() throws Exception
    {
        try (RelayMediaService media = RelayMediaService.start(new MediaRelaySettings(47000, 47999,
            InetAddress.getLoopbackAddress(), null, 1, 0));
            TestPhone a = new TestPhone();
            TestPhone b = new TestPhone();
            TestPhone videoA = new TestPhone();
            TestPhone videoB = new TestPhone())
        {
            final SecureRandom random = new SecureRandom();
            final SdesCryptoAttribute keyOfA = SdesCryptoAttribute.generate(1,
                SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, random);
            final MediaAnchor anchor = media.anchor(offerFromA(a, keyOfA, 1, "sendrecv"), MediaProfile.RTP_AVP, null);
            final MediaDescription toA = SessionDescription.parse(anchor.answer(sdpOfB(b, 1, "sendrecv"))).media()
                .getFirst();
            final SrtpContext protect = SrtpContext.outbound(SrtpPolicy.fromSdes(keyOfA).build());
            int seq = aToB(a, b, protect, toA.port(), 1);
            final int pairs = media.relay().portPairsInUse();

            // A adds video (RFC 3264 §8.1: a new m= line at the end); B refuses the re-INVITE: the ports are freed.
            final SdesCryptoAttribute videoKeyOfA = SdesCryptoAttribute.generate(3,
                SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_32, random);
            final String withVideo = offerFromA(a, keyOfA, 2, "sendrecv") + "m=video " + videoA.port() +
                " RTP/SAVP 96\r\na=rtpmap:96 H264/90000\r\na=rtcp-mux\r\na=crypto:" + videoKeyOfA.format() + "\r\n";
            assertEquals(2, SessionDescription.parse(anchor.reoffer(withVideo, true)).media().size());
            assertEquals(pairs + 2, media.relay().portPairsInUse(), "the added stream's ports (a pair per leg)");
            assertTrue(anchor.withdraw());
            assertEquals(1, anchor.streams());
            TestPhone.await(() -> pairs == media.relay().portPairsInUse(), "ports freed with the refused re-offer");
            seq = aToB(a, b, protect, toA.port(), seq);

            // Again, and B accepts: B is offered plain RTP on new ports with the video's attributes.
            final SessionDescription videoToB = SessionDescription.parse(anchor.reoffer(withVideo.replace(
                "o=a 1 2", "o=a 1 3"), true));
            final MediaDescription video = videoToB.media().get(1);
            assertEquals("video", video.media());
            assertEquals("RTP/AVP", video.proto());
            assertNotEquals(0, video.port());
            assertNotEquals(videoToB.media().getFirst().port(), video.port());
            assertEquals("H264/90000", video.attribute("rtpmap").substring(3));
            final MediaDescription videoToA = SessionDescription.parse(anchor.answer(sdpOfB(b, 2, "sendrecv") +
                "m=video " + videoB.port() + " RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n")).media().get(1);
            assertEquals("RTP/SAVP", videoToA.proto());
            final SdesCryptoAttribute ourVideoKey = SdesCryptoAttribute.parse(videoToA.attribute("crypto"));
            assertEquals(3, ourVideoKey.tag(), "RFC 4568 §7.1.2: the answer keeps the offered tag");
            assertEquals(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_32, ourVideoKey.suite());
            assertEquals(2, anchor.streams());
            assertTrue(anchor.isRelayed(1));
            aToB(videoA, videoB, SrtpContext.outbound(SrtpPolicy.fromSdes(videoKeyOfA).build()), videoToA.port(), 1);
            seq = aToB(a, b, protect, toA.port(), seq);

            // B adds a third stream: A is offered SDES-SRTP (its profile) with a key of ours, and answers with its own.
            final String audioOfB = sdpOfB(b, 3, "sendrecv") + "m=video " + videoB.port() +
                " RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n";
            final MediaDescription addedToA = SessionDescription.parse(anchor.reoffer(audioOfB + "m=audio " +
                b.port() + " RTP/AVP 8\r\na=rtpmap:8 PCMA/8000\r\n", false)).media().get(2);
            assertEquals("RTP/SAVP", addedToA.proto());
            final SdesCryptoAttribute offeredToA = SdesCryptoAttribute.parse(addedToA.attribute("crypto"));
            final SdesCryptoAttribute answerOfA = SdesCryptoAttribute.generate(offeredToA.tag(), offeredToA.suite(),
                random);
            final MediaDescription addedToB = SessionDescription.parse(anchor.answer(offerFromA(a, keyOfA, 4,
                "sendrecv") + "m=video " + videoA.port() + " RTP/SAVP 96\r\na=rtpmap:96 H264/90000\r\n" +
                "a=rtcp-mux\r\na=crypto:" + videoKeyOfA.format() + "\r\nm=audio " + videoA.port() +
                " RTP/SAVP 8\r\na=rtpmap:8 PCMA/8000\r\na=rtcp-mux\r\na=crypto:" + answerOfA.format() + "\r\n"))
                .media().get(2);
            assertNotEquals(0, addedToB.port());
            assertTrue(anchor.isRelayed(2));

            // A adds a fourth that B rejects with port 0 in its answer: not relayed, its ports freed.
            final int before = media.relay().portPairsInUse();
            final String three = offerFromA(a, keyOfA, 5, "sendrecv") + "m=video " + videoA.port() +
                " RTP/SAVP 96\r\na=rtpmap:96 H264/90000\r\na=rtcp-mux\r\na=crypto:" + videoKeyOfA.format() +
                "\r\nm=audio " + videoA.port() + " RTP/SAVP 8\r\na=rtpmap:8 PCMA/8000\r\na=rtcp-mux\r\na=crypto:" +
                answerOfA.format() + "\r\n";
            anchor.reoffer(three + "m=text " + videoA.port() + " RTP/SAVP 98\r\na=rtpmap:98 t140/1000\r\n" +
                "a=crypto:" + videoKeyOfA.format() + "\r\n", true);
            final MediaDescription rejected = SessionDescription.parse(anchor.answer(audioOfB + "m=audio " +
                b.port() + " RTP/AVP 8\r\na=rtpmap:8 PCMA/8000\r\nm=text 0 RTP/AVP 98\r\n")).media().get(3);
            assertEquals(0, rejected.port());
            assertFalse(anchor.isRelayed(3));
            TestPhone.await(() -> before == media.relay().portPairsInUse(), "the rejected stream's ports freed");
            aToB(a, b, protect, toA.port(), seq);
            anchor.end();
            TestPhone.await(() -> 0 == media.relay().portPairsInUse(), "every stream freed at the end");
        }
    }

    @Test
    void shouldReuseTheSlotOfARemovedStreamForALaterOneAndGiveItBackWhenRefused() throws Exception
    {
        try (RelayMediaService media = RelayMediaService.start(new MediaRelaySettings(47000, 47999,
            InetAddress.getLoopbackAddress(), null, 1, 0));
            TestPhone a = new TestPhone();
            TestPhone b = new TestPhone();
            TestPhone secondA = new TestPhone();
            TestPhone secondB = new TestPhone())
        {
            final SecureRandom random = new SecureRandom();
            final SdesCryptoAttribute keyOfA = SdesCryptoAttribute.generate(1,
                SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, random);
            final SdesCryptoAttribute videoKey = SdesCryptoAttribute.generate(1,
                SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, random);
            final String video = " RTP/SAVP 96\r\na=rtpmap:96 H264/90000\r\na=rtcp-mux\r\na=crypto:" +
                videoKey.format() + "\r\n";
            final MediaAnchor anchor = media.anchor(offerFromA(a, keyOfA, 1, "sendrecv") + "m=video " +
                secondA.port() + video, MediaProfile.RTP_AVP, null);
            final String videoOfB = "m=video " + secondB.port() + " RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n";
            final MediaDescription toA = SessionDescription.parse(anchor.answer(sdpOfB(b, 1, "sendrecv") +
                videoOfB)).media().getFirst();
            final SrtpContext protect = SrtpContext.outbound(SrtpPolicy.fromSdes(keyOfA).build());
            int seq = aToB(a, b, protect, toA.port(), 1);
            assertTrue(anchor.isRelayed(1));

            // A removes the video (port 0, RFC 3264 §8.2), B agrees: the slot's stream and ports are gone.
            anchor.reoffer(offerFromA(a, keyOfA, 2, "sendrecv") + "m=video 0" + video, true);
            final SessionDescription removed = SessionDescription.parse(anchor.answer(sdpOfB(b, 2, "sendrecv") +
                "m=video 0 RTP/AVP 96\r\n"));
            assertEquals(0, removed.media().get(1).port());
            assertFalse(anchor.isRelayed(1));
            TestPhone.await(() -> 2 == media.relay().portPairsInUse(), "the removed stream's ports freed");

            // A puts a new stream in that slot (RFC 3264 §8.1: it replaces the old m= line in place); B refuses the
            // re-INVITE: the slot is the removed stream's again, with no ports, and the call as it was.
            final SdesCryptoAttribute textKey = SdesCryptoAttribute.generate(2,
                SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_32, random);
            final String withText = offerFromA(a, keyOfA, 3, "sendrecv") + "m=text " + secondA.port() +
                " RTP/SAVP 98\r\na=rtpmap:98 t140/1000\r\na=rtcp-mux\r\na=crypto:" + textKey.format() + "\r\n";
            final MediaDescription textToB = SessionDescription.parse(anchor.reoffer(withText, true)).media().get(1);
            assertEquals("text", textToB.media());
            assertEquals("RTP/AVP", textToB.proto());
            assertNotEquals(0, textToB.port(), "the reused slot is offered on, not refused");
            assertEquals(4, media.relay().portPairsInUse());
            assertTrue(anchor.withdraw());
            assertEquals(2, anchor.streams());
            assertFalse(anchor.isRelayed(1));
            TestPhone.await(() -> 2 == media.relay().portPairsInUse(), "the refused stream's ports freed");
            seq = aToB(a, b, protect, toA.port(), seq);

            // Again, and B accepts it: relayed in that slot; then A's next re-offer keeps it like any other stream.
            anchor.reoffer(withText.replace("o=a 1 3", "o=a 1 4"), true);
            final String textOfB = "m=text " + secondB.port() + " RTP/AVP 98\r\na=rtpmap:98 t140/1000\r\n";
            final MediaDescription textToA = SessionDescription.parse(anchor.answer(sdpOfB(b, 3, "sendrecv") +
                textOfB)).media().get(1);
            assertEquals("text", textToA.media());
            assertNotEquals(0, textToA.port());
            final SdesCryptoAttribute ourTextKey = SdesCryptoAttribute.parse(textToA.attribute("crypto"));
            assertEquals(2, ourTextKey.tag(), "RFC 4568 §7.1.2: the answer keeps the offered tag");
            assertTrue(anchor.isRelayed(1));
            aToB(secondA, secondB, SrtpContext.outbound(SrtpPolicy.fromSdes(textKey).build()), textToA.port(), 1);
            final MediaDescription again = SessionDescription.parse(anchor.reoffer(withText.replace("o=a 1 3",
                "o=a 1 5"), true)).media().get(1);
            assertEquals(textToB.media(), again.media());
            assertNotEquals(0, again.port());
            anchor.answer(sdpOfB(b, 4, "sendrecv") + textOfB);
            assertTrue(anchor.isRelayed(1));
            aToB(a, b, protect, toA.port(), seq);
            anchor.end();
            TestPhone.await(() -> 0 == media.relay().portPairsInUse(), "every stream freed at the end");
        }
    }

    private static int aToB(final TestPhone a, final TestPhone b, final SrtpContext protect, final int toPort,
        final int from) throws Exception
    {
        int seq = from;
        for (int i = 0; i < 20; i++)
        {
            final byte[] p = rtp(0, ++seq, SSRC_A, 160);
            final byte[] plain = Arrays.copyOf(p, 172);
            a.send(p, protect.protectRtp(p, 0, 172), toPort);
            final byte[] atB = b.receive(3000);
            assertNotNull(atB, "packet " + seq + " reaches B");
            assertArrayEquals(plain, atB);
        }
        return seq;
    }
}
