package io.sipline.container.dispatch;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.EventListener;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.servlet.ServletContext;
import javax.servlet.ServletContextEvent;
import javax.servlet.ServletContextListener;
import javax.servlet.ServletException;
import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletContextEvent;
import javax.servlet.sip.SipServletListener;
import javax.servlet.sip.SipServletRequest;

import io.sipline.container.deploy.ApplicationKeyMethod;
import io.sipline.container.deploy.DeployedApplication;
import io.sipline.container.deploy.DeploymentException;
import io.sipline.container.deploy.ServletDefinition;
import io.sipline.container.factory.B2buaHelperImpl;
import io.sipline.container.factory.SipFactoryImpl;
import io.sipline.container.naming.ApplicationNaming;
import io.sipline.container.naming.InjectionException;
import io.sipline.container.naming.LifecycleCallbacks;
import io.sipline.container.security.ApplicationSecurity;
import io.sipline.container.security.DigestClient;
import io.sipline.container.api.ReliableProvisionals;
import io.sipline.container.api.RunningApplication;
import io.sipline.container.api.SipApplicationSessionImpl;
import io.sipline.container.api.TimerServiceImpl;

/**
 * One application while it runs: its deployed model plus what dispatch needs — the servlet context with the
 * {@code SipFactory}, {@code TimerService} and {@code SipSessionsUtil} attributes (JSR 289 §4.1), its servlets
 * initialised ({@link #start}), its listeners by type, its {@code @SipApplicationKey} method, and its threading mode.
 * The same three objects are its {@code java:comp/env/sip/<app-name>/...} names and its {@code @Resource} values
 * ({@link ApplicationNaming}, JSR 289 §18), published and injected when it starts, withdrawn when it stops.
 * <p>
 * Threading: started and stopped on the deploying thread; read by every shard afterwards (immutable then).
 */
public final class RunningApplicationImpl implements RunningApplication
{
    /** Context parameter that runs the application on virtual threads instead of its shard (blocking code). */
    public static final String THREADING_PARAMETER = "io.sipline.threading";

    /** JSR 289 §5.7.1 context attribute, deprecated in the API but still defined by it: we support PRACK. */
    @SuppressWarnings("deprecation")
    private static final String PRACK_SUPPORTED = SipServlet.PRACK_SUPPORTED;

    private final DeployedApplication deployed;
    private final ServletContextImpl context;
    private final SipFactoryImpl factory;
    private final B2buaHelperImpl b2buaHelper;
    private final TimerServiceImpl timerService = new TimerServiceImpl();
    private final SipSessionsUtilImpl sessionsUtil;
    private ApplicationNaming naming;
    private final Map<Class<?>, List<?>> listenersByType = new ConcurrentHashMap<>();
    private final String defaultServlet;
    private final int sessionTimeoutMinutes;
    private final ApplicationSecurity security;
    private final DigestClient digestClient;
    /** The grid's sink when the application is distributable and the server in a cluster; else null. */
    private final io.sipline.container.replication.SnapshotSink replication;
    private final ApplicationStats stats = new ApplicationStats(Runtime.getRuntime().availableProcessors() * 2);
    private Method keyMethod;
    /**
     * The context parameter {@value #THREADING_PARAMETER} read once its value is settled (the descriptor's, then
     * whatever a context listener set): every servlet call asks, and the parameter map is no place to ask per message.
     */
    private volatile boolean virtualThreads;

    RunningApplicationImpl(final DeployedApplication deployed, final ApplicationRegistry registry,
        final ApplicationSecurity security)
    {
        this.deployed = deployed;
        this.security = security;
        this.digestClient = registry.digestClient();
        this.replication = deployed.descriptor().distributable() ? registry.replication() : null;
        this.context = new ServletContextImpl(this, deployed.descriptor().contextParams());
        this.factory = new SipFactoryImpl(this, registry);
        this.b2buaHelper = new B2buaHelperImpl(factory, this);
        this.sessionsUtil = new SipSessionsUtilImpl(registry, deployed.name());
        final String main = deployed.descriptor().mainServlet();
        this.defaultServlet = null != main ? main
            : deployed.servlets().isEmpty() ? null : deployed.servlets().keySet().iterator().next();
        final Integer minutes = deployed.descriptor().sessionTimeoutMinutes();
        this.sessionTimeoutMinutes = null == minutes ? SipApplicationSessionImpl.DEFAULT_TIMEOUT_MINUTES : minutes;
        context.setAttribute(SipServlet.SIP_FACTORY, factory);
        context.setAttribute(SipServlet.TIMER_SERVICE, timerService);
        context.setAttribute(SipServlet.SIP_SESSIONS_UTIL, sessionsUtil);
        context.setAttribute(SipServlet.SUPPORTED, List.of(ReliableProvisionals.OPTION_TAG));
        context.setAttribute(SipServlet.SUPPORTED_RFCs, List.of("3261", "3262", "3263", "3581", "6026"));
        context.setAttribute(PRACK_SUPPORTED, Boolean.TRUE); // JSR 289 §5.7.1: sendReliably works
        context.setAttribute(SipServlet.OUTBOUND_INTERFACES, registry.outboundInterfaces());
        registry.contextAttributes().forEach(context::setAttribute);
        virtualThreads = readThreading();
    }

    /**
     * Servlet 3.1 §4.4 / JSR 289 §18.3: the application's {@code java:comp/env} published and its listeners' and
     * servlets' {@code @Resource} members injected, then context listeners, then each servlet's {@code init} with
     * its config, each followed by {@code SipServletListener.servletInitialized}. A context listener or a servlet's
     * {@code init} that throws refuses the application (Servlet 3.1 §2.3.2.1 for {@code init}; the servlet engine
     * under the reference container does the same for context listeners); a {@code SipServletListener} that throws
     * is logged and the application serves.
     *
     * @throws DeploymentException naming the servlet or context listener that failed, or the member that cannot be
     *         injected.
     */
    void start() throws DeploymentException
    {
        final String source = deployed.source().toString();
        final Thread thread = Thread.currentThread();
        final ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(deployed.classLoader());
        try
        {
            publishNaming(source);
            startApplication(source);
        }
        catch (final DeploymentException | RuntimeException | Error e)
        {
            if (null != naming)
            {
                naming.close(); // a refused application leaves no names behind
            }
            throw e;
        }
        finally
        {
            thread.setContextClassLoader(previous);
        }
    }

    /** The names and injections of JSR 289 §18, before any application code runs. */
    private void publishNaming(final String source) throws DeploymentException
    {
        try
        {
            naming = ApplicationNaming.start(deployed.name(), deployed.classLoader(), factory, timerService,
                sessionsUtil, deployed.descriptor().envEntries().values());
        }
        catch (final IllegalArgumentException e)
        {
            throw new DeploymentException(source, DeploymentException.NO_LINE, e.getMessage(), e);
        }
        try
        {
            for (final EventListener l : deployed.listeners())
            {
                naming.inject(l);
            }
            for (final SipServlet servlet : deployed.servlets().values())
            {
                naming.inject(servlet);
            }
            for (final Object instance : instances())
            {
                LifecycleCallbacks.postConstruct(instance);
            }
        }
        catch (final InjectionException | IllegalStateException e)
        {
            throw new DeploymentException(source, DeploymentException.NO_LINE, e.getMessage(), e);
        }
    }

    private void startApplication(final String source) throws DeploymentException
    {
        resolveKeyMethod(source);
        for (final ServletContextListener l : listeners(ServletContextListener.class))
        {
            try
            {
                l.contextInitialized(new ServletContextEvent(context));
            }
            catch (final RuntimeException e)
            {
                throw new DeploymentException(source, DeploymentException.NO_LINE, "listener "
                    + l.getClass().getName() + " failed in contextInitialized: " + e, e);
            }
        }
        virtualThreads = readThreading(); // a context listener may have set it (Servlet 3.1 §4.4)
        for (final Map.Entry<String, SipServlet> e : deployed.servlets().entrySet())
        {
            final ServletDefinition definition = deployed.descriptor().servlets().get(e.getKey());
            final Map<String, String> params = null == definition ? Map.of() : definition.initParams();
            try
            {
                e.getValue().init(new ServletConfigImpl(e.getKey(), params, context));
            }
            catch (final ServletException | RuntimeException ex)
            {
                throw new DeploymentException(source, DeploymentException.NO_LINE, "servlet " + e.getKey() + " ("
                    + e.getValue().getClass().getName() + ") failed in init: " + ex, ex);
            }
            servletInitialized(e.getKey(), e.getValue());
        }
    }

    /**
     * {@code SipServletListener.servletInitialized} for one servlet. A listener that throws is logged with the
     * application, servlet and listener named, and the application keeps serving, as in the reference container:
     * {@code servletInitialized} declares no exception, so it is a notification, not a way to refuse the application.
     */
    private void servletInitialized(final String name, final SipServlet servlet)
    {
        for (final SipServletListener l : listeners(SipServletListener.class))
        {
            try
            {
                l.servletInitialized(new SipServletContextEvent(context, servlet));
            }
            catch (final RuntimeException | LinkageError ex)
            {
                context.log("listener " + l.getClass().getName() + " failed in servletInitialized for servlet "
                    + name + " (" + servlet.getClass().getName() + "); the application keeps serving", ex);
            }
        }
    }

    /**
     * Servlets' {@code destroy}, then context listeners' {@code contextDestroyed}, then the application's names
     * withdrawn; errors are logged, not thrown.
     */
    void stop()
    {
        final Thread thread = Thread.currentThread();
        final ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(deployed.classLoader());
        try
        {
            for (final SipServlet servlet : deployed.servlets().values())
            {
                try
                {
                    servlet.destroy();
                }
                catch (final RuntimeException e)
                {
                    context.log("servlet destroy failed", e);
                }
            }
            for (final ServletContextListener l : listeners(ServletContextListener.class))
            {
                try
                {
                    l.contextDestroyed(new ServletContextEvent(context));
                }
                catch (final RuntimeException e)
                {
                    context.log("contextDestroyed failed", e);
                }
            }
            for (final Object instance : instances())
            {
                try
                {
                    LifecycleCallbacks.preDestroy(instance);
                }
                catch (final IllegalStateException e)
                {
                    context.log(e.getMessage(), e);
                }
            }
        }
        finally
        {
            thread.setContextClassLoader(previous);
            if (null != naming)
            {
                naming.close(); // after the last callback that may look a name up
            }
        }
    }

    /** The listeners, then the servlets, each object once (a servlet may be declared as a listener too). */
    private List<Object> instances()
    {
        final List<Object> all = new ArrayList<>(deployed.listeners());
        for (final SipServlet servlet : deployed.servlets().values())
        {
            if (all.stream().noneMatch(o -> o == servlet))
            {
                all.add(servlet);
            }
        }
        return all;
    }

    private void resolveKeyMethod(final String source) throws DeploymentException
    {
        final ApplicationKeyMethod key = deployed.descriptor().applicationKey();
        if (null == key)
        {
            return;
        }
        try
        {
            final Class<?> type = Class.forName(key.className(), true, deployed.classLoader());
            final Method m = type.getMethod(key.methodName(), SipServletRequest.class);
            if (!Modifier.isStatic(m.getModifiers()) || String.class != m.getReturnType())
            {
                throw new DeploymentException(source, DeploymentException.NO_LINE, "@SipApplicationKey "
                    + key.className() + "." + key.methodName() + " must be public static String (SipServletRequest)");
            }
            keyMethod = m;
        }
        catch (final ReflectiveOperationException | LinkageError e)
        {
            throw new DeploymentException(source, DeploymentException.NO_LINE, "@SipApplicationKey "
                + key.className() + "." + key.methodName() + " cannot be loaded: " + e, e);
        }
    }

    /**
     * The application key of an initial request (JSR 289 §15.11.2), or null when the application has none.
     *
     * @throws IllegalStateException when the key method throws or returns null.
     */
    String applicationKey(final SipServletRequest request)
    {
        if (null == keyMethod)
        {
            return null;
        }
        try
        {
            final Object key = keyMethod.invoke(null, request);
            if (null == key)
            {
                throw new IllegalStateException("@SipApplicationKey method returned null");
            }
            return (String)key;
        }
        catch (final IllegalAccessException e)
        {
            throw new IllegalStateException(e);
        }
        catch (final InvocationTargetException e)
        {
            throw new IllegalStateException("@SipApplicationKey method threw " + e.getCause(), e.getCause());
        }
    }

    public DeployedApplication deployed()
    {
        return deployed;
    }

    public SipFactoryImpl factory()
    {
        return factory;
    }

    /** True when the application asked to run on virtual threads (context parameter {@value #THREADING_PARAMETER}). */
    boolean virtualThreads()
    {
        return virtualThreads;
    }

    private boolean readThreading()
    {
        return "virtual".equalsIgnoreCase(context.getInitParameter(THREADING_PARAMETER));
    }

    @Override
    public String name()
    {
        return deployed.name();
    }

    @Override
    public ServletContext servletContext()
    {
        return context;
    }

    /** The application's {@code SipSessionsUtil} (JSR 289 §4.1.3; any thread). */
    public javax.servlet.sip.SipSessionsUtil sessionsUtil()
    {
        return sessionsUtil;
    }

    /**
     * Injects the {@code @Resource}s of an object of the web half (a servlet, filter or listener the engine made) as
     * the SIP half's are (JSR 289 §18): deploying or HTTP thread, after {@link #start}.
     *
     * @throws InjectionException naming the class, member and reason when one cannot be satisfied.
     */
    public void inject(final Object instance) throws InjectionException
    {
        if (null == naming)
        {
            throw new IllegalStateException(deployed.name() + " is not started");
        }
        naming.inject(instance);
    }

    /**
     * Makes the web half's context of this application the one both halves share (JSR 289 §13.2): this
     * application's context attributes move there. Deploying thread, once, after {@link #start}.
     */
    public void attachWeb(final ServletContext webContext)
    {
        context.attachWeb(webContext);
    }

    @Override
    public SipServlet servlet(final String name)
    {
        return null == name ? null : deployed.servlets().get(name);
    }

    @Override
    public String defaultServlet()
    {
        return defaultServlet;
    }

    @SuppressWarnings("unchecked")
    @Override
    public <T> List<T> listeners(final Class<T> type)
    {
        final List<?> known = listenersByType.get(type); // the common case allocates nothing
        if (null != known)
        {
            return (List<T>)known;
        }
        return (List<T>)listenersByType.computeIfAbsent(type, t ->
        {
            final List<Object> out = new ArrayList<>(1);
            for (final EventListener l : deployed.listeners())
            {
                if (t.isInstance(l))
                {
                    out.add(l);
                }
            }
            return List.copyOf(out);
        });
    }

    @Override
    public int sessionTimeoutMinutes()
    {
        return sessionTimeoutMinutes;
    }

    @Override
    public ClassLoader classLoader()
    {
        return deployed.classLoader();
    }

    /** Live sessions and servlet call times, for {@code /metrics}. */
    public ApplicationStats stats()
    {
        return stats;
    }

    @Override
    public void sessionsChanged(final int shard, final int delta)
    {
        if (delta > 0)
        {
            stats.sessionCreated(shard);
        }
        else
        {
            stats.sessionDestroyed(shard);
        }
    }

    /** The application's authentication and authorization, checked before each initial request. */
    public ApplicationSecurity security()
    {
        return security;
    }

    @Override
    public DigestClient digestClient()
    {
        return digestClient;
    }

    @Override
    public io.sipline.container.replication.SnapshotSink replication()
    {
        return replication;
    }

    @Override
    public B2buaHelper b2buaHelper()
    {
        return b2buaHelper;
    }

    @Override
    public String toString()
    {
        return "RunningApplicationImpl[" + name() + "]";
    }
}
