package io.sipline.container.naming;

import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * One {@code env-entry} of a deployment descriptor (Servlet 3.1 §15.5.3, Java EE 5 §EE.5.4, borrowed by the sip.xml
 * schema of JSR 289 §19): a name relative to {@code java:comp/env}, its type and its value, converted from the
 * descriptor's text when the entry is declared ({@link #of}).
 * <p>
 * Types: {@code java.lang.String} and the boxed primitives ({@code Boolean}, {@code Byte}, {@code Character},
 * {@code Short}, {@code Integer}, {@code Long}, {@code Float}, {@code Double}); the short names ({@code Integer}) are
 * accepted too. An entry declared without a value is not bound, and a {@code @Resource} naming it is left alone, as
 * Java EE says.
 * <p>
 * Threading: immutable.
 *
 * @param name  the name relative to {@code java:comp/env}, e.g. {@code maxCalls} or {@code limits/maxCalls}.
 * @param type  the value's class.
 * @param value the value, or {@code null} when the descriptor gives none.
 */
public record EnvEntry(String name, Class<?> type, Object value)
{
    private static final Map<String, Class<?>> TYPES = Map.of(
        "String", String.class, "Boolean", Boolean.class, "Byte", Byte.class, "Character", Character.class,
        "Short", Short.class, "Integer", Integer.class, "Long", Long.class, "Float", Float.class,
        "Double", Double.class);

    private static final Map<Class<?>, Function<String, Object>> PARSERS = Map.of(
        String.class, text -> text,
        Boolean.class, EnvEntry::parseBoolean,
        Byte.class, Byte::valueOf,
        Character.class, EnvEntry::parseCharacter,
        Short.class, Short::valueOf,
        Integer.class, Integer::valueOf,
        Long.class, Long::valueOf,
        Float.class, Float::valueOf,
        Double.class, Double::valueOf);

    /** Checks the parts. */
    public EnvEntry
    {
        name = NamingBindings.normalize(Objects.requireNonNull(name, "name"));
        if (name.isEmpty())
        {
            throw new IllegalArgumentException("env-entry-name is empty");
        }
        Objects.requireNonNull(type, "type");
        if (null != value && !type.isInstance(value))
        {
            throw new IllegalArgumentException("value " + value + " is not a " + type.getName());
        }
    }

    /**
     * @param name     {@code env-entry-name}, relative to {@code java:comp/env} (a {@code java:comp/env/} prefix is
     *                 dropped).
     * @param typeName {@code env-entry-type}, or {@code null} for {@code java.lang.String}.
     * @param text     {@code env-entry-value}, or {@code null} when the descriptor gives none.
     * @return the entry with its value converted.
     * @throws IllegalArgumentException with a one-line reason when the type is not supported or the text does not
     *                                  convert, e.g. {@code env-entry 'maxCalls': 'ten' is not a java.lang.Integer}.
     */
    public static EnvEntry of(final String name, final String typeName, final String text)
    {
        final Class<?> type = type(name, typeName);
        if (null == text)
        {
            return new EnvEntry(name, type, null);
        }
        final String value = String.class == type ? text : text.strip();
        try
        {
            return new EnvEntry(name, type, PARSERS.get(type).apply(value));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(
                "env-entry '" + name + "': '" + text + "' is not a " + type.getName(), ex);
        }
    }

    private static Class<?> type(final String name, final String typeName)
    {
        if (null == typeName || typeName.isBlank())
        {
            return String.class;
        }
        final String trimmed = typeName.strip();
        final String simple = trimmed.startsWith("java.lang.") ? trimmed.substring("java.lang.".length()) : trimmed;
        final Class<?> type = TYPES.get(simple);
        if (null == type)
        {
            throw new IllegalArgumentException("env-entry '" + name + "': type " + trimmed
                + " is not supported (java.lang.String or a boxed primitive such as java.lang.Integer)");
        }
        return type;
    }

    private static Object parseBoolean(final String text)
    {
        if ("true".equalsIgnoreCase(text) || "false".equalsIgnoreCase(text))
        {
            return Boolean.valueOf(text);
        }
        throw new IllegalArgumentException("not true or false");
    }

    private static Object parseCharacter(final String text)
    {
        if (1 != text.length())
        {
            throw new IllegalArgumentException("not one character");
        }
        return text.charAt(0);
    }
}
