package io.sipline.container.security;

import java.security.SecureRandom;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import io.sipline.container.deploy.DeploymentException;
import io.sipline.container.deploy.SipApplicationDescriptor;

/**
 * Authentication and authorization of one application's requests: its {@link SecurityPolicy} and, when anything
 * is protected, a {@link DigestAuthenticator} for the policy's realm. One call per request gives a {@link Verdict}:
 * go on to the servlet (with the authenticated user, if any) or answer with a status and headers.
 *
 * <p>How dispatch uses this: once at start, {@link UserRealm#load} for the users-file flag ({@link UserRealm#empty()}
 * without it; a {@link UsersFileException} message is the error line to print); once per deployed application,
 * {@link #create} (a {@link DeploymentException} refuses the application: auth method other than DIGEST); for each
 * request, {@code Verdict v = security.check(servletName, request.getMethod(), requestUriText,
 * name -> headerValues(request, name))} after the servlet is selected, then as {@link #check} says. The UAC side
 * ({@code AuthInfo}, {@code addAuthHeader}) is {@link DigestClient} and {@link AuthInfoImpl}.
 * <p>
 * Threading: thread-safe; one per application, shared by every shard.
 */
public final class ApplicationSecurity
{
    private final SecurityPolicy policy;
    private final DigestAuthenticator authenticator;

    /**
     * @param policy        the policy.
     * @param authenticator the authenticator for {@code policy.realm()}, or {@code null} when the policy protects
     *                      nothing.
     */
    public ApplicationSecurity(final SecurityPolicy policy, final DigestAuthenticator authenticator)
    {
        this.policy = Objects.requireNonNull(policy, "policy");
        if (null == authenticator && !policy.protectsNothing())
        {
            throw new IllegalArgumentException("a policy that protects requests needs an authenticator");
        }
        if (null != authenticator && !authenticator.realm().equals(policy.realm()))
        {
            throw new IllegalArgumentException("the authenticator's realm differs from the policy's");
        }
        this.authenticator = authenticator;
    }

    /**
     * Once per deployed application, with the users of {@link UserRealm#load} (or {@link UserRealm#empty()}).
     *
     * @param descriptor the application's deployment model.
     * @param users      the users.
     * @param settings   the digest settings.
     * @return the application's security, with the system clock.
     * @throws DeploymentException when {@code login-config} asks for another method than DIGEST.
     */
    public static ApplicationSecurity create(
        final SipApplicationDescriptor descriptor,
        final UserRealm users,
        final DigestAuthenticator.Settings settings) throws DeploymentException
    {
        final SecurityPolicy policy = SecurityPolicy.from(descriptor);
        final DigestAuthenticator authenticator = policy.protectsNothing() ? null :
            new DigestAuthenticator(policy.realm(), users, settings, System::currentTimeMillis, new SecureRandom());
        return new ApplicationSecurity(policy, authenticator);
    }

    /**
     * @return the policy.
     */
    public SecurityPolicy policy()
    {
        return policy;
    }

    /** Whether any constraint covers {@code method} on {@code servletName} (else {@link #check} is anonymous). */
    public boolean guards(final String servletName, final String method)
    {
        return null != policy.requirement(servletName, method);
    }

    /**
     * The verdict of the security constraints on one request, asked for after the servlet is selected and before it
     * runs; headers are read only when the request is protected.
     * <ul>
     *   <li>If {@code !v.proceed()}: send {@code createResponse(v.status(), v.reasonPhrase())} with each of
     *       {@code v.headerValues()} added under {@code v.headerName()} (for 401/407), and do not call the servlet.
     *   <li>Else attach {@code v.principal()} (may be {@code null}) to the request: {@code getUserPrincipal()}
     *       returns it, {@code getRemoteUser()} its {@code getName()}, {@code isUserInRole(role)} is
     *       {@code principal != null && principal.isInRole(role)}. ACK and CANCEL are never challenged; dispatch may
     *       give them the principal of their INVITE's transaction.
     * </ul>
     *
     * @param servletName  the servlet selected for the request.
     * @param method       the request method.
     * @param requestUri   the Request-URI exactly as in the start line.
     * @param headerValues every value of a header by name (an empty list when absent); called at most once.
     * @return what to do; never throws for any request content.
     */
    public Verdict check(
        final String servletName,
        final String method,
        final String requestUri,
        final Function<String, List<String>> headerValues)
    {
        final SecurityPolicy.Requirement requirement = policy.requirement(servletName, method);
        if (null == requirement)
        {
            return Verdict.ANONYMOUS;
        }
        final ChallengeKind kind = requirement.kind();
        final AuthResult result = authenticator.authenticate(method, requestUri,
            headerValues.apply(kind.credentialsHeader()));
        return switch (result.outcome())
        {
            case OK -> SecurityPolicy.permits(requirement, result.principal()) ?
                new Verdict(Verdict.PROCEED, null, null, List.of(), result.principal(), result.reason()) :
                new Verdict(403, "Forbidden", null, List.of(), null,
                    "user " + result.principal().getName() + " has none of the roles " + requirement.roles());
            case MISSING, BAD_CREDENTIALS -> challenge(kind, false, result);
            case STALE, REPLAY -> challenge(kind, true, result);
            case MALFORMED -> new Verdict(400, "Bad Request (" + result.reason() + ")", null, List.of(), null,
                result.reason());
        };
    }

    private Verdict challenge(final ChallengeKind kind, final boolean stale, final AuthResult result)
    {
        return new Verdict(kind.status(), kind.reasonPhrase(), kind.challengeHeader(),
            authenticator.challenges(stale), null, result.outcome() + ": " + result.reason());
    }

    /**
     * What to do with a request.
     * <p>
     * Threading: an immutable record.
     *
     * @param status       {@link #PROCEED} to call the servlet, else the response status (400, 401, 403, 407).
     * @param reasonPhrase the response's reason phrase, or {@code null} with {@link #PROCEED}.
     * @param headerName   the challenge header ({@code WWW-Authenticate}, {@code Proxy-Authenticate}), or
     *                     {@code null}.
     * @param headerValues the challenge values, in order; empty without a challenge.
     * @param principal    the authenticated user when proceeding after authentication, else {@code null}.
     * @param detail       what happened, for logs (not for the wire).
     */
    public record Verdict(
        int status,
        String reasonPhrase,
        String headerName,
        List<String> headerValues,
        SipPrincipal principal,
        String detail)
    {
        /** The status value meaning "call the servlet". */
        public static final int PROCEED = 0;

        /** Proceed without authentication (the request is not protected). */
        static final Verdict ANONYMOUS = new Verdict(PROCEED, null, null, List.of(), null, "not protected");

        /** Freezes the values. */
        public Verdict
        {
            headerValues = List.copyOf(headerValues);
        }

        /**
         * @return whether to call the servlet.
         */
        public boolean proceed()
        {
            return PROCEED == status;
        }
    }
}
