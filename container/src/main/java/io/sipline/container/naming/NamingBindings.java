package io.sipline.container.naming;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipSessionsUtil;
import javax.servlet.sip.TimerService;

/**
 * What one application finds under {@code java:comp/env}: {@code sip/<app-name>/SipFactory},
 * {@code sip/<app-name>/TimerService} and {@code sip/<app-name>/SipSessionsUtil} (JSR 289 §18, the names
 * {@code @Resource(name = "sip/<app-name>/SipFactory")} and lookups use, with the objects of JSR 289 §3.1's context
 * attributes), plus the {@code env-entry} values of its descriptors. Names are relative to {@code java:comp/env},
 * with {@code /} between components; a name that is the start of bound names ({@code sip}, {@code sip/<app-name>})
 * is a sub-context.
 * <p>
 * Threading: immutable once built; read by any thread that looks a name up.
 */
public final class NamingBindings
{
    /** The last component of the {@link SipFactory}'s name. */
    public static final String SIP_FACTORY = "SipFactory";
    /** The last component of the {@link TimerService}'s name. */
    public static final String TIMER_SERVICE = "TimerService";
    /** The last component of the {@link SipSessionsUtil}'s name. */
    public static final String SIP_SESSIONS_UTIL = "SipSessionsUtil";

    /** The prefix of a name relative to the root of the {@code java:} namespace that names an application's entry. */
    static final String COMP_ENV = "comp/env";

    private final String application;
    private final Map<String, Object> values;
    /** Env entries declared without a value: known, not bound. */
    private final Set<String> unset;
    private final SipFactory sipFactory;
    private final TimerService timerService;
    private final SipSessionsUtil sessionsUtil;

    private NamingBindings(final String application, final Map<String, Object> values, final Set<String> unset,
        final SipFactory sipFactory, final TimerService timerService, final SipSessionsUtil sessionsUtil)
    {
        this.application = application;
        this.values = Map.copyOf(values);
        this.unset = Set.copyOf(unset);
        this.sipFactory = sipFactory;
        this.timerService = timerService;
        this.sessionsUtil = sessionsUtil;
    }

    /**
     * @param application  the application name ({@code app-name} or {@code @SipApplication(name)}).
     * @param sipFactory   the application's factory.
     * @param timerService the application's timer service.
     * @param sessionsUtil the application's session lookup.
     * @param envEntries   the {@code env-entry} values of its descriptors.
     * @return the bindings.
     * @throws IllegalArgumentException when an env entry takes a name the container binds, or two take one name.
     */
    public static NamingBindings forApplication(final String application, final SipFactory sipFactory,
        final TimerService timerService, final SipSessionsUtil sessionsUtil, final Collection<EnvEntry> envEntries)
    {
        Objects.requireNonNull(application, "application");
        final Map<String, Object> values = new LinkedHashMap<>();
        values.put(sipName(application, SIP_FACTORY), Objects.requireNonNull(sipFactory, "sipFactory"));
        values.put(sipName(application, TIMER_SERVICE), Objects.requireNonNull(timerService, "timerService"));
        values.put(sipName(application, SIP_SESSIONS_UTIL), Objects.requireNonNull(sessionsUtil, "sessionsUtil"));
        final Set<String> unset = new TreeSet<>();
        for (final EnvEntry entry : envEntries)
        {
            if (values.containsKey(entry.name()) || unset.contains(entry.name()))
            {
                throw new IllegalArgumentException("env-entry '" + entry.name() + "' is bound twice");
            }
            if (null == entry.value())
            {
                unset.add(entry.name());
            }
            else
            {
                values.put(entry.name(), entry.value());
            }
        }
        return new NamingBindings(application, values, unset, sipFactory, timerService, sessionsUtil);
    }

    /**
     * @param application an application name.
     * @param last        {@link #SIP_FACTORY}, {@link #TIMER_SERVICE} or {@link #SIP_SESSIONS_UTIL}.
     * @return {@code sip/<application>/<last>}, relative to {@code java:comp/env}.
     */
    public static String sipName(final String application, final String last)
    {
        return "sip/" + application + '/' + last;
    }

    /**
     * @param name a name relative to {@code java:comp/env}, possibly written with a {@code java:comp/env/} prefix,
     *             leading, trailing or doubled slashes.
     * @return the name without them, e.g. {@code sip/app/SipFactory}; empty for the context itself.
     */
    public static String normalize(final String name)
    {
        String n = name.strip();
        if (n.startsWith("java:"))
        {
            n = stripSlashes(n.substring("java:".length()));
            if (n.equals(COMP_ENV))
            {
                return "";
            }
            if (n.startsWith(COMP_ENV + '/'))
            {
                n = n.substring(COMP_ENV.length() + 1);
            }
        }
        return stripSlashes(n);
    }

    static String stripSlashes(final String name)
    {
        final StringBuilder out = new StringBuilder(name.length());
        for (final String part : name.split("/"))
        {
            if (!part.isEmpty())
            {
                if (!out.isEmpty())
                {
                    out.append('/');
                }
                out.append(part);
            }
        }
        return out.toString();
    }

    /** @return the application these names belong to. */
    public String application()
    {
        return application;
    }

    /**
     * @param name a normalized name relative to {@code java:comp/env}.
     * @return the bound value, or {@code null}.
     */
    public Object value(final String name)
    {
        return values.get(name);
    }

    /**
     * @param name a normalized name relative to {@code java:comp/env}.
     * @return whether it is the start of bound names (a sub-context); true for the empty name.
     */
    public boolean isContext(final String name)
    {
        if (name.isEmpty())
        {
            return true;
        }
        final String prefix = name + '/';
        for (final String bound : values.keySet())
        {
            if (bound.startsWith(prefix))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @param name a normalized name relative to {@code java:comp/env}.
     * @return whether an env entry of that name is declared without a value (Java EE leaves its target alone).
     */
    public boolean declaredWithoutValue(final String name)
    {
        return unset.contains(name);
    }

    /**
     * @param type a declared type.
     * @return the container object of exactly that type ({@link SipFactory}, {@link TimerService},
     *         {@link SipSessionsUtil}), or {@code null} for any other type.
     */
    public Object byType(final Class<?> type)
    {
        if (SipFactory.class == type)
        {
            return sipFactory;
        }
        if (TimerService.class == type)
        {
            return timerService;
        }
        return SipSessionsUtil.class == type ? sessionsUtil : null;
    }

    /** @return every bound name, sorted, for error messages. */
    public Set<String> names()
    {
        return new TreeSet<>(values.keySet());
    }

    @Override
    public String toString()
    {
        return "java:comp/env of " + application + ' ' + names();
    }
}
