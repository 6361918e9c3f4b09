package io.sipline.container.security;

import static io.sipline.container.security.DigestAuthenticatorTest.REALM;
import static io.sipline.container.security.DigestAuthenticatorTest.URI;
import static io.sipline.container.security.DigestAuthenticatorTest.credentials;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import io.sipline.container.security.AuthResult.Outcome;
import org.junit.jupiter.api.Test;

/**
 * Authentication abuse (RFC 3261 §22, RFC 7616 §3.3-3.4, §5): 100,000 bad attempts of every kind (brute force of one
 * user, unknown users, replayed and decreasing {@code nc}, stale and forged nonces, another realm) are each refused
 * with the outcome the RFCs call for, cost about one digest each, and leave no state behind; the state an attacker
 * with a valid account can make (one window per authenticated nonce) stays within its bound at a bounded cost.
 */
class DigestAbuseTest
{
    private static final int ATTEMPTS = 100_000;

    private long nowMs = 1_700_000_000_000L;
    private final UserRealm users = DigestAuthenticatorTest.users("alice:plain:Circle Of Life:caller\n");

    @Test
    void shouldRefuseEveryKindOfBadAttemptWithoutKeepingState()
    {
        final DigestAuthenticator server = new DigestAuthenticator(REALM, users,
            DigestAuthenticator.Settings.DEFAULTS.withNonceLifetime(Duration.ofSeconds(30)), () -> nowMs,
            new SecureRandom());
        // One real login, so that replays have something to replay.
        final AuthParams first = AuthParams.parse(server.challenges(false).get(0));
        final String recorded = credentials(first, "alice", "Circle Of Life", "INVITE", URI, 100);
        assertEquals(Outcome.OK, server.authenticate("INVITE", URI, List.of(recorded)).outcome());
        final AuthParams expiring = AuthParams.parse(server.challenges(false).get(0));

        final SplittableRandom random = new SplittableRandom(7616);
        final Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
        final long t0 = System.nanoTime();
        for (int i = 0; i < ATTEMPTS; i++)
        {
            final AuthParams challenge = AuthParams.parse(server.challenges(false).get(0));
            final int kind = i % 7;
            final String value = switch (kind)
            {
                // Brute force of one user: a fresh nonce each time, as a client answering each 401 would.
                case 0 -> credentials(challenge, "alice", "guess" + i, "INVITE", URI, 1);
                // An unknown user: the same hashing as a known one.
                case 1 -> credentials(challenge, "mallory" + i, "x", "INVITE", URI, 1);
                // The recorded request again, and counts at or below the highest accepted minus the window.
                case 2 -> recorded;
                case 3 -> credentials(first, "alice", "Circle Of Life", "INVITE", URI, 1 + random.nextInt(36));
                // The right digest on a nonce we never issued (random bytes of the right shape).
                case 4 -> credentials(forged(challenge, random), "alice", "Circle Of Life", "INVITE", URI, 1);
                // Credentials for another realm only.
                case 5 -> credentials(relabelled(challenge, "evil.example.net"), "alice", "Circle Of Life", "INVITE",
                    URI, 1);
                // Right digest, nonce issued long ago (the clock runs 31 s ahead for this one).
                default -> credentials(expiring, "alice", "Circle Of Life", "INVITE", URI, 2 + i);
            };
            if (6 == kind)
            {
                nowMs += 31_000;
            }
            final Outcome outcome = server.authenticate("INVITE", URI, List.of(value)).outcome();
            if (6 == kind)
            {
                nowMs -= 31_000;
            }
            assertEquals(expected(kind), outcome, "attempt " + i + " of kind " + kind);
            outcomes.merge(outcome, 1, Integer::sum);
            assertTrue(server.trackedNonces() <= 1, "only the real login's nonce is tracked");
        }
        final double microsPerAttempt = (System.nanoTime() - t0) / 1e3 / ATTEMPTS;
        assertEquals(1, server.trackedNonces());
        assertEquals(ATTEMPTS, outcomes.values().stream().mapToInt(Integer::intValue).sum());
        // A challenge plus a check is a few HMACs and hashes: far below a millisecond even on a loaded CI machine.
        assertTrue(microsPerAttempt < 1_000, "cost per attempt " + microsPerAttempt + " us");
        System.out.printf("digest abuse: %,d attempts, %.1f us each (challenge + check), outcomes %s, tracked %d%n",
            ATTEMPTS, microsPerAttempt, outcomes, server.trackedNonces());
    }

    /** RFC 7616 §3.3: a stale nonce with a right digest gets {@code stale=true}; a replay is told the same. */
    @Test
    void shouldMarkStaleAndReplayedChallengesStale()
    {
        final DigestAuthenticator server = DigestAuthenticator.create(REALM, users);
        assertTrue(server.challenges(true).stream().allMatch(c -> "true".equals(AuthParams.parse(c).get("stale"))));
        assertTrue(server.challenges(false).stream().noneMatch(c -> null != AuthParams.parse(c).get("stale")));
    }

    /**
     * An attacker with a valid account can make state: one nonce-count window per nonce it authenticates with. 100,000
     * such logins keep the windows within their bound, and each login costs about the same at the end as at the
     * start (eviction is amortized, not a scan of every window per login).
     */
    @Test
    void shouldBoundTheWindowsOfAValidAccountAtABoundedCost()
    {
        final int bound = 65_536;
        final DigestAuthenticator server = new DigestAuthenticator(REALM, users,
            DigestAuthenticator.Settings.DEFAULTS.withMaxTrackedNonces(bound), () -> nowMs, new SecureRandom());
        final int batch = ATTEMPTS / 10;
        final double[] micros = new double[10];
        for (int b = 0; b < 10; b++)
        {
            final long t0 = System.nanoTime();
            for (int i = 0; i < batch; i++)
            {
                nowMs++;
                final AuthParams challenge = AuthParams.parse(server.challenges(false).get(0));
                assertEquals(Outcome.OK, server.authenticate("INVITE", URI,
                    List.of(credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 1))).outcome());
            }
            micros[b] = (System.nanoTime() - t0) / 1e3 / batch;
            assertTrue(server.trackedNonces() <= bound, "tracked " + server.trackedNonces());
        }
        System.out.printf("digest logins: us per login by tenth of 100,000: %s, tracked %d%n",
            java.util.Arrays.toString(micros), server.trackedNonces());
        // The tenths after the bound is reached (7th on) against the tenths before it (2nd to 6th; the 1st warms up).
        final double before = (micros[1] + micros[2] + micros[3] + micros[4] + micros[5]) / 5;
        final double after = (micros[7] + micros[8] + micros[9]) / 3;
        assertTrue(after < 4 * before + 20, "a login costs " + after + " us once full, " + before + " us before");
    }

    private static Outcome expected(final int kind)
    {
        return switch (kind)
        {
            case 0, 1 -> Outcome.BAD_CREDENTIALS;
            case 2, 3 -> Outcome.REPLAY;
            case 4, 6 -> Outcome.STALE;
            default -> Outcome.MISSING;
        };
    }

    /** The challenge with its nonce replaced by 43 random base64url characters. */
    private static AuthParams forged(final AuthParams challenge, final SplittableRandom random)
    {
        final String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        final StringBuilder nonce = new StringBuilder();
        for (int i = 0; i < Nonces.NONCE_CHARS; i++)
        {
            nonce.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return relabel(challenge, "nonce", nonce.toString());
    }

    private static AuthParams relabelled(final AuthParams challenge, final String realm)
    {
        return relabel(challenge, "realm", realm);
    }

    private static AuthParams relabel(final AuthParams challenge, final String name, final String value)
    {
        final Map<String, String> params = new java.util.LinkedHashMap<>(challenge.params());
        params.put(name, value);
        return new AuthParams(challenge.scheme(), params, null);
    }
}
