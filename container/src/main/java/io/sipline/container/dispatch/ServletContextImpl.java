package io.sipline.container.dispatch;

import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.MalformedURLException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.EventListener;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import javax.servlet.Filter;
import javax.servlet.FilterRegistration;
import javax.servlet.RequestDispatcher;
import javax.servlet.Servlet;
import javax.servlet.ServletContext;
import javax.servlet.ServletException;
import javax.servlet.ServletRegistration;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.SessionCookieConfig;
import javax.servlet.SessionTrackingMode;
import javax.servlet.descriptor.JspConfigDescriptor;
import javax.servlet.sip.SipServlet;

/**
 * The {@link ServletContext} of one SIP application (JSR 289 §4.1: it carries the {@code SipFactory},
 * {@code TimerService} and {@code SipSessionsUtil} as attributes): context parameters from the descriptor, attributes,
 * the application's class loader and resources, named dispatchers to its servlets, and a log. What the Servlet API
 * defines for HTTP only (filters, dynamic registration, cookies, JSP) is refused with
 * {@link UnsupportedOperationException} naming the reason.
 * <p>
 * Converged applications (JSR 289 §13.2: one {@code ServletContext} for the SIP and HTTP servlets): once the web half
 * started, {@link #attachWeb} hands this context's attributes to the engine's context of the same application and
 * from then on reads and writes attributes there, and answers the path, resource and dispatcher questions from it,
 * so that both halves see one set of attributes.
 * <p>
 * Threading: any thread (attributes and parameters in concurrent maps, or the engine's thread-safe context).
 */
final class ServletContextImpl implements ServletContext
{
    private static final Logger LOG = System.getLogger("io.sipline.container.app");

    private final RunningApplicationImpl application;
    private final Map<String, String> initParameters = new ConcurrentHashMap<>();
    private final Map<String, Object> attributes = new ConcurrentHashMap<>();
    /** The web half's context of this application once it started, or null. */
    private volatile ServletContext web;

    ServletContextImpl(final RunningApplicationImpl application, final Map<String, String> contextParams)
    {
        this.application = application;
        initParameters.putAll(contextParams);
    }

    /**
     * Shares this context with the web half's (deploying thread, once, before the application is published): copies
     * every attribute there; attributes are then read and written in {@code webContext}.
     */
    void attachWeb(final ServletContext webContext)
    {
        for (final Map.Entry<String, Object> e : attributes.entrySet())
        {
            webContext.setAttribute(e.getKey(), e.getValue());
        }
        web = webContext;
    }

    @Override
    public String getContextPath()
    {
        final ServletContext w = web;
        return null != w ? w.getContextPath() : "/" + application.name();
    }

    @Override
    public ServletContext getContext(final String uripath)
    {
        return null;
    }

    @Override
    public int getMajorVersion()
    {
        return 3;
    }

    @Override
    public int getMinorVersion()
    {
        return 1;
    }

    @Override
    public int getEffectiveMajorVersion()
    {
        return 3;
    }

    @Override
    public int getEffectiveMinorVersion()
    {
        return 1;
    }

    @Override
    public String getMimeType(final String file)
    {
        final ServletContext w = web;
        return null != w ? w.getMimeType(file) : null;
    }

    @Override
    public Set<String> getResourcePaths(final String path)
    {
        final ServletContext w = web;
        return null != w ? w.getResourcePaths(path) : null;
    }

    @Override
    public URL getResource(final String path) throws MalformedURLException
    {
        return application.classLoader().getResource(strip(path));
    }

    @Override
    public InputStream getResourceAsStream(final String path)
    {
        return application.classLoader().getResourceAsStream(strip(path));
    }

    private static String strip(final String path)
    {
        return null != path && path.startsWith("/") ? path.substring(1) : path;
    }

    @Override
    public RequestDispatcher getRequestDispatcher(final String path)
    {
        final ServletContext w = web;
        return null != w ? w.getRequestDispatcher(path) : null;
    }

    /** A dispatcher that forwards a SIP message to another servlet of the application (JSR 289 §7.4). */
    @Override
    public RequestDispatcher getNamedDispatcher(final String name)
    {
        final SipServlet servlet = application.servlet(name);
        if (null == servlet)
        {
            return null;
        }
        return new RequestDispatcher()
        {
            @Override
            public void forward(final ServletRequest request, final ServletResponse response)
                throws ServletException, IOException
            {
                servlet.service(request, response);
            }

            @Override
            public void include(final ServletRequest request, final ServletResponse response)
                throws ServletException, IOException
            {
                servlet.service(request, response);
            }
        };
    }

    @Deprecated
    @Override
    public Servlet getServlet(final String name)
    {
        return null; // deprecated since Servlet 2.1: always null
    }

    @Deprecated
    @Override
    public Enumeration<Servlet> getServlets()
    {
        return Collections.emptyEnumeration();
    }

    @Deprecated
    @Override
    public Enumeration<String> getServletNames()
    {
        return Collections.emptyEnumeration();
    }

    @Override
    public void log(final String msg)
    {
        LOG.log(Level.INFO, application.name() + ": " + msg);
    }

    @Deprecated
    @Override
    public void log(final Exception exception, final String msg)
    {
        log(msg, exception);
    }

    @Override
    public void log(final String message, final Throwable throwable)
    {
        LOG.log(Level.WARNING, application.name() + ": " + message, throwable);
    }

    @Override
    public String getRealPath(final String path)
    {
        final ServletContext w = web;
        return null != w ? w.getRealPath(path) : null;
    }

    @Override
    public String getServerInfo()
    {
        return "Sipline/0.1";
    }

    @Override
    public String getInitParameter(final String name)
    {
        return initParameters.get(name);
    }

    @Override
    public Enumeration<String> getInitParameterNames()
    {
        return Collections.enumeration(new ArrayList<>(initParameters.keySet()));
    }

    @Override
    public boolean setInitParameter(final String name, final String value)
    {
        return null == initParameters.putIfAbsent(name, value);
    }

    @Override
    public Object getAttribute(final String name)
    {
        final ServletContext w = web;
        return null != w ? w.getAttribute(name) : attributes.get(name);
    }

    @Override
    public Enumeration<String> getAttributeNames()
    {
        final ServletContext w = web;
        return null != w ? w.getAttributeNames() : Collections.enumeration(new ArrayList<>(attributes.keySet()));
    }

    @Override
    public void setAttribute(final String name, final Object object)
    {
        final ServletContext w = web;
        if (null != w)
        {
            w.setAttribute(name, object);
        }
        else if (null == object)
        {
            attributes.remove(name);
        }
        else
        {
            attributes.put(name, object);
        }
    }

    @Override
    public void removeAttribute(final String name)
    {
        final ServletContext w = web;
        if (null != w)
        {
            w.removeAttribute(name);
            return;
        }
        attributes.remove(name);
    }

    @Override
    public String getServletContextName()
    {
        return application.name();
    }

    @Override
    public ClassLoader getClassLoader()
    {
        return application.classLoader();
    }

    @Override
    public String getVirtualServerName()
    {
        return "sipline";
    }

    @Override
    public void declareRoles(final String... roleNames)
    {
        throw unsupported("declareRoles");
    }

    private static UnsupportedOperationException unsupported(final String what)
    {
        return new UnsupportedOperationException(what + " is an HTTP servlet feature; declare SIP servlets and "
            + "listeners in sip.xml or with annotations");
    }

    @Override
    public ServletRegistration.Dynamic addServlet(final String servletName, final String className)
    {
        throw unsupported("addServlet");
    }

    @Override
    public ServletRegistration.Dynamic addServlet(final String servletName, final Servlet servlet)
    {
        throw unsupported("addServlet");
    }

    @Override
    public ServletRegistration.Dynamic addServlet(final String servletName,
        final Class<? extends Servlet> servletClass)
    {
        throw unsupported("addServlet");
    }

    @Override
    public <T extends Servlet> T createServlet(final Class<T> clazz)
    {
        throw unsupported("createServlet");
    }

    @Override
    public ServletRegistration getServletRegistration(final String servletName)
    {
        return null;
    }

    @Override
    public Map<String, ? extends ServletRegistration> getServletRegistrations()
    {
        return Map.of();
    }

    @Override
    public FilterRegistration.Dynamic addFilter(final String filterName, final String className)
    {
        throw unsupported("addFilter");
    }

    @Override
    public FilterRegistration.Dynamic addFilter(final String filterName, final Filter filter)
    {
        throw unsupported("addFilter");
    }

    @Override
    public FilterRegistration.Dynamic addFilter(final String filterName, final Class<? extends Filter> filterClass)
    {
        throw unsupported("addFilter");
    }

    @Override
    public <T extends Filter> T createFilter(final Class<T> clazz)
    {
        throw unsupported("createFilter");
    }

    @Override
    public FilterRegistration getFilterRegistration(final String filterName)
    {
        return null;
    }

    @Override
    public Map<String, ? extends FilterRegistration> getFilterRegistrations()
    {
        return Map.of();
    }

    @Override
    public SessionCookieConfig getSessionCookieConfig()
    {
        return null;
    }

    @Override
    public void setSessionTrackingModes(final Set<SessionTrackingMode> sessionTrackingModes)
    {
        throw unsupported("setSessionTrackingModes");
    }

    @Override
    public Set<SessionTrackingMode> getDefaultSessionTrackingModes()
    {
        return Set.of();
    }

    @Override
    public Set<SessionTrackingMode> getEffectiveSessionTrackingModes()
    {
        return Set.of();
    }

    @Override
    public void addListener(final String className)
    {
        throw unsupported("addListener");
    }

    @Override
    public <T extends EventListener> void addListener(final T t)
    {
        throw unsupported("addListener");
    }

    @Override
    public void addListener(final Class<? extends EventListener> listenerClass)
    {
        throw unsupported("addListener");
    }

    @Override
    public <T extends EventListener> T createListener(final Class<T> clazz)
    {
        throw unsupported("createListener");
    }

    @Override
    public JspConfigDescriptor getJspConfigDescriptor()
    {
        return null;
    }

    @Override
    public ServletRegistration.Dynamic addJspFile(final String servletName, final String jspFile)
    {
        throw unsupported("addJspFile");
    }

    @Override
    public int getSessionTimeout()
    {
        return application.sessionTimeoutMinutes();
    }

    @Override
    public void setSessionTimeout(final int sessionTimeout)
    {
        throw new IllegalStateException("the application is initialised: its session timeout is set (Servlet 4.0 "
            + "§4.4.1 allows setSessionTimeout only during initialisation; use session-config)");
    }

    @Override
    public String getRequestCharacterEncoding()
    {
        return null;
    }

    @Override
    public void setRequestCharacterEncoding(final String encoding)
    {
        throw unsupported("setRequestCharacterEncoding");
    }

    @Override
    public String getResponseCharacterEncoding()
    {
        return null;
    }

    @Override
    public void setResponseCharacterEncoding(final String encoding)
    {
        throw unsupported("setResponseCharacterEncoding");
    }
}
