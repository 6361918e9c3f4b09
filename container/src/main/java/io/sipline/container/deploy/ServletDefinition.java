package io.sipline.container.deploy;

import java.util.Map;
import java.util.Objects;

/**
 * One SIP servlet of an application, from a {@code <servlet>} element or a {@code @SipServlet} annotation.
 * <p>
 * Threading: an immutable record.
 *
 * @param name          the servlet name, unique in the application.
 * @param className     the fully qualified class name (binary name, with {@code $} for nested classes).
 * @param displayName   the display name, or {@code null}.
 * @param description   the description, or {@code null}.
 * @param initParams    the init parameters, in declaration order.
 * @param loadOnStartup the {@code load-on-startup} value, or {@code null} when absent (a negative annotation value
 *                      also means absent, JSR 289 §18.2.2).
 * @param origin        where the servlet was declared.
 * @param source        the file or class that declared it (for error messages).
 * @param line          the line in {@code source}, or {@link DeploymentException#NO_LINE}.
 */
public record ServletDefinition(
    String name,
    String className,
    String displayName,
    String description,
    Map<String, String> initParams,
    Integer loadOnStartup,
    DescriptorOrigin origin,
    String source,
    int line)
{
    /** Checks the mandatory parts and freezes the parameters (keeping their order). */
    public ServletDefinition
    {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(origin, "origin");
        initParams = Descriptors.freeze(initParams);
    }
}
