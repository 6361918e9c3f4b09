package io.sipline.container.web;

import java.lang.classfile.Annotation;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.EventListener;
import java.util.List;
import java.util.Set;

import javax.servlet.DispatcherType;
import javax.servlet.Filter;
import javax.servlet.FilterRegistration;
import javax.servlet.Servlet;
import javax.servlet.ServletContainerInitializer;
import javax.servlet.ServletContext;
import javax.servlet.ServletException;
import javax.servlet.ServletRegistration;
import javax.servlet.annotation.WebFilter;
import javax.servlet.annotation.WebInitParam;
import javax.servlet.annotation.WebListener;
import javax.servlet.annotation.WebServlet;

import io.sipline.container.deploy.ApplicationArchive;
import io.sipline.container.deploy.DeploymentException;

/**
 * The Servlet 3.1 §8.1 annotations of an application's web half ({@code @WebServlet}, {@code @WebFilter},
 * {@code @WebListener}): found in its class files without loading them ({@link #scan}, the JDK class-file API on the
 * files whose bytes mention {@code javax/servlet/annotation/Web}), then registered through the standard
 * {@link ServletContext} API when the engine starts the context ({@link #onStartup}, a
 * {@link ServletContainerInitializer}), after web.xml: a servlet or filter web.xml names already is left as web.xml
 * declares it (Servlet 3.1 §8.2.3). The same initializer puts the {@link ConvergedFilter} first in the chain and the
 * {@link SessionBinding} among the listeners.
 * <p>
 * Threading: {@link #scan} on the deploying thread; {@link #onStartup} on the thread that starts the context.
 */
final class WebAnnotations implements ServletContainerInitializer
{
    private static final byte[] MARKER = "javax/servlet/annotation/Web".getBytes(StandardCharsets.US_ASCII);
    private static final String SERVLET = "Ljavax/servlet/annotation/WebServlet;";
    private static final String FILTER = "Ljavax/servlet/annotation/WebFilter;";
    private static final String LISTENER = "Ljavax/servlet/annotation/WebListener;";

    private final List<String> servlets = new ArrayList<>();
    private final List<String> filters = new ArrayList<>();
    private final List<String> listeners = new ArrayList<>();
    private SessionBinding binding;

    private WebAnnotations()
    {
    }

    /**
     * @param source the WAR or exploded directory.
     * @return the annotated classes of its {@code WEB-INF/classes} and {@code WEB-INF/lib/*.jar}, by name.
     * @throws DeploymentException when the archive or a class file that mentions the annotations cannot be read.
     */
    static WebAnnotations scan(final Path source) throws DeploymentException
    {
        final WebAnnotations found = new WebAnnotations();
        try (ApplicationArchive archive = ApplicationArchive.open(source))
        {
            archive.forEachClass((origin, bytes) ->
            {
                if (mentions(bytes))
                {
                    found.accept(origin, bytes);
                }
            });
        }
        return found;
    }

    /** Whether any annotated class was found. */
    boolean isEmpty()
    {
        return servlets.isEmpty() && filters.isEmpty() && listeners.isEmpty();
    }

    /** The converged filter and session listener to install with the annotated classes. */
    WebAnnotations with(final SessionBinding sessionBinding)
    {
        this.binding = sessionBinding;
        return this;
    }

    private void accept(final String origin, final byte[] bytes) throws DeploymentException
    {
        final ClassModel model;
        try
        {
            model = ClassFile.of().parse(bytes);
        }
        catch (final IllegalArgumentException e)
        {
            throw new DeploymentException(origin, DeploymentException.NO_LINE,
                "malformed class file: " + e.getMessage(), e);
        }
        final String name = model.thisClass().asInternalName().replace('/', '.');
        model.findAttribute(Attributes.runtimeVisibleAnnotations()).ifPresent(a ->
        {
            for (final Annotation annotation : a.annotations())
            {
                switch (annotation.className().stringValue())
                {
                    case SERVLET -> servlets.add(name);
                    case FILTER -> filters.add(name);
                    case LISTENER -> listeners.add(name);
                    default ->
                    {
                    }
                }
            }
        });
    }

    private static boolean mentions(final byte[] bytes)
    {
        outer:
        for (int i = 0; i + MARKER.length <= bytes.length; i++)
        {
            for (int j = 0; j < MARKER.length; j++)
            {
                if (bytes[i + j] != MARKER[j])
                {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Override
    public void onStartup(final Set<Class<?>> ignored, final ServletContext context) throws ServletException
    {
        if (null != binding)
        {
            final FilterRegistration.Dynamic converged = context.addFilter(ConvergedFilter.NAME,
                new ConvergedFilter(binding));
            converged.setAsyncSupported(true); // else no servlet behind it could start async (Servlet 3.1 §2.3.3.3)
            converged.addMappingForUrlPatterns(EnumSet.allOf(DispatcherType.class), false, "/*");
            context.addListener(binding);
        }
        final ClassLoader loader = context.getClassLoader();
        for (final String name : listeners)
        {
            context.addListener(load(loader, name, EventListener.class));
        }
        for (final String name : filters)
        {
            addFilter(context, load(loader, name, Filter.class));
        }
        for (final String name : servlets)
        {
            addServlet(context, load(loader, name, Servlet.class));
        }
    }

    private static <T> Class<? extends T> load(final ClassLoader loader, final String name, final Class<T> type)
        throws ServletException
    {
        final Class<?> found;
        try
        {
            found = Class.forName(name, false, loader);
        }
        catch (final ClassNotFoundException | LinkageError e)
        {
            throw new ServletException("class " + name + " cannot be loaded: " + e, e);
        }
        if (!type.isAssignableFrom(found))
        {
            throw new ServletException(name + " is annotated as a web " + type.getSimpleName().toLowerCase()
                + " but is no " + type.getName());
        }
        return found.asSubclass(type);
    }

    private static void addServlet(final ServletContext context, final Class<? extends Servlet> type)
    {
        final WebServlet a = type.getAnnotation(WebServlet.class);
        final String name = a.name().isEmpty() ? type.getName() : a.name();
        final ServletRegistration.Dynamic servlet = context.addServlet(name, type);
        if (null == servlet)
        {
            return; // web.xml declares it
        }
        servlet.addMapping(a.urlPatterns().length > 0 ? a.urlPatterns() : a.value());
        servlet.setLoadOnStartup(a.loadOnStartup());
        servlet.setAsyncSupported(a.asyncSupported());
        for (final WebInitParam p : a.initParams())
        {
            servlet.setInitParameter(p.name(), p.value());
        }
    }

    private static void addFilter(final ServletContext context, final Class<? extends Filter> type)
    {
        final WebFilter a = type.getAnnotation(WebFilter.class);
        final String name = a.filterName().isEmpty() ? type.getName() : a.filterName();
        final FilterRegistration.Dynamic filter = context.addFilter(name, type);
        if (null == filter)
        {
            return; // web.xml declares it
        }
        final EnumSet<DispatcherType> types = EnumSet.noneOf(DispatcherType.class);
        types.addAll(Arrays.asList(a.dispatcherTypes()));
        final String[] patterns = a.urlPatterns().length > 0 ? a.urlPatterns() : a.value();
        if (patterns.length > 0)
        {
            filter.addMappingForUrlPatterns(types, true, patterns);
        }
        if (a.servletNames().length > 0)
        {
            filter.addMappingForServletNames(types, true, a.servletNames());
        }
        filter.setAsyncSupported(a.asyncSupported());
        for (final WebInitParam p : a.initParams())
        {
            filter.setInitParameter(p.name(), p.value());
        }
    }
}
