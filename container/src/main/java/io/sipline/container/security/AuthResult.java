package io.sipline.container.security;

import java.util.Objects;

/**
 * What {@link DigestAuthenticator#authenticate} found. Bad input is a result, never an exception.
 * <p>
 * How to answer each (RFC 3261 §22.2/§22.3, RFC 2617 §3.2.1/§3.2.2.5):
 * <ul>
 *   <li>{@link Outcome#OK}: authenticated as {@link #principal()};</li>
 *   <li>{@link Outcome#MISSING}, {@link Outcome#BAD_CREDENTIALS}: challenge ({@code stale=false});</li>
 *   <li>{@link Outcome#STALE}, {@link Outcome#REPLAY}: challenge with {@code stale=true} (the digest was right, the
 *       nonce or its count is not: the client retries with a new nonce without asking its user again);</li>
 *   <li>{@link Outcome#MALFORMED}: {@code 400 Bad Request}; {@link #reason()} may go in the reason phrase.</li>
 * </ul>
 * The {@link #reason()} of the other outcomes is for logs, not for the wire (it may say "unknown user").
 * <p>
 * Threading: an immutable record.
 *
 * @param outcome   what happened.
 * @param principal the authenticated user with {@link Outcome#OK}, else {@code null}.
 * @param reason    a short explanation, never {@code null}.
 */
public record AuthResult(Outcome outcome, SipPrincipal principal, String reason)
{
    /** The kinds of result. */
    public enum Outcome
    {
        /** Credentials verified, nonce fresh, count new. */
        OK,
        /** No credentials for this realm. */
        MISSING,
        /** The digest was right but the nonce expired, is not ours (e.g. before a restart) or was forgotten. */
        STALE,
        /** Wrong password or unknown user. */
        BAD_CREDENTIALS,
        /** The nonce count was used before: a replayed request. */
        REPLAY,
        /** Credentials for this realm that cannot be checked (syntax, missing parameter, uri mismatch...). */
        MALFORMED
    }

    /** Checks the parts. */
    public AuthResult
    {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(reason, "reason");
        if ((Outcome.OK == outcome) != (null != principal))
        {
            throw new IllegalArgumentException("a principal comes with OK and only with OK");
        }
    }

    /**
     * @param principal the authenticated user.
     * @return an {@link Outcome#OK} result.
     */
    static AuthResult ok(final SipPrincipal principal)
    {
        return new AuthResult(Outcome.OK, principal, "authenticated");
    }

    /**
     * @param outcome any outcome but {@link Outcome#OK}.
     * @param reason  why.
     * @return the result.
     */
    static AuthResult failed(final Outcome outcome, final String reason)
    {
        return new AuthResult(outcome, null, reason);
    }

    /**
     * @return whether the request is authenticated.
     */
    public boolean isOk()
    {
        return Outcome.OK == outcome;
    }
}
