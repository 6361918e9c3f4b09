package io.sipline.container.naming;

import java.util.Hashtable;
import java.util.regex.Pattern;

import javax.naming.CompositeName;
import javax.naming.Context;
import javax.naming.Name;
import javax.naming.NameClassPair;
import javax.naming.NameNotFoundException;
import javax.naming.NameParser;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.naming.OperationNotSupportedException;
import javax.naming.Binding;
import javax.naming.spi.NamingManager;

/**
 * A read-only view of the {@code java:} namespace of one application, at one path: the initial context
 * ({@code new InitialContext()}, path empty), {@code java:comp}, {@code java:comp/env} or a sub-context below it
 * ({@code sip}, {@code sip/<app-name>}). Under {@code java:comp/env} it resolves the application's
 * {@link NamingBindings}; {@code lookup("java:comp/env/sip/app/SipFactory")} on the initial context and
 * {@code lookup("sip/app/SipFactory")} on the {@code java:comp/env} context find the same object.
 * <p>
 * What it refuses: every change ({@code bind}, {@code rebind}, {@code unbind}, {@code rename},
 * {@code createSubcontext}, {@code destroySubcontext}) and {@code list} / {@code listBindings} throw
 * {@link OperationNotSupportedException} saying the context is read-only; a name bound to nothing throws
 * {@link NameNotFoundException} naming it and what the application binds. A name of another URL scheme
 * ({@code rmi://...}, {@code ldap://...}) is handed to that scheme's JDK context, as an initial context without the
 * container's builder would do. A thread that runs no application code sees an empty {@code java:} namespace.
 * <p>
 * Threading: immutable apart from its environment table; a context is meant for the thread that made it, as JNDI
 * says, though lookups are safe from any thread.
 */
final class ReadOnlyContext implements Context
{
    private static final String JAVA = "java:";
    private static final Pattern URL_SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:.*", Pattern.DOTALL);
    private static final NameParser PARSER = CompositeName::new;

    /** The application's names, or {@code null} when the thread runs no application code. */
    private final NamingBindings bindings;
    /** Path below the {@code java:} root, e.g. {@code comp/env/sip}; empty for the initial context. */
    private final String path;
    private final Hashtable<Object, Object> environment;

    ReadOnlyContext(final NamingBindings bindings, final String path, final Hashtable<?, ?> environment)
    {
        this.bindings = bindings;
        this.path = path;
        this.environment = null == environment ? new Hashtable<>() : new Hashtable<>(environment);
    }

    @Override
    public Object lookup(final String name) throws NamingException
    {
        if (path.isEmpty() && !name.startsWith(JAVA) && URL_SCHEME.matcher(name).matches())
        {
            final String scheme = name.substring(0, name.indexOf(':'));
            final Context context = NamingManager.getURLContext(scheme, environment);
            if (null == context)
            {
                throw new NameNotFoundException(name + ": no naming context for the URL scheme '" + scheme + "'");
            }
            return context.lookup(name);
        }
        final String full = resolve(name);
        if (full.isEmpty() || (NamingBindings.COMP_ENV + '/').startsWith(full + '/'))
        {
            return new ReadOnlyContext(bindings, full, environment); // the root, java:comp or java:comp/env
        }
        if (!full.startsWith(NamingBindings.COMP_ENV + '/'))
        {
            throw notFound(JAVA + full, "the container binds names under java:comp/env only");
        }
        final String relative = full.substring(NamingBindings.COMP_ENV.length() + 1);
        if (null == bindings)
        {
            throw notFound(JAVA + full, "this thread runs no application code (its context class loader is not an "
                + "application's)");
        }
        final Object value = bindings.value(relative);
        if (null != value)
        {
            return value;
        }
        if (bindings.isContext(relative))
        {
            return new ReadOnlyContext(bindings, full, environment);
        }
        throw notFound(JAVA + full, "application '" + bindings.application() + "' binds " + bindings.names());
    }

    /** The name below the {@code java:} root that {@code name} means from this context. */
    private String resolve(final String name)
    {
        if (name.startsWith(JAVA))
        {
            return NamingBindings.stripSlashes(name.substring(JAVA.length()));
        }
        return NamingBindings.stripSlashes(path + '/' + name);
    }

    private static NameNotFoundException notFound(final String name, final String why)
    {
        return new NameNotFoundException(name + " is not bound: " + why);
    }

    private OperationNotSupportedException readOnly(final String operation, final String name)
    {
        return new OperationNotSupportedException(operation + '(' + name + "): " + where()
            + " is read-only; the container binds its names when the application starts");
    }

    private String where()
    {
        return (JAVA + path) + (null == bindings ? "" : " of application '" + bindings.application() + '\'');
    }

    private static String text(final Name name)
    {
        if (name instanceof CompositeName)
        {
            final StringBuilder out = new StringBuilder();
            for (int i = 0; i < name.size(); i++)
            {
                out.append(0 == i ? "" : "/").append(name.get(i));
            }
            return out.toString();
        }
        return name.toString();
    }

    @Override
    public Object lookup(final Name name) throws NamingException
    {
        return lookup(text(name));
    }

    @Override
    public Object lookupLink(final String name) throws NamingException
    {
        return lookup(name);
    }

    @Override
    public Object lookupLink(final Name name) throws NamingException
    {
        return lookup(name);
    }

    @Override
    public void bind(final Name name, final Object obj) throws NamingException
    {
        throw readOnly("bind", text(name));
    }

    @Override
    public void bind(final String name, final Object obj) throws NamingException
    {
        throw readOnly("bind", name);
    }

    @Override
    public void rebind(final Name name, final Object obj) throws NamingException
    {
        throw readOnly("rebind", text(name));
    }

    @Override
    public void rebind(final String name, final Object obj) throws NamingException
    {
        throw readOnly("rebind", name);
    }

    @Override
    public void unbind(final Name name) throws NamingException
    {
        throw readOnly("unbind", text(name));
    }

    @Override
    public void unbind(final String name) throws NamingException
    {
        throw readOnly("unbind", name);
    }

    @Override
    public void rename(final Name oldName, final Name newName) throws NamingException
    {
        throw readOnly("rename", text(oldName));
    }

    @Override
    public void rename(final String oldName, final String newName) throws NamingException
    {
        throw readOnly("rename", oldName);
    }

    @Override
    public NamingEnumeration<NameClassPair> list(final Name name) throws NamingException
    {
        throw notListed(text(name));
    }

    @Override
    public NamingEnumeration<NameClassPair> list(final String name) throws NamingException
    {
        throw notListed(name);
    }

    @Override
    public NamingEnumeration<Binding> listBindings(final Name name) throws NamingException
    {
        throw notListed(text(name));
    }

    @Override
    public NamingEnumeration<Binding> listBindings(final String name) throws NamingException
    {
        throw notListed(name);
    }

    private OperationNotSupportedException notListed(final String name)
    {
        return new OperationNotSupportedException("list(" + name + "): " + where()
            + " does not list its names; look each one up (java:comp/env/sip/<app-name>/SipFactory, TimerService, "
            + "SipSessionsUtil and the env-entry names of the descriptors)");
    }

    @Override
    public void destroySubcontext(final Name name) throws NamingException
    {
        throw readOnly("destroySubcontext", text(name));
    }

    @Override
    public void destroySubcontext(final String name) throws NamingException
    {
        throw readOnly("destroySubcontext", name);
    }

    @Override
    public Context createSubcontext(final Name name) throws NamingException
    {
        throw readOnly("createSubcontext", text(name));
    }

    @Override
    public Context createSubcontext(final String name) throws NamingException
    {
        throw readOnly("createSubcontext", name);
    }

    @Override
    public NameParser getNameParser(final Name name)
    {
        return PARSER;
    }

    @Override
    public NameParser getNameParser(final String name)
    {
        return PARSER;
    }

    @Override
    public Name composeName(final Name name, final Name prefix) throws NamingException
    {
        return ((Name)prefix.clone()).addAll(name);
    }

    @Override
    public String composeName(final String name, final String prefix)
    {
        return prefix.isEmpty() ? name : name.isEmpty() ? prefix : prefix + '/' + name;
    }

    @Override
    public Object addToEnvironment(final String propName, final Object propVal)
    {
        return environment.put(propName, propVal);
    }

    @Override
    public Object removeFromEnvironment(final String propName)
    {
        return environment.remove(propName);
    }

    @Override
    public Hashtable<?, ?> getEnvironment()
    {
        return new Hashtable<>(environment);
    }

    @Override
    public void close()
    {
        // nothing held: the bindings belong to the application
    }

    @Override
    public String getNameInNamespace()
    {
        return JAVA + path;
    }

    @Override
    public String toString()
    {
        return "ReadOnlyContext[" + where() + ']';
    }
}
