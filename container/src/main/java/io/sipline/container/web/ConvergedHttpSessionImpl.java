package io.sipline.container.web;

import java.util.Enumeration;

import javax.servlet.ServletContext;
import javax.servlet.http.HttpSession;
import javax.servlet.sip.ConvergedHttpSession;
import javax.servlet.sip.SipApplicationSession;

/**
 * The HTTP session of a converged application as its servlets see it (JSR 289 §13.3, {@link ConvergedHttpSession}):
 * the engine's session, plus the application session it is bound to ({@link #getApplicationSession}, a handle that
 * hands each call to the session's shard) and URLs encoded with its id. {@code encodeURL(path, scheme)} makes an
 * absolute URL from the host and port of the request it was obtained through.
 * <p>
 * Threading: HTTP threads, as the engine's session it wraps. Equal to another wrapper of the same engine session.
 */
final class ConvergedHttpSessionImpl implements ConvergedHttpSession
{
    /** The path parameter of the session id in an encoded URL (Servlet 4.0 §7.1.3). */
    private static final String SESSION_PATH_PARAMETER = ";jsessionid=";

    private final HttpSession delegate;
    private final SessionBinding binding;
    private final String host;
    private final int port;

    ConvergedHttpSessionImpl(final HttpSession delegate, final SessionBinding binding, final String host,
        final int port)
    {
        this.delegate = delegate;
        this.binding = binding;
        this.host = host;
        this.port = port;
    }

    HttpSession delegate()
    {
        return delegate;
    }

    @Override
    public SipApplicationSession getApplicationSession()
    {
        return binding.applicationSession(this);
    }

    /** The URL with this session's id as its {@code jsessionid} path parameter, before any query or fragment. */
    @Override
    public String encodeURL(final String url)
    {
        int end = url.length();
        final int query = url.indexOf('?');
        final int fragment = url.indexOf('#');
        if (query >= 0)
        {
            end = query;
        }
        if (fragment >= 0 && fragment < end)
        {
            end = fragment;
        }
        return url.substring(0, end) + SESSION_PATH_PARAMETER + delegate.getId() + url.substring(end);
    }

    /** {@code scheme://host:port/<context path><relativePath>}, encoded with this session's id. */
    @Override
    public String encodeURL(final String relativePath, final String scheme)
    {
        final String path = relativePath.startsWith("/") ? relativePath : "/" + relativePath;
        final String authority = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
        return encodeURL(scheme + "://" + authority + ":" + port + getServletContext().getContextPath() + path);
    }

    @Override
    public long getCreationTime()
    {
        return delegate.getCreationTime();
    }

    @Override
    public String getId()
    {
        return delegate.getId();
    }

    @Override
    public long getLastAccessedTime()
    {
        return delegate.getLastAccessedTime();
    }

    @Override
    public ServletContext getServletContext()
    {
        return delegate.getServletContext();
    }

    @Override
    public void setMaxInactiveInterval(final int interval)
    {
        delegate.setMaxInactiveInterval(interval);
    }

    @Override
    public int getMaxInactiveInterval()
    {
        return delegate.getMaxInactiveInterval();
    }

    @Deprecated
    @Override
    public javax.servlet.http.HttpSessionContext getSessionContext()
    {
        return delegate.getSessionContext();
    }

    @Override
    public Object getAttribute(final String name)
    {
        return delegate.getAttribute(name);
    }

    @Deprecated
    @Override
    public Object getValue(final String name)
    {
        return delegate.getAttribute(name);
    }

    @Override
    public Enumeration<String> getAttributeNames()
    {
        return delegate.getAttributeNames();
    }

    @Deprecated
    @Override
    public String[] getValueNames()
    {
        return delegate.getValueNames();
    }

    @Override
    public void setAttribute(final String name, final Object value)
    {
        delegate.setAttribute(name, value);
    }

    @Deprecated
    @Override
    public void putValue(final String name, final Object value)
    {
        delegate.setAttribute(name, value);
    }

    @Override
    public void removeAttribute(final String name)
    {
        delegate.removeAttribute(name);
    }

    @Deprecated
    @Override
    public void removeValue(final String name)
    {
        delegate.removeAttribute(name);
    }

    @Override
    public void invalidate()
    {
        delegate.invalidate();
    }

    @Override
    public boolean isNew()
    {
        return delegate.isNew();
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof ConvergedHttpSessionImpl c && c.delegate.equals(delegate);
    }

    @Override
    public int hashCode()
    {
        return delegate.hashCode();
    }

    @Override
    public String toString()
    {
        return "ConvergedHttpSession[" + delegate.getId() + "]";
    }
}
