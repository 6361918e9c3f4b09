package io.sipline.container.api;

import java.io.BufferedReader;
import java.io.UnsupportedEncodingException;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.servlet.AsyncContext;
import javax.servlet.DispatcherType;
import javax.servlet.RequestDispatcher;
import javax.servlet.ServletContext;
import javax.servlet.ServletInputStream;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.sip.URI;

import io.sipline.sip.message.SipMessage;

/**
 * The {@link ServletRequest} methods a SIP request inherits from the Servlet API (JSR 289 §5.1.1), answered in SIP
 * terms: parameters are the Request-URI's, no input stream or reader (the content is {@code getContent}), the
 * locale is Accept-Language's, and asynchronous processing (an HTTP feature) is refused. Holds no state of its own;
 * the request's API is in {@link SipServletRequestImpl}, the ServletResponse side in {@link ServletResponseAdapter}.
 * <p>
 * Threading: see {@link SipServletMessageImpl}.
 */
abstract class ServletRequestAdapter extends SipServletMessageImpl implements ServletRequest
{
    private static final String NO_ASYNC = "asynchronous processing is an HTTP servlet feature";

    /** A received request over one exact copy of its bytes. */
    ServletRequestAdapter(final SipMessage message, final byte[] bytes, final InetSocketAddress remote,
        final InetSocketAddress local)
    {
        super(message, bytes, remote, local);
    }

    /** A request the container builds. */
    ServletRequestAdapter(final MessageHeaders headers)
    {
        super(headers);
    }

    /** The Request-URI (JSR 289 §5.1.1: its parameters are the request's). */
    public abstract URI getRequestURI();

    @Override
    public void setCharacterEncoding(final String enc) throws UnsupportedEncodingException
    {
        if (!applyCharacterEncoding(enc))
        {
            throw new UnsupportedEncodingException(enc);
        }
    }

    @Override
    public long getContentLengthLong()
    {
        return getContentLength();
    }

    /** Always null (JSR 289 javadoc of {@code SipServletMessage}): the content is read with {@code getContent}. */
    @Override
    public ServletInputStream getInputStream()
    {
        return null;
    }

    /** Always null, as {@link #getInputStream}. */
    @Override
    public BufferedReader getReader()
    {
        return null;
    }

    /** Request parameters are the Request-URI's parameters (JSR 289 §5.1.1). */
    @Override
    public String getParameter(final String name)
    {
        return getRequestURI().getParameter(name);
    }

    @Override
    public Enumeration<String> getParameterNames()
    {
        return new IteratorEnumeration<>(getRequestURI().getParameterNames());
    }

    @Override
    public String[] getParameterValues(final String name)
    {
        final String v = getParameter(name);
        return null == v ? null : new String[] {v};
    }

    @Override
    public Map<String, String[]> getParameterMap()
    {
        final Map<String, String[]> out = new HashMap<>();
        for (final Iterator<String> it = getRequestURI().getParameterNames(); it.hasNext(); )
        {
            final String n = it.next();
            out.put(n, new String[] {getParameter(n)});
        }
        return Collections.unmodifiableMap(out);
    }

    @Override
    public String getScheme()
    {
        return getRequestURI().getScheme();
    }

    @Override
    public String getServerName()
    {
        return getLocalAddr();
    }

    @Override
    public int getServerPort()
    {
        return getLocalPort();
    }

    @Override
    public String getRemoteHost()
    {
        return getRemoteAddr();
    }

    @Override
    public Locale getLocale()
    {
        return localeOrDefault(getAcceptLanguage());
    }

    @Override
    public Enumeration<Locale> getLocales()
    {
        final Iterator<Locale> it = getAcceptLanguages();
        return it.hasNext() ? new IteratorEnumeration<>(it) : Collections.enumeration(List.of(Locale.getDefault()));
    }

    @Override
    public RequestDispatcher getRequestDispatcher(final String path)
    {
        return null == session ? null : session.appSession().application().servletContext()
            .getNamedDispatcher(path);
    }

    @Deprecated
    @Override
    public String getRealPath(final String path)
    {
        return null;
    }

    @Override
    public String getLocalName()
    {
        return getLocalAddr();
    }

    @Override
    public ServletContext getServletContext()
    {
        return null == session ? null : session.getServletContext();
    }

    @Override
    public AsyncContext startAsync()
    {
        throw new IllegalStateException(NO_ASYNC);
    }

    @Override
    public AsyncContext startAsync(final ServletRequest servletRequest, final ServletResponse servletResponse)
    {
        throw new IllegalStateException(NO_ASYNC);
    }

    @Override
    public boolean isAsyncStarted()
    {
        return false;
    }

    @Override
    public boolean isAsyncSupported()
    {
        return false;
    }

    @Override
    public AsyncContext getAsyncContext()
    {
        throw new IllegalStateException(NO_ASYNC);
    }

    @Override
    public DispatcherType getDispatcherType()
    {
        return DispatcherType.REQUEST;
    }

    /** Adapts an iterator to the enumerations the Servlet API returns. */
    private static final class IteratorEnumeration<T> implements Enumeration<T>
    {
        private final Iterator<T> it;

        IteratorEnumeration(final Iterator<T> it)
        {
            this.it = it;
        }

        @Override
        public boolean hasMoreElements()
        {
            return it.hasNext();
        }

        @Override
        public T nextElement()
        {
            return it.next();
        }
    }
}
