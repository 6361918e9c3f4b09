package io.sipline.media.webrtc;

import io.sipline.media.dtls.DtlsCertificate;
import io.sipline.media.dtls.DtlsEndpointConfig;
import io.sipline.media.dtls.DtlsRole;
import io.sipline.media.dtls.DtlsSrtpKeys;
import io.sipline.media.relay.MediaRelay;
import io.sipline.media.relay.MediaRelaySettings;
import io.sipline.media.relay.RelayDrop;
import io.sipline.media.relay.RelayEvents;
import io.sipline.media.relay.RelayLeg;
import io.sipline.media.relay.RelayStream;
import io.sipline.media.relay.TestRtp;
import io.sipline.media.sdp.MediaDescription;
import io.sipline.media.sdp.SessionDescription;
import io.sipline.media.srtp.SrtpContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A WebRTC leg allocates nothing per relayed packet once its DTLS-SRTP keys are in place, nor per bad datagram of
 * a flood (checks answered 401, bad FINGERPRINTs, unchecked DTLS): a {@link JavaBrowser}
 * completes ICE and DTLS with a {@link WebRtcLeg}, then SRTP from the browser and plain RTP from a phone go through
 * in lockstep while the media thread's allocated bytes ({@code com.sun.management.ThreadMXBean}) are counted. The
 * least of a few attempts is kept, as in the relay's own allocation test, so that a one-off event (a late
 * compilation, the once-a-second consent tick's first run) is not charged to every packet.
 */
class WebRtcRelayAllocationTest
{
    private static final int WARM_UP_ROUNDS = 20_000;
    private static final int ROUNDS = 5_000;
    private static final int ATTEMPTS = 5;
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    private final ByteBuffer toRelay = ByteBuffer.allocateDirect(2048);
    private final ByteBuffer fromRelay = ByteBuffer.allocateDirect(2048);
    private final byte[] packet = new byte[2048];
    private int seq;

    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldAllocateNothingPerPacketRelayedBetweenWebRtcAndPlainRtp() throws Exception
    {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        try (MediaRelay relay = MediaRelay.start(new MediaRelaySettings(46000, 46999, loopback, null, 1, 0));
            DtlsWebRtcLegs legs = DtlsWebRtcLegs.start(loopback, DtlsCertificate.generate(new SecureRandom()),
                DtlsEndpointConfig.defaults(), 600_000);
            JavaBrowser browser = new JavaBrowser();
            DatagramChannel phone = DatagramChannel.open().bind(new InetSocketAddress(loopback, 0)))
        {
            final WebRtcLeg webRtc = (WebRtcLeg)legs.open();
            final RelayStream stream = openStream(relay, webRtc);
            final MediaDescription ours = describe(webRtc, stream);
            webRtc.peer(SessionDescription.parse("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n" +
                browser.media("active")).media().getFirst(), false);
            stream.legA().remote((InetSocketAddress)phone.getLocalAddress(), null, true);

            browser.check(ours, true);
            assertNotNull(browser.stun.poll(5, TimeUnit.SECONDS), "the check is answered");
            browser.startDtls(DtlsRole.CLIENT, ours);
            final DtlsSrtpKeys keys = browser.keys.get(15, TimeUnit.SECONDS);
            final SrtpContext browserProtect = SrtpContext.outbound(keys.outboundPolicy());
            final SrtpContext browserUnprotect = SrtpContext.inbound(keys.inboundPolicy());
            final CompletableFuture<Thread> mediaThread = new CompletableFuture<>();
            openedLeg(webRtc).execute(() -> mediaThread.complete(Thread.currentThread()));
            final long media = mediaThread.get(5, TimeUnit.SECONDS).threadId();
            final InetSocketAddress legA = new InetSocketAddress(loopback, stream.legA().rtpPort());
            awaitKeysAtRelay(browser, browserProtect, phone, stream.legB());

            long least = Long.MAX_VALUE;
            for (int attempt = 0; attempt < ATTEMPTS && least > 0; attempt++)
            {
                rounds(WARM_UP_ROUNDS, phone, browser, browserProtect, browserUnprotect, legA);
                final long before = THREADS.getThreadAllocatedBytes(media);
                rounds(ROUNDS, phone, browser, browserProtect, browserUnprotect, legA);
                least = Math.min(least, THREADS.getThreadAllocatedBytes(media) - before);
            }
            for (int reason = 0; reason < RelayDrop.COUNT; reason++)
            {
                if (RelayDrop.NOT_READY != reason)
                {
                    assertEquals(0, relay.drops(reason), RelayDrop.name(reason));
                }
            }
            assertEquals(0.0, least / (2.0 * ROUNDS), "bytes allocated by the media thread per relayed packet");
        }
    }

    /**
     * A flood at a WebRTC leg's port from an address that never passed a check: checks signed with a wrong password
     * (each answered 401), checks with a bad FINGERPRINT (unanswered), and DTLS records (unchecked, RFC 8445 §12):
     * each counted once under its reason, nothing thrown, 0 B allocated by the media thread per datagram.
     */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldAllocateNothingPerBadCheckOrUncheckedDtlsDatagram() throws Exception
    {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        try (MediaRelay relay = MediaRelay.start(new MediaRelaySettings(46000, 46999, loopback, null, 1, 0));
            DtlsWebRtcLegs legs = DtlsWebRtcLegs.start(loopback, DtlsCertificate.generate(new SecureRandom()),
                DtlsEndpointConfig.defaults(), 600_000);
            DatagramChannel attacker = DatagramChannel.open().bind(new InetSocketAddress(loopback, 0)))
        {
            final WebRtcLeg webRtc = (WebRtcLeg)legs.open();
            final RelayStream stream = openStream(relay, webRtc);
            final MediaDescription ours = describe(webRtc, stream);
            final InetSocketAddress leg = new InetSocketAddress(loopback, stream.legB().rtpPort());
            final IceChecks checks = new IceChecks();
            final String username = ours.attribute("ice-ufrag") + ":atck";
            final int wrong = checks.request(packet, username, "notTheRelayPassword0000", false);
            final byte[] wrongPassword = Arrays.copyOf(packet, wrong);
            final byte[] badFingerprint = Arrays.copyOf(packet, checks.request(packet, username,
                ours.attribute("ice-pwd"), false));
            badFingerprint[badFingerprint.length - 1] ^= 1;
            final byte[] dtls = new byte[40];
            dtls[0] = 22; // a handshake record (RFC 7983 §7: DTLS)
            dtls[1] = (byte)0xFE;
            dtls[2] = (byte)0xFD;
            final CompletableFuture<Thread> mediaThread = new CompletableFuture<>();
            openedLeg(webRtc).execute(() -> mediaThread.complete(Thread.currentThread()));
            final long media = mediaThread.get(5, TimeUnit.SECONDS).threadId();

            final int[] reasons = {RelayDrop.STUN_UNAUTHENTICATED, RelayDrop.STUN_UNANSWERED,
                RelayDrop.DTLS_UNCHECKED};
            long least = Long.MAX_VALUE;
            long rounds = 0;
            for (int attempt = 0; attempt < ATTEMPTS && least > 0; attempt++)
            {
                rounds += flood(WARM_UP_ROUNDS / 4, attacker, leg, relay, rounds, wrongPassword, badFingerprint,
                    dtls);
                final long before = THREADS.getThreadAllocatedBytes(media);
                rounds += flood(ROUNDS, attacker, leg, relay, rounds, wrongPassword, badFingerprint, dtls);
                least = Math.min(least, THREADS.getThreadAllocatedBytes(media) - before);
            }
            for (final int reason : reasons)
            {
                assertEquals(rounds, relay.drops(reason), RelayDrop.name(reason) + ": one per round");
            }
            assertEquals(0, relay.errors(), "nothing thrown on the media thread");
            assertEquals(0, webRtc.ice().checks(), "no check passed");
            assertEquals(0.0, least / (3.0 * ROUNDS), "bytes allocated by the media thread per bad datagram");
        }
    }

    /** The leg's relay side, once the media thread has opened it (it adds the stream after {@code open} returns). */
    private static io.sipline.media.relay.DtlsLeg openedLeg(final WebRtcLeg webRtc)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (null == webRtc.relayLeg() && System.nanoTime() - deadline < 0)
        {
            Thread.onSpinWait();
        }
        return java.util.Objects.requireNonNull(webRtc.relayLeg(), "the media thread opened the leg within 5 s");
    }

    /** A stream between a plain leg A and the WebRTC leg B, whose handshake must not fail. */
    private static RelayStream openStream(final MediaRelay relay, final WebRtcLeg webRtc) throws Exception
    {
        return relay.open(new RelayEvents()
        {
            @Override
            public void onIdle(final RelayStream s, final long idleMs)
            {
            }

            @Override
            public void onHandshakeFailed(final RelayStream s, final RelayLeg leg, final String reason)
            {
                throw new AssertionError(reason);
            }
        }, false, null, true, webRtc);
    }

    /** @return our offer for leg B, as the WebRTC leg describes it (ICE credentials, candidate, fingerprint). */
    private static MediaDescription describe(final WebRtcLeg webRtc, final RelayStream stream)
    {
        final MediaDescription ours = new MediaDescription("audio", stream.legB().rtpPort(), "UDP/TLS/RTP/SAVPF",
            List.of("0"));
        webRtc.describe(ours, true);
        return ours;
    }

    /** Sends rounds of the three bad datagrams, each waited for until counted; the 401 answers are read away. */
    private long flood(final int rounds, final DatagramChannel attacker, final InetSocketAddress leg,
        final MediaRelay relay, final long done, final byte[]... datagrams) throws Exception
    {
        for (int i = 0; i < rounds; i++)
        {
            for (final byte[] d : datagrams)
            {
                toRelay.clear().put(d).flip();
                attacker.send(toRelay, leg);
            }
            fromRelay.clear();
            attacker.receive(fromRelay);
            final long expected = 3 * (done + i + 1);
            final long deadline = System.nanoTime() + 5_000_000_000L;
            while (relay.drops(RelayDrop.STUN_UNAUTHENTICATED) + relay.drops(RelayDrop.STUN_UNANSWERED)
                + relay.drops(RelayDrop.DTLS_UNCHECKED) < expected)
            {
                assertTrue(System.nanoTime() - deadline < 0, "round " + (done + i) + " not counted");
                Thread.onSpinWait();
            }
        }
        return rounds;
    }

    /** The relay installs its keys a moment after the browser has its own: the browser speaks until one passes. */
    private void awaitKeysAtRelay(final JavaBrowser browser, final SrtpContext protect, final DatagramChannel phone,
        final RelayLeg webRtcLeg) throws Exception
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (0 == webRtcLeg.packetsIn())
        {
            assertTrue(System.nanoTime() < deadline, "the relay never accepted the browser's SRTP");
            seq++;
            final int n = protect.protectRtp(packet, 0, rtp(0x2222_2222));
            browser.send(packet, 0, n);
            Thread.sleep(10);
        }
        fromRelay.clear();
        phone.receive(fromRelay);
    }

    /** Each round: plain RTP from the phone (protected for the browser), SRTP from the browser (unprotected). */
    private void rounds(final int rounds, final DatagramChannel phone, final JavaBrowser browser,
        final SrtpContext browserProtect, final SrtpContext browserUnprotect, final InetSocketAddress legA)
        throws Exception
    {
        for (int i = 0; i < rounds; i++)
        {
            seq++;
            final int n = rtp(0x1111_1111);
            toRelay.clear().put(packet, 0, n).flip();
            phone.send(toRelay, legA);
            final byte[] srtp = browser.receiveMedia(3_000);
            assertNotNull(srtp, "packet " + seq + " reaches the browser");
            assertEquals(n, browserUnprotect.unprotectRtp(srtp, 0, srtp.length));

            final int m = browserProtect.protectRtp(packet, 0, rtp(0x2222_2222));
            browser.send(packet, 0, m);
            fromRelay.clear();
            phone.receive(fromRelay);
            assertEquals(172, fromRelay.position());
        }
    }

    private int rtp(final int ssrc)
    {
        return TestRtp.pcmu(packet, seq, ssrc);
    }
}
