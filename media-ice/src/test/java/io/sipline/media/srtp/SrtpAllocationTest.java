package io.sipline.media.srtp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

/**
 * Allocation per packet, measured with {@link AllocationMeter} around 10,000 protect + unprotect pairs after
 * warm-up (the least of up to five attempts). AES-CM must allocate nothing at all (our code and, with the JCA
 * backend's choices, {@code javax.crypto}); GCM's allocation is the JDK's {@code Cipher.init} and is bounded.
 */
class SrtpAllocationTest
{
    private static final int SSRC = 0x0A0B_0C0D;
    private static final int ROUNDS = 10_000;
    private static final int ATTEMPTS = 5;

    @Test
    void shouldAllocateNothingPerPacketWithAesCmOnHeapBuffers()
    {
        final double perPair = measure(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, false);
        System.out.println("AES_CM_128_HMAC_SHA1_80 heap: " + perPair + " B per protect+unprotect");
        assertEquals(0.0, perPair, "B per protect+unprotect");
    }

    @Test
    void shouldAllocateNothingPerPacketWithAesCmOnDirectBuffers()
    {
        final double perPair = measure(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, true);
        System.out.println("AES_CM_128_HMAC_SHA1_80 direct: " + perPair + " B per protect+unprotect");
        // Nothing per packet (an object is at least 16 B, so < 0.1 B/pair is a few one-off runtime objects in 10,000).
        assertTrue(perPair < 0.1, perPair + " B per protect+unprotect");
    }

    @Test
    void shouldBoundGcmAllocationToTheJdkCipherInit()
    {
        final double perPair = measure(SrtpCryptoSuite.AEAD_AES_128_GCM, false);
        System.out.println("AEAD_AES_128_GCM heap: " + perPair + " B per protect+unprotect (javax.crypto inside)");
        // JDK 25 allocates about 1 KB per Cipher.init for GCM (GHASH/GCTR engine, GCMParameterSpec, key copy).
        assertTrue(perPair < 3 * 1024, perPair + " B per protect+unprotect");
    }

    @Test
    void shouldAllocateNothingPerPacketWithJavaGcm()
    {
        final double heap = measure(SrtpCryptoSuite.AEAD_AES_128_GCM, false, JcaSrtpBackend.JAVA_GCM);
        final double direct = measure(SrtpCryptoSuite.AEAD_AES_128_GCM, true, JcaSrtpBackend.JAVA_GCM);
        System.out.println("AEAD_AES_128_GCM jca-java-gcm: " + heap + " B heap, " + direct
            + " B direct per protect+unprotect");
        assertTrue(heap < 0.1, heap + " B per protect+unprotect (heap)");
        assertTrue(direct < 0.1, direct + " B per protect+unprotect (direct)");
    }

    private static double measure(final SrtpCryptoSuite suite, final boolean direct)
    {
        return measure(suite, direct, JcaSrtpBackend.INSTANCE);
    }

    private static double measure(final SrtpCryptoSuite suite, final boolean direct, final SrtpBackend backend)
    {
        final SrtpPolicy policy = SrtpTestSupport.policy(suite, backend);
        final SrtpContext tx = SrtpContext.outbound(policy);
        final SrtpContext rx = SrtpContext.inbound(policy);
        final byte[] heap = SrtpTestSupport.rtp(0, SSRC, 160, 0, false, 64);
        final ByteBuffer buffer = direct ? ByteBuffer.allocateDirect(heap.length) : ByteBuffer.wrap(heap);
        buffer.put(0, heap);
        final int[] seq = new int[1];
        final Runnable warmUp = () -> {
            for (int i = 0; i < 30_000; i++)
            {
                pair(tx, rx, buffer, seq[0]++);
            }
        };
        final Runnable measured = () -> {
            for (int i = 0; i < ROUNDS; i++)
            {
                pair(tx, rx, buffer, seq[0]++);
            }
        };
        return AllocationMeter.leastBytes(warmUp, measured, ATTEMPTS, 0) / (double)ROUNDS;
    }

    private static void pair(final SrtpContext tx, final SrtpContext rx, final ByteBuffer buffer, final int seq)
    {
        buffer.put(2, (byte)(seq >>> 8));
        buffer.put(3, (byte)seq);
        final int n = tx.protectRtp(buffer, 0, 172);
        if (rx.unprotectRtp(buffer, 0, n) != 172)
        {
            throw new AssertionError("round trip failed at seq " + seq);
        }
    }
}
