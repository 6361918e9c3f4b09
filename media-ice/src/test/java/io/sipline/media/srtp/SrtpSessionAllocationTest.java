package io.sipline.media.srtp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sipline.test.AllocationMeter;

/**
 * No allocation per packet once the packet's stream exists: {@link SrtpSession} with N SSRCs per direction (one
 * entry, the vector scan and the table layout of the SSRC index), RTP and RTCP in both directions, round robin over
 * the SSRCs, with a forged packet of an unknown SSRC mixed in every 16th (the provisional template stream is reused,
 * so forged SSRCs allocate nothing either). AES-CM, heap buffers; measured with {@link AllocationMeter} (least of
 * five attempts).
 */
class SrtpSessionAllocationTest
{
    private static final SrtpCryptoSuite SUITE = SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80;
    private static final int PAYLOAD = 160;
    private static final int RTP_LENGTH = 12 + PAYLOAD;
    private static final int RTCP_LENGTH = 28;
    private static final int ROUNDS = 10_000;

    @ParameterizedTest
    @ValueSource(ints = {1, 5, 24})
    void shouldAllocateNothingPerPacketOnceTheStreamsExist(final int ssrcs)
    {
        final SrtpPolicy a = SrtpPolicy.builder(SUITE).masterKey(SrtpTestSupport.keyMaterial(SUITE, 1)).build();
        final SrtpPolicy b = SrtpPolicy.builder(SUITE).masterKey(SrtpTestSupport.keyMaterial(SUITE, 2)).build();
        final SrtpSession us = new SrtpSession(a, b);
        final SrtpSession peer = new SrtpSession(b, a);
        // Packets of 16 unknown SSRCs protected with another key: each fails our authentication, and a failed
        // unprotect leaves the packet as it was, so the same forged packets serve every round.
        final SrtpPolicy c = SrtpPolicy.builder(SUITE).masterKey(SrtpTestSupport.keyMaterial(SUITE, 3)).build();
        final SrtpSession stranger = new SrtpSession(c, c);
        final byte[][] forged = new byte[16][];
        final int[] forgedLength = new int[16];
        for (int f = 0; f < forged.length; f++)
        {
            forged[f] = SrtpTestSupport.rtp(f, 0x0BAD_0000 + f, PAYLOAD, 0, false, 64);
            forgedLength[f] = stranger.protectRtp(forged[f], 0, RTP_LENGTH);
        }
        final byte[][] rtp = new byte[ssrcs][];
        final byte[][] rtcp = new byte[ssrcs][];
        for (int i = 0; i < ssrcs; i++)
        {
            rtp[i] = SrtpTestSupport.rtp(0, 0x1000 + i, PAYLOAD, 0, false, 64);
            rtcp[i] = SrtpTestSupport.rtcp(0x1000 + i, 0, 64);
        }
        final int[] counter = new int[1];
        final Runnable round = () -> {
            final int k = counter[0]++;
            final int i = k % ssrcs;
            final int seq = k / ssrcs;
            final byte[] p = rtp[i];
            p[2] = (byte)(seq >>> 8);
            p[3] = (byte)seq;
            check(RTP_LENGTH, us.unprotectRtp(p, 0, peer.protectRtp(p, 0, RTP_LENGTH)));
            check(RTP_LENGTH, peer.unprotectRtp(p, 0, us.protectRtp(p, 0, RTP_LENGTH)));
            if (0 == (k & 7))
            {
                // Decrypting in place restores the plaintext for the next round.
                check(RTCP_LENGTH, us.unprotectRtcp(rtcp[i], 0, peer.protectRtcp(rtcp[i], 0, RTCP_LENGTH)));
            }
            if (0 == (k & 15))
            {
                final int f = (k >>> 4) & 15;
                check(SrtpResult.AUTH_FAIL, us.unprotectRtp(forged[f], 0, forgedLength[f]));
            }
        };
        final Runnable warmUp = () -> {
            for (int i = 0; i < 20_000; i++)
            {
                round.run();
            }
        };
        final Runnable measured = () -> {
            for (int i = 0; i < ROUNDS; i++)
            {
                round.run();
            }
        };
        // Up to ten attempts: the keystream XOR and the SSRC scan use the Vector API, whose vectors are objects until
        // C2 has compiled the loop, which takes longer on a loaded two-core machine. A tolerance of 256 B over all
        // rounds is far below one object per round, so a per-packet allocation still fails every attempt.
        final long bytes = AllocationMeter.leastBytes(warmUp, measured, 10, 256);
        System.out.println("SrtpSession, " + ssrcs + " SSRCs: " + bytes + " B over " + ROUNDS + " rounds");
        assertEquals(ssrcs, us.inboundStreams());
        assertEquals(ssrcs, us.outboundStreams());
        assertTrue(bytes <= 256, bytes + " B over " + ROUNDS + " rounds");
    }

    private static void check(final int expected, final int actual)
    {
        if (expected != actual)
        {
            throw new AssertionError("expected " + SrtpResult.name(expected) + " (" + expected + "), got " +
                SrtpResult.name(actual) + " (" + actual + ")");
        }
    }
}
