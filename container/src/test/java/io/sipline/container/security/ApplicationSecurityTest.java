package io.sipline.container.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

class ApplicationSecurityTest
{
    private static final String URI = "sip:registrar@sip.example.com";

    private long nowMs = 1_700_000_000_000L;
    private final UserRealm users = DigestAuthenticatorTest.users(
        "alice:plain:pw:subscriber,caller\n" +
        "bob:plain:pw2:operator\n");
    private final SecurityPolicy policy = SecurityPolicyTest.policy(SecurityPolicyTest.APP);
    private final ApplicationSecurity security = new ApplicationSecurity(policy, new DigestAuthenticator(
        policy.realm(), users, DigestAuthenticator.Settings.DEFAULTS, () -> nowMs, new SecureRandom()));

    @Test
    void shouldLetUnprotectedRequestsThroughWithoutReadingHeaders()
    {
        final List<String> asked = new ArrayList<>();
        final ApplicationSecurity.Verdict verdict = security.check("open", "REGISTER", URI, name ->
        {
            asked.add(name);
            return List.of();
        });
        assertTrue(verdict.proceed());
        assertNull(verdict.principal());
        assertTrue(asked.isEmpty());
    }

    @Test
    void shouldChallengeWith401ThenAcceptTheRetry()
    {
        final ApplicationSecurity.Verdict challenge = security.check("registrar", "REGISTER", URI, headers(Map.of()));
        assertEquals(401, challenge.status());
        assertEquals("Unauthorized", challenge.reasonPhrase());
        assertEquals("WWW-Authenticate", challenge.headerName());
        assertEquals(2, challenge.headerValues().size());

        final String authorization = new DigestClient().answer(401, challenge.headerValues(), "REGISTER", URI,
            (status, realm) -> new Credentials("alice", "pw")).getFirst();
        final ApplicationSecurity.Verdict retry = security.check("registrar", "REGISTER", URI,
            headers(Map.of("Authorization", List.of(authorization))));
        assertTrue(retry.proceed(), retry.detail());
        assertEquals("alice", retry.principal().getName());
        assertTrue(retry.principal().isInRole("subscriber"));

        final ApplicationSecurity.Verdict replay = security.check("registrar", "REGISTER", URI,
            headers(Map.of("Authorization", List.of(authorization))));
        assertEquals(401, replay.status());
        assertTrue(replay.headerValues().getFirst().endsWith("stale=true"), replay.headerValues().getFirst());
    }

    @Test
    void shouldChallengeWith407AndReadProxyAuthorization()
    {
        final ApplicationSecurity.Verdict challenge = security.check("proxy", "INVITE", URI, headers(Map.of()));
        assertEquals(407, challenge.status());
        assertEquals("Proxy-Authenticate", challenge.headerName());
        final String credentials = new DigestClient().answer(407, challenge.headerValues(), "INVITE", URI,
            (status, realm) -> new Credentials("alice", "pw")).getFirst();

        final ApplicationSecurity.Verdict wrongHeader = security.check("proxy", "INVITE", URI,
            headers(Map.of("Authorization", List.of(credentials))));
        assertEquals(407, wrongHeader.status());
        final ApplicationSecurity.Verdict retry = security.check("proxy", "INVITE", URI,
            headers(Map.of("Proxy-Authorization", List.of(credentials))));
        assertTrue(retry.proceed(), retry.detail());
    }

    @Test
    void shouldForbidAnAuthenticatedUserWithoutTheRole()
    {
        final ApplicationSecurity.Verdict challenge = security.check("registrar", "REGISTER", URI, headers(Map.of()));
        final String credentials = new DigestClient().answer(401, challenge.headerValues(), "REGISTER", URI,
            (status, realm) -> new Credentials("bob", "pw2")).getFirst();
        final ApplicationSecurity.Verdict verdict = security.check("registrar", "REGISTER", URI,
            headers(Map.of("Authorization", List.of(credentials))));
        assertEquals(403, verdict.status());
        assertNull(verdict.headerName());
        assertTrue(verdict.headerValues().isEmpty());
        assertTrue(verdict.detail().contains("bob"), verdict.detail());
    }

    @Test
    void shouldAnswerBadRequestToMalformedCredentialsAndChallengeWrongOnes()
    {
        final ApplicationSecurity.Verdict malformed = security.check("registrar", "REGISTER", URI,
            headers(Map.of("Authorization", List.of("Digest username=\"alice\", realm=\"sip.example.com\""))));
        assertEquals(400, malformed.status());
        assertTrue(malformed.reasonPhrase().startsWith("Bad Request ("), malformed.reasonPhrase());
        assertFalse(malformed.reasonPhrase().contains("\r") || malformed.reasonPhrase().contains("\n"));

        final ApplicationSecurity.Verdict challenge = security.check("registrar", "REGISTER", URI, headers(Map.of()));
        final String wrong = new DigestClient().answer(401, challenge.headerValues(), "REGISTER", URI,
            (status, realm) -> new Credentials("alice", "nope")).getFirst();
        final ApplicationSecurity.Verdict refused = security.check("registrar", "REGISTER", URI,
            headers(Map.of("Authorization", List.of(wrong))));
        assertEquals(401, refused.status());
        assertFalse(refused.headerValues().getFirst().contains("stale"));
    }

    @Test
    void shouldBuildFromTheDescriptorAndNeedAnAuthenticatorOnlyWhenSomethingIsProtected() throws Exception
    {
        final ApplicationSecurity built = ApplicationSecurity.create(SecurityPolicyTest.parse(SecurityPolicyTest.APP),
            users, DigestAuthenticator.Settings.DEFAULTS);
        assertEquals(401, built.check("registrar", "REGISTER", URI, headers(Map.of())).status());
        final ApplicationSecurity open = ApplicationSecurity.create(
            SecurityPolicyTest.parse(SecurityPolicyTest.app("", "")), users, DigestAuthenticator.Settings.DEFAULTS);
        assertTrue(open.check("s", "INVITE", URI, headers(Map.of())).proceed());
        assertThrows(IllegalArgumentException.class, () -> new ApplicationSecurity(policy, null));
        assertThrows(IllegalArgumentException.class, () -> new ApplicationSecurity(policy,
            DigestAuthenticator.create("other.realm", users)));
    }

    private static Function<String, List<String>> headers(final Map<String, List<String>> byName)
    {
        final Map<String, List<String>> copy = new HashMap<>(byName);
        return name -> copy.getOrDefault(name, List.of());
    }
}
