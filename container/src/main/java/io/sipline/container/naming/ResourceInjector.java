package io.sipline.container.naming;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.Deque;

import javax.annotation.Resource;

/**
 * Injects {@code @Resource} fields and setters of one instance (a servlet or a listener) from its application's
 * {@link NamingBindings}, before the container calls it (JSR 289 §18 on the Java EE model of Servlet 3.1 §15.5):
 * fields and methods of any visibility, static or not, of the class and its superclasses, superclasses first.
 * <p>
 * Which value: the name is {@code lookup}, else {@code mappedName}, else {@code name} of the annotation, relative to
 * {@code java:comp/env} (the prefixes {@code java:comp/env/}, {@code java:app/}, {@code java:/} and {@code java:} are
 * dropped, as the names applications wrote for other servers use them); with none given, a member of type
 * {@code SipFactory}, {@code TimerService} or {@code SipSessionsUtil} gets the application's object of that type and
 * any other member the value of the Java EE default name {@code <class name>/<field or property name>}. A name
 * outside {@code sip/} on one of those three types is the name of a reference, resolved by type, as Java EE does.
 * An env entry declared without a value leaves its member alone.
 * <p>
 * Refused, each an {@link InjectionException}: a name bound to nothing, a value whose type does not fit the member,
 * a final field, a method that is not a setter of one argument, and a setter that throws.
 * <p>
 * Threading: stateless apart from its bindings; called on the deploying thread before the application runs.
 */
public final class ResourceInjector
{
    private static final String[] FOREIGN_PREFIXES = {"java:comp/env/", "java:app/", "java:global/", "java:/", "java:"};

    private final NamingBindings bindings;

    /**
     * @param bindings the application's names.
     */
    public ResourceInjector(final NamingBindings bindings)
    {
        this.bindings = bindings;
    }

    /**
     * @param instance a servlet or listener of the application.
     * @throws InjectionException naming the class, member and reason of the first member that cannot be injected.
     */
    public void inject(final Object instance) throws InjectionException
    {
        final Deque<Class<?>> hierarchy = new ArrayDeque<>();
        for (Class<?> c = instance.getClass(); null != c && Object.class != c; c = c.getSuperclass())
        {
            hierarchy.push(c);
        }
        for (final Class<?> type : hierarchy)
        {
            for (final Field field : type.getDeclaredFields())
            {
                final Resource resource = field.getAnnotation(Resource.class);
                if (null != resource)
                {
                    injectField(instance, field, resource);
                }
            }
            for (final Method method : type.getDeclaredMethods())
            {
                final Resource resource = method.getAnnotation(Resource.class);
                if (null != resource && !method.isBridge())
                {
                    injectSetter(instance, method, resource);
                }
            }
        }
    }

    private void injectField(final Object instance, final Field field, final Resource resource)
        throws InjectionException
    {
        final String className = field.getDeclaringClass().getName();
        if (Modifier.isFinal(field.getModifiers()))
        {
            throw new InjectionException(className, field.getName(), "the field is final", null);
        }
        final Object value = resolve(resource, field.getType(), className + '/' + field.getName(), className,
            field.getName());
        if (null == value)
        {
            return;
        }
        try
        {
            field.setAccessible(true);
            field.set(Modifier.isStatic(field.getModifiers()) ? null : instance, value);
        }
        catch (final IllegalAccessException | RuntimeException ex)
        {
            throw new InjectionException(className, field.getName(), "cannot be set: " + ex, ex);
        }
    }

    private void injectSetter(final Object instance, final Method method, final Resource resource)
        throws InjectionException
    {
        final String className = method.getDeclaringClass().getName();
        final String member = method.getName() + "()";
        if (1 != method.getParameterCount())
        {
            throw new InjectionException(className, member,
                "a @Resource method must be a setter of one argument (JavaBeans setXxx)", null);
        }
        final Object value = resolve(resource, method.getParameterTypes()[0],
            className + '/' + property(method.getName()), className, member);
        if (null == value)
        {
            return;
        }
        try
        {
            method.setAccessible(true);
            method.invoke(Modifier.isStatic(method.getModifiers()) ? null : instance, value);
        }
        catch (final InvocationTargetException ex)
        {
            throw new InjectionException(className, member, "the setter threw " + ex.getCause(), ex.getCause());
        }
        catch (final IllegalAccessException | RuntimeException ex)
        {
            throw new InjectionException(className, member, "cannot be called: " + ex, ex);
        }
    }

    /** The value for a member of {@code type}, or {@code null} to leave it alone. */
    private Object resolve(final Resource resource, final Class<?> type, final String defaultName,
        final String className, final String member) throws InjectionException
    {
        final String written = firstNonEmpty(resource.lookup(), resource.mappedName(), resource.name());
        final Object byType = bindings.byType(type);
        final String name;
        if (null == written)
        {
            if (null != byType)
            {
                return byType;
            }
            name = defaultName;
        }
        else
        {
            name = relative(written);
        }
        final Object value = bindings.value(name);
        if (null == value)
        {
            if (bindings.declaredWithoutValue(name))
            {
                return null;
            }
            if (null != byType && !name.startsWith("sip/"))
            {
                return byType;
            }
            throw new InjectionException(className, member, "java:comp/env/" + name + " is not bound (application '"
                + bindings.application() + "' binds " + bindings.names() + ')', null);
        }
        if (!box(type).isInstance(value))
        {
            throw new InjectionException(className, member, "java:comp/env/" + name + " is a "
                + value.getClass().getName() + ", which does not fit " + type.getName(), null);
        }
        return value;
    }

    /** A name as an application wrote it, relative to {@code java:comp/env}. */
    static String relative(final String written)
    {
        final String name = written.strip();
        for (final String prefix : FOREIGN_PREFIXES)
        {
            if (name.startsWith(prefix))
            {
                return NamingBindings.stripSlashes(name.substring(prefix.length()));
            }
        }
        return NamingBindings.stripSlashes(name);
    }

    private static String firstNonEmpty(final String... values)
    {
        for (final String value : values)
        {
            if (null != value && !value.isBlank())
            {
                return value;
            }
        }
        return null;
    }

    private static String property(final String methodName)
    {
        if (methodName.length() > 3 && methodName.startsWith("set"))
        {
            return Character.toLowerCase(methodName.charAt(3)) + methodName.substring(4);
        }
        return methodName;
    }

    private static Class<?> box(final Class<?> type)
    {
        if (!type.isPrimitive())
        {
            return type;
        }
        return switch (type.getName())
        {
            case "boolean" -> Boolean.class;
            case "byte" -> Byte.class;
            case "char" -> Character.class;
            case "short" -> Short.class;
            case "int" -> Integer.class;
            case "long" -> Long.class;
            case "float" -> Float.class;
            case "double" -> Double.class;
            default -> Void.class;
        };
    }
}
