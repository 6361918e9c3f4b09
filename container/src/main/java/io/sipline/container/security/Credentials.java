package io.sipline.container.security;

import java.util.Objects;

/**
 * A user name and password a UAC answers a challenge with.
 * <p>
 * Threading: an immutable record.
 *
 * @param username the user name.
 * @param password the password.
 */
public record Credentials(String username, String password)
{
    /** Checks the parts. */
    public Credentials
    {
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(password, "password");
    }

    /** Keeps the password out of logs. */
    @Override
    public String toString()
    {
        return "Credentials[username=" + username + "]";
    }
}
