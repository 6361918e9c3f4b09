package io.sipline.container.web;

import java.io.IOException;

import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;

/**
 * The first filter of every converged application's chain (registered before those of web.xml): wraps each HTTP
 * request in a {@link ConvergedRequest}, so that the application's servlets and filters get
 * {@link javax.servlet.sip.ConvergedHttpSession}s.
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
            chain.doFilter(new ConvergedRequest(http, binding), response);
            return;
        }
        chain.doFilter(request, response);
    }
}
