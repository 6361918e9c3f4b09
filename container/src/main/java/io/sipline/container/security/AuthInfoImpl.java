package io.sipline.container.security;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import javax.servlet.sip.AuthInfo;

/**
 * {@link AuthInfo} (JSR 289): the credentials an application gives for each (challenge status, realm), which
 * {@code SipServletRequest.addAuthHeader(response, authInfo)} answers a 401/407 with through {@link DigestClient}.
 * Made by {@code SipFactory.createAuthInfo()}.
 * <p>
 * Threading: thread-safe (a concurrent map); an application may fill it on one thread and use it on another.
 */
public final class AuthInfoImpl implements AuthInfo, CredentialSource
{
    private final Map<Key, Credentials> credentials = new ConcurrentHashMap<>();

    /**
     * @param statusCode 401 or 407: the status of the challenge these credentials answer.
     * @param realm      the realm of the challenge.
     * @param username   the user name.
     * @param password   the password.
     * @throws IllegalArgumentException when the status is not 401 or 407, or an argument is {@code null}.
     */
    @Override
    public void addAuthInfo(final int statusCode, final String realm, final String username, final String password)
    {
        if (null == ChallengeKind.forStatus(statusCode))
        {
            throw new IllegalArgumentException("status " + statusCode + " is not a challenge (401 or 407)");
        }
        if (null == realm || null == username || null == password)
        {
            throw new IllegalArgumentException("realm, username and password are required");
        }
        credentials.put(new Key(statusCode, realm), new Credentials(username, password));
    }

    @Override
    public Credentials credentials(final int status, final String realm)
    {
        return null == realm ? null : credentials.get(new Key(status, realm));
    }

    @Override
    public String toString()
    {
        return "AuthInfo" + credentials.keySet();
    }

    /** The lookup key. */
    private record Key(int status, String realm)
    {
        Key
        {
            Objects.requireNonNull(realm, "realm");
        }
    }
}
