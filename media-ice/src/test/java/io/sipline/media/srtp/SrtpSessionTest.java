package io.sipline.media.srtp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.Arrays;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import io.sipline.media.ssrc.SsrcIndex;

/**
 * {@link SrtpSession} and the SSRC index under {@link SrtpContext}: many SSRCs per direction through every layout of
 * the index, template instantiation only after authentication, the stream limit, removal, and the counters.
 */
class SrtpSessionTest
{
    private static final SrtpCryptoSuite SUITE = SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80;

    /** Our session and the peer's mirror of it: the peer sends with the key we receive with, and the reverse. */
    private static SrtpSession[] pair(final SrtpPolicy.Builder ours, final SrtpPolicy.Builder theirs)
    {
        final SrtpPolicy a = ours.build();
        final SrtpPolicy b = theirs.build();
        return new SrtpSession[] {new SrtpSession(a, b), new SrtpSession(b, a)};
    }

    private static SrtpPolicy.Builder builder(final SrtpCryptoSuite suite, final int seed)
    {
        return SrtpPolicy.builder(suite).masterKey(SrtpTestSupport.keyMaterial(suite, seed));
    }

    @ParameterizedTest
    @EnumSource(value = SrtpCryptoSuite.class, names = {"AES_CM_128_HMAC_SHA1_80", "AEAD_AES_128_GCM"})
    void shouldKeepOneStreamPerSsrcThroughEveryLayoutOfTheIndex(final SrtpCryptoSuite suite)
    {
        final SrtpSession[] sessions = pair(builder(suite, 1).maxStreams(64), builder(suite, 2).maxStreams(64));
        final SrtpSession peer = sessions[1];
        final SrtpSession us = sessions[0];
        final int ssrcCount = 40;
        final int[] sent = new int[ssrcCount];
        // 40 SSRCs, one new SSRC every 4th round, so the inbound index goes through one entry, the vector scan (2 to
        // 16) and the table (17 up) while packets of the older SSRCs keep flowing; each SSRC starts a few packets
        // before the sequence number wraps, so that every stream's ROC moves on its own.
        for (int round = 0; round < 4 * ssrcCount + 400; round++)
        {
            final int live = Math.min(ssrcCount, round / 4 + 1);
            final int which = round % live;
            final int ssrc = 0x5000_0000 + which * 0x01_0101;
            final int seq = (65_528 + which % 4 + sent[which]++) & 0xFFFF;
            final byte[] packet = SrtpTestSupport.rtp(seq, ssrc, 20 + which, which % 3, 0 == which % 5, 32);
            final int length = SrtpTestSupport.rtpLength(packet, 20 + which);
            final byte[] plain = Arrays.copyOf(packet, length);
            final int sealed = peer.protectRtp(packet, 0, length);
            assertTrue(sealed > length, SrtpResult.name(sealed));
            assertEquals(length, us.unprotectRtp(packet, 0, sealed), "round " + round);
            assertArrayEquals(plain, Arrays.copyOf(packet, length));

            if (0 == round % 7)
            {
                final byte[] rtcp = SrtpTestSupport.rtcp(ssrc, 4 * which, 64);
                final byte[] rtcpPlain = Arrays.copyOf(rtcp, 28 + 4 * which);
                final int rtcpSealed = peer.protectRtcp(rtcp, 0, rtcpPlain.length);
                assertEquals(rtcpPlain.length, us.unprotectRtcp(rtcp, 0, rtcpSealed));
                assertArrayEquals(rtcpPlain, Arrays.copyOf(rtcp, rtcpPlain.length));
            }
        }
        assertEquals(ssrcCount, us.inboundStreams());
        assertEquals(ssrcCount, peer.outboundStreams());
        for (int which = 0; which < ssrcCount; which++)
        {
            final SrtpStream stream = us.inbound().stream(0x5000_0000 + which * 0x01_0101);
            assertNotNull(stream, "stream " + which);
            assertEquals(1, stream.roc(), "each stream wrapped once: " + which);
        }
        assertEquals(0, us.authFailures() + us.replays() + us.unknownSsrcs() + us.streamLimitRefusals());
    }

    @Test
    void shouldSwitchTheIndexLayoutAsStreamsComeAndGo()
    {
        final SrtpPolicy policy = builder(SUITE, 3).maxStreams(40).build();
        final SsrcIndexStreamLookup lookup = new SsrcIndexStreamLookup(40);
        final SrtpContext tx = new SrtpContext(policy, SrtpContext.Direction.OUTBOUND, lookup);
        for (int i = 0; i < 40; i++)
        {
            final byte[] p = SrtpTestSupport.rtp(1, 1000 + i, 8, 0, false, 16);
            assertEquals(30, tx.protectRtp(p, 0, 20));
        }
        assertEquals(40, tx.streamCount());
        if (SsrcIndex.VECTOR_PREFERRED)
        {
            assertEquals(SsrcIndex.Layout.TABLE, lookup.index().layout());
        }
        for (int i = 0; i < 36; i++)
        {
            assertTrue(tx.removeStream(1000 + i));
        }
        assertFalse(tx.removeStream(1000), "already removed");
        assertEquals(4, tx.streamCount());
        assertEquals(SsrcIndex.Layout.ARRAY, lookup.index().layout());
        for (int i = 36; i < 40; i++)
        {
            assertSame(lookup.find(1000 + i), tx.stream(1000 + i));
            assertEquals(1, tx.stream(1000 + i).highestIndex());
        }
    }

    @Test
    void shouldInstantiateAnInboundStreamOnlyWhenItsFirstPacketAuthenticates()
    {
        final SrtpSession[] sessions = pair(builder(SUITE, 1), builder(SUITE, 2));
        final SrtpSession us = sessions[0];
        final SrtpSession peer = sessions[1];
        final SrtpPolicy other = builder(SUITE, 9).maxStreams(64).build();
        final SrtpSession stranger = new SrtpSession(other, other);
        for (int i = 0; i < 50; i++)
        {
            // Forged: another key, a fresh SSRC each time. Each fails and takes no slot.
            final byte[] forged = SrtpTestSupport.rtp(i, 0x7000_0000 + i, 16, 0, false, 16);
            final int n = stranger.protectRtp(forged, 0, 28);
            assertEquals(SrtpResult.AUTH_FAIL, us.unprotectRtp(forged, 0, n));
        }
        assertEquals(0, us.inboundStreams());
        assertEquals(50, us.authFailures());
        final byte[] good = SrtpTestSupport.rtp(7, 0x7000_0003, 16, 0, false, 16);
        final int n = peer.protectRtp(good, 0, 28);
        assertEquals(28, us.unprotectRtp(good, 0, n));
        assertEquals(1, us.inboundStreams());
        assertNotNull(us.inbound().stream(0x7000_0003));
    }

    @Test
    void shouldRefuseSsrcsPastTheStreamLimitInBothDirections()
    {
        final SrtpSession us = new SrtpSession(builder(SUITE, 1).maxStreams(3).build(),
            builder(SUITE, 2).maxStreams(3).build());
        // The peer sends with our inbound key and has room for more SSRCs than we accept.
        final SrtpSession peer = new SrtpSession(builder(SUITE, 2).build(), builder(SUITE, 1).build());
        for (int ssrc = 1; ssrc <= 3; ssrc++)
        {
            final byte[] p = SrtpTestSupport.rtp(1, ssrc, 8, 0, false, 16);
            assertEquals(30, us.protectRtp(p, 0, 20));
        }
        final byte[] fourth = SrtpTestSupport.rtp(1, 4, 8, 0, false, 16);
        assertEquals(SrtpResult.STREAM_LIMIT, us.protectRtp(fourth, 0, 20));
        assertEquals(SrtpResult.STREAM_LIMIT, us.protectRtcp(SrtpTestSupport.rtcp(4, 0, 32), 0, 28));
        assertFalse(us.addOutboundStream(4));
        assertEquals(3, us.outboundStreams());

        final byte[][] sealed = new byte[4][];
        final int[] lengths = new int[4];
        for (int i = 0; i < 4; i++)
        {
            sealed[i] = SrtpTestSupport.rtp(5, 100 + i, 8, 0, false, 16);
            lengths[i] = peer.protectRtp(sealed[i], 0, 20);
        }
        for (int i = 0; i < 3; i++)
        {
            assertEquals(20, us.unprotectRtp(sealed[i], 0, lengths[i]));
        }
        final byte[] copy = sealed[3].clone();
        assertEquals(SrtpResult.STREAM_LIMIT, us.unprotectRtp(sealed[3], 0, lengths[3]));
        assertArrayEquals(copy, sealed[3], "a refused packet is left as it was");
        assertEquals(3, us.streamLimitRefusals());
        assertEquals(2, us.outbound().count(SrtpResult.STREAM_LIMIT));
        assertEquals(1, us.inbound().count(SrtpResult.STREAM_LIMIT));

        // The peer's BYE frees a slot; the fourth SSRC then gets it.
        assertTrue(us.removeInboundStream(100));
        assertNull(us.inbound().stream(100));
        assertEquals(20, us.unprotectRtp(sealed[3], 0, lengths[3]));
        assertEquals(3, us.inboundStreams());
        assertTrue(us.removeOutboundStream(2));
        assertEquals(30, us.protectRtp(fourth, 0, 20));
        assertEquals("STREAM_LIMIT", SrtpResult.name(SrtpResult.STREAM_LIMIT));
    }

    @Test
    void shouldCountUnknownSsrcsAndReplays()
    {
        final SrtpSession[] sessions = pair(builder(SUITE, 1).acceptAnySsrc(false),
            builder(SUITE, 2).acceptAnySsrc(false));
        final SrtpSession us = sessions[0];
        final SrtpSession peer = sessions[1];
        final byte[] p = SrtpTestSupport.rtp(1, 42, 8, 0, false, 16);
        assertEquals(SrtpResult.NO_CONTEXT, peer.protectRtp(p, 0, 20));
        assertTrue(peer.addOutboundStream(42));
        final int n = peer.protectRtp(p, 0, 20);
        assertEquals(30, n);
        final byte[] replay = p.clone();
        assertEquals(SrtpResult.NO_CONTEXT, us.unprotectRtp(p.clone(), 0, n));
        assertEquals(SrtpResult.NO_CONTEXT, us.unprotectRtcp(SrtpTestSupport.rtcp(42, 0, 32), 0, 28 + 14));
        assertEquals(2, us.unknownSsrcs());
        assertEquals(1, peer.unknownSsrcs());
        assertTrue(us.addInboundStream(42));
        assertEquals(20, us.unprotectRtp(p, 0, n));
        assertEquals(SrtpResult.REPLAY_DUPLICATE, us.unprotectRtp(replay.clone(), 0, n));
        // 200 packets later the first one is behind the 128-packet window.
        for (int seq = 2; seq < 202; seq++)
        {
            final byte[] q = SrtpTestSupport.rtp(seq, 42, 8, 0, false, 16);
            assertEquals(20, us.unprotectRtp(q, 0, peer.protectRtp(q, 0, 20)));
        }
        assertEquals(SrtpResult.REPLAY_OLD, us.unprotectRtp(replay, 0, n));
        assertEquals(2, us.replays());
        assertEquals(0, us.authFailures());
    }

    @Test
    void shouldBuildFromTheTwoSdesAttributesOfAnOfferAndAnswer()
    {
        final SecureRandom random = new SecureRandom();
        final SdesCryptoAttribute offer = SdesCryptoAttribute.generate(1, SUITE, random);
        final SdesCryptoAttribute answer = SdesCryptoAttribute.generate(1, SUITE, random);
        final SrtpSession offerer = SrtpSession.fromSdes(offer, answer);
        final SrtpSession answerer = SrtpSession.fromSdes(answer, offer);
        final byte[] p = SrtpTestSupport.rtp(3, 77, 40, 0, false, 16);
        final byte[] plain = Arrays.copyOf(p, 52);
        assertEquals(52, answerer.unprotectRtp(p, 0, offerer.protectRtp(p, 0, 52)));
        assertArrayEquals(plain, Arrays.copyOf(p, 52));
        assertEquals(52, offerer.unprotectRtp(p, 0, answerer.protectRtp(p, 0, 52)));
        final byte[] q = SrtpTestSupport.rtp(4, 78, 40, 0, false, 16);
        final int sealed = offerer.protectRtp(q, 0, 52);
        assertEquals(SrtpResult.AUTH_FAIL, offerer.unprotectRtp(q, 0, sealed), "own key is not the peer's");

        final SdesCryptoAttribute gcm = SdesCryptoAttribute.generate(1, SrtpCryptoSuite.AEAD_AES_128_GCM, random);
        assertThrows(IllegalArgumentException.class, () -> SrtpSession.fromSdes(offer, gcm));
        offerer.close();
        assertEquals(SrtpResult.NO_CONTEXT, offerer.protectRtp(p, 0, 52));
    }
}
