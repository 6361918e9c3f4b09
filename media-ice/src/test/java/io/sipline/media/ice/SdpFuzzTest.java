package io.sipline.media.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sipline.media.srtp.SdesCryptoAttribute;

/**
 * Coverage-guided fuzzing of the SDP the media side reads from a peer: the ICE attributes of a remote description
 * ({@link IceDescriptions#parseRemote}: {@code a=candidate}, {@code a=ice-ufrag}, {@code a=ice-pwd},
 * {@code a=ice-options}, RFC 8839) and SDES keys ({@code a=crypto}, RFC 4568, {@link SdesCryptoAttribute}). Without
 * {@code JAZZER_FUZZ} it runs the seeds in {@code SdpFuzzTestInputs/remoteDescription/} as regression tests.
 * <p>
 * Property: a malformed description throws only {@link IceParseException}, a malformed {@code a=crypto} only
 * {@link IllegalArgumentException} (both answered 488 by the signalling layer); what parses writes back to text
 * that parses to the same text.
 */
class SdpFuzzTest
{
    @FuzzTest(maxDuration = "60s")
    void remoteDescription(final byte[] input)
    {
        final String sdp = new String(input, StandardCharsets.UTF_8);
        try
        {
            final IceCandidate[] candidates = IceDescriptions.parseRemote(sdp, new IceSessionAttributes());
            for (final IceCandidate candidate : candidates)
            {
                if (null == candidate)
                {
                    break;
                }
                final String written = IceSdp.appendCandidate(new StringBuilder(), candidate).toString();
                final String again = IceSdp.appendCandidate(new StringBuilder(), IceSdp.parseCandidate(written))
                    .toString();
                assertEquals(written, again, "a parsed candidate writes back to itself");
            }
        }
        catch (final IceParseException rejected)
        {
            // The documented refusal of a malformed description.
        }
        for (final String line : sdp.split("\r?\n"))
        {
            if (line.startsWith("a=crypto:"))
            {
                crypto(line);
            }
        }
    }

    private static void crypto(final String line)
    {
        final SdesCryptoAttribute parsed;
        try
        {
            parsed = SdesCryptoAttribute.parse(line);
        }
        catch (final IllegalArgumentException rejected)
        {
            return;
        }
        assertEquals(parsed.format(), SdesCryptoAttribute.parse(parsed.format()).format());
    }
}
