package io.sipline.media.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * Property test: random mutations of valid ICE attributes (fixed seed, bounded count) only ever parse or throw the
 * documented {@link IceParseException}; whatever parses writes back to text that parses to the same text.
 */
class IceSdpMutationTest
{
    private static final long SEED = 0x1CE_8839L;
    private static final int ROUNDS = 200_000;
    private static final String ALPHABET = " :.-+/0123456789abcdefABCDEFxyz\r\n\t\u0000\u00e9\u0660\uff11[]%_\"";
    private static final String[] SEEDS = {
        "a=candidate:1 1 UDP 2130706431 10.0.1.1 8998 typ host",
        "candidate:842163049 1 udp 1686052607 203.0.113.7 46154 typ srflx raddr 192.168.0.196 rport 46243"
            + " generation 0 ufrag EsAw network-id 1 network-cost 10",
        "candidate:3697061916 1 udp 2122262783 2001:db8:85a3::8a2e:370:7334 50021 typ host generation 0",
        "candidate:2999745851 1 udp 2122260223 c4f0b6c8-3c0f-4c8e-9a2e-1f3d5e7a9b0c.local 54400 typ host",
        "candidate:4 1 UDP 1677732095 ::ffff:1.2.3.4 3478 typ prflx raddr fe80::1 rport 9",
        "candidate:3 2 UDP 92217342 198.51.100.9 60000 typ relay raddr 203.0.113.7 rport 54323",
    };

    @Test
    void shouldOnlyThrowTheParseExceptionOnMutatedCandidates()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final SplittableRandom random = new SplittableRandom(SEED);
            final IceCandidate reused = new IceCandidate();
            int parsed = 0;
            for (int round = 0; round < ROUNDS; round++)
            {
                final String line = mutate(random, SEEDS[random.nextInt(SEEDS.length)]);
                try
                {
                    final String written = IceSdp.parseCandidate(line, reused).toString();
                    assertEquals(written, IceSdp.parseCandidate(written).toString(), line);
                    parsed++;
                }
                catch (final IceParseException expected)
                {
                    assertTrue(expected.getMessage() != null && !expected.getMessage().isEmpty());
                }
                catch (final RuntimeException | Error unexpected)
                {
                    fail("'" + line + "' threw " + unexpected, unexpected);
                }
                probeOthers(line);
            }
            assertTrue(parsed > ROUNDS / 50, "too few mutations parse: " + parsed);
        });
    }

    private static void probeOthers(final String line)
    {
        try
        {
            new IceSessionAttributes().accept(line);
            IceSdp.checkUfrag(line);
            IceSdp.checkPassword(line);
            IceSdp.parseOptions(line);
        }
        catch (final IceParseException expected)
        {
            // documented
        }
        catch (final RuntimeException | Error unexpected)
        {
            fail("'" + line + "' threw " + unexpected, unexpected);
        }
    }

    private static String mutate(final SplittableRandom random, final String seed)
    {
        final StringBuilder text = new StringBuilder(seed);
        final int edits = 1 + random.nextInt(3);
        for (int i = 0; i < edits; i++)
        {
            final int position = text.isEmpty() ? 0 : random.nextInt(text.length());
            final char c = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
            switch (random.nextInt(6))
            {
                case 0:
                    if (!text.isEmpty())
                    {
                        text.setCharAt(position, c);
                    }
                    break;
                case 1:
                    text.insert(position, c);
                    break;
                case 2:
                    if (!text.isEmpty())
                    {
                        text.deleteCharAt(position);
                    }
                    break;
                case 3:
                    text.setLength(position);
                    break;
                case 4:
                    final int end = Math.min(text.length(), position + 1 + random.nextInt(8));
                    text.insert(position, text.substring(position, end));
                    break;
                default:
                    text.insert(position, "ice-ufrag:");
                    break;
            }
        }
        return text.toString();
    }
}
