package io.sipline.container.security;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import io.sipline.container.deploy.DeploymentException;
import io.sipline.container.deploy.LoginConfig;
import io.sipline.container.deploy.SecurityConstraint;
import io.sipline.container.deploy.SipApplicationDescriptor;

/**
 * The declarative security of one application (JSR 289, Security: {@code security-constraint},
 * {@code login-config}, {@code security-role} in {@code sip.xml}): answers, for a request to a servlet, whether it
 * needs authentication, with {@code 401} or {@code 407}, and which roles may pass. The rules are on
 * {@link #requirement} (constraints, roles, ACK and CANCEL never challenged) and {@link #from} (only DIGEST).
 * The requirement of every named (servlet, method) is computed once at deployment; a lookup is two hash lookups.
 * <p>
 * Threading: immutable once built; shared by every shard.
 */
public final class SecurityPolicy
{
    /** The role name meaning "every role declared with security-role". */
    public static final String ALL_DECLARED_ROLES = "*";
    /** The role name meaning "any authenticated user" (Servlet 3.1). */
    public static final String ANY_AUTHENTICATED_USER = "**";

    /** The marker of "no authentication" in the tables (declared before {@link #NONE}, which uses it). */
    private static final Requirement UNPROTECTED = new Requirement(ChallengeKind.WWW, Set.of(), false);

    /** A policy that protects nothing. */
    public static final SecurityPolicy NONE = new SecurityPolicy("sipline", Map.of(), MethodTable.EMPTY);

    private final String realm;
    private final Map<String, MethodTable> servlets;
    private final MethodTable otherServlets;

    private SecurityPolicy(final String realm, final Map<String, MethodTable> servlets, final MethodTable other)
    {
        this.realm = realm;
        this.servlets = servlets;
        this.otherServlets = other;
    }

    /**
     * The policy of an application. {@code login-config}: {@code auth-method} absent or {@code DIGEST}; {@code BASIC}
     * is refused (RFC 3261 §22: servers "MUST NOT accept credentials using the Basic authorization scheme") and
     * {@code CLIENT-CERT} too (no TLS client certificates in this version). The realm is {@code realm-name}, else the
     * application name.
     *
     * @param descriptor the application's deployment model.
     * @return its policy.
     * @throws DeploymentException when {@code login-config} asks for an authentication method other than DIGEST.
     */
    public static SecurityPolicy from(final SipApplicationDescriptor descriptor) throws DeploymentException
    {
        final LoginConfig login = descriptor.loginConfig();
        if (null != login && null != login.authMethod())
        {
            final String method = login.authMethod().strip().toUpperCase(Locale.ROOT);
            switch (method)
            {
                case "DIGEST":
                    break;
                case "BASIC":
                    throw new DeploymentException(descriptor.source(), login.line(),
                        "auth-method BASIC is not allowed for SIP (RFC 3261 §22); use DIGEST");
                case "CLIENT-CERT":
                    throw new DeploymentException(descriptor.source(), login.line(),
                        "auth-method CLIENT-CERT is not supported (no TLS client certificates); use DIGEST");
                default:
                    throw new DeploymentException(descriptor.source(), login.line(),
                        "unknown auth-method '" + login.authMethod() + "'; use DIGEST");
            }
        }
        String realm = null == login ? null : login.realmName();
        if (null == realm || realm.isBlank())
        {
            realm = null == descriptor.appName() || descriptor.appName().isBlank() ? "sipline" : descriptor.appName();
        }
        final List<SecurityConstraint> constraints = descriptor.securityConstraints();
        final Set<String> declaredRoles = Set.copyOf(descriptor.securityRoles());
        final Set<String> names = new TreeSet<>(descriptor.servlets().keySet());
        for (final SecurityConstraint constraint : constraints)
        {
            for (final SecurityConstraint.ResourceCollection collection : constraint.resourceCollections())
            {
                names.addAll(collection.servletNames());
            }
        }
        final Map<String, MethodTable> servlets = new HashMap<>();
        for (final String name : names)
        {
            servlets.put(name, MethodTable.build(constraints, name, declaredRoles));
        }
        return new SecurityPolicy(realm.strip(), Map.copyOf(servlets),
            MethodTable.build(constraints, null, declaredRoles));
    }

    /**
     * @return the realm of challenges and credentials.
     */
    public String realm()
    {
        return realm;
    }

    /**
     * @return whether no request ever needs authentication.
     */
    public boolean protectsNothing()
    {
        if (!otherServlets.isEmpty())
        {
            return false;
        }
        for (final MethodTable table : servlets.values())
        {
            if (!table.isEmpty())
            {
                return false;
            }
        }
        return true;
    }

    /**
     * What a request to a servlet needs, computed once at deployment for every named (servlet, method); a lookup is
     * two hash lookups. The rules:
     * <ul>
     *   <li>A {@code resource-collection} covers the servlets it names (all servlets when it names none) and the
     *       SIP methods it names (all methods when it names none); method names are case-sensitive (RFC 3261
     *       §7.1).</li>
     *   <li>The constraints covering a (servlet, method) combine as in the Servlet specification (§13.8.1): their
     *       roles add up; a covering constraint without {@code auth-constraint} roles leaves the request
     *       unauthenticated (the deployment model does not tell an absent {@code auth-constraint} from an empty one,
     *       so the "deny all" of an empty one is not available); {@code *} stands for every role of
     *       {@code security-role}; {@code **} for any authenticated user.</li>
     *   <li>{@code <proxy-authentication/>} in any covering constraint makes the challenge a {@code 407}
     *       ({@link ChallengeKind#PROXY}), else {@code 401}.</li>
     *   <li>{@code ACK} and {@code CANCEL} are never challenged (RFC 3261 §22.1: they cannot be resubmitted with
     *       credentials).</li>
     * </ul>
     *
     * @param servletName the servlet the request goes to.
     * @param method      the request method.
     * @return what the request needs, or {@code null} when it needs no authentication.
     */
    public Requirement requirement(final String servletName, final String method)
    {
        if ("ACK".equals(method) || "CANCEL".equals(method))
        {
            return null;
        }
        final MethodTable table =
            null == servletName ? otherServlets : servlets.getOrDefault(servletName, otherServlets);
        final Requirement requirement = table.lookup(method);
        return UNPROTECTED == requirement ? null : requirement;
    }

    /**
     * @param requirement what the request needs.
     * @param principal   the authenticated user, or {@code null}.
     * @return whether the user may pass (else {@code 403 Forbidden}).
     */
    public static boolean permits(final Requirement requirement, final SipPrincipal principal)
    {
        if (null == principal)
        {
            return false;
        }
        if (requirement.anyAuthenticatedUser())
        {
            return true;
        }
        for (final String role : requirement.roles())
        {
            if (principal.isInRole(role))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * What a protected request needs.
     * <p>
     * Threading: an immutable record.
     *
     * @param kind                  401 ({@link ChallengeKind#WWW}) or 407 ({@link ChallengeKind#PROXY}).
     * @param roles                 the roles that may pass ({@code *} expanded).
     * @param anyAuthenticatedUser  whether any authenticated user may pass ({@code **}).
     */
    public record Requirement(ChallengeKind kind, Set<String> roles, boolean anyAuthenticatedUser)
    {
        /** Checks and freezes the parts. */
        public Requirement
        {
            Objects.requireNonNull(kind, "kind");
            roles = Set.copyOf(roles);
        }
    }

    /** The requirements of one servlet: per method named by a covering collection, and for the other methods. */
    private record MethodTable(Map<String, Requirement> byMethod, Requirement otherMethods)
    {
        static final MethodTable EMPTY = new MethodTable(Map.of(), UNPROTECTED);

        Requirement lookup(final String method)
        {
            final Requirement requirement = null == method ? null : byMethod.get(method);
            return null == requirement ? otherMethods : requirement;
        }

        boolean isEmpty()
        {
            return UNPROTECTED == otherMethods && byMethod.values().stream().allMatch(r -> UNPROTECTED == r);
        }

        /**
         * @param servlet a servlet name, or {@code null} for servlets no collection names.
         */
        static MethodTable build(final List<SecurityConstraint> constraints, final String servlet,
            final Set<String> declaredRoles)
        {
            final Set<String> methods = new LinkedHashSet<>();
            for (final SecurityConstraint constraint : constraints)
            {
                for (final SecurityConstraint.ResourceCollection collection : constraint.resourceCollections())
                {
                    if (coversServlet(collection, servlet))
                    {
                        methods.addAll(collection.sipMethods());
                    }
                }
            }
            final Map<String, Requirement> byMethod = new HashMap<>();
            for (final String method : methods)
            {
                byMethod.put(method, combine(constraints, servlet, method, declaredRoles));
            }
            return new MethodTable(Map.copyOf(byMethod), combine(constraints, servlet, null, declaredRoles));
        }

        private static boolean coversServlet(final SecurityConstraint.ResourceCollection collection,
            final String servlet)
        {
            return collection.servletNames().isEmpty() ||
                (null != servlet && collection.servletNames().contains(servlet));
        }

        /**
         * @param method a method named by some collection, or {@code null} for a method no collection names.
         */
        private static Requirement combine(final List<SecurityConstraint> constraints, final String servlet,
            final String method, final Set<String> declaredRoles)
        {
            final List<SecurityConstraint> covering = new ArrayList<>();
            for (final SecurityConstraint constraint : constraints)
            {
                for (final SecurityConstraint.ResourceCollection collection : constraint.resourceCollections())
                {
                    if (coversServlet(collection, servlet) &&
                        (collection.sipMethods().isEmpty() ||
                            (null != method && collection.sipMethods().contains(method))))
                    {
                        covering.add(constraint);
                        break;
                    }
                }
            }
            if (covering.isEmpty())
            {
                return UNPROTECTED;
            }
            final Set<String> roles = new TreeSet<>();
            boolean proxy = false;
            boolean anyUser = false;
            for (final SecurityConstraint constraint : covering)
            {
                if (constraint.roleNames().isEmpty())
                {
                    return UNPROTECTED;
                }
                proxy |= constraint.proxyAuthentication();
                for (final String role : constraint.roleNames())
                {
                    switch (role)
                    {
                        case ALL_DECLARED_ROLES -> roles.addAll(declaredRoles);
                        case ANY_AUTHENTICATED_USER -> anyUser = true;
                        default -> roles.add(role);
                    }
                }
            }
            return new Requirement(proxy ? ChallengeKind.PROXY : ChallengeKind.WWW, roles, anyUser);
        }
    }
}
