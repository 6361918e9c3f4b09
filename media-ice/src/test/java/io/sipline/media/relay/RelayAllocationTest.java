package io.sipline.media.relay;

import io.sipline.media.srtp.SdesCryptoAttribute;
import io.sipline.media.srtp.SrtpContext;
import io.sipline.media.srtp.SrtpCryptoSuite;
import io.sipline.media.srtp.SrtpPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.security.SecureRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The relay allocates nothing per relayed packet: a plain leg and an SDES-SRTP leg (AES-CM), packets both ways in
 * lockstep, and the media thread's allocated bytes ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes})
 * counted over the measured rounds after a warm-up. As with the SRTP allocation tests, the least of a few attempts is
 * kept, so that a one-off event (a late compilation, a class loaded late) is not charged to every packet.
 */
class RelayAllocationTest
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
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldAllocateNothingPerRelayedPacket() throws Exception
    {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        try (MediaRelay relay = MediaRelay.start(new MediaRelaySettings(43000, 43999, loopback, null, 1, 0));
            DatagramChannel plainPhone = DatagramChannel.open().bind(new InetSocketAddress(loopback, 0));
            DatagramChannel srtpPhone = DatagramChannel.open().bind(new InetSocketAddress(loopback, 0)))
        {
            final SrtpPolicy relayToPhone = SrtpPolicy.fromSdes(SdesCryptoAttribute.generate(1,
                SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, new SecureRandom())).build();
            final SrtpPolicy phoneToRelay = SrtpPolicy.fromSdes(SdesCryptoAttribute.generate(1,
                SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, new SecureRandom())).build();
            final RelayStream stream = relay.open(new RelayEvents()
            {
                @Override
                public void onIdle(final RelayStream s, final long idleMs)
                {
                }

                @Override
                public void onHandshakeFailed(final RelayStream s, final RelayLeg leg, final String reason)
                {
                }
            }, false, null, true, null);
            stream.legA().remote((InetSocketAddress)plainPhone.getLocalAddress(), null, true);
            stream.legB().remote((InetSocketAddress)srtpPhone.getLocalAddress(), null, true);
            stream.legB().keys(relayToPhone, phoneToRelay);
            final SrtpContext phoneProtect = SrtpContext.outbound(phoneToRelay);
            final SrtpContext phoneUnprotect = SrtpContext.inbound(relayToPhone);
            final InetSocketAddress legA = new InetSocketAddress(loopback, stream.legA().rtpPort());
            final InetSocketAddress legB = new InetSocketAddress(loopback, stream.legB().rtpPort());
            final long media = relay.threads()[0].threadId();

            long least = Long.MAX_VALUE;
            for (int attempt = 0; attempt < ATTEMPTS && least > 0; attempt++)
            {
                rounds(WARM_UP_ROUNDS, plainPhone, srtpPhone, phoneProtect, phoneUnprotect, legA, legB);
                final long before = THREADS.getThreadAllocatedBytes(media);
                rounds(ROUNDS, plainPhone, srtpPhone, phoneProtect, phoneUnprotect, legA, legB);
                least = Math.min(least, THREADS.getThreadAllocatedBytes(media) - before);
            }
            // the relay counts a packet after its send returns, so the phone may read the last one first
            final long expected = 2L * (WARM_UP_ROUNDS + ROUNDS);
            final long deadline = System.nanoTime() + 5_000_000_000L;
            while (relay.relayed() < expected && System.nanoTime() - deadline < 0)
            {
                Thread.onSpinWait();
            }
            final long relayed = relay.relayed();
            assertTrue(relayed >= 2L * (WARM_UP_ROUNDS + ROUNDS), relayed + " packets relayed");
            for (int reason = 0; reason < RelayDrop.COUNT; reason++)
            {
                assertEquals(0, relay.drops(reason), RelayDrop.name(reason));
            }
            assertEquals(0.0, least / (2.0 * ROUNDS), "bytes allocated by the media thread per relayed packet");
        }
    }

    /** Each round: a plain packet from A to B (protected by the relay), an SRTP packet from B to A (unprotected). */
    private void rounds(final int rounds, final DatagramChannel plainPhone, final DatagramChannel srtpPhone,
        final SrtpContext phoneProtect, final SrtpContext phoneUnprotect, final InetSocketAddress legA,
        final InetSocketAddress legB) throws Exception
    {
        for (int i = 0; i < rounds; i++)
        {
            seq++;
            final int n = rtp(0x1111_1111);
            toRelay.clear().put(packet, 0, n).flip();
            plainPhone.send(toRelay, legA);
            fromRelay.clear();
            srtpPhone.receive(fromRelay);
            fromRelay.flip().get(packet, 0, fromRelay.remaining());
            assertEquals(n, phoneUnprotect.unprotectRtp(packet, 0, fromRelay.limit()));

            final int m = phoneProtect.protectRtp(packet, 0, rtp(0x2222_2222));
            toRelay.clear().put(packet, 0, m).flip();
            srtpPhone.send(toRelay, legB);
            fromRelay.clear();
            plainPhone.receive(fromRelay);
            assertEquals(172, fromRelay.position());
        }
    }

    private int rtp(final int ssrc)
    {
        return TestRtp.pcmu(packet, seq, ssrc);
    }
}
