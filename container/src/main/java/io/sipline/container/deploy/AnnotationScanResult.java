package io.sipline.container.deploy;

import java.util.List;

/**
 * What {@link AnnotationScanner} found in an application's classes (JSR 289 §18). Annotation elements that the class
 * file does not hold (left at their default) are {@code null} here, so that the merge with sip.xml can tell "not
 * given" from "given the default value".
 * <p>
 * Threading: an immutable record.
 *
 * @param application     the {@code @SipApplication} of a {@code package-info}, or {@code null}.
 * @param servlets        the {@code @SipServlet} classes, in scan order.
 * @param listeners       the {@code @SipListener} classes, in scan order.
 * @param applicationKeys the {@code @SipApplicationKey} methods (more than one is a deployment error at merge).
 */
public record AnnotationScanResult(
    ApplicationAnnotation application,
    List<AnnotatedServlet> servlets,
    List<AnnotatedListener> listeners,
    List<AnnotatedKey> applicationKeys)
{
    /** Freezes the lists. */
    public AnnotationScanResult
    {
        servlets = List.copyOf(servlets);
        listeners = List.copyOf(listeners);
        applicationKeys = List.copyOf(applicationKeys);
    }

    /** The result of scanning nothing. */
    public static final AnnotationScanResult EMPTY = new AnnotationScanResult(null, List.of(), List.of(), List.of());

    /**
     * @return whether no annotation declaring an application or a servlet was found.
     */
    public boolean declaresNothing()
    {
        return null == application && servlets.isEmpty();
    }

    /**
     * {@code @SipApplication} on a package ({@code package-info.class}).
     *
     * @param packageName    the annotated package.
     * @param origin         the class file it came from.
     * @param name           {@code name}, or {@code null}.
     * @param displayName    {@code displayName}, or {@code null}.
     * @param description    {@code description}, or {@code null}.
     * @param mainServlet    {@code mainServlet}, or {@code null}.
     * @param sessionTimeout {@code sessionTimeout} in minutes, or {@code null} (annotation default 3).
     * @param proxyTimeout   {@code proxyTimeout} in seconds, or {@code null} (annotation default 180).
     * @param distributable  {@code distributable}, or {@code null}.
     */
    public record ApplicationAnnotation(
        String packageName,
        String origin,
        String name,
        String displayName,
        String description,
        String mainServlet,
        Integer sessionTimeout,
        Integer proxyTimeout,
        Boolean distributable)
    {
        /** The annotation's default {@code sessionTimeout}, minutes. */
        public static final int DEFAULT_SESSION_TIMEOUT = 3;

        /** The annotation's default {@code proxyTimeout}, seconds. */
        public static final int DEFAULT_PROXY_TIMEOUT = 180;
    }

    /**
     * {@code @SipServlet} on a class.
     *
     * @param definition      the servlet (origin {@link DescriptorOrigin#ANNOTATION}).
     * @param applicationName {@code applicationName}, or {@code null}.
     */
    public record AnnotatedServlet(ServletDefinition definition, String applicationName)
    {
    }

    /**
     * {@code @SipListener} on a class.
     *
     * @param definition      the listener (origin {@link DescriptorOrigin#ANNOTATION}).
     * @param applicationName {@code applicationName}, or {@code null}.
     */
    public record AnnotatedListener(ListenerDefinition definition, String applicationName)
    {
    }

    /**
     * {@code @SipApplicationKey} on a method.
     *
     * @param method          the method.
     * @param applicationName {@code applicationName}, or {@code null}.
     * @param origin          the class file it came from.
     */
    public record AnnotatedKey(ApplicationKeyMethod method, String applicationName, String origin)
    {
    }
}
