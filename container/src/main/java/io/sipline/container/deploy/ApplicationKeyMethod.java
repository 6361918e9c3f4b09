package io.sipline.container.deploy;

import java.util.Objects;

/**
 * The {@code @SipApplicationKey} method of an application (JSR 289 §15.11.2): a {@code public static} method taking
 * a {@code SipServletRequest} and returning a {@code String}; at most one per application.
 * <p>
 * Threading: an immutable record.
 *
 * @param className  the declaring class.
 * @param methodName the method's name.
 */
public record ApplicationKeyMethod(String className, String methodName)
{
    /** Checks the parts. */
    public ApplicationKeyMethod
    {
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(methodName, "methodName");
    }
}
