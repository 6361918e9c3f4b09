package io.sipline.media.srtp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzzing of SRTP and SRTCP (RFC 3711, RFC 7714) from both ends. The first input byte picks the
 * crypto suite (low 3 bits) and RTP or RTCP (top bit); the rest is a packet. As plaintext it is protected by an
 * outbound context and unprotected by an inbound one with the same key: whatever protect accepts must come back
 * byte for byte. As a packet from the network it goes straight to unprotect. Without {@code JAZZER_FUZZ} it runs
 * the seeds in {@code SrtpFuzzTestInputs/roundTrip/} as regression tests.
 * <p>
 * Property: no input throws; every refusal is a negative {@link SrtpResult}, counted by the context.
 */
class SrtpFuzzTest
{
    private static final SrtpCryptoSuite[] SUITES = SrtpCryptoSuite.values();

    @FuzzTest(maxDuration = "60s")
    void roundTrip(final byte[] input)
    {
        if (input.length < 1)
        {
            return;
        }
        final SrtpCryptoSuite suite = SUITES[(input[0] & 0x7) % SUITES.length];
        final boolean rtcp = (input[0] & 0x80) != 0;
        final SrtpPolicy policy = SrtpPolicy.builder(suite).masterKey(SrtpTestSupport.keyMaterial(suite, 1)).build();
        final int length = input.length - 1;
        try (SrtpContext out = SrtpContext.outbound(policy); SrtpContext in = SrtpContext.inbound(policy))
        {
            final byte[] packet = Arrays.copyOfRange(input, 1, input.length + out.maxRtcpOverhead() + 16);
            final int protectedLength = rtcp ? out.protectRtcp(packet, 0, length) : out.protectRtp(packet, 0, length);
            if (protectedLength >= 0)
            {
                assertTrue(protectedLength > length && protectedLength <= packet.length);
                final int plainLength = rtcp ? in.unprotectRtcp(packet, 0, protectedLength) :
                    in.unprotectRtp(packet, 0, protectedLength);
                assertEquals(length, plainLength, () -> "round trip refused: " + plainLength);
                assertArrayEquals(Arrays.copyOfRange(input, 1, input.length), Arrays.copyOf(packet, length));
            }
            else
            {
                assertEquals(1, out.count(protectedLength), "each refusal is counted");
            }
        }
        try (SrtpContext in = SrtpContext.inbound(policy))
        {
            final byte[] wire = Arrays.copyOfRange(input, 1, input.length);
            final int result = rtcp ? in.unprotectRtcp(wire, 0, length) : in.unprotectRtp(wire, 0, length);
            assertTrue(result <= length, "unprotect never grows a packet");
        }
    }
}
