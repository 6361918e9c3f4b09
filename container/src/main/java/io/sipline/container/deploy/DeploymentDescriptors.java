package io.sipline.container.deploy;

import java.io.ByteArrayInputStream;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import io.sipline.container.naming.EnvEntry;

/**
 * Builds the final deployment model of an application: reads {@code WEB-INF/sip.xml}, scans the annotations (unless
 * the descriptor says {@code metadata-complete="true"}), merges the two and checks the result.
 * <p>
 * Merge rules (JSR 289 §18, "the deployment descriptor overrides annotations"):
 * <ul>
 *   <li>application name: {@code app-name}, else {@code @SipApplication(name)}, else the archive's base name
 *       (the usual name of a 1.0 application, which has no {@code app-name});</li>
 *   <li>display name, description, session timeout, proxy timeout: sip.xml where it defines them, else the values
 *       written in {@code @SipApplication}; {@code distributable} if either says so;</li>
 *   <li>servlets: every sip.xml servlet; an annotated servlet is added unless sip.xml already declares a servlet of
 *       that name or of that class; two annotated servlets with one name are an error;</li>
 *   <li>listeners: sip.xml's, then annotated classes not already listed;</li>
 *   <li>servlet selection: sip.xml's {@code main-servlet} or mappings; else {@code @SipApplication(mainServlet)};
 *       else, when the application (not a 1.0 descriptor) has exactly one servlet, that servlet;</li>
 *   <li>an annotation whose {@code applicationName} names another application is an error, as is a second
 *       {@code @SipApplicationKey};</li>
 *   <li>env entries: sip.xml's, then those of {@code WEB-INF/web.xml} (a converged application's) whose names sip.xml
 *       does not declare.</li>
 * </ul>
 * Threading: stateless; safe from any thread.
 */
public final class DeploymentDescriptors
{
    private DeploymentDescriptors()
    {
    }

    /**
     * @param archive an opened application.
     * @return its validated deployment model.
     * @throws DeploymentException naming the file (and line or class) that prevents deployment.
     */
    public static SipApplicationDescriptor load(final ApplicationArchive archive) throws DeploymentException
    {
        final Optional<byte[]> sipXml = archive.sipXml();
        SipApplicationDescriptor descriptor = null;
        if (sipXml.isPresent())
        {
            descriptor = SipXmlReader.read(
                new ByteArrayInputStream(sipXml.get()), archive.describe(ApplicationArchive.SIP_XML));
        }
        final AnnotationScanResult annotations = null != descriptor && descriptor.metadataComplete()
            ? AnnotationScanResult.EMPTY : AnnotationScanner.scan(archive);
        if (null == descriptor && annotations.declaresNothing())
        {
            throw new DeploymentException(archive.path().toString(), "not a SIP application: no "
                + ApplicationArchive.SIP_XML + " and no class annotated with @SipApplication or @SipServlet");
        }
        final SipApplicationDescriptor merged =
            merge(descriptor, annotations, archive.baseName(), archive.path().toString());
        final Optional<byte[]> webXml = archive.read(EnvEntryReader.WEB_XML);
        if (webXml.isEmpty())
        {
            return merged;
        }
        final SipApplicationDescriptor.Builder builder = merged.toBuilder();
        for (final EnvEntry entry : EnvEntryReader.readWebXml(webXml.get(), archive.describe(EnvEntryReader.WEB_XML)))
        {
            builder.addEnvEntryIfAbsent(entry); // one name in both descriptors: sip.xml's value wins
        }
        return builder.build();
    }

    /**
     * @param sipXml        the descriptor read from sip.xml, or {@code null} when there is none.
     * @param annotations   the scan result.
     * @param defaultName   the application name to use when neither declares one.
     * @param archiveSource the archive's name, the source of a model without sip.xml.
     * @return the merged and validated model.
     * @throws DeploymentException when the two contradict each other or a reference dangles.
     */
    public static SipApplicationDescriptor merge(
        final SipApplicationDescriptor sipXml,
        final AnnotationScanResult annotations,
        final String defaultName,
        final String archiveSource) throws DeploymentException
    {
        final SipApplicationDescriptor.Builder builder = null != sipXml ? sipXml.toBuilder()
            : SipApplicationDescriptor.builder().source(archiveSource);
        final AnnotationScanResult.ApplicationAnnotation app = annotations.application();
        final String name = firstNonNull(
            null == sipXml ? null : sipXml.appName(), null == app ? null : app.name(), defaultName);
        builder.appName(name);
        if (null != app)
        {
            applicationAnnotation(sipXml, app, builder);
        }
        servlets(sipXml, annotations, name, builder);
        listeners(annotations, name, builder);
        applicationKey(annotations, name, builder);
        mainServlet(sipXml, app, builder);
        final SipApplicationDescriptor merged = builder.build();
        merged.validateReferences();
        return merged;
    }

    private static void applicationAnnotation(
        final SipApplicationDescriptor sipXml,
        final AnnotationScanResult.ApplicationAnnotation app,
        final SipApplicationDescriptor.Builder builder)
    {
        if (null == sipXml || null == sipXml.displayName())
        {
            builder.displayName(app.displayName());
        }
        if (null == sipXml || null == sipXml.description())
        {
            builder.description(app.description());
        }
        if (null == sipXml || null == sipXml.sessionTimeoutMinutes())
        {
            builder.sessionTimeoutMinutes(app.sessionTimeout());
        }
        if (null == sipXml || null == sipXml.proxyTimeoutSeconds())
        {
            builder.proxyTimeoutSeconds(app.proxyTimeout());
        }
        if (Boolean.TRUE.equals(app.distributable()))
        {
            builder.distributable(true);
        }
    }

    private static void servlets(
        final SipApplicationDescriptor sipXml,
        final AnnotationScanResult annotations,
        final String name,
        final SipApplicationDescriptor.Builder builder) throws DeploymentException
    {
        final Set<String> declaredClasses = new HashSet<>();
        if (null != sipXml)
        {
            for (final ServletDefinition servlet : sipXml.servlets().values())
            {
                declaredClasses.add(servlet.className());
            }
        }
        for (final AnnotationScanResult.AnnotatedServlet annotated : annotations.servlets())
        {
            final ServletDefinition servlet = annotated.definition();
            checkApplicationName("@SipServlet", annotated.applicationName(), name, servlet.source());
            final boolean inSipXml = null != sipXml && sipXml.servlets().containsKey(servlet.name());
            if (inSipXml || declaredClasses.contains(servlet.className()))
            {
                continue; // the descriptor wins
            }
            final ServletDefinition previous = builder.putServlet(servlet);
            if (null != previous)
            {
                throw new DeploymentException(servlet.source(), "two @SipServlet classes named '" + servlet.name()
                    + "': " + previous.className() + " and " + servlet.className());
            }
        }
    }

    private static void listeners(
        final AnnotationScanResult annotations,
        final String name,
        final SipApplicationDescriptor.Builder builder) throws DeploymentException
    {
        final Set<String> listed = new HashSet<>();
        for (final ListenerDefinition listener : builder.listeners())
        {
            listed.add(listener.className());
        }
        for (final AnnotationScanResult.AnnotatedListener annotated : annotations.listeners())
        {
            final ListenerDefinition listener = annotated.definition();
            checkApplicationName("@SipListener", annotated.applicationName(), name, listener.source());
            if (listed.add(listener.className()))
            {
                builder.addListener(listener);
            }
        }
    }

    private static void applicationKey(
        final AnnotationScanResult annotations,
        final String name,
        final SipApplicationDescriptor.Builder builder) throws DeploymentException
    {
        AnnotationScanResult.AnnotatedKey found = null;
        for (final AnnotationScanResult.AnnotatedKey key : annotations.applicationKeys())
        {
            checkApplicationName("@SipApplicationKey", key.applicationName(), name, key.origin());
            if (null != found)
            {
                throw new DeploymentException(key.origin(), "second @SipApplicationKey method "
                    + key.method().className() + '.' + key.method().methodName() + "; the first is "
                    + found.method().className() + '.' + found.method().methodName()
                    + " (one per application, JSR 289 §15.11.2)");
            }
            found = key;
        }
        if (null != found)
        {
            builder.applicationKey(found.method());
        }
    }

    private static void mainServlet(
        final SipApplicationDescriptor sipXml,
        final AnnotationScanResult.ApplicationAnnotation app,
        final SipApplicationDescriptor.Builder builder) throws DeploymentException
    {
        if (null != sipXml && (null != sipXml.mainServlet() || !sipXml.mappings().isEmpty()))
        {
            return; // sip.xml's selection wins
        }
        if (null != app && null != app.mainServlet())
        {
            final boolean known = builder.servlets().stream().anyMatch(s -> s.name().equals(app.mainServlet()));
            if (!known)
            {
                throw new DeploymentException(app.origin(), "@SipApplication(mainServlet = \"" + app.mainServlet()
                    + "\") is not a declared servlet");
            }
            builder.mainServlet(app.mainServlet(), DeploymentException.NO_LINE);
            return;
        }
        final boolean v10 = null != sipXml && SipXmlDialect.V1_0 == sipXml.dialect();
        if (!v10 && 1 == builder.servlets().size())
        {
            builder.mainServlet(builder.servlets().iterator().next().name(), DeploymentException.NO_LINE);
        }
    }

    private static void checkApplicationName(
        final String annotation, final String declared, final String name, final String origin)
        throws DeploymentException
    {
        if (null != declared && !declared.equals(name))
        {
            throw new DeploymentException(origin, annotation + "(applicationName = \"" + declared
                + "\") does not match the application name '" + name + '\'');
        }
    }

    @SafeVarargs
    private static <T> T firstNonNull(final T... values)
    {
        for (final T value : values)
        {
            if (null != value)
            {
                return value;
            }
        }
        return null;
    }
}
