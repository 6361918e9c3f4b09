package io.sipline.container.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.Iterator;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.sipline.container.security.AuthResult.Outcome;

class DigestClientTest
{
    private static final String URI = "sip:bob@sip.example.com";

    private long nowMs = 1_700_000_000_000L;

    /** RFC 2617 §3.5, the request with qop=auth answering the example challenge. */
    @Test
    void shouldWriteTheRfc2617ExampleAuthorization()
    {
        final DigestClient client = new DigestClient(() -> "0a4f113b");
        final List<String> answer = client.answer(401, List.of("Digest realm=\"testrealm@host.com\", " +
            "qop=\"auth,auth-int\", nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", " +
            "opaque=\"5ccc069c403ebaf9f0171e9517f40e41\""), "GET", "/dir/index.html",
            CredentialSource.of("Mufasa", "Circle Of Life"));
        assertEquals(List.of("Digest username=\"Mufasa\", realm=\"testrealm@host.com\", " +
            "nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", uri=\"/dir/index.html\", " +
            "response=\"6629fae49393a05397450978507c4ef1\", cnonce=\"0a4f113b\", " +
            "opaque=\"5ccc069c403ebaf9f0171e9517f40e41\", qop=auth, nc=00000001"), answer);
    }

    /**
     * RFC 7616 §3.9.1: the server offers "algorithm=SHA-256" and "algorithm=MD5" challenges with nonce
     * "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v" and opaque "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"; with
     * cnonce "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ" the SHA-256 answer has
     * response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1". The client takes SHA-256 whatever
     * the order of the challenges.
     */
    @Test
    void shouldPreferSha256AsInTheRfc7616Example()
    {
        final String sha = "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=SHA-256, " +
            "nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", " +
            "opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\"";
        final String md5 = sha.replace("SHA-256", "MD5");
        for (final List<String> challenges : List.of(List.of(sha, md5), List.of(md5, sha)))
        {
            final DigestClient client = new DigestClient(() -> "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ");
            final List<String> answer = client.answer(401, challenges, "GET", "/dir/index.html",
                CredentialSource.of("Mufasa", "Circle of Life"));
            assertEquals(1, answer.size());
            final AuthParams params = AuthParams.parse(answer.getFirst());
            assertEquals("SHA-256", params.get("algorithm"));
            assertEquals("753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", params.get("response"));
            assertEquals("FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", params.get("opaque"));
        }
        final DigestClient client = new DigestClient(() -> "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ");
        assertEquals("8ca523f5e9506fed4657c9700eebdbec", AuthParams.parse(client.answer(401, List.of(md5), "GET",
            "/dir/index.html", CredentialSource.of("Mufasa", "Circle of Life")).getFirst()).get("response"));
    }

    @Test
    void shouldCountNoncesAndTakeAFreshCnonceEachTime()
    {
        final Iterator<String> cnonces = List.of("one", "two").iterator();
        final DigestClient client = new DigestClient(cnonces::next);
        final List<String> challenge = List.of("Digest realm=\"r\", nonce=\"n\", qop=\"auth\"");
        final AuthParams first = AuthParams.parse(client.answer(407, challenge, "INVITE", URI,
            CredentialSource.of("u", "p")).getFirst());
        final AuthParams second = AuthParams.parse(client.answer(407, challenge, "INVITE", URI,
            CredentialSource.of("u", "p")).getFirst());
        assertEquals("00000001", first.get("nc"));
        assertEquals("one", first.get("cnonce"));
        assertEquals("00000002", second.get("nc"));
        assertEquals("two", second.get("cnonce"));
        assertNull(first.get("algorithm"), "not in the challenge, not in the answer");
    }

    @Test
    void shouldAnswerWithoutQopInTheRfc2069Form()
    {
        final AuthParams answer = AuthParams.parse(new DigestClient().answer(401,
            List.of("Digest realm=\"r\", nonce=\"n\""), "OPTIONS", URI, CredentialSource.of("u", "p")).getFirst());
        final DigestAlgorithm md5 = DigestAlgorithm.MD5;
        assertEquals(md5.response(md5.ha1("u", "r", "p"), "n", null, null, null, "OPTIONS", URI),
            answer.get("response"));
        assertNull(answer.get("qop"));
        assertNull(answer.get("nc"));
        assertNull(answer.get("cnonce"));
    }

    @Test
    void shouldAnswerEachRealmItHasCredentialsFor()
    {
        final AuthInfoImpl info = new AuthInfoImpl();
        info.addAuthInfo(407, "proxy-a.example.com", "alice", "a-secret");
        info.addAuthInfo(401, "proxy-b.example.com", "alice", "wrong-status");
        final List<String> answers = new DigestClient().answer(407, List.of(
            "Digest realm=\"proxy-a.example.com\", nonce=\"1\", qop=\"auth\", algorithm=MD5",
            "Digest realm=\"proxy-b.example.com\", nonce=\"2\", qop=\"auth\", algorithm=MD5",
            "Digest realm=\"proxy-a.example.com\", nonce=\"1\", qop=\"auth\", algorithm=SHA-256"),
            "INVITE", URI, info);
        assertEquals(1, answers.size());
        final AuthParams params = AuthParams.parse(answers.getFirst());
        assertEquals("proxy-a.example.com", params.get("realm"));
        assertEquals("SHA-256", params.get("algorithm"));
        assertEquals("alice", params.get("username"));
    }

    @Test
    void shouldSkipChallengesItCannotAnswerWithoutThrowing()
    {
        final List<String> answers = new DigestClient().answer(401, java.util.Arrays.asList(
            "Digest realm=\"r\", nonce=\"n\", qop=\"auth-int\"",
            "Digest realm=\"r\", nonce=\"n\", algorithm=MD5-sess",
            "Digest realm=\"r\", nonce=\"n\", algorithm=SHA-1",
            "Digest realm=\"r\"",
            "Digest nonce=\"n\"",
            "Basic realm=\"r\"",
            "Digest realm=\"r, nonce=",
            "",
            null), "INVITE", URI, CredentialSource.of("u", "p"));
        assertTrue(answers.isEmpty(), answers.toString());
        assertTrue(new DigestClient().answer(401, null, "INVITE", URI, CredentialSource.of("u", "p")).isEmpty());
        assertThrows(IllegalArgumentException.class,
            () -> new DigestClient().answer(403, List.of(), "INVITE", URI, CredentialSource.of("u", "p")));
    }

    @Test
    void shouldRoundTripWithTheServerFor401And407()
    {
        final UserRealm users = DigestAuthenticatorTest.users("alice:plain:Circle Of Life:caller\n");
        final DigestAuthenticator server = new DigestAuthenticator("sip.example.com", users,
            DigestAuthenticator.Settings.DEFAULTS, () -> nowMs, new SecureRandom());
        final DigestClient client = new DigestClient();
        for (final int status : new int[] {401, 407})
        {
            final AuthInfoImpl info = new AuthInfoImpl();
            info.addAuthInfo(status, "sip.example.com", "alice", "Circle Of Life");
            final List<String> challenges = server.challenges(false);
            final List<String> answer = client.answer(status, challenges, "INVITE", URI, info);
            assertEquals(1, answer.size());
            assertEquals("SHA-256", AuthParams.parse(answer.getFirst()).get("algorithm"));
            final AuthResult result = server.authenticate("INVITE", URI, answer);
            assertEquals(Outcome.OK, result.outcome(), result.reason());
            assertEquals("alice", result.principal().getName());

            // The next request on the same nonce counts up and passes; the same answer again is a replay.
            final List<String> next = client.answer(status, challenges, "BYE", URI, info);
            assertEquals("00000002", AuthParams.parse(next.getFirst()).get("nc"));
            assertEquals(Outcome.OK, server.authenticate("BYE", URI, next).outcome());
            assertEquals(Outcome.REPLAY, server.authenticate("BYE", URI, next).outcome());

            final AuthInfoImpl wrong = new AuthInfoImpl();
            wrong.addAuthInfo(status, "sip.example.com", "alice", "circle of life");
            assertEquals(Outcome.BAD_CREDENTIALS, server.authenticate("INVITE", URI,
                client.answer(status, server.challenges(false), "INVITE", URI, wrong)).outcome());
        }
        final DigestAuthenticator md5Only = new DigestAuthenticator("sip.example.com", users,
            DigestAuthenticator.Settings.DEFAULTS.withAlgorithms(List.of(DigestAlgorithm.MD5)), () -> nowMs,
            new SecureRandom());
        final List<String> answer = client.answer(401, md5Only.challenges(false), "MESSAGE", URI,
            CredentialSource.of("alice", "Circle Of Life"));
        assertEquals("MD5", AuthParams.parse(answer.getFirst()).get("algorithm"));
        assertEquals(Outcome.OK, md5Only.authenticate("MESSAGE", URI, answer).outcome());
    }

    @Test
    void shouldRefuseAuthInfoForOtherStatusesAndNamesTheHeaders()
    {
        final AuthInfoImpl info = new AuthInfoImpl();
        assertThrows(IllegalArgumentException.class, () -> info.addAuthInfo(403, "r", "u", "p"));
        assertThrows(IllegalArgumentException.class, () -> info.addAuthInfo(401, null, "u", "p"));
        info.addAuthInfo(401, "r", "u", "p");
        assertEquals(new Credentials("u", "p"), info.credentials(401, "r"));
        assertNull(info.credentials(407, "r"));
        assertNull(info.credentials(401, "R"));
        assertTrue(!info.toString().contains("p]") && !new Credentials("u", "secret").toString().contains("secret"));
        assertEquals("Authorization", DigestClient.credentialsHeader(401));
        assertEquals("Proxy-Authorization", DigestClient.credentialsHeader(407));
        assertEquals("WWW-Authenticate", DigestClient.challengeHeader(401));
        assertEquals("Proxy-Authenticate", DigestClient.challengeHeader(407));
        assertThrows(IllegalArgumentException.class, () -> DigestClient.credentialsHeader(200));
    }
}
