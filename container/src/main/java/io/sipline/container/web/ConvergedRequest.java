package io.sipline.container.web;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletRequestWrapper;
import javax.servlet.http.HttpSession;

import io.sipline.container.api.SipApplicationSessionImpl;

/**
 * An HTTP request of a converged application: its {@link #getSession} is a
 * {@link javax.servlet.sip.ConvergedHttpSession} (JSR 289 §13.3), bound to the application session that the request
 * URL names when it was encoded with {@code SipApplicationSession.encodeURL} (JSR 289 §13.4). The id is read from
 * the query string only, so that a form body is left for the application to read.
 * <p>
 * Threading: the HTTP thread that serves the request, as the request it wraps.
 */
final class ConvergedRequest extends HttpServletRequestWrapper
{
    private static final String PARAMETER = SipApplicationSessionImpl.ENCODED_URL_PARAMETER + "=";

    private final SessionBinding binding;
    private ConvergedHttpSessionImpl session;

    ConvergedRequest(final HttpServletRequest request, final SessionBinding binding)
    {
        super(request);
        this.binding = binding;
    }

    @Override
    public HttpSession getSession()
    {
        return getSession(true);
    }

    @Override
    public HttpSession getSession(final boolean create)
    {
        final HttpSession engine = super.getSession(create);
        if (null == engine)
        {
            return null;
        }
        if (null == session || !session.delegate().equals(engine))
        {
            session = new ConvergedHttpSessionImpl(engine, binding, getServerName(), getServerPort());
            final String encoded = encodedApplicationSessionId(getQueryString());
            if (null != encoded)
            {
                binding.bindEncoded(session, encoded);
            }
        }
        return session;
    }

    /** The application session id an encoded URL carries in {@code query}, or null. */
    static String encodedApplicationSessionId(final String query)
    {
        if (null == query)
        {
            return null;
        }
        for (final String pair : query.split("&"))
        {
            if (pair.startsWith(PARAMETER) && pair.length() > PARAMETER.length())
            {
                return URLDecoder.decode(pair.substring(PARAMETER.length()), StandardCharsets.UTF_8);
            }
        }
        return null;
    }
}
