package io.sipline.container.deploy;

import java.util.Objects;

/**
 * One listener class of an application, from {@code <listener>} or {@code @SipListener}. Which listener interfaces
 * it implements is found when the class is loaded (JSR 289 §10.2, later step).
 * <p>
 * Threading: an immutable record.
 *
 * @param className   the fully qualified class name.
 * @param description the description, or {@code null}.
 * @param origin      where the listener was declared.
 * @param source      the file or class that declared it.
 * @param line        the line in {@code source}, or {@link DeploymentException#NO_LINE}.
 */
public record ListenerDefinition(String className, String description, DescriptorOrigin origin, String source, int line)
{
    /** Checks the mandatory parts. */
    public ListenerDefinition
    {
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(origin, "origin");
    }
}
