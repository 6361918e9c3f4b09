/**
 * Authentication and authorization of SIP requests (JSR 289, Security; RFC 3261 §22; RFC 2617 with
 * {@code qop=auth}; RFC 8760 SHA-256).
 *
 * <ul>
 *   <li>Server side: {@link io.sipline.container.security.DigestAuthenticator} checks
 *       {@code Authorization}/{@code Proxy-Authorization} against a
 *       {@link io.sipline.container.security.UserRealm} (the users file) and makes the 401/407 challenges;
 *       results are {@link io.sipline.container.security.AuthResult}s, never exceptions.</li>
 *   <li>Authorization: {@link io.sipline.container.security.SecurityPolicy} reads {@code security-constraint},
 *       {@code login-config} and {@code security-role} of the deployment model;
 *       {@link io.sipline.container.security.SipPrincipal} is what {@code getUserPrincipal()} returns.</li>
 *   <li>{@link io.sipline.container.security.ApplicationSecurity} puts both together for dispatch: its javadoc,
 *       section "How dispatch uses this", lists the calls.</li>
 *   <li>Client side: {@link io.sipline.container.security.DigestClient} answers challenges for
 *       {@code addAuthHeader}, with credentials from an {@link io.sipline.container.security.AuthInfoImpl}.</li>
 * </ul>
 *
 * <p>Threading: everything here is immutable or thread-safe, one instance per application (server side) or per
 * container (client side), shared by every shard. Authentication allocates (hex strings, a few hashes) and runs only
 * for protected requests; it is not on the allocation-free path of unprotected traffic.
 */
package io.sipline.container.security;
