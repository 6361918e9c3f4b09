package io.sipline.container.web;

import java.io.IOException;

import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;

import io.sipline.container.api.HttpRequestScope;

/**
 * The first filter of every converged application's chain (registered before those of web.xml): wraps each HTTP
 * request in a {@link ConvergedRequest}, so that the application's servlets and filters get
 * {@link javax.servlet.sip.ConvergedHttpSession}s, and opens the request's {@link HttpRequestScope}: the application
 * sessions it reaches are not invalidated when ready before it ends.
 * <p>
 * Threading: HTTP threads; holds only the application's {@link SessionBinding}.
 */
final class ConvergedFilter implements Filter
{
    /** The name it is registered under. */
    static final String NAME = "sipline-converged";

    private final SessionBinding binding;

    ConvergedFilter(final SessionBinding binding)
    {
        this.binding = binding;
    }

    @Override
    public void doFilter(final ServletRequest request, final ServletResponse response, final FilterChain chain)
        throws IOException, ServletException
    {
        if (request instanceof HttpServletRequest http && !(request instanceof ConvergedRequest))
        {
            final HttpRequestScope scope = HttpRequestScope.open();
            try
            {
                chain.doFilter(new ConvergedRequest(http, binding), response);
            }
            finally
            {
                scope.close();
            }
            return;
        }
        chain.doFilter(request, response);
    }
}
