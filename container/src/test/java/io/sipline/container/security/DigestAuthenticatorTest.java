package io.sipline.container.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.sipline.container.security.AuthResult.Outcome;

class DigestAuthenticatorTest
{
    static final String REALM = "sip.example.com";
    static final String URI = "sip:bob@sip.example.com";

    private long nowMs = 1_700_000_000_000L;
    private final UserRealm users = users(
        "alice:plain:Circle Of Life:caller,admin\n" +
        "carol:digest:" + REALM + ":MD5=" + DigestAlgorithm.MD5.ha1("carol", REALM, "s3cret") + ":caller\n");
    private final DigestAuthenticator server = new DigestAuthenticator(REALM, users,
        DigestAuthenticator.Settings.DEFAULTS.withNonceLifetime(Duration.ofSeconds(30)), () -> nowMs,
        new SecureRandom());

    /**
     * RFC 2617 §3.5: "Mufasa" / "Circle Of Life", realm "testrealm@host.com", nonce
     * "dcd98b7102dd2f0e8b11d0f600bfb0c093", GET /dir/index.html, qop=auth, nc=00000001, cnonce="0a4f113b" gives
     * {@code response="6629fae49393a05397450978507c4ef1"}.
     */
    @Test
    void shouldComputeTheRfc2617Example()
    {
        final DigestAlgorithm md5 = DigestAlgorithm.MD5;
        final String ha1 = md5.ha1("Mufasa", "testrealm@host.com", "Circle Of Life");
        assertEquals("6629fae49393a05397450978507c4ef1", md5.response(ha1, "dcd98b7102dd2f0e8b11d0f600bfb0c093",
            "00000001", "0a4f113b", "auth", "GET", "/dir/index.html"));
    }

    /**
     * RFC 7616 §3.9.1 (the example RFC 8760 relies on for SHA-256): 'the username for this document is "Mufasa" and
     * the password is "Circle of Life"', realm "http-auth@example.org", nonce
     * "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", cnonce "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", nc
     * 00000001, qop=auth, GET /dir/index.html: with SHA-256
     * {@code response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"} and with MD5
     * {@code response="8ca523f5e9506fed4657c9700eebdbec"} (password with a lowercase "of", erratum 4495).
     */
    @Test
    void shouldComputeTheRfc7616Examples()
    {
        final String nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v";
        final String cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ";
        final DigestAlgorithm sha = DigestAlgorithm.SHA_256;
        assertEquals("753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", sha.response(
            sha.ha1("Mufasa", "http-auth@example.org", "Circle of Life"), nonce, "00000001", cnonce, "auth", "GET",
            "/dir/index.html"));
        final DigestAlgorithm md5 = DigestAlgorithm.MD5;
        assertEquals("8ca523f5e9506fed4657c9700eebdbec", md5.response(
            md5.ha1("Mufasa", "http-auth@example.org", "Circle of Life"), nonce, "00000001", cnonce, "auth", "GET",
            "/dir/index.html"));
    }

    @Test
    void shouldOfferSha256ThenMd5WithQopAuthAndOneNonce()
    {
        final List<String> challenges = server.challenges(false);
        assertEquals(2, challenges.size());
        final AuthParams first = AuthParams.parse(challenges.get(0));
        final AuthParams second = AuthParams.parse(challenges.get(1));
        assertTrue(first.isDigest());
        assertEquals("SHA-256", first.get("algorithm"));
        assertEquals("MD5", second.get("algorithm"));
        assertEquals(REALM, first.get("realm"));
        assertEquals("auth", first.get("qop"));
        assertEquals(first.get("nonce"), second.get("nonce"));
        assertNotNull(first.get("opaque"));
        assertNull(first.get("stale"));
        assertEquals("true", AuthParams.parse(server.challenges(true).get(0)).get("stale"));
        assertNotEquals(first.get("nonce"), AuthParams.parse(server.challenges(false).get(0)).get("nonce"));
    }

    @Test
    void shouldAcceptRightCredentialsWithEitherAlgorithm()
    {
        for (final int index : new int[] {0, 1})
        {
            final AuthParams challenge = AuthParams.parse(server.challenges(false).get(index));
            final AuthResult result = server.authenticate("INVITE", URI,
                List.of(credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 1)));
            assertEquals(Outcome.OK, result.outcome(), result.reason());
            assertEquals("alice", result.principal().getName());
            assertEquals(REALM, result.principal().realm());
            assertEquals(Set.of("caller", "admin"), result.principal().roles());
        }
    }

    @Test
    void shouldAcceptADigestUserWithItsStoredHa1Only()
    {
        final AuthParams md5 = AuthParams.parse(server.challenges(false).get(1));
        assertEquals(Outcome.OK, server.authenticate("REGISTER", URI,
            List.of(credentials(md5, "carol", "s3cret", "REGISTER", URI, 1))).outcome());
        final AuthParams sha = AuthParams.parse(server.challenges(false).get(0));
        assertEquals(Outcome.BAD_CREDENTIALS, server.authenticate("REGISTER", URI,
            List.of(credentials(sha, "carol", "s3cret", "REGISTER", URI, 1))).outcome());
    }

    @Test
    void shouldAskForCredentialsWhenThereAreNoneForThisRealm()
    {
        assertEquals(Outcome.MISSING, server.authenticate("INVITE", URI, List.of()).outcome());
        assertEquals(Outcome.MISSING, server.authenticate("INVITE", URI, null).outcome());
        final AuthParams challenge = AuthParams.parse(server.challenges(false).get(0));
        final String otherRealm = credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 1)
            .replace("realm=\"" + REALM + "\"", "realm=\"other.example.com\"");
        assertEquals(Outcome.MISSING, server.authenticate("INVITE", URI, List.of(otherRealm)).outcome());
        assertEquals(Outcome.MISSING, server.authenticate("INVITE", URI, List.of("Basic QWxhZGRpbjpvcGVu")).outcome());
    }

    @Test
    void shouldPickTheCredentialsOfItsRealmAmongSeveral()
    {
        final AuthParams challenge = AuthParams.parse(server.challenges(false).get(0));
        final String mine = credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 1);
        final String other = mine.replace("realm=\"" + REALM + "\"", "realm=\"proxy.example.net\"");
        assertEquals(Outcome.OK, server.authenticate("INVITE", URI, List.of(other, mine)).outcome());
    }

    @Test
    void shouldRefuseAWrongPasswordAndAnUnknownUser()
    {
        final AuthParams challenge = AuthParams.parse(server.challenges(false).get(0));
        assertEquals(Outcome.BAD_CREDENTIALS, server.authenticate("INVITE", URI,
            List.of(credentials(challenge, "alice", "circle of life", "INVITE", URI, 1))).outcome());
        assertEquals(Outcome.BAD_CREDENTIALS, server.authenticate("INVITE", URI,
            List.of(credentials(challenge, "mallory", "Circle Of Life", "INVITE", URI, 1))).outcome());
    }

    @Test
    void shouldRefuseAUriOtherThanTheRequestUri()
    {
        final AuthParams challenge = AuthParams.parse(server.challenges(false).get(0));
        final AuthResult result = server.authenticate("INVITE", URI,
            List.of(credentials(challenge, "alice", "Circle Of Life", "INVITE", "sip:carol@sip.example.com", 1)));
        assertEquals(Outcome.MALFORMED, result.outcome());
        assertTrue(result.reason().contains("Request-URI"), result.reason());
    }

    @Test
    void shouldRefuseTheRightDigestForAnotherMethod()
    {
        final AuthParams challenge = AuthParams.parse(server.challenges(false).get(0));
        assertEquals(Outcome.BAD_CREDENTIALS, server.authenticate("BYE", URI,
            List.of(credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 1))).outcome());
    }

    @Test
    void shouldSayStaleWhenTheNonceExpiredButTheDigestIsRight()
    {
        final AuthParams challenge = AuthParams.parse(server.challenges(false).get(0));
        nowMs += 30_000;
        assertEquals(Outcome.STALE, server.authenticate("INVITE", URI,
            List.of(credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 1))).outcome());
        assertEquals(Outcome.BAD_CREDENTIALS, server.authenticate("INVITE", URI,
            List.of(credentials(challenge, "alice", "wrong", "INVITE", URI, 1))).outcome());
        nowMs -= 1;
        assertEquals(Outcome.OK, server.authenticate("INVITE", URI,
            List.of(credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 1))).outcome());
    }

    @Test
    void shouldSayStaleForANonceItDidNotIssueWhenTheDigestIsRight()
    {
        // The RFC 2617 §3.5 request, recomputed for this realm and URI: right digest, foreign nonce and opaque.
        final AuthParams foreign = AuthParams.parse("Digest realm=\"" + REALM + "\", qop=\"auth\", " +
            "nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\"");
        assertEquals(Outcome.STALE, server.authenticate("INVITE", URI,
            List.of(credentials(foreign, "alice", "Circle Of Life", "INVITE", URI, 1))).outcome());

        final DigestAuthenticator otherRealm = new DigestAuthenticator("other.example.com", users,
            DigestAuthenticator.Settings.DEFAULTS, () -> nowMs, new SecureRandom());
        final AuthParams ofOtherRealm = AuthParams.parse(otherRealm.challenges(false).get(0));
        final String moved = credentials(ofOtherRealm, "alice", "Circle Of Life", "INVITE", URI, 1);
        assertEquals(Outcome.OK, otherRealm.authenticate("INVITE", URI, List.of(moved)).outcome());
        final AuthParams relabelled = AuthParams.parse(server.challenges(false).get(0)
            .replaceFirst("nonce=\"[^\"]*\"", "nonce=\"" + ofOtherRealm.get("nonce") + "\""));
        assertEquals(Outcome.STALE, server.authenticate("INVITE", URI,
            List.of(credentials(relabelled, "alice", "Circle Of Life", "INVITE", URI, 1))).outcome());
    }

    @Test
    void shouldRefuseAReplayedNonceCountAndAcceptCountsOutOfOrderOnce()
    {
        final AuthParams challenge = AuthParams.parse(server.challenges(false).get(0));
        final String first = credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 1);
        assertEquals(Outcome.OK, server.authenticate("INVITE", URI, List.of(first)).outcome());
        assertEquals(Outcome.REPLAY, server.authenticate("INVITE", URI, List.of(first)).outcome());

        final String third = credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 3);
        final String second = credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 2);
        assertEquals(Outcome.OK, server.authenticate("INVITE", URI, List.of(third)).outcome());
        assertEquals(Outcome.OK, server.authenticate("INVITE", URI, List.of(second)).outcome());
        assertEquals(Outcome.REPLAY, server.authenticate("INVITE", URI, List.of(second)).outcome());
        assertEquals(Outcome.REPLAY, server.authenticate("INVITE", URI, List.of(third)).outcome());

        final String far = credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 100);
        assertEquals(Outcome.OK, server.authenticate("INVITE", URI, List.of(far)).outcome());
        final String tooOld = credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 36);
        assertEquals(Outcome.REPLAY, server.authenticate("INVITE", URI, List.of(tooOld)).outcome());
        assertEquals(1, server.trackedNonces());
    }

    @Test
    void shouldKeepTheTrackedNoncesBoundedAndNeverReopenAForgottenOne()
    {
        final DigestAuthenticator small = new DigestAuthenticator(REALM, users,
            DigestAuthenticator.Settings.DEFAULTS.withMaxTrackedNonces(4), () -> nowMs, new SecureRandom());
        final AuthParams[] challenges = new AuthParams[10];
        for (int i = 0; i < challenges.length; i++)
        {
            challenges[i] = AuthParams.parse(small.challenges(false).get(0));
            nowMs += 1;
        }
        for (final AuthParams challenge : challenges)
        {
            assertEquals(Outcome.OK, small.authenticate("INVITE", URI,
                List.of(credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 1))).outcome());
            assertTrue(small.trackedNonces() <= 4, "tracked " + small.trackedNonces());
        }
        // The first nonces were evicted: their next count is stale (new nonce), never accepted on a fresh window.
        assertEquals(Outcome.STALE, small.authenticate("INVITE", URI,
            List.of(credentials(challenges[0], "alice", "Circle Of Life", "INVITE", URI, 1))).outcome());
        assertEquals(Outcome.STALE, small.authenticate("INVITE", URI,
            List.of(credentials(challenges[0], "alice", "Circle Of Life", "INVITE", URI, 2))).outcome());
        assertEquals(Outcome.OK, small.authenticate("INVITE", URI,
            List.of(credentials(challenges[9], "alice", "Circle Of Life", "INVITE", URI, 2))).outcome());
    }

    @Test
    void shouldForgetExpiredNoncesOnItsOwn()
    {
        for (int i = 0; i < 5; i++)
        {
            final AuthParams challenge = AuthParams.parse(server.challenges(false).get(0));
            assertEquals(Outcome.OK, server.authenticate("INVITE", URI,
                List.of(credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 1))).outcome());
        }
        assertEquals(5, server.trackedNonces());
        nowMs += 61_000;
        final AuthParams fresh = AuthParams.parse(server.challenges(false).get(0));
        assertEquals(Outcome.OK, server.authenticate("INVITE", URI,
            List.of(credentials(fresh, "alice", "Circle Of Life", "INVITE", URI, 1))).outcome());
        assertEquals(1, server.trackedNonces());
    }

    @Test
    void shouldRefuseMalformedCredentialsWithAReason()
    {
        final AuthParams challenge = AuthParams.parse(server.challenges(false).get(0));
        final String good = credentials(challenge, "alice", "Circle Of Life", "INVITE", URI, 1);
        final String[] bad = {
            good.replace(", nc=00000001", ""),
            good.replace("nc=00000001", "nc=1"),
            good.replace("nc=00000001", "nc=0000000g"),
            good.replace("nc=00000001", "nc=00000000"),
            good.replaceFirst(", cnonce=\"[^\"]*\"", ""),
            good.replace("qop=auth", "qop=auth-int"),
            good.replace(", qop=auth", ""),
            good.replace("algorithm=SHA-256", "algorithm=SHA-256-sess"),
            good.replace("algorithm=SHA-256", "algorithm=SHA-512-256"),
            good.replaceFirst(", opaque=\"[^\"]*\"", ""),
            good.replaceFirst("response=\"([0-9a-f]*)\"", "response=\"$1a\""),
            good.replaceFirst("username=\"alice\", ", ""),
            good.replace("realm=", "realm=\"x\", realm="),
            good + ",",
            good.replace("\"" + URI + "\"", "\"" + URI),
        };
        for (final String value : bad)
        {
            final AuthResult result = server.authenticate("INVITE", URI, List.of(value));
            assertEquals(Outcome.MALFORMED, result.outcome(), value);
            assertFalse(result.reason().isBlank());
        }
    }

    @Test
    void shouldAcceptTheRfc2069FormOnlyWhenAllowed()
    {
        final DigestAuthenticator lenient = new DigestAuthenticator(REALM, users,
            DigestAuthenticator.Settings.DEFAULTS.withAllowNoQop(true), () -> nowMs, new SecureRandom());
        final AuthParams challenge = AuthParams.parse(lenient.challenges(false).get(1));
        final String nonce = challenge.get("nonce");
        final DigestAlgorithm md5 = DigestAlgorithm.MD5;
        final String response = md5.response(md5.ha1("alice", REALM, "Circle Of Life"), nonce, null, null, null,
            "OPTIONS", URI);
        final String value = "Digest username=\"alice\", realm=\"" + REALM + "\", nonce=\"" + nonce + "\", uri=\"" +
            URI + "\", response=\"" + response + "\", opaque=\"" + challenge.get("opaque") + "\"";
        assertEquals(Outcome.OK, lenient.authenticate("OPTIONS", URI, List.of(value)).outcome());
        assertEquals(Outcome.MALFORMED, server.authenticate("OPTIONS", URI, List.of(value)).outcome());
    }

    /**
     * Credentials as a client following RFC 2617 §3.2.2 writes them (the test's own writer, independent of
     * {@link DigestClient}).
     */
    static String credentials(final AuthParams challenge, final String user, final String password,
        final String method, final String uri, final int nc)
    {
        final DigestAlgorithm algorithm = DigestAlgorithm.fromToken(challenge.get("algorithm"));
        final String realm = challenge.get("realm");
        final String count = String.format("%08x", nc);
        final String cnonce = "c" + nc;
        final String response = algorithm.response(algorithm.ha1(user, realm, password), challenge.get("nonce"),
            count, cnonce, "auth", method, uri);
        return "Digest username=\"" + user + "\", realm=\"" + realm + "\", nonce=\"" + challenge.get("nonce") +
            "\", uri=\"" + uri + "\", response=\"" + response + "\", algorithm=" + algorithm.token() +
            ", cnonce=\"" + cnonce + "\", opaque=\"" + challenge.get("opaque") + "\", qop=auth, nc=" + count;
    }

    static UserRealm users(final String text)
    {
        try
        {
            return UserRealm.parse("users.txt", new StringReader(text));
        }
        catch (final UsersFileException | IOException ex)
        {
            throw new AssertionError(ex);
        }
    }
}
