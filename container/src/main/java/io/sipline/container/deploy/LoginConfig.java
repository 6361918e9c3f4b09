package io.sipline.container.deploy;

/**
 * A {@code <login-config>} (JSR 289 §20), kept as a model only.
 * <p>
 * Threading: an immutable record.
 *
 * @param authMethod the authentication method ({@code DIGEST}, {@code BASIC}, {@code CLIENT-CERT}), or {@code null}.
 * @param realmName  the realm, or {@code null}.
 * @param line       the line of the element.
 */
public record LoginConfig(String authMethod, String realmName, int line)
{
}
