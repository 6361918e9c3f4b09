package io.sipline.container.security;

/**
 * Where {@link DigestClient} finds the credentials for a challenge: an {@link AuthInfoImpl}, or one user name and
 * password for every realm ({@code SipServletRequest.addAuthHeader(response, username, password)}).
 * <p>
 * Threading: as the implementation says; {@link DigestClient} calls it on the caller's thread.
 */
@FunctionalInterface
public interface CredentialSource
{
    /**
     * @param status the challenge's status (401 or 407).
     * @param realm  the challenge's realm.
     * @return the credentials for it, or {@code null} when there are none.
     */
    Credentials credentials(int status, String realm);

    /**
     * @param username the user name.
     * @param password the password.
     * @return a source answering every realm with these.
     */
    static CredentialSource of(final String username, final String password)
    {
        final Credentials credentials = new Credentials(username, password);
        return (status, realm) -> credentials;
    }
}
