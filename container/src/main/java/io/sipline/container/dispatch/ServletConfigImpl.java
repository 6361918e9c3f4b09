package io.sipline.container.dispatch;

import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;

import javax.servlet.ServletConfig;
import javax.servlet.ServletContext;

/**
 * The {@link ServletConfig} a servlet's {@code init} gets: its name, init parameters (descriptor order) and the
 * application's context.
 * <p>
 * Threading: immutable.
 */
record ServletConfigImpl(String name, Map<String, String> parameters, ServletContext context) implements ServletConfig
{
    @Override
    public String getServletName()
    {
        return name;
    }

    @Override
    public ServletContext getServletContext()
    {
        return context;
    }

    @Override
    public String getInitParameter(final String parameter)
    {
        return parameters.get(parameter);
    }

    @Override
    public Enumeration<String> getInitParameterNames()
    {
        return Collections.enumeration(parameters.keySet());
    }
}
