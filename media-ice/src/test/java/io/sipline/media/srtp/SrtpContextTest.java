package io.sipline.media.srtp;

import static io.sipline.media.srtp.SrtpTestSupport.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Behaviour of {@link SrtpContext}: round trips of every suite on both backends and both buffer kinds, ROC estimation
 * and rollover, replay, tampering, malformed packets, MKI, key derivation rate, lifetimes and counters.
 */
class SrtpContextTest
{
    private static final int SSRC = 0x0102_0304;

    static Stream<Arguments> suitesAndBackends()
    {
        final List<Arguments> arguments = new ArrayList<>();
        for (final SrtpCryptoSuite suite : SrtpCryptoSuite.values())
        {
            arguments.add(Arguments.of(suite, "jca"));
            arguments.add(Arguments.of(suite, "bc"));
            if (suite.isAead())
            {
                arguments.add(Arguments.of(suite, JcaSrtpBackend.JAVA_GCM_NAME));
            }
        }
        return arguments.stream();
    }

    @ParameterizedTest
    @MethodSource("suitesAndBackends")
    void shouldRoundTripRtpAndRtcpOnHeapAndDirectBuffers(final SrtpCryptoSuite suite, final String backend)
    {
        final SrtpPolicy policy = SrtpTestSupport.policy(suite, SrtpBackend.byName(backend));
        final SrtpContext tx = SrtpContext.outbound(policy);
        final SrtpContext rx = SrtpContext.inbound(policy);
        for (int i = 0; i < 300; i++)
        {
            final int payload = i * 7 % 1300;
            final byte[] packet = SrtpTestSupport.rtp(i, SSRC, payload, i % 4, 0 == i % 3, 32);
            final int length = SrtpTestSupport.rtpLength(packet, payload);
            final byte[] plain = Arrays.copyOf(packet, length);
            final int sealed;
            if (0 == i % 2)
            {
                sealed = tx.protectRtp(packet, 0, length);
            }
            else
            {
                final ByteBuffer direct = ByteBuffer.allocateDirect(packet.length + 8);
                direct.position(8);
                direct.put(packet);
                sealed = tx.protectRtp(direct, 8, length);
                assertEquals(packet.length + 8, direct.position(), "position untouched");
                direct.get(8, packet, 0, packet.length);
            }
            assertEquals(length + suite.srtpTagLength(), sealed);
            assertFalse(Arrays.equals(plain, Arrays.copyOf(packet, length)) && payload > 0, "payload encrypted");

            final int opened;
            if (0 == i % 3)
            {
                final ByteBuffer direct = ByteBuffer.allocateDirect(sealed);
                direct.put(0, packet, 0, sealed);
                opened = rx.unprotectRtp(direct, 0, sealed);
                direct.get(0, packet, 0, Math.max(0, opened));
            }
            else if (1 == i % 3)
            {
                opened = rx.unprotectRtp(ByteBuffer.wrap(packet), 0, sealed);
            }
            else
            {
                opened = rx.unprotectRtp(packet, 0, sealed);
            }
            assertEquals(length, opened);
            assertArrayEquals(plain, Arrays.copyOf(packet, length));

            final byte[] rtcp = SrtpTestSupport.rtcp(SSRC, 4 * (i % 30), 64);
            final int rtcpLength = 28 + 4 * (i % 30);
            final byte[] rtcpPlain = Arrays.copyOf(rtcp, rtcpLength);
            final int rtcpSealed = tx.protectRtcp(rtcp, 0, rtcpLength);
            assertEquals(rtcpLength + 4 + suite.srtcpTagLength(), rtcpSealed);
            assertEquals(rtcpLength, rx.unprotectRtcp(rtcp, 0, rtcpSealed));
            assertArrayEquals(rtcpPlain, Arrays.copyOf(rtcp, rtcpLength));
        }
        assertEquals(300, tx.rtpPackets());
        assertEquals(300, rx.rtcpPackets());
    }

    @ParameterizedTest
    @EnumSource(value = SrtpCryptoSuite.class, names = {"AES_CM_128_HMAC_SHA1_80", "AEAD_AES_128_GCM"})
    void shouldRollOverTheRocAcrossThreeSequenceWraps(final SrtpCryptoSuite suite)
    {
        final SrtpPolicy policy = SrtpTestSupport.policy(suite, SrtpBackend.defaultBackend());
        final SrtpContext tx = SrtpContext.outbound(policy);
        final SrtpContext rx = SrtpContext.inbound(policy);
        final byte[] packet = new byte[12 + 20 + 16];
        for (int i = 0; i < 140_000; i++)
        {
            final int seq = (65_000 + i) & 0xFFFF;
            final byte[] fresh = SrtpTestSupport.rtp(seq, SSRC, 20, 0, false, 16);
            System.arraycopy(fresh, 0, packet, 0, packet.length);
            final int n = tx.protectRtp(packet, 0, 32);
            assertEquals(32, rx.unprotectRtp(packet, 0, n), "seq " + seq);
        }
        // 65,000 + 139,999 = 204,999 = 3 * 65,536 + 8,391.
        assertEquals(3, tx.stream(SSRC).roc());
        assertEquals(3, rx.stream(SSRC).roc());
        assertEquals(204_999L, rx.stream(SSRC).highestIndex());
    }

    @Test
    void shouldAcceptPacketsReorderedAcrossTheWrap()
    {
        final SrtpPolicy policy = SrtpTestSupport.policy(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, null);
        final SrtpContext tx = SrtpContext.outbound(policy);
        final SrtpContext rx = SrtpContext.inbound(policy);
        final int[] order = {65_533, 65_534, 65_535, 0, 1, 2};
        final byte[][] sealed = new byte[order.length][];
        for (int i = 0; i < order.length; i++)
        {
            final byte[] p = SrtpTestSupport.rtp(order[i], SSRC, 10, 0, false, 10);
            final int n = tx.protectRtp(p, 0, 22);
            sealed[i] = Arrays.copyOf(p, n);
        }
        // Deliver 65533, 0, 65535, 2, 65534, 1: the ROC guess must follow each one.
        for (final int k : new int[] {0, 3, 2, 5, 1, 4})
        {
            assertEquals(22, rx.unprotectRtp(sealed[k].clone(), 0, sealed[k].length), "seq " + order[k]);
        }
        assertEquals(1, rx.stream(SSRC).roc());
        assertEquals(SrtpResult.REPLAY_DUPLICATE, rx.unprotectRtp(sealed[2].clone(), 0, sealed[2].length));
    }

    @Test
    void shouldStartAStreamAtAnySequenceNumberAndHonourASignalledRoc()
    {
        final SrtpPolicy policy = SrtpTestSupport.policy(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, null);
        final SrtpContext tx = SrtpContext.outbound(policy);
        final SrtpContext rx = SrtpContext.inbound(policy);
        assertTrue(tx.roc(SSRC, 7));
        assertTrue(rx.roc(SSRC, 7));
        for (final int seq : new int[] {40_000, 40_001, 65_535, 0})
        {
            final byte[] p = SrtpTestSupport.rtp(seq, SSRC, 10, 0, false, 10);
            final int n = tx.protectRtp(p, 0, 22);
            assertEquals(22, rx.unprotectRtp(p, 0, n));
        }
        assertEquals(8, rx.stream(SSRC).roc());

        // A receiver that does not know the ROC cannot authenticate (the ROC is in the HMAC input).
        final SrtpContext unaware = SrtpContext.inbound(policy);
        final byte[] p = SrtpTestSupport.rtp(1, SSRC, 10, 0, false, 10);
        final int n = tx.protectRtp(p, 0, 22);
        assertEquals(SrtpResult.AUTH_FAIL, unaware.unprotectRtp(p, 0, n));
    }

    @ParameterizedTest
    @EnumSource(SrtpCryptoSuite.class)
    void shouldRejectEveryTamperedOctetWithAuthFail(final SrtpCryptoSuite suite)
    {
        final SrtpPolicy policy = SrtpTestSupport.policy(suite, null);
        final SrtpContext tx = SrtpContext.outbound(policy);
        final byte[] p = SrtpTestSupport.rtp(100, SSRC, 30, 1, true, 32);
        final int length = SrtpTestSupport.rtpLength(p, 30);
        final int n = tx.protectRtp(p, 0, length);
        final SrtpContext rx = SrtpContext.inbound(policy);
        for (int i = 0; i < n; i++)
        {
            if (2 == i || 3 == i)
            {
                continue;
            }
            final byte[] tampered = Arrays.copyOf(p, n);
            tampered[i] ^= (byte)(0 == i ? 0x01 : 0x80);
            final byte[] before = tampered.clone();
            final int result = rx.unprotectRtp(tampered, 0, n);
            assertTrue(SrtpResult.AUTH_FAIL == result || SrtpResult.BAD_HEADER == result,
                "octet " + i + ": " + SrtpResult.name(result));
            assertArrayEquals(before, tampered, "a failed unprotect leaves the packet alone");
        }
        assertEquals(length, rx.unprotectRtp(p, 0, n));
        assertTrue(rx.count(SrtpResult.AUTH_FAIL) > n / 2);
        assertEquals(1, rx.stream(SSRC).highestIndex() >= 0 ? 1 : 0);
    }

    @ParameterizedTest
    @EnumSource(value = SrtpCryptoSuite.class, names = {"AES_CM_128_HMAC_SHA1_32", "AEAD_AES_256_GCM"})
    void shouldRejectTamperedAndReplayedSrtcp(final SrtpCryptoSuite suite)
    {
        final SrtpPolicy policy = SrtpTestSupport.policy(suite, null);
        final SrtpContext tx = SrtpContext.outbound(policy);
        final SrtpContext rx = SrtpContext.inbound(policy);
        final byte[] p = SrtpTestSupport.rtcp(SSRC, 12, 64);
        final int n = tx.protectRtcp(p, 0, 40);
        for (int i = 0; i < n; i++)
        {
            final byte[] tampered = Arrays.copyOf(p, n);
            tampered[i] ^= (byte)(0 == i ? 0x01 : 0x80);
            final int result = rx.unprotectRtcp(tampered, 0, n);
            assertTrue(result < 0, "octet " + i);
        }
        final byte[] copy = Arrays.copyOf(p, n);
        assertEquals(40, rx.unprotectRtcp(p, 0, n));
        assertEquals(SrtpResult.REPLAY_DUPLICATE, rx.unprotectRtcp(copy, 0, n));
        assertEquals(0, rx.stream(SSRC).srtcpIndex(), "RFC 3711 §3.4: the first SRTCP index is 0");
    }

    @Test
    void shouldRejectReplaysAndPacketsBehindTheWindow()
    {
        final SrtpPolicy policy = SrtpPolicy.builder(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80)
            .masterKey(SrtpTestSupport.keyMaterial(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, 3))
            .replayWindow(64).build();
        final SrtpContext tx = SrtpContext.outbound(policy);
        final SrtpContext rx = SrtpContext.inbound(policy);
        final byte[][] sealed = new byte[200][];
        for (int seq = 0; seq < 200; seq++)
        {
            final byte[] p = SrtpTestSupport.rtp(seq, SSRC, 8, 0, false, 10);
            sealed[seq] = Arrays.copyOf(p, tx.protectRtp(p, 0, 20));
        }
        for (int seq = 0; seq < 200; seq += 2)
        {
            assertEquals(20, rx.unprotectRtp(sealed[seq].clone(), 0, 30));
        }
        assertEquals(SrtpResult.REPLAY_DUPLICATE, rx.unprotectRtp(sealed[198].clone(), 0, 30));
        assertEquals(20, rx.unprotectRtp(sealed[199 - 62].clone(), 0, 30), "odd, late, inside the window");
        assertEquals(SrtpResult.REPLAY_OLD, rx.unprotectRtp(sealed[198 - 65].clone(), 0, 30), "behind");
        assertEquals(1, rx.count(SrtpResult.REPLAY_OLD));
        assertEquals(1, rx.count(SrtpResult.REPLAY_DUPLICATE));

        // The sender refuses to reuse an index (keystream reuse), as libsrtp does.
        final byte[] again = SrtpTestSupport.rtp(5, SSRC, 8, 0, false, 10);
        assertEquals(SrtpResult.REPLAY_OLD, tx.protectRtp(again, 0, 20));
        final byte[] same = SrtpTestSupport.rtp(199, SSRC, 8, 0, false, 10);
        assertEquals(SrtpResult.REPLAY_DUPLICATE, tx.protectRtp(same, 0, 20));
    }

    @Test
    void shouldReportMalformedPacketsWithoutThrowing()
    {
        final SrtpPolicy policy = SrtpTestSupport.policy(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, null);
        final SrtpContext tx = SrtpContext.outbound(policy);
        final SrtpContext rx = SrtpContext.inbound(policy);
        final byte[] p = SrtpTestSupport.rtp(1, SSRC, 10, 0, false, 10);

        assertEquals(SrtpResult.TOO_SHORT, tx.protectRtp(p, 0, 11));
        assertEquals(SrtpResult.TOO_SHORT, rx.unprotectRtp(p, 0, 21));
        assertEquals(SrtpResult.BAD_ARGUMENT, tx.protectRtp(p, 30, 10));
        assertEquals(SrtpResult.BAD_ARGUMENT, tx.protectRtp(p, -1, 10));
        assertEquals(SrtpResult.BAD_ARGUMENT, rx.unprotectRtp(ByteBuffer.wrap(p).asReadOnlyBuffer(), 0, 22));
        assertEquals(SrtpResult.BUFFER_TOO_SMALL, tx.protectRtp(p, 0, 25));
        assertEquals(SrtpResult.WRONG_DIRECTION, rx.protectRtp(p, 0, 22));
        assertEquals(SrtpResult.WRONG_DIRECTION, tx.unprotectRtcp(p, 0, 22));

        final byte[] v1 = p.clone();
        v1[0] = 0x40;
        assertEquals(SrtpResult.BAD_HEADER, tx.protectRtp(v1, 0, 22));
        final byte[] csrcOverrun = p.clone();
        csrcOverrun[0] = (byte)0x8F;
        assertEquals(SrtpResult.BAD_HEADER, tx.protectRtp(csrcOverrun, 0, 22));
        final byte[] extensionOverrun = p.clone();
        extensionOverrun[0] = (byte)0x90;
        extensionOverrun[14] = 0x10;
        assertEquals(SrtpResult.BAD_HEADER, tx.protectRtp(extensionOverrun, 0, 22));
        final byte[] rtcp = SrtpTestSupport.rtcp(SSRC, 0, 32);
        rtcp[0] = 0;
        assertEquals(SrtpResult.BAD_HEADER, tx.protectRtcp(rtcp, 0, 28));
        assertEquals(SrtpResult.TOO_SHORT, tx.protectRtcp(rtcp, 0, 7));
        assertEquals(SrtpResult.TOO_SHORT, rx.unprotectRtcp(rtcp, 0, 8 + 4 + 9));

        assertEquals(2, tx.count(SrtpResult.TOO_SHORT));
        assertEquals(4, tx.count(SrtpResult.BAD_HEADER));
        assertEquals("BAD_HEADER", SrtpResult.name(SrtpResult.BAD_HEADER));
        assertEquals("OK", SrtpResult.name(12));
    }

    @Test
    void shouldRequireKnownSsrcsWhenTheTemplateIsOff()
    {
        final SrtpPolicy policy = SrtpPolicy.builder(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80)
            .masterKey(SrtpTestSupport.keyMaterial(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, 1))
            .acceptAnySsrc(false).maxStreams(1).build();
        final SrtpContext tx = SrtpContext.outbound(policy);
        final SrtpContext rx = SrtpContext.inbound(policy);
        final byte[] p = SrtpTestSupport.rtp(1, SSRC, 10, 0, false, 10);
        assertEquals(SrtpResult.NO_CONTEXT, tx.protectRtp(p, 0, 22));
        assertTrue(tx.addStream(SSRC));
        assertFalse(tx.addStream(SSRC + 1), "table of one is full");
        final int n = tx.protectRtp(p, 0, 22);
        assertEquals(SrtpResult.NO_CONTEXT, rx.unprotectRtp(p.clone(), 0, n));
        assertTrue(rx.addStream(SSRC));
        assertEquals(22, rx.unprotectRtp(p, 0, n));
        assertTrue(rx.removeStream(SSRC));
        assertNull(rx.stream(SSRC));
    }

    @Test
    void shouldNotAdmitAnSsrcWhosePacketFailsAuthentication()
    {
        final SrtpPolicy policy = SrtpTestSupport.policy(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, null);
        final SrtpContext rx = SrtpContext.inbound(policy);
        final byte[] forged = SrtpTestSupport.rtp(1, 0x7777_7777, 10, 0, false, 10);
        assertEquals(SrtpResult.AUTH_FAIL, rx.unprotectRtp(forged, 0, 32));
        assertNull(rx.stream(0x7777_7777));
    }

    @ParameterizedTest
    @EnumSource(value = SrtpCryptoSuite.class, names = {"AES_CM_128_HMAC_SHA1_80", "AEAD_AES_128_GCM"})
    void shouldCarryAndCheckTheMki(final SrtpCryptoSuite suite)
    {
        final byte[] key = SrtpTestSupport.keyMaterial(suite, 5);
        final SrtpPolicy policy = SrtpPolicy.builder(suite).masterKey(key).mki(new byte[] {9, 8, 7}).build();
        final SrtpContext tx = SrtpContext.outbound(policy);
        final SrtpContext rx = SrtpContext.inbound(policy);
        final byte[] p = SrtpTestSupport.rtp(1, SSRC, 10, 0, false, 32);
        final int n = tx.protectRtp(p, 0, 22);
        assertEquals(22 + 3 + suite.srtpTagLength(), n);
        final int mkiAt = suite.isAead() ? n - 3 : 22;
        assertEquals("090807", hex(p, mkiAt, 3));
        final byte[] wrong = Arrays.copyOf(p, n);
        wrong[mkiAt] = 1;
        assertEquals(SrtpResult.BAD_MKI, rx.unprotectRtp(wrong, 0, n));
        assertEquals(22, rx.unprotectRtp(p, 0, n));

        final byte[] rtcp = SrtpTestSupport.rtcp(SSRC, 0, 64);
        final int m = tx.protectRtcp(rtcp, 0, 28);
        assertEquals(28 + 4 + 3 + suite.srtcpTagLength(), m);
        assertEquals(28, rx.unprotectRtcp(rtcp, 0, m));
    }

    @ParameterizedTest
    @EnumSource(value = SrtpCryptoSuite.class, names = {"AES_CM_128_HMAC_SHA1_80", "AEAD_AES_256_GCM"})
    void shouldRederiveKeysAtEachEpochOfANonZeroKeyDerivationRate(final SrtpCryptoSuite suite)
    {
        final byte[] key = SrtpTestSupport.keyMaterial(suite, 11);
        final SrtpPolicy rated = SrtpPolicy.builder(suite).masterKey(key).keyDerivationRate(16).build();
        final SrtpContext tx = SrtpContext.outbound(rated);
        final SrtpContext rx = SrtpContext.inbound(rated);
        final SrtpContext rateZero = SrtpContext.inbound(SrtpPolicy.builder(suite).masterKey(key).build());
        final List<byte[]> late = new ArrayList<>();
        for (int seq = 0; seq < 100; seq++)
        {
            final byte[] p = SrtpTestSupport.rtp(seq, SSRC, 16, 0, false, 32);
            final int n = tx.protectRtp(p, 0, 28);
            if (seq < 16)
            {
                // Epoch 0 equals the rate-0 keys (r = 0 either way).
                assertEquals(28, rateZero.unprotectRtp(p.clone(), 0, n));
            }
            else if (seq == 16)
            {
                assertEquals(SrtpResult.AUTH_FAIL, rateZero.unprotectRtp(p.clone(), 0, n), "epoch 1 has new keys");
            }
            if (0 == seq % 10)
            {
                late.add(Arrays.copyOf(p, n));
                continue;
            }
            assertEquals(28, rx.unprotectRtp(p, 0, n), "seq " + seq);
        }
        // Late packets from earlier epochs: keys are derived back for them.
        for (final byte[] p : late.subList(5, late.size()))
        {
            assertEquals(28, rx.unprotectRtp(p, 0, p.length));
        }
        final byte[] rtcp = SrtpTestSupport.rtcp(SSRC, 0, 64);
        final int m = tx.protectRtcp(rtcp, 0, 28);
        assertEquals(28, rx.unprotectRtcp(rtcp, 0, m));
    }

    @Test
    void shouldExpireTheKeyAtItsLifetimeAndAtRocWrap()
    {
        final SrtpPolicy policy = SrtpPolicy.builder(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80)
            .masterKey(SrtpTestSupport.keyMaterial(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, 2)).keyLifetime(3).build();
        final SrtpContext tx = SrtpContext.outbound(policy);
        for (int seq = 0; seq < 3; seq++)
        {
            assertTrue(tx.protectRtp(SrtpTestSupport.rtp(seq, SSRC, 4, 0, false, 10), 0, 16) > 0);
        }
        assertEquals(SrtpResult.KEY_EXPIRED, tx.protectRtp(SrtpTestSupport.rtp(3, SSRC, 4, 0, false, 10), 0, 16));

        final SrtpContext wrap =
            SrtpContext.outbound(SrtpTestSupport.policy(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, null));
        wrap.roc(SSRC, 0xFFFF_FFFFL);
        assertTrue(wrap.protectRtp(SrtpTestSupport.rtp(65_535, SSRC, 4, 0, false, 10), 0, 16) > 0);
        assertEquals(SrtpResult.KEY_EXPIRED, wrap.protectRtp(SrtpTestSupport.rtp(0, SSRC, 4, 0, false, 10), 0, 16));
        assertTrue(wrap.nextSrtcpIndex(SSRC, (1L << 31) - 1));
        assertTrue(wrap.protectRtcp(SrtpTestSupport.rtcp(SSRC, 0, 32), 0, 28) > 0);
        assertEquals(SrtpResult.KEY_EXPIRED, wrap.protectRtcp(SrtpTestSupport.rtcp(SSRC, 0, 32), 0, 28));
    }

    @Test
    void shouldRefuseWorkAfterClose()
    {
        final SrtpContext tx = SrtpContext.outbound(SrtpTestSupport.policy(SrtpCryptoSuite.AEAD_AES_128_GCM, null));
        tx.close();
        assertEquals(SrtpResult.NO_CONTEXT, tx.protectRtp(SrtpTestSupport.rtp(1, SSRC, 4, 0, false, 32), 0, 16));
    }

    @Test
    void shouldValidatePolicies()
    {
        final SrtpCryptoSuite suite = SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80;
        final byte[] key = SrtpTestSupport.keyMaterial(suite, 1);
        assertThrows(IllegalArgumentException.class, () -> SrtpPolicy.builder(suite).masterKey(new byte[29]));
        assertThrows(IllegalArgumentException.class, () -> SrtpPolicy.builder(suite).build());
        assertThrows(IllegalArgumentException.class,
            () -> SrtpPolicy.builder(suite).masterKey(key).replayWindow(100).build());
        assertThrows(IllegalArgumentException.class,
            () -> SrtpPolicy.builder(suite).masterKey(key).keyDerivationRate(3).build());
        assertThrows(IllegalArgumentException.class,
            () -> SrtpPolicy.builder(suite).masterKey(key).mki(new byte[0]).build());
        assertThrows(IllegalArgumentException.class, () -> SrtpBackend.byName("openssl"));
        // The surefire argLine opens the JDK's GHASH, so the default is the allocation-free AES-GCM (README, SRTP).
        assertTrue(JdkGhash.AVAILABLE);
        assertEquals(JcaSrtpBackend.JAVA_GCM_NAME, SrtpBackend.defaultBackend().name());
        assertEquals(SrtpCryptoSuite.AEAD_AES_256_GCM, SrtpCryptoSuite.fromSdpName("AEAD_AES_256_GCM"));
        assertNull(SrtpCryptoSuite.fromSdpName("NULL_HMAC_SHA1_80"));
    }
}
