package io.sipline.media.stun;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

/**
 * Bytes allocated per received consent-freshness Binding request (wrap + MESSAGE-INTEGRITY + FINGERPRINT), measured
 * with {@link AllocationMeter} around 10,000 iterations after warm-up (the least of up to five attempts, so that a
 * one-off deoptimisation is not taken for a per-message allocation). The
 * {@code MessageDigest} engine must allocate nothing; the {@code javax.crypto.Mac} engine's per-message allocation is
 * the JDK's ({@code HmacCore.engineDoFinal} returns a new array) and is printed and bounded.
 */
class StunAllocationTest
{
    private static final int ROUNDS = 10_000;
    private static final int WARM_UP = 50_000;
    private static final int ATTEMPTS = 5;

    private final StunCredential credential = StunCredential.shortTerm("local-ice-password-0123");
    private final StunMessageFlyweight message = new StunMessageFlyweight();
    private final byte[] request = new byte[200];
    private int requestLength;

    @Test
    void shouldAllocateNothingPerReceivedRequestWithDigestEngine()
    {
        final double perMessage = measureReceive(new StunIntegrity(StunIntegrity.Engine.DIGEST), false);
        System.out.println("STUN receive (DIGEST, heap): " + perMessage + " B per message");
        assertEquals(0.0, perMessage, "B per parse + MESSAGE-INTEGRITY + FINGERPRINT");
    }

    @Test
    void shouldAllocateNothingPerReceivedRequestInDirectBuffer()
    {
        final double perMessage = measureReceive(new StunIntegrity(StunIntegrity.Engine.DIGEST), true);
        System.out.println("STUN receive (DIGEST, direct): " + perMessage + " B per message");
        assertEquals(0.0, perMessage, "B per parse + MESSAGE-INTEGRITY + FINGERPRINT");
    }

    @Test
    void shouldReportWhatJavaxCryptoMacAllocates()
    {
        final double perMessage = measureReceive(new StunIntegrity(StunIntegrity.Engine.JCA_MAC), false);
        System.out.println("STUN receive (JCA_MAC, heap): " + perMessage + " B per message");
        assertTrue(perMessage <= 64, "javax.crypto.Mac.doFinal allocates one digest array at most: " + perMessage);
    }

    @Test
    void shouldAllocateNothingPerAnsweredRequest()
    {
        final StunIntegrity integrity = new StunIntegrity();
        final StunBindingServer server = new StunBindingServer(
            (b, offset, length, destination) -> { }, integrity, (r, u) -> credential, null);
        buildRequest(integrity);
        final InetSocketAddress from = new InetSocketAddress("192.0.2.33", 50_000);
        final Runnable answer = () -> {
            for (int i = 0; i < ROUNDS; i++)
            {
                server.onDatagram(request, 0, requestLength, from);
            }
        };
        final long bytes = AllocationMeter.leastBytes(answer, answer, ATTEMPTS, 0);
        final double perMessage = bytes / (double)ROUNDS;
        System.out.println("STUN Binding server answer: " + perMessage + " B per request");
        assertEquals(0.0, perMessage, "B per request answered with XOR-MAPPED-ADDRESS + MI + FINGERPRINT");
        assertTrue(server.responded() >= 2 * ROUNDS, "every request answered: " + server.responded());
    }

    private double measureReceive(final StunIntegrity integrity, final boolean direct)
    {
        buildRequest(integrity);
        final ByteBuffer buffer = ByteBuffer.allocateDirect(256);
        buffer.put(0, request, 0, requestLength);
        final long[] failures = new long[1];
        final Runnable receiveAll = () -> {
            for (int i = 0; i < ROUNDS; i++)
            {
                failures[0] += receive(integrity, buffer, direct);
            }
        };
        final long bytes = AllocationMeter.leastBytes(receiveAll, receiveAll, ATTEMPTS, 0);
        assertEquals(0, failures[0], "every message verified");
        return bytes / (double)ROUNDS;
    }

    private int receive(final StunIntegrity integrity, final ByteBuffer buffer, final boolean direct)
    {
        final int result = direct ? message.wrap(buffer, 0, requestLength) : message.wrap(request, 0, requestLength);
        return result
            + message.verifyMessageIntegrity(integrity, credential)
            + message.verifyFingerprint(integrity)
            + (0x6E0001FFL == message.priority() ? 0 : 1);
    }

    private void buildRequest(final StunIntegrity integrity)
    {
        requestLength = new StunMessageWriter().wrap(request, 0, request.length)
            .header(StunMessageType.BINDING_REQUEST, 0x0A0B0C0D, 99L)
            .addAscii(StunAttributeType.USERNAME, "LFRG:RFRG")
            .addU32(StunAttributeType.PRIORITY, 0x6E0001FF)
            .addU64(StunAttributeType.ICE_CONTROLLED, 0x1234L)
            .addMessageIntegrity(integrity, credential)
            .addFingerprint(integrity)
            .length();
    }
}
