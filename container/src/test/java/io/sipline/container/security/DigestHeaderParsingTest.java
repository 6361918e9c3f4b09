package io.sipline.container.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.sipline.container.security.AuthResult.Outcome;

class DigestHeaderParsingTest
{
    @Test
    void shouldParseTokensQuotedStringsEscapesAndCase()
    {
        final AuthParams params = AuthParams.parse(
            "  digest Username=\"Mu\\\"fa\\\\sa\" ,realm=\"a, b\",\tqop=auth , NC=00000001,uri=\"sip:x@y;lr\"  ");
        assertTrue(params.ok(), params.error());
        assertTrue(params.isDigest());
        assertEquals("digest", params.scheme());
        assertEquals(Map.of("username", "Mu\"fa\\sa", "realm", "a, b", "qop", "auth", "nc", "00000001",
            "uri", "sip:x@y;lr"), params.params());
        assertEquals("\"Mu\\\"fa\\\\sa\"", AuthParams.quote("Mu\"fa\\sa"));
        assertEquals("Mu\"fa\\sa", AuthParams.parse("Digest u=" + AuthParams.quote("Mu\"fa\\sa")).get("u"));
        assertTrue(AuthParams.parse("Digest").ok());
    }

    @Test
    void shouldSayWhatIsWrong()
    {
        final String[] bad = {
            null, "", "   ", "\"Digest\" a=b", "Digest,a=b", "Digest a", "Digest a=", "Digest a=\"open",
            "Digest a=b c=d", "Digest a=b,", "Digest a=b,,c=d", "Digest a=b, a=c", "Digest =b", "Digest a=\"x\\",
            "Digest " + "x=".repeat(5000),
        };
        for (final String value : bad)
        {
            final AuthParams params = AuthParams.parse(value);
            assertFalse(params.ok(), value);
            assertNotNull(params.error());
            assertTrue(params.params().isEmpty());
        }
        final StringBuilder many = new StringBuilder("Digest p0=0");
        for (int i = 1; i <= AuthParams.MAX_PARAMS; i++)
        {
            many.append(", p").append(i).append('=').append(i);
        }
        assertTrue(AuthParams.parse(many.toString()).error().contains("more than"));
    }

    /**
     * Property: random mutations (character deletions, insertions of syntax characters and arbitrary chars,
     * duplications, truncations) of valid credentials never make the parser or the authenticator throw, and a
     * mutation that touches the response digest's hex digits is never accepted.
     */
    @Test
    void shouldNeverThrowOnRandomMutationsOfValidCredentials()
    {
        final long[] clock = {1_700_000_000_000L};
        final DigestAuthenticator server = new DigestAuthenticator(DigestAuthenticatorTest.REALM,
            DigestAuthenticatorTest.users("alice:plain:pw:caller\n"),
            DigestAuthenticator.Settings.DEFAULTS.withNonceLifetime(Duration.ofHours(1)), () -> clock[0],
            new SecureRandom());
        final Random random = new Random(42);
        final char[] alphabet = "\"\\,= \t\r\n:;abcdefABCDEF0123456789-_/\u00e9\u0000\uffff".toCharArray();
        int accepted = 0;
        int mutants = 0;
        for (int round = 0; round < 200; round++)
        {
            final AuthParams challenge = AuthParams.parse(server.challenges(false).get(round % 2));
            final String valid = DigestAuthenticatorTest.credentials(challenge, "alice", "pw", "INVITE",
                DigestAuthenticatorTest.URI, 1);
            final int responseStart = valid.indexOf("response=\"") + "response=\"".length();
            final int responseEnd = valid.indexOf('"', responseStart);
            for (int m = 0; m < 100; m++)
            {
                final StringBuilder text = new StringBuilder(valid);
                final int edits = 1 + random.nextInt(4);
                boolean touchedResponse = false;
                for (int e = 0; e < edits && !text.isEmpty(); e++)
                {
                    final int at = random.nextInt(text.length());
                    touchedResponse |= at >= responseStart && at < responseEnd;
                    switch (random.nextInt(5))
                    {
                        case 0 -> text.deleteCharAt(at);
                        case 1 -> text.insert(at, alphabet[random.nextInt(alphabet.length)]);
                        case 2 -> text.setCharAt(at, (char)random.nextInt(0x3000));
                        case 3 -> text.insert(at,
                            text.substring(at, Math.min(text.length(), at + 1 + random.nextInt(20))));
                        default -> text.setLength(at);
                    }
                }
                mutants++;
                final String mutant = text.toString();
                final AuthParams parsed = AuthParams.parse(mutant);
                assertNotNull(parsed);
                assertTrue(parsed.ok() || null != parsed.error());
                final AuthResult result = server.authenticate("INVITE", DigestAuthenticatorTest.URI,
                    List.of(mutant));
                assertNotNull(result.outcome());
                if (Outcome.OK == result.outcome())
                {
                    accepted++;
                    final String response = parsed.get("response");
                    if (touchedResponse)
                    {
                        assertTrue(valid.substring(responseStart, responseEnd).equalsIgnoreCase(response), mutant);
                    }
                }
            }
        }
        assertEquals(20_000, mutants);
        // Each nonce authenticates nc=1 once at most: the other harmless mutants of it are replays.
        assertTrue(accepted <= 200, "accepted " + accepted);
    }
}
