package io.sipline.container.deploy;

import java.util.List;

/**
 * A {@code <security-constraint>} (JSR 289 §20), kept as a model only: enforcement comes with digest
 * authentication.
 * <p>
 * Threading: an immutable record.
 *
 * @param displayName         the display name, or {@code null}.
 * @param resourceCollections the protected resources.
 * @param proxyAuthentication whether {@code <proxy-authentication/>} is present (407 instead of 401).
 * @param roleNames           the roles of {@code <auth-constraint>}; empty when there is none.
 * @param transportGuarantee  {@code NONE}, {@code INTEGRAL}, {@code CONFIDENTIAL}, or {@code null}.
 * @param line                the line of the element.
 */
public record SecurityConstraint(
    String displayName,
    List<ResourceCollection> resourceCollections,
    boolean proxyAuthentication,
    List<String> roleNames,
    String transportGuarantee,
    int line)
{
    /** Freezes the lists. */
    public SecurityConstraint
    {
        resourceCollections = List.copyOf(resourceCollections);
        roleNames = List.copyOf(roleNames);
    }

    /**
     * A {@code <resource-collection>}.
     *
     * @param name         the {@code resource-name}/{@code web-resource-name}, or {@code null}.
     * @param servletNames the protected servlets.
     * @param sipMethods   the protected methods; empty means all.
     */
    public record ResourceCollection(String name, List<String> servletNames, List<String> sipMethods)
    {
        /** Freezes the lists. */
        public ResourceCollection
        {
            servletNames = List.copyOf(servletNames);
            sipMethods = List.copyOf(sipMethods);
        }
    }
}
