package io.sipline.container.deploy;

import java.util.Objects;

/**
 * One {@code <servlet-mapping>}: the servlet that receives initial requests matching the rule (JSR 289 §16.3).
 * Mappings are tried in document order and the first match wins.
 * <p>
 * Threading: an immutable record.
 *
 * @param servletName the servlet's name.
 * @param rule        the compiled {@code <pattern>}.
 * @param line        the line of the {@code <servlet-mapping>} element.
 */
public record ServletMapping(String servletName, MappingRule rule, int line)
{
    /** Checks the parts. */
    public ServletMapping
    {
        Objects.requireNonNull(servletName, "servletName");
        Objects.requireNonNull(rule, "rule");
    }
}
