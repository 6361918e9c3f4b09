package io.sipline.container.security;

import java.security.Principal;
import java.util.Set;

/**
 * The authenticated user of a request: what {@code SipServletMessage.getUserPrincipal()} returns,
 * {@code getRemoteUser()} is its {@link #getName()}, and {@code isUserInRole(role)} is {@link #isInRole(String)}
 * (JSR 289, Security: the programmatic security methods).
 * <p>
 * Threading: an immutable record, shared freely.
 *
 * @param name  the digest user name.
 * @param realm the realm the user authenticated in.
 * @param roles the user's roles from the users file.
 */
public record SipPrincipal(String name, String realm, Set<String> roles) implements Principal
{
    /** Freezes the roles. */
    public SipPrincipal
    {
        roles = Set.copyOf(roles);
    }

    @Override
    public String getName()
    {
        return name;
    }

    /**
     * @param role a role name.
     * @return whether the user has it.
     */
    public boolean isInRole(final String role)
    {
        return null != role && roles.contains(role);
    }
}
